package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
)

// tapOnCard taps the button showing label on the overlay (the card), not
// one of the screen under it (the development panel has its own "50 €").
func (f *scrFixture) tapOnCard(label string) {
	f.t.Helper()
	f.flush()
	var found *touchButton
	visible(f.s.ovBox, func(o fyne.CanvasObject) {
		if b, ok := o.(*touchButton); ok && b.Text == label && found == nil {
			found = b
		}
	})
	require.NotNil(f.t, found, "no button %q on the card; texts: %q", label, f.texts())
	require.False(f.t, found.Disabled(), "button %q is disabled", label)
	f.runUI(func() { test.Tap(found) })
	f.flush()
}

// A whole session with the protection on, as a player sees it: the limit
// chosen before the first note, the session's time and net position under
// the credit, the reality check after 30 minutes that holds the next game
// until the player answers, and the limit that stops the notes.
func TestScreensPlayerProtection(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.cashReady()
	assert.NotContains(t, f.screenText(), "Session", "no session before the first note")

	f.tap("Ma limite")
	require.Equal(t, ovLimit, f.s.overlay)
	assert.Contains(t, f.texts(), "Limite de billets pour la session")
	f.golden("screen-limit.png")
	f.tapOnCard(fr(20 * game.Euro))
	f.waitFor(func() bool { return f.s.overlay == ovNone }, "the card closes once the limit is recorded")
	assert.Equal(t, 20*game.Euro, f.m.Snapshot().Protection.PlayerLimit)
	assert.NotNil(t, f.button("Limite\u00a0: "+fr(20*game.Euro)), "the limit shows on its button")

	f.insertNote(20 * game.Euro)
	f.m.Poll()
	assert.Contains(t, f.texts(), "Session\u00a0: 0\u00a0min · bilan 0\u00a0€")
	f.waitFor(func() bool { return f.s.snap.Cash.CashInOff.Code == kiosk.MsgCashInPlayerLimit }, "the limit stops the notes")
	assert.Contains(t, f.screenText(), "Votre limite de 20\u00a0€ est atteinte")

	f.tap(fr(game.Stake050.Money()))
	f.tap("Auto")
	assert.Equal(t, "Session\u00a0: 0\u00a0min · bilan -0,50\u00a0€", f.s.gs.Session(), "the game's panel shows the session")
	f.playToEnd(false)
	f.tap("Accueil")
	net := f.m.Snapshot().Protection.Net

	f.clock.Advance(30 * time.Minute)
	f.m.Poll()
	f.flush()
	require.Equal(t, ovReality, f.s.overlay, "30 minutes: the reality check")
	assert.Contains(t, f.texts(), "Vous jouez depuis 30\u00a0min.")
	assert.Contains(t, f.texts(), "Bilan de la session\u00a0: "+f.s.tr.Net(net))
	f.golden("screen-reality-check.png")
	f.tap("EN")
	require.Equal(t, ovReality, f.s.overlay, "the language changes, the card stays")
	assert.Contains(t, f.texts(), "You have been playing for 30 min.")
	f.golden("screen-reality-check-en.png")
	f.tap("FR")

	f.tapOnCard("Continuer")
	assert.Equal(t, ovNone, f.s.overlay)
	assert.False(t, f.m.Snapshot().Protection.RealityCheck)
	assert.Contains(t, f.texts(), "Session\u00a0: 30\u00a0min · bilan "+f.s.tr.Net(net))
	f.golden("screen-home-session.png")
}

func TestNetAndDurationWords(t *testing.T) {
	fr, en := Tr{Lang: French}, Tr{Lang: English}
	assert.Equal(t, "+2,50\u00a0€", fr.Net(250))
	assert.Equal(t, "-3\u00a0750\u00a0€", fr.Net(-375000))
	assert.Equal(t, "0\u00a0€", fr.Net(0))
	assert.Equal(t, "-€4.50", en.Net(-450))
	assert.Equal(t, "8\u00a0min", fr.Duration(8*time.Minute+59*time.Second))
	assert.Equal(t, "1\u00a0h\u00a005", fr.Duration(65*time.Minute))
	assert.Equal(t, "2 h 00 min", en.Duration(2*time.Hour))
}
