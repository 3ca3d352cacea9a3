package ui

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGlossary: the player's screens use the glossary's words
// (docs/glossary.md): no text uses, in its language, a word it forbids,
// and no text writes a count before a noun whose plural it cannot know
// ("1 billets").
func TestGlossary(t *testing.T) {
	g, err := ReadGlossary(filepath.Join("..", "..", "docs", "glossary.md"))
	require.NoError(t, err)
	require.Greater(t, g.Words(French), 10)
	require.Greater(t, g.Words(English), 10)
	require.NotEmpty(t, g.Faults(French, "Payer un ticket"), "ticket is not the voucher")
	require.NotEmpty(t, g.Faults(English, "Ticket blocks"), "nor a game unit")
	require.NotEmpty(t, g.Faults(French, "Cassette pleine"))
	require.Empty(t, g.Faults(French, "Bon de paiement n° 000001"))
	require.Empty(t, g.Faults(French, "les lots par bloc"), "lot is the regulation's prize")

	check := func(name string, e text) {
		t.Helper()
		for _, f := range g.TextFaults(e.fr, e.en) {
			t.Errorf("%s: %s", name, f)
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
	assert.Len(t, g.TextFaults("Relevé enregistré\u00a0: %d billets", "Collection recorded: %d notes"), 2, "a count before a plural noun")
	assert.Empty(t, g.TextFaults("Auto dans %d\u00a0s", "Auto in %d\u00a0s"))
}
