package ui

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/hw/id003"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/ui/play"
)

// declaredConsts reads the string constants of the given type (or, if typ is
// empty, whose name starts with prefix) declared in the Go files matched by
// pattern: name → value.
func declaredConsts(t *testing.T, pattern, typ, prefix string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	require.NoError(t, err)
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if typ != "" && (!ok || id.Name != typ) {
					continue
				}
				for i, n := range vs.Names {
					if prefix != "" && !strings.HasPrefix(n.Name, prefix) {
						continue
					}
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					require.NoError(t, err)
					out[n.Name] = v
				}
			}
		}
	}
	return out
}

var verbs = regexp.MustCompile(`%[-+# 0]*[0-9]*(\.[0-9]+)?[a-zA-Z%]`)

func TestCatalogueHasEveryKeyInBothLanguages(t *testing.T) {
	keys := declaredConsts(t, "i18n.go", "msg", "")
	require.NotEmpty(t, keys)
	seen := map[msg]string{}
	for name, k := range keys {
		if other, dup := seen[msg(k)]; dup {
			t.Errorf("%s and %s share the key %q", name, other, k)
		}
		seen[msg(k)] = name
		e, ok := catalogue[msg(k)]
		if !assert.True(t, ok, "%s (%q) is not in the catalogue", name, k) {
			continue
		}
		assert.NotEmpty(t, strings.TrimSpace(e.fr), "%s has no French text", name)
		assert.NotEmpty(t, strings.TrimSpace(e.en), "%s has no English text", name)
		assert.Equal(t, verbs.FindAllString(e.fr, -1), verbs.FindAllString(e.en, -1),
			"%s: French and English take the same arguments", name)
	}
	for k := range catalogue {
		assert.Contains(t, seen, k, "catalogue entry %q has no declared key", k)
	}
}

func TestCatalogueTypesNoAmount(t *testing.T) {
	// Amounts come from the prize table and game.Money, never from a text
	// (DESIGN.md invariant 5): no text holds a figure followed by €.
	amount := regexp.MustCompile(`[0-9][0-9 \x{a0},.]*\s?€|€\s?[0-9]`)
	for k, e := range catalogue {
		assert.False(t, amount.MatchString(e.fr), "%s: %q", k, e.fr)
		assert.False(t, amount.MatchString(e.en), "%s: %q", k, e.en)
	}
}

func TestTrMissingKeyShows(t *testing.T) {
	assert.Equal(t, "[no.such.key]", Tr{Lang: French}.T("no.such.key"))
}

func TestTrMoneyAndNames(t *testing.T) {
	cases := []struct {
		lang Lang
		m    game.Money
		want string
	}{
		{French, 375000, "3\u00a0750\u00a0€"},
		{French, 50, "0,50\u00a0€"},
		{French, 3750, "37,50\u00a0€"},
		{English, 375000, "€3,750"},
		{English, 50, "€0.50"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Tr{Lang: c.lang}.Money(c.m))
	}
	comb := func(s game.Symbol, n int) game.Combination {
		c, ok := game.CombinationOf(s, n)
		require.True(t, ok)
		return c
	}
	names := []struct {
		lang Lang
		c    game.Combination
		want string
	}{
		{French, comb(game.Bird, 3), "3 oiseaux"},
		{French, comb(game.Scarab, 2), "2 scarabées"},
		{French, comb(game.Eye, 3), "3 yeux"},
		{French, comb(game.Cross, 2), "2 croix"},
		{French, game.BonusCombination(), "3 serpents"},
		{English, comb(game.Head, 3), "3 heads"},
		{English, comb(game.Cross, 2), "2 crosses"},
	}
	for _, c := range names {
		assert.Equal(t, c.want, Tr{Lang: c.lang}.Combination(c.c))
	}
	assert.Equal(t, "œil", Tr{Lang: French}.SymbolName(game.Eye, 1))
	assert.Equal(t, "Auto", Tr{Lang: French}.Mode(breakout.Auto))
	assert.Equal(t, "Jouer", Tr{Lang: French}.Mode(breakout.Play))
	assert.Equal(t, "Play", Tr{Lang: English}.Mode(breakout.Play))
}

