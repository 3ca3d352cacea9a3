package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
)

// What a player meets at the kiosk about money, stakes and their games: the
// reasons in the player's words, the buttons in their places, their own
// history.

// en writes an amount as the English screens do.
func en(m game.Money) string { return m.English() }

// A note that would take the credit over the maximum comes back with the
// credit and the maximum; once no note fits, the home screen says so with
// both.
func TestScreensNoteOverMaxSaysCreditAndMaximum(t *testing.T) {
	f := newScrFixture(t, withDevices(func(c *kiosk.CashConfig) { c.MaxCredit = 30 * game.Euro }))
	f.insertNote(20 * game.Euro)
	f.panelTap(fr(20 * game.Euro))
	f.waitFor(func() bool { return f.s.toast.ev.Kind == kiosk.NoteReturned }, "the note given back")
	assert.Equal(t, "Billet de 20\u00a0€ rendu Il porterait votre crédit de 20\u00a0€ au-delà du maximum de 30\u00a0€.", f.toastText())
	assert.Equal(t, fr(20*game.Euro), f.homeCredit(), "the credit stays in sight beside the notice")
	f.golden("screen-note-over-max.png")
	f.tap("EN")
	assert.Equal(t, "€20 note returned It would take your credit of €20 over the €30 maximum.", f.toastText())
	f.golden("screen-note-over-max-en.png")
	f.tap("FR")
	f.expireToast()

	f.insertNote(10 * game.Euro)
	f.waitFor(func() bool { return !f.s.snap.Cash.CanCashIn }, "notes refused")
	assert.Contains(t, f.screenText(), "Crédit maximum\u00a0: 30\u00a0€. Votre crédit de 30\u00a0€ ne laisse plus de place pour un billet.")
	assert.NotContains(t, f.screenText(), "atteint")
}

// A note of a value the kiosk does not take says which notes it takes; a
// note the validator does not recognise says so, without the validator's
// words.
func TestScreensRefusedNotesSayWhy(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.panelTap(fr(100 * game.Euro))
	f.waitFor(func() bool { return f.s.toast.ev.Kind == kiosk.NoteReturned }, "the 100 € note given back")
	assert.Equal(t, "Billet rendu Cette borne prend les billets de 5\u00a0€, 10\u00a0€, 20\u00a0€ et 50\u00a0€.", f.toastText())
	f.golden("screen-note-not-taken.png")
	f.tap("EN")
	assert.Equal(t, "Note returned This kiosk takes €5, €10, €20 and €50 notes.", f.toastText())
	f.golden("screen-note-not-taken-en.png")
	f.tap("FR")
	f.expireToast()

	f.panelTap("Faux")
	f.waitFor(func() bool { return f.s.toast.ev.Kind == kiosk.NoteReturned }, "the fake given back")
	text := f.toastText()
	assert.Equal(t, "Billet rendu Ce billet n’a pas été reconnu. Vérifiez-le et réessayez, ou adressez-vous au personnel.", text)
	for _, jargon := range []string{"motif", "optique", "refusé\u00a0:"} {
		assert.NotContains(t, text, jargon)
	}
}

// The home screen says which notes the kiosk takes and the maximum credit,
// beside the credit, before a note goes in.
func TestScreensHomeShowsNotesAndMaximum(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.cashReady() // the validator's state shows: not while it starts
	assert.Contains(t, f.texts(), "Billets acceptés\u00a0: 5\u00a0€, 10\u00a0€, 20\u00a0€ et 50\u00a0€")
	assert.Contains(t, f.texts(), "Crédit maximum\u00a0: "+fr(f.s.snap.Cash.MaxCredit))
	f.golden("screen-home-notes.png")
	f.tap("EN")
	assert.Contains(t, f.texts(), "Notes taken: €5, €10, €20 and €50")
	assert.Contains(t, f.texts(), "Maximum credit: "+en(f.s.snap.Cash.MaxCredit))
	f.golden("screen-home-notes-en.png")
}

// rectOf is the place of o on the window.
func (f *scrFixture) rectOf(o fyne.CanvasObject) (fyne.Position, fyne.Size) {
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(o), o.Size()
}

// The notice of a note never hides the credit: the credit's amount is on
// screen, outside the notice, while the notice is up.
func TestScreensToastLeavesTheCreditInSight(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.panelTap(fr(10 * game.Euro))
	f.waitFor(func() bool { return f.s.snap.Credit == 10*game.Euro && f.s.toast.ev.Kind == kiosk.NoteCredited }, "the note credited")
	require.NotEmpty(t, f.toastText())
	amount := f.textObject(fr(10 * game.Euro))
	require.NotNil(t, amount, "the credit's amount on screen")
	var rim *canvas.Rectangle
	visible(f.s.toastBox, func(o fyne.CanvasObject) {
		if r, ok := o.(*canvas.Rectangle); ok && rim == nil {
			rim = r
		}
	})
	require.NotNil(t, rim, "the toast's panel")
	tp, ts := f.rectOf(rim)
	ap, as := f.rectOf(amount)
	overlap := ap.X < tp.X+ts.Width && tp.X < ap.X+as.Width && ap.Y < tp.Y+ts.Height && tp.Y < ap.Y+as.Height
	assert.False(t, overlap, "the toast (%v %v) covers the credit (%v %v)", tp, ts, ap, as)
	f.golden("screen-note-credited.png")
}

