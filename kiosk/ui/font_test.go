package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/image/font/sfnt"

	"pharaon/game"
	"pharaon/kiosk/ui/art"
)

// The screens draw their text in the theme's font alone (art.TextFont),
// with no font to fall back on: every character they can show must be in
// it, in the regular and the bold style, or it would show as an empty box.
// The words are the string literals of the screens' packages (the
// catalogue, the game widget's words, the development panel's) and the
// amounts as both languages write them.
func TestScreensCharactersInTheirFont(t *testing.T) {
	var texts []string
	for _, dir := range []string{".", "play", "touch", "art"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			ast.Inspect(file, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						texts = append(texts, s)
					}
				}
				return true
			})
		}
	}
	require.NotEmpty(t, texts)
	for _, e := range catalogue {
		texts = append(texts, e.fr, e.en)
	}
	for _, m := range []game.Money{5, 50, 200, 375000, 150000000} {
		texts = append(texts, Tr{Lang: French}.Money(m), Tr{Lang: English}.Money(m))
	}
	for _, style := range []fyne.TextStyle{{}, {Bold: true}} {
		f, err := sfnt.Parse(art.TextFont(style).Content())
		require.NoError(t, err)
		var buf sfnt.Buffer
		missing := map[rune]string{}
		for _, s := range texts {
			for _, r := range s {
				if r < ' ' || r == 0xFFFD {
					continue // line breaks, tabs; not a drawn character
				}
				if g, err := f.GlyphIndex(&buf, r); err != nil || g == 0 {
					missing[r] = s
				}
			}
		}
		for r, s := range missing {
			assert.Failf(t, "character not in the screens' font", "%U %q (bold %v) in %q", r, r, style.Bold, s)
		}
	}
}
