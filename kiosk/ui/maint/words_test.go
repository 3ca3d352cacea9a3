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
// they use: the first argument of every T and F call, every word("…")
// conversion and every View's Title, when written as a literal.
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
				switch fn := x.Fun.(type) {
				case *ast.SelectorExpr:
					key = fn.Sel.Name == "T" || fn.Sel.Name == "F"
				case *ast.Ident:
					key = fn.Name == "word"
				}
				if s, ok := lit(x.Args[0]); key && ok {
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