func TestParseLang(t *testing.T) {
	for in, want := range map[string]Lang{"fr": French, "FR": French, " en ": English, "En": English} {
		got, err := ParseLang(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, strings.ToLower(strings.TrimSpace(in)), got.String())
	}
	for _, in := range []string{"", "de", "french", "f"} {
		_, err := ParseLang(in)
		assert.ErrorIs(t, err, ErrBadLang, in)
	}
}

func TestEveryFaultHasAMessage(t *testing.T) {
	codes := declaredConsts(t, filepath.Join("..", "*.go"), "", "Fault")
	require.NotEmpty(t, codes, "the kiosk's fault codes")
	for name, code := range codes {
		for _, l := range []Lang{French, English} {
			text := Tr{Lang: l}.Fault(kiosk.Fault{Code: code})
			assert.NotContains(t, text, code, "%s has no %s message", name, l)
		}
	}
	assert.Equal(t, "Défaut\u00a0: printer_jam", Tr{Lang: French}.Fault(kiosk.Fault{Code: "printer_jam"}))
}

// indexed are the verbs of a core message's text, which place its values by
// index (%[1]s): French and English may place them in another order.
var indexed = regexp.MustCompile(`%\[[1-4]\]s`)

// The core sends codes (kiosk.MessageCode): every code it declares has its
// words in both languages, placing the same values, and nothing else is
// in coreWords.
func TestEveryCoreCodeHasWords(t *testing.T) {
	codes := declaredConsts(t, filepath.Join("..", "*.go"), "MessageCode", "")
	require.Greater(t, len(codes), 30, "the core's message codes")
	seen := map[kiosk.MessageCode]bool{}
	for name, code := range codes {
		c := kiosk.MessageCode(code)
		seen[c] = true
		e, ok := coreWords[c]
		if !assert.True(t, ok, "%s (%q) has no words", name, code) {
			continue
		}
		assert.NotEmpty(t, strings.TrimSpace(e.fr), name)
		assert.NotEmpty(t, strings.TrimSpace(e.en), name)
		fr, en := indexed.FindAllString(e.fr, -1), indexed.FindAllString(e.en, -1)
		slices.Sort(fr)
		slices.Sort(en)
		assert.Equal(t, fr, en, "%s: French and English place the same values", name)
		assert.Equal(t, len(verbs.FindAllString(e.fr, -1)), 0, "%s: only indexed verbs", name)
		for _, l := range []Lang{French, English} {
			text := Tr{Lang: l}.Message(kiosk.Message{Code: c, Detail: "stacker_open", Amount: 151 * game.Euro, Limit: 200 * game.Euro},
				5*game.Euro, 10*game.Euro)
			assert.NotContains(t, text, "%!", "%s in %s: %q", name, l, text)
			assert.NotContains(t, text, "[", "%s in %s: %q", name, l, text)
		}
	}
	for c := range coreWords {
		assert.True(t, seen[c], "coreWords has %q, which the core does not declare", c)
	}
}

// The bill validator's driver sends its states and reject reasons as
// codes: every one has words (a state for staff, a reason in the
// player's words).
func TestEveryValidatorCodeHasWords(t *testing.T) {
	require.NotEmpty(t, id003.States())
	for _, st := range id003.States() {
		_, ok := stateWords[st.Key()]
		assert.True(t, ok, "state %s (%q) has no words", st, st.Key())
	}
	assert.Len(t, stateWords, len(id003.States()))
	require.NotEmpty(t, id003.RejectReasons())
	for _, r := range id003.RejectReasons() {
		k, ok := rejectWords[r.Key()]
		if assert.True(t, ok, "reject reason %s (%q) has no words", r, r.Key()) {
			assert.Contains(t, catalogue, k)
		}
	}
	assert.Len(t, rejectWords, len(id003.RejectReasons()))
}

