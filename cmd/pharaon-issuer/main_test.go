package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
)

// cli runs the tool as main does and returns its exit code and outputs.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliCtx(t, context.Background(), args...)
}

func cliCtx(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var o, e bytes.Buffer
	err := run(ctx, args, &o, &e)
	return exitCode(err), o.String(), e.String()
}

// names lists the files of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// keys creates NAME.key and NAME.pub in dir.
func keys(t *testing.T, dir, name string) (key, pub string) {
	t.Helper()
	code, _, stderr := cli(t, "keygen", "-out", filepath.Join(dir, name))
	require.Equal(t, 0, code, stderr)
	return filepath.Join(dir, name+".key"), filepath.Join(dir, name+".pub")
}

func TestUsage(t *testing.T) {
	dir := t.TempDir()
	key, pub := keys(t, dir, "k")
	out := filepath.Join(dir, "b.pblk")
	gen := func(extra ...string) []string {
		args := map[string]string{"-emission": "1", "-block": "2", "-stake": "1", "-key": key, "-out": out}
		for i := 0; i+1 < len(extra); i += 2 {
			args[extra[i]] = extra[i+1]
		}
		list := []string{"generate"}
		for _, f := range []string{"-emission", "-block", "-stake", "-key", "-out", "-bonus-share"} {
			if v, ok := args[f]; ok && v != "<none>" {
				list = append(list, f, v)
			}
		}
		return list
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"help", []string{"help"}, 0, "Usage :", ""},
		{"help in English", []string{"-lang", "en", "help"}, 0, "Exit status: 0 success, 1 failure", ""},
		{"-h", []string{"-h"}, 0, "Commandes :", ""},
		{"generate -h", []string{"generate", "-h"}, 0, "generate -emission N", ""},
		{"no command", nil, 2, "", "pharaon-issuer: no command"},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"unknown language", []string{"-lang", "de", "help"}, 2, "", `-lang "de": fr or en`},
		{"keygen without -out", []string{"keygen"}, 2, "", "keygen: -out NAME is required"},
		{"keygen extra argument", []string{"keygen", "-out", filepath.Join(dir, "x"), "y"}, 2, "", `keygen: unexpected argument "y"`},
		{"keygen unknown flag", []string{"keygen", "-force"}, 2, "", "keygen: flag provided but not defined: -force"},
		{"generate without flags", []string{"generate"}, 2, "", "generate: -emission N is required"},
		{"emission 0", gen("-emission", "0"), 2, "", "-emission N is required, from 1 to 4294967295"},
		{"emission too big", gen("-emission", "4294967296"), 2, "", "-emission N is required"},
		{"emission not a number", gen("-emission", "un"), 2, "", `invalid value "un" for flag -emission`},
		{"block missing", gen("-block", "<none>"), 2, "", "-block N is required"},
		{"stake missing", gen("-stake", "<none>"), 2, "", "-stake is required: 0,50, 1 or 2"},
		{"stake 0,75", gen("-stake", "0,75"), 2, "", `-stake "0,75": not a stake of the game`},
		{"key missing", gen("-key", "<none>"), 2, "", "-key FILE.key is required"},
		{"out missing", gen("-out", "<none>"), 2, "", "-out FILE is required"},
		{"bonus share: 3 values", gen("-bonus-share", "1,2,3"), 2, "", "3 values, want 8"},
		{"bonus share above 1000", gen("-bonus-share", "1001,0,0,0,0,0,0,0"), 2, "", `tier 1: "1001" is not a share from 0 to 1000`},
		{"bonus share negative", gen("-bonus-share", "0,0,-1,0,0,0,0,0"), 2, "", `tier 3: "-1"`},
		{"bonus share all zero", gen("-bonus-share", "0,0,0,0,0,0,0,0"), 2, "", "every share is 0"},
		{"generate extra argument", append(gen(), "b2.pblk"), 2, "", `generate: unexpected argument "b2.pblk"`},
		{"verify without key", []string{"verify", out}, 2, "", "verify: -key FILE.pub is required"},
		{"verify without file", []string{"verify", "-key", pub}, 2, "", "verify: no block file given"},
		{"inspect without file", []string{"inspect"}, 2, "", "inspect: one block file, got 0"},
		{"inspect two files", []string{"inspect", out, out}, 2, "", "inspect: one block file, got 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if c.code == 2 {
				args = append([]string{"-lang", "en"}, args...) // the messages below are the English ones
			}
			code, stdout, stderr := cli(t, args...)
			assert.Equal(t, c.code, code, "stderr: %s", stderr)
			assert.Contains(t, stdout, c.stdout)
			assert.Contains(t, stderr, c.stderr)
			if c.code == 2 {
				assert.Contains(t, stderr, "help", "misuse points to the help")
				assert.Empty(t, stdout)
			}
			assert.ElementsMatch(t, []string{"k.key", "k.pub"}, names(t, dir), "misuse writes nothing")
		})
	}
}

