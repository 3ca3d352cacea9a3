package maint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/kiosk/ui"
)

// usedWords reads the package's files (not its tests) for the word keys
// they use: the first argument of every T and F call, the noun of every
// Count call, every word("…") conversion and every View's Title, when
// written as a literal.
func usedWords(t *testing.T) map[word][]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	used := map[word][]string{}
	lit := func(e ast.Expr) (string, bool) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(b.Value)
		return s, err == nil
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				if len(x.Args) == 0 {
					return true
				}
				var key bool
				arg := x.Args[0]
				switch fn := x.Fun.(type) {
				case *ast.SelectorExpr:
					key = fn.Sel.Name == "T" || fn.Sel.Name == "F"
					if fn.Sel.Name == "Count" && len(x.Args) == 2 {
						key, arg = true, x.Args[1]
					}
				case *ast.Ident:
					key = fn.Name == "word"
				}
				if s, ok := lit(arg); key && ok {
					used[word(s)] = append(used[word(s)], fset.Position(x.Pos()).String())
				}
			case *ast.KeyValueExpr:
				if id, ok := x.Key.(*ast.Ident); ok && id.Name == "Title" {
					if s, ok := lit(x.Value); ok {
						used[word(s)] = append(used[word(s)], fset.Position(x.Pos()).String())
					}
				}
			}
			return true
		})
	}
	return used
}

// Every key the package's files use is in the catalogue, in French and in
// English; every French text follows French typography (the player's
// screens' rule, ui.FrenchTypographyFaults).
func TestWordsInTheCatalogue(t *testing.T) {
	used := usedWords(t)
	require.NotEmpty(t, used)
	for k, where := range used {
		e, ok := catalogue[k]
		if !ok {
			t.Errorf("word %q used at %s is not in the catalogue", k, strings.Join(where, ", "))
			continue
		}
		if strings.TrimSpace(e.fr) == "" || strings.TrimSpace(e.en) == "" {
			t.Errorf("word %q: French %q, English %q: both are needed", k, e.fr, e.en)
		}
	}
	for k, e := range catalogue {
		if strings.HasPrefix(string(k), "n.") && (strings.Count(e.fr, "|") != 1 || strings.Count(e.en, "|") != 1) {
			t.Errorf("noun %q: %q, %q: a noun counted is singular|plural", k, e.fr, e.en)
		}
		for _, fault := range ui.FrenchTypographyFaults(e.fr) {
			t.Errorf("word %q: %s in %q", k, fault, e.fr)
		}
		if strings.Count(e.fr, "%") != strings.Count(e.en, "%") {
			t.Errorf("word %q: French and English do not take the same arguments: %q, %q", k, e.fr, e.en)
		}
	}
}

// The check finds what it should: a key not in the catalogue, and a French
// text with an ordinary space before a colon.
func TestWordsCheckFindsFaults(t *testing.T) {
	require.NotEmpty(t, ui.FrenchTypographyFaults("Crédit : 5 €"))
	require.Empty(t, ui.FrenchTypographyFaults("Crédit\u00a0: 5 €"))
	_, ok := catalogue["pin.title"]
	require.True(t, ok)
	require.Contains(t, usedWords(t), word("pin.title"))
	_, ok = catalogue["no.such.word"]
	require.False(t, ok)
	require.Equal(t, "[no.such.word]", Tr{}.T("no.such.word"))
}

// A count takes the singular or the plural its language asks for: French
// "0 billet", "1 billet", "2 billets"; English "0 notes", "1 note".
func TestCountPlural(t *testing.T) {
	fr, en := Tr{Lang: ui.French}, Tr{Lang: ui.English}
	for _, c := range []struct {
		tr   Tr
		n    int64
		want string
	}{
		{fr, 0, "0\u00a0billet"}, {fr, 1, "1\u00a0billet"}, {fr, 2, "2\u00a0billets"},
		{fr, 350000, "350\u00a0000\u00a0unités de jeu"},
		{en, 0, "0\u00a0notes"}, {en, 1, "1\u00a0note"}, {en, 2, "2\u00a0notes"},
	} {
		noun := word("n.note")
		if c.n == 350000 {
			noun = "n.unit"
		}
		require.Equal(t, c.want, c.tr.Count(c.n, noun))
	}
}
