package maint

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
)

// A block refused because another kiosk of the fleet sells it says so, and
// which kiosk, in both languages.
func TestRefusalOfABlockTakenInTheFleet(t *testing.T) {
	err := fmt.Errorf("import: %w", &kiosk.BlockTakenError{Emission: 9, Number: 1, Kiosk: "PH-1", At: time.Now()})
	assert.Equal(t, word("blocks.why.taken"), refusal(err))
	fr, en := Tr{Lang: ui.French}, Tr{Lang: ui.English}
	assert.Equal(t, "ce bloc est déjà en vente à la borne PH-1 de la flotte", fr.F("blocks.why.takenby", "PH-1"))
	assert.Equal(t, "this block is already on sale at kiosk PH-1 of the fleet", en.F("blocks.why.takenby", "PH-1"))
	assert.NotContains(t, fr.T("blocks.why.taken"), "[")
	assert.Equal(t, "ce bloc est déjà en vente à la borne PH-1 de la flotte", refusalText(fr, err), "the refusal shown names the kiosk")
	assert.Equal(t, "this block is already on sale at kiosk PH-1 of the fleet", refusalText(en, err))
	assert.Equal(t, fr.T("blocks.why.taken"), refusalText(fr, fmt.Errorf("import: %w", kiosk.ErrBlockTaken)), "taken, the kiosk unknown")
}