func TestKeygen(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := cli(t, "keygen", "-out", filepath.Join(dir, "issuer"))
	require.Equal(t, 0, code, stderr)
	keyPath, pubPath := filepath.Join(dir, "issuer.key"), filepath.Join(dir, "issuer.pub")
	ki, err := os.Stat(keyPath)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), ki.Mode().Perm(), "the private key is readable by its owner only")
	privPEM, err := os.ReadFile(keyPath)
	require.NoError(t, err)
	pubPEM, err := os.ReadFile(pubPath)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(privPEM), "-----BEGIN PRIVATE KEY-----\n"))
	assert.True(t, strings.HasPrefix(string(pubPEM), "-----BEGIN PUBLIC KEY-----\n"))
	priv, err := readPrivateKey(keyPath)
	require.NoError(t, err)
	pub, err := readPublicKey(pubPath)
	require.NoError(t, err)
	assert.Equal(t, priv.Public(), pub, "the two files are one pair")
	assert.Contains(t, stdout, "clé "+block.KeyIDOf(pub).String()+" créée")

	// Never overwritten, not even half.
	code, _, stderr = cli(t, "-lang", "en", "keygen", "-out", filepath.Join(dir, "issuer"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "issuer.key: already exists; it is never overwritten")
	again, err := os.ReadFile(keyPath)
	require.NoError(t, err)
	assert.Equal(t, privPEM, again)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "half.pub"), []byte("x"), 0o644))
	code, _, stderr = cli(t, "-lang", "en", "keygen", "-out", filepath.Join(dir, "half"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "half.pub: already exists")
	assert.NoFileExists(t, filepath.Join(dir, "half.key"))

	code, _, stderr = cli(t, "-lang", "en", "keygen", "-out", filepath.Join(dir, "no", "such", "dir", "k"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no such file or directory")
	assert.ElementsMatch(t, []string{"issuer.key", "issuer.pub", "half.pub"}, names(t, dir))
}

// lotRow is one row of inspect's lot table.
type lotRow struct {
	tier         string
	lots, table  int
	amount, sum  game.Money
	bonus        int
	odds         float64
	combinations string
}

// inspection is what inspect printed, parsed back.
type inspection struct {
	header map[string]string
	rows   []lotRow
	totals map[string]string
}

var cells = regexp.MustCompile(` {2,}`)

func frInt(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.ReplaceAll(s, "\u00a0", ""))
	require.NoError(t, err, s)
	return n
}

func frFloat(t *testing.T, s string) float64 {
	t.Helper()
	s = strings.TrimSuffix(strings.TrimSpace(s), "\u00a0%")
	f, err := strconv.ParseFloat(strings.ReplaceAll(strings.ReplaceAll(s, "\u00a0", ""), ",", "."), 64)
	require.NoError(t, err, s)
	return f
}

func frMoney(t *testing.T, s string) game.Money {
	t.Helper()
	m, err := game.ParseMoney(s)
	require.NoError(t, err, s)
	return m
}

// parseInspect reads the French output of inspect.
func parseInspect(t *testing.T, out string) inspection {
	t.Helper()
	in := inspection{header: map[string]string{}, totals: map[string]string{}}
	section := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case line == "":
			continue
		case !strings.HasPrefix(line, " "):
			section = line
			continue
		}
		f := cells.Split(strings.TrimSpace(line), -1)
		switch section {
		case "En-tête":
			require.Len(t, f, 2, line)
			in.header[f[0]] = f[1]
		case "Totaux":
			require.Len(t, f, 2, line)
			in.totals[f[0]] = f[1]
		case "Lots comptés dans les unités (Art. 3)":
			require.Len(t, f, 8, line)
			if f[0] == "rang" {
				assert.Equal(t, []string{"rang", "combinaison", "lots", "table", "montant", "total", "via bonus", "chances (1 sur)"}, f)
				continue
			}
			r := lotRow{tier: f[0], combinations: f[1], lots: frInt(t, f[2]), table: frInt(t, f[3]),
				bonus: frInt(t, f[6]), odds: frFloat(t, f[7])}
			if f[4] != "—" {
				r.amount, r.sum = frMoney(t, f[4]), frMoney(t, f[5])
			}
			in.rows = append(in.rows, r)
		default:
			t.Fatalf("line %q outside a section", line)
		}
	}
	return in
}

