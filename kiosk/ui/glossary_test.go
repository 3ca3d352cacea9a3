package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readGlossary is docs/glossary.md's forbidden words.
func readGlossary(t *testing.T) Glossary {
	t.Helper()
	md, err := os.ReadFile(filepath.Join("..", "..", "docs", "glossary.md"))
	require.NoError(t, err)
	g, err := ParseGlossary(string(md))
	require.NoError(t, err)
	return g
}

// counted is a count written before a word: the word's plural is the
// count's (Tr.Count in the maintenance screen), not the text's.
var counted = regexp.MustCompile(`%d[ \x{a0}]\p{L}{2,}[sx]($|[^\p{L}])`)

// TestGlossary: the player's screens use the glossary's words
// (docs/glossary.md): no text uses, in its language, a word it forbids,
// and no text writes a count before a noun whose plural it cannot know
// ("1 billets").
func TestGlossary(t *testing.T) {
	g := readGlossary(t)
	require.Greater(t, g.Words(French), 10)
	require.Greater(t, g.Words(English), 10)
	require.NotEmpty(t, g.Faults(French, "Payer un ticket"), "ticket is not the voucher")
	require.NotEmpty(t, g.Faults(English, "Ticket blocks"), "nor a game unit")
	require.NotEmpty(t, g.Faults(French, "Cassette pleine"))
	require.Empty(t, g.Faults(French, "Bon de paiement n° 000001"))
	require.Empty(t, g.Faults(French, "les lots par bloc"), "lot is the regulation's prize")

	check := func(name string, e text) {
		t.Helper()
		for _, l := range []Lang{French, English} {
			s := e.fr
			if l == English {
				s = e.en
			}
			for _, f := range g.Faults(l, s) {
				t.Errorf("%s (%s): %s in %q", name, l, f, s)
			}
			if counted.MatchString(s) {
				t.Errorf("%s (%s): a count before a noun in %q", name, l, s)
			}
		}
	}
	for k, e := range catalogue {
		check(string(k), e)
	}
	for k, e := range coreWords {
		check(string(k), e)
	}
	for _, words := range []map[string]text{stateWords, devFaultWords, devRefusalWords} {
		for k, e := range words {
			check(k, e)
		}
	}
	assert.Len(t, g.Faults(French, "2 Tickets"), 2, "found whatever its case and number, once for each meaning it must not name")
}
