package maint

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/kiosk/ui"
)

// counted is a count written before a word: the word's plural is the
// count's, Tr.Count's, not the text's.
var counted = regexp.MustCompile(`%d[ \x{a0}]\p{L}{2,}[sx]($|[^\p{L}])`)

// TestGlossary: the maintenance screen uses the glossary's words
// (docs/glossary.md): no text of its catalogue, its events' and its
// sources' words uses, in its language, a word the glossary forbids, and
// no text writes a count before a noun ("1 billets": Tr.Count does).
func TestGlossary(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "glossary.md"))
	require.NoError(t, err)
	g, err := ui.ParseGlossary(string(md))
	require.NoError(t, err)
	require.NotEmpty(t, g.Faults(ui.French, "Payer un ticket"))
	check := func(name string, e text) {
		t.Helper()
		for _, l := range []ui.Lang{ui.French, ui.English} {
			s := Tr{Lang: l}.pickWord(e)
			for _, f := range g.Faults(l, s) {
				t.Errorf("%s (%s): %s in %q", name, l, f, s)
			}
			if counted.MatchString(s) {
				t.Errorf("%s (%s): a count before a noun in %q: Tr.Count writes it", name, l, s)
			}
		}
	}
	for k, e := range catalogue {
		check(string(k), e)
	}
	for k, e := range eventWords {
		check("event "+k, e)
	}
	for k, e := range sourceWords {
		check("source "+k, e)
	}
}
