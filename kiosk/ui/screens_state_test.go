package ui

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
)

// outOfService is a kiosk out of service after a mismatch, 12,50 € of
// credit kept.
func outOfService() fixtureOption {
	return stubbed(func(s kiosk.Snapshot) kiosk.Snapshot {
		s.State = kiosk.OutOfService
		s.Fault = kiosk.Fault{Code: kiosk.FaultMismatch, Detail: "play 12"}
		s.Credit = 1250
		return s
	}, nil)
}

func TestScreensOutOfService(t *testing.T) {
	f := newScrFixture(t, outOfService())
	require.Equal(t, scrOutOfService, f.s.screen)
	texts := f.screenText()
	for _, want := range []string{"Hors service", "Out of service",
		Tr{Lang: French}.Fault(kiosk.Fault{Code: kiosk.FaultMismatch}), Tr{Lang: English}.Fault(kiosk.Fault{Code: kiosk.FaultMismatch}),
		"Votre crédit de 12,50\u00a0€ est conservé.", "Your credit of €12.50 is kept."} {
		assert.Contains(t, texts, want)
	}
	assert.Nil(t, f.button("Jouer"), "nothing is sold out of service")
	assert.NotContains(t, texts, "play 12", "the technician's detail is not for the player")
	f.golden("screen-out-of-service.png")
}

func TestScreensUnavailableStake(t *testing.T) {
	f := newScrFixture(t, stubbed(func(s kiosk.Snapshot) kiosk.Snapshot {
		s.Available[game.Stake050] = false
		s.Available[game.Stake200] = false
		return s
	}, nil))
	for _, st := range []game.Stake{game.Stake050, game.Stake200} {
		b := f.button(fr(st.Money()))
		require.NotNil(t, b)
		assert.True(t, b.Disabled(), "a stake without an open block cannot be chosen")
		assert.Equal(t, "indisponible", b.Caption)
	}
	assert.Equal(t, game.Stake100, f.s.stake, "the smallest stake that can be played is chosen")
	assert.False(t, f.button(fr(game.Stake100.Money())).Disabled())
	assert.Contains(t, f.texts(), "Combinaisons gagnantes pour une mise de "+fr(game.Stake100.Money()))
}

func TestScreensPlayRefused(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{kiosk.ErrInsufficientCredit, "Crédit insuffisant pour une mise de 0,50\u00a0€\u00a0: insérez un billet."},
		{kiosk.ErrUnavailable, "La mise de 0,50\u00a0€ n’est pas disponible pour le moment."},
		// Busy with no game: a note on its way, or a voucher printing.
		{kiosk.ErrBusy, "Un billet est en cours d’encaissement ou un bon s’imprime\u00a0: réessayez dans un instant."},
		{fmt.Errorf("disk on fire"), "La partie n’a pas pu commencer. Adressez-vous au personnel."},
	}
	for _, c := range cases {
		t.Run(c.err.Error(), func(t *testing.T) {
			f := newScrFixture(t, stubbed(func(s kiosk.Snapshot) kiosk.Snapshot { return s }, fmt.Errorf("play: %w", c.err)))
			f.credit(5 * game.Euro)
			f.tap("Jouer")
			assert.Equal(t, scrHome, f.s.screen)
			assert.Contains(t, f.screenText(), c.want)
			assert.Equal(t, 5*game.Euro, f.m.Snapshot().Credit, "nothing was debited")
			f.tap(fr(game.Stake100.Money()))
			assert.NotContains(t, f.screenText(), c.want, "the message goes with the next touch")
		})
	}
}

// assertTouchTargets checks every button on screen is at least 60 px each
// way (DESIGN.md §8).
func assertTouchTargets(t *testing.T, f *scrFixture, where string) {
	t.Helper()
	n := 0
	visible(f.s.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*touchButton); ok {
			n++
			assert.GreaterOrEqual(t, b.Size().Height, minTouch, "%s: button %q height", where, b.Text)
			assert.GreaterOrEqual(t, b.Size().Width, minTouch, "%s: button %q width", where, b.Text)
		}
	})
	assert.NotZero(t, n, "%s: no button", where)
}

func TestScreensTouchTargets(t *testing.T) {
	for _, size := range []fyne.Size{{Width: 1280, Height: 800}, {Width: 1920, Height: 1080}} {
		t.Run(fmt.Sprintf("%vx%v", size.Width, size.Height), func(t *testing.T) {
			if testing.Short() && size.Width > designW {
				t.Skip("-short: the design size only")
			}
			f := newScrFixtureSized(t, size)
			assert.InDelta(t, min(size.Width/designW, size.Height/designH), f.s.v.k, 1e-6)
			assertTouchTargets(t, f, "home")
			f.credit(10 * game.Euro)
			f.tap(fr(game.Stake100.Money()))
			f.tap("Jouer")
			f.frames(30)
			f.s.gs.Cartouche().Tapped(nil)
			assertTouchTargets(t, f, "prize table")
			f.tap("Fermer")
			f.playToEnd(false)
			assertTouchTargets(t, f, "congratulations")
			f.tap("Accueil")
			f.tap("Historique")
			assertTouchTargets(t, f, "history")
		})
	}
}

// A kiosk with nothing on sale and no printer (a new kiosk before its
// first block, or one whose blocks are sold out) tells the player why and
// whom to ask, and the cash-out button says why it is greyed: never a row
// of "indisponible" alone.
func TestScreensNothingOnSaleSaysWhy(t *testing.T) {
	f := newScrFixture(t, stubbed(func(s kiosk.Snapshot) kiosk.Snapshot {
		for _, st := range game.Stakes {
			s.Available[st] = false
		}
		s.Cash.Printer.Configured = false
		return s
	}, nil))
	assert.Contains(t, f.screenText(), "Aucun jeu en vente pour le moment (aucun bloc chargé)\u00a0: appelez le personnel.")
	cash := f.button("Encaisser")
	require.NotNil(t, cash)
	assert.True(t, cash.Disabled())
	assert.Equal(t, "pas d’imprimante", cash.Caption)
}
