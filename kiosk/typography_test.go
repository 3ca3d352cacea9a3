package kiosk

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// frenchFault says what breaks French typography in s: a straight
// apostrophe (’ is the French one), or an ordinary space before : ; ! ?
// (a no-break space goes there, so the sign never starts a line).
func frenchFault(s string) string {
	if strings.Contains(s, "'") {
		return "straight apostrophe"
	}
	for _, sign := range []string{" :", " ;", " !", " ?"} {
		if strings.Contains(s, sign) {
			return "ordinary space before " + sign[1:]
		}
	}
	return ""
}

// TestMessagesFollowFrenchTypography reads every French text the core
// gives the screens (the FR of each Message literal, every string literal
// of it) and the drivers' French words, in the source itself.
func TestMessagesFollowFrenchTypography(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	more, err := filepath.Glob("../hw/id003/*.go")
	require.NoError(t, err)
	files = append(files, more...)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		check := func(e ast.Node) {
			ast.Inspect(e, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				checked++
				if why := frenchFault(s); why != "" {
					t.Errorf("%s: %q: %s", fset.Position(lit.Pos()), s, why)
				}
				return true
			})
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Message" {
					for _, el := range n.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "FR" {
								check(kv.Value)
							}
						}
					}
				}
			case *ast.FuncDecl:
				if n.Name.Name == "French" && n.Body != nil {
					check(n.Body)
				}
			}
			return true
		})
	}
	if checked < 20 {
		t.Fatalf("only %d French texts found: the test no longer reads the source it means to", checked)
	}
}
