package ui

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
)

// inZone gives the machine the time zone name (kiosk.Config.Location).
func inZone(t *testing.T, name string) fixtureOption {
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return func(_ *scrFixture, c *kiosk.Config) { c.Location = loc }
}

// One clock: the history shows a game's time in the kiosk's configured
// zone, the one its vouchers are printed in, whatever the system's zone
// and without the screens being told.
func TestHistoryInTheKiosksZone(t *testing.T) {
	f := newScrFixture(t, inZone(t, "America/New_York"))
	f.credit(game.Stake050.Money())
	f.tap(fr(game.Stake050.Money()))
	f.tap("Auto")
	f.playToEnd(false)
	f.tap("Accueil")
	f.tap("Historique")
	texts := f.texts()
	// 10:00 UTC on 30 November is 05:00 in New York.
	assert.True(t, slices.Contains(texts, "30/11/2026 05:00"), "the game at New York's time: %q", texts)
}

// The history in English: the same clock, English words and amounts.
func TestHistoryInEnglish(t *testing.T) {
	f := newScrFixture(t, inEnglish())
	f.credit(game.Stake100.Money() + game.Stake050.Money())
	for _, st := range []game.Stake{game.Stake100, game.Stake050} {
		f.tap(game.Stake.Money(st).English())
		f.tap("Auto")
		f.playToEnd(false)
		f.clock.Advance(3 * time.Minute)
		f.tap("Home")
	}
	f.tap("History")
	texts := f.texts()
	assert.Contains(t, texts, "30 Nov 2026, 11:03", "the last game at Paris time")
	assert.Contains(t, texts, "Your games since 11:00", "the player's games since the credit came")
	f.golden("screen-history-en.png")
}