// checkInspection checks inspect's table row by row against game.Table,
// and its totals against the sum of its own rows.
func checkInspection(t *testing.T, in inspection, stake game.Stake, bonus [game.NumTiers]int) {
	t.Helper()
	tab := game.Table(stake)
	require.Len(t, in.rows, game.NumTiers+1)
	var lots, viaBonus int
	var total game.Money
	for i, p := range tab.Prizes {
		r := in.rows[i]
		assert.Equal(t, strconv.Itoa(int(p.Tier)), r.tier)
		assert.Equal(t, p.Lots, r.lots, "tier %d counted", p.Tier)
		assert.Equal(t, p.Lots, r.table, "tier %d in the table", p.Tier)
		assert.Equal(t, p.Amount, r.amount, "tier %d amount", p.Tier)
		assert.Equal(t, game.Money(r.lots)*r.amount, r.sum, "tier %d row total", p.Tier)
		assert.Equal(t, bonus[i], r.bonus, "tier %d via bonus", p.Tier)
		assert.InDelta(t, float64(game.UnitsPerBlock)/float64(r.lots), r.odds, 0.005, "tier %d odds", p.Tier)
		lots += r.lots
		viaBonus += r.bonus
		total += r.sum
	}
	losers := in.rows[game.NumTiers]
	assert.Equal(t, "perdants", losers.combinations)
	assert.Equal(t, tab.Losers(), losers.lots)
	assert.Equal(t, 0, losers.bonus)

	// The totals are the sums of the rows printed above them…
	assert.Equal(t, lots, frInt(t, in.totals["lots"]))
	assert.Equal(t, viaBonus, frInt(t, in.totals["dont par le bonus"]))
	assert.Equal(t, losers.lots, frInt(t, in.totals["perdants"]))
	assert.Equal(t, total, frMoney(t, in.totals["total des lots"]))
	sales := frMoney(t, in.totals["ventes"])
	assert.Equal(t, game.Money(lots+losers.lots)*stake.Money(), sales)
	assert.InDelta(t, 100*float64(total)/float64(sales), frFloat(t, in.totals["taux de redistribution"]), 0.005)
	assert.InDelta(t, float64(lots+losers.lots)/float64(lots), frFloat(t, in.totals["chances de gain (1 sur)"]), 0.005)
	// …and those of the regulation's table.
	assert.Equal(t, tab.Lots(), lots)
	assert.Equal(t, tab.Total(), total)
	assert.Equal(t, tab.Sales(), sales)
}

// Errors speak the language of the help: French by default, English with
// -lang en. A misuse is said wholly in the language; a failure starts with
// its reason in the language, then the technical detail of the file or
// block concerned.
func TestErrorsSpeakTheHelpsLanguage(t *testing.T) {
	dir := t.TempDir()
	key, pub := keys(t, dir, "k")
	missing := filepath.Join(dir, "missing.pblk")
	bad := filepath.Join(dir, "bad.pblk")
	require.NoError(t, os.WriteFile(bad, []byte("PHARAONB not really"), 0o644))
	for _, c := range []struct {
		name   string
		args   []string
		fr, en string
		misuse bool
	}{
		{"no command", nil, "aucune commande", "no command", true},
		{"unknown command", []string{"frobnicate"}, `commande inconnue « frobnicate »`, `unknown command "frobnicate"`, true},
		{"keygen without -out", []string{"keygen"}, "keygen : -out NOM est obligatoire", "keygen: -out NAME is required", true},
		{"unknown flag", []string{"keygen", "-force"}, "keygen : option inconnue : -force", "keygen: flag provided but not defined: -force", true},
		{"stake 0,75", []string{"generate", "-emission", "1", "-block", "1", "-stake", "0,75", "-key", key, "-out", filepath.Join(dir, "b")},
			`generate : -stake « 0,75 » : pas une mise du jeu`, `generate: -stake "0,75": not a stake of the game`, true},
		{"bonus shares", []string{"generate", "-emission", "1", "-block", "1", "-stake", "1", "-key", key, "-out", filepath.Join(dir, "b"),
			"-bonus-share", "1,2"}, "2 valeurs, il en faut 8", "2 values, want 8", true},
		{"key exists", []string{"keygen", "-out", filepath.Join(dir, "k")}, "existe déjà ; elle n'est jamais écrasée",
			"already exists; it is never overwritten", true},
		{"no such file", []string{"verify", "-key", pub, missing}, "pharaon-issuer : fichier introuvable : ", "no such file or directory", false},
		{"not a block", []string{"verify", "-key", pub, bad}, "pharaon-issuer : version de format inconnue : ", "unsupported block format version", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := cli(t, c.args...)
			assert.NotZero(t, code)
			assert.Contains(t, stderr, c.fr, "French by default")
			if c.misuse {
				assert.NotContains(t, stderr, c.en)
			}
			code, _, stderr = cli(t, append([]string{"-lang", "en"}, c.args...)...)
			assert.NotZero(t, code)
			assert.Contains(t, stderr, c.en, "English with -lang en")
			assert.NotContains(t, stderr, c.fr)
		})
	}
}
