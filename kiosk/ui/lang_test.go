package ui

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"pharaon/game"
	"pharaon/kiosk"
)

// A line the home screen shows (why a game did not start) follows the
// language toggle, like the development panel's header.
func TestPlayErrorFollowsTheLanguage(t *testing.T) {
	f := newScrFixture(t, stubbed(func(s kiosk.Snapshot) kiosk.Snapshot { return s }, fmt.Errorf("play: %w", kiosk.ErrInsufficientCredit)))
	f.credit(5 * game.Euro)
	f.tap("Jouer")
	assert.Contains(t, f.screenText(), "Crédit insuffisant pour une mise de 0,50\u00a0€\u00a0: insérez un billet.")
	f.tap("EN")
	assert.Contains(t, f.screenText(), "Not enough credit for a stake of €0.50: insert a bank note.")
	assert.NotContains(t, f.screenText(), "Crédit insuffisant")
}
