package maint

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"pharaon/kiosk/ui"
)

// A view wider than the room beside the menu scrolls there: the screen's
// minimum width stays within the kiosk's 1280 points, so the window does
// not grow past the screen and cut off the header's Quitter.
func TestShellViewsFitTheScreen(t *testing.T) {
	f := newShFix(t, true)
	f.open(ui.French)
	f.pin(shTechPIN)
	for _, label := range []string{"Compteurs", "Journal des évènements", "Rappel des parties", "Rapport journalier", "Caisse"} {
		f.tap(label)
		assert.LessOrEqual(t, f.w.Content().MinSize().Width, float32(1280), label)
		assert.LessOrEqual(t, f.w.Content().MinSize().Height, float32(800), label)
	}
}
