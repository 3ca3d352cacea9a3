package maint

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/kiosk/ui"
)

// TestGlossary: the maintenance screen uses the glossary's words
// (docs/glossary.md): no text of its catalogue, its events' and its
// sources' words uses, in its language, a word the glossary forbids, and
// no text writes a count before a noun ("1 billets": Tr.Count does).
func TestGlossary(t *testing.T) {
	g, err := ui.ReadGlossary(filepath.Join("..", "..", "..", "docs", "glossary.md"))
	require.NoError(t, err)
	require.NotEmpty(t, g.Faults(ui.French, "Payer un ticket"))
	texts := map[string]text{}
	for k, e := range catalogue {
		texts[string(k)] = e
	}
	for k, e := range eventWords {
		texts["event "+k] = e
	}
	for k, e := range sourceWords {
		texts["source "+k] = e
	}
	for name, e := range texts {
		for _, f := range g.TextFaults(e.fr, e.en) {
			t.Errorf("%s: %s", name, f)
		}
	}
}
