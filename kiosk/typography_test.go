package kiosk

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCoreSendsCodesNotSentences reads the core's and the drivers' source:
// a Message is built of codes and values only (no string literal inside
// one: its words, and their French typography, are the screens'
// catalogue's, kiosk/ui/i18n.go, checked by kiosk/ui/typography_test.go),
// and no driver or core type names itself in French. The printed voucher's
// text (kiosk/voucher.go) is the one text of the core.
func TestCoreSendsCodesNotSentences(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, dir := range []string{"../hw/id003/*.go", "devsim/*.go"} {
		more, err := filepath.Glob(dir)
		require.NoError(t, err)
		files = append(files, more...)
	}
	fset := token.NewFileSet()
	messages := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Message" {
					messages++
					ast.Inspect(n, func(e ast.Node) bool {
						if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							t.Errorf("%s: a sentence in a Message: %s", fset.Position(lit.Pos()), lit.Value)
						}
						return true
					})
				}
			case *ast.FuncDecl:
				if n.Name.Name == "French" {
					t.Errorf("%s: %s names a value in words: the screens' catalogue does", fset.Position(n.Pos()), n.Name.Name)
				}
			case *ast.Field:
				for _, id := range n.Names {
					if id.Name == "FR" || id.Name == "EN" {
						t.Errorf("%s: a field %s holds words: the screens' catalogue does", fset.Position(id.Pos()), id.Name)
					}
				}
			}
			return true
		})
	}
	if messages < 20 {
		t.Fatalf("only %d Message literals found: the test no longer reads the source it means to", messages)
	}
}