// The simulated devices send their faults and refusals as codes: the
// development panel has words for each.
func TestEveryDevsimCodeHasWords(t *testing.T) {
	for _, f := range devsim.Faults {
		assert.Contains(t, devFaultWords, string(f))
	}
	assert.Len(t, devFaultWords, len(devsim.Faults))
	codes := declaredConsts(t, filepath.Join("..", "devsim", "*.go"), "RefusalCode", "")
	require.NotEmpty(t, codes)
	for name, code := range codes {
		assert.Contains(t, devRefusalWords, code, name)
	}
	assert.Len(t, devRefusalWords, len(codes))
	for _, e := range devRefusalWords {
		assert.LessOrEqual(t, len([]rune(e.fr)), 48, "short enough for the panel's header: %q", e.fr)
	}
}

// The money messages say why in the player's words, with the amounts.
func TestMoneyMessagesInThePlayersWords(t *testing.T) {
	fr, en := Tr{Lang: French}, Tr{Lang: English}
	over := kiosk.Message{Code: kiosk.MsgNoteOverMax, Amount: 151 * game.Euro, Limit: 200 * game.Euro}
	assert.Equal(t, "Il porterait votre crédit de 151\u00a0€ au-delà du maximum de 200\u00a0€.", fr.Message(over))
	assert.Equal(t, "It would take your credit of €151 over the €200 maximum.", en.Message(over))
	notes := []game.Money{5 * game.Euro, 10 * game.Euro, 20 * game.Euro, 50 * game.Euro}
	inhibited := kiosk.Message{Code: kiosk.MsgNoteRejected, Detail: id003.RejectInhibited.Key()}
	assert.Equal(t, "Cette borne prend les billets de 5\u00a0€, 10\u00a0€, 20\u00a0€ et 50\u00a0€.", fr.Message(inhibited, notes...))
	assert.Equal(t, "This kiosk takes €5, €10, €20 and €50 notes.", en.Message(inhibited, notes...))
	fake := kiosk.Message{Code: kiosk.MsgNoteRejected, Detail: id003.RejectPhotoPattern.Key()}
	assert.Equal(t, "Ce billet n’a pas été reconnu. Vérifiez-le et réessayez, ou adressez-vous au personnel.", fr.Message(fake))
	assert.NotContains(t, fr.Message(fake), "optique")
	state := kiosk.Message{Code: kiosk.MsgValidatorState, Detail: id003.StateStackerOpen.Key()}
	assert.Equal(t, "Caisse ouverte ou absente", fr.Message(state))
	assert.Equal(t, "Cash box open or out", en.Message(state))
	held := kiosk.Message{Code: kiosk.MsgNoteHeld, Amount: 10 * game.Euro}
	assert.Equal(t, "Billet de 10\u00a0€ à vérifier par le personnel", fr.Message(held))
	assert.Equal(t, "", fr.Message(kiosk.Message{}))
	assert.Equal(t, "0,50\u00a0€ ou 1\u00a0€", fr.Stakes([]game.Stake{game.Stake050, game.Stake100}))
}

// The finish button's caption names the bricks left that offer it as the
// game widget counts them (play.FinishBricks), with the seconds: the
// catalogue writes the number out, so that its noun's plural is its own.
func TestFinishWaitNamesTheBricks(t *testing.T) {
	for _, l := range []Lang{French, English} {
		w := PlayWords(l)
		s := fmt.Sprintf(w.FinishWait, 17)
		assert.NotContains(t, s, "%!", "one count, the seconds")
		assert.Contains(t, s, "17\u00a0s")
		assert.Regexp(t, `\b`+strconv.Itoa(play.FinishBricks)+` \pL`, s, "the bricks left")
		s = fmt.Sprintf(w.FinishWaitBonus, 17)
		assert.NotContains(t, s, "%!")
		assert.Contains(t, s, "17\u00a0s")
	}
}