// A credit short of the stake chosen says so and offers the stakes it
// covers; a credit short of every stake says so too.
func TestScreensCreditShortOfStakeOffersTheStakesItCovers(t *testing.T) {
	f := newScrFixture(t)
	f.credit(game.Stake100.Money())
	f.tap(fr(game.Stake200.Money()))
	assert.True(t, f.button("Jouer").Disabled())
	assert.Contains(t, f.screenText(), "Votre crédit de 1\u00a0€ ne couvre pas la mise de 2\u00a0€\u00a0: choisissez 0,50\u00a0€ ou 1\u00a0€.")
	assert.NotContains(t, f.screenText(), "Insérez un billet")
	f.golden("screen-stake-short.png")
	f.tap("EN")
	assert.Contains(t, f.screenText(), "Your credit of €1 does not cover the €2 stake: choose €0.50 or €1.")
	f.golden("screen-stake-short-en.png")
	f.tap("FR")
	f.tap(fr(game.Stake100.Money()))
	assert.False(t, f.button("Jouer").Disabled(), "a stake the credit covers plays")
}

// On a game's result, Rejouer stays where it is, shown unavailable with the
// reason when the credit does not cover the stake: Accueil never moves.
func TestScreensRejouerKeepsItsPlace(t *testing.T) {
	f := newScrFixture(t)
	f.credit(game.Stake050.Money())
	f.tap(fr(game.Stake050.Money()))
	f.tap("Auto")
	f.playToEnd(false)
	require.Equal(t, ovLose, f.s.overlay)
	again := f.button("Rejouer " + fr(game.Stake050.Money()))
	require.NotNil(t, again, "Rejouer stays, unavailable")
	assert.True(t, again.Disabled())
	assert.Equal(t, "crédit insuffisant", again.Caption)
	againAt, _ := f.rectOf(again)
	homeAt, _ := f.rectOf(f.button("Accueil"))
	f.golden("screen-lose-again-off.png")
	f.runUI(func() { f.s.SetLang(English) })
	off := f.button("Play again " + en(game.Stake050.Money()))
	require.NotNil(t, off)
	assert.Equal(t, "not enough credit", off.Caption)
	f.golden("screen-lose-again-off-en.png")
	f.runUI(func() { f.s.SetLang(French) })

	// Credit comes (a note on the result): Rejouer works, in the same place.
	f.credit(game.Stake050.Money())
	again = f.button("Rejouer " + fr(game.Stake050.Money()))
	require.NotNil(t, again)
	assert.False(t, again.Disabled())
	assert.Empty(t, again.Caption)
	at, _ := f.rectOf(again)
	assert.Equal(t, againAt, at, "Rejouer in its place")
	at, _ = f.rectOf(f.button("Accueil"))
	assert.Equal(t, homeAt, at, "Accueil in its place")
}

// The history is the player's: the games since the credit was last zero,
// titled so, with the mode as played (a Jouer game left idle went on in
// Auto).
func TestScreensHistoryIsThePlayers(t *testing.T) {
	f := newScrFixture(t)
	// The previous player: one game, the credit down to zero.
	f.credit(game.Stake050.Money())
	f.tap(fr(game.Stake050.Money()))
	f.tap("Auto")
	f.playToEnd(false)
	f.tap("Accueil")
	f.clock.Advance(7 * time.Minute)

	// The next player: a Jouer game left alone, which goes on in Auto.
	paris, err := time.LoadLocation("Europe/Paris")
	require.NoError(t, err)
	since := f.clock.Now().In(paris).Format("15:04")
	f.credit(game.Stake100.Money())
	f.tap(fr(game.Stake050.Money()))
	f.tap("Jouer")
	f.playToEnd(false)
	f.tap("Accueil")
	f.tap("Historique")
	texts := f.texts()
	assert.Contains(t, texts, "Vos parties depuis "+since, "the kiosk's zone, Europe/Paris")
	assert.Contains(t, texts, "Jouer puis Auto")
	rows := 0
	for _, s := range texts {
		if strings.HasPrefix(s, "30/11/2026 ") {
			rows++
		}
	}
	assert.Equal(t, 1, rows, "only this player's game: %q", texts)
	assert.NotContains(t, texts, "Auto", "the previous player's Auto game is not listed")
	f.golden("screen-history-player.png")
	f.tap("Retour")
	f.tap("EN")
	f.tap("History")
	texts = f.texts()
	assert.Contains(t, texts, "Your games since "+since)
	assert.Contains(t, texts, "Play, then Auto")
	f.golden("screen-history-player-en.png")
}
