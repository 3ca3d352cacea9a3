package maint

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/ui"
)

// Test mode from the screen: a note inserted is listed, given back, and
// no meter moves; it does not start with a credit.
func TestTestModeView(t *testing.T) {
	f := newRptFix(t)
	require.Eventually(t, func() bool { return f.m.Snapshot().Cash.CanCashIn }, 15*time.Second, 5*time.Millisecond)
	before, err := f.st.Meters(context.Background())
	require.NoError(t, err)
	f.show("testmode", f.tech)
	assert.Contains(t, f.text(), "Mode test arrêté")
	f.tap("Démarrer le mode test")
	assert.Contains(t, f.text(), "Mode test en marche")
	assert.Contains(t, f.text(), "Aucun billet inséré depuis le démarrage du mode test.")
	require.Eventually(t, func() bool { return f.dev.InsertNote(20*game.Euro) == nil }, 15*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { _, n, _ := f.o.TestMode(context.Background(), f.tech); return len(n) == 1 }, 15*time.Second, 5*time.Millisecond)
	f.tap("Actualiser")
	assert.Contains(t, f.text(), "30/11/2026 11:00:00\u00a0: billet de 20\u00a0€ reconnu, rendu")
	f.golden("maint-testmode.png")
	after, err := f.st.Meters(context.Background())
	require.NoError(t, err)
	assert.Equal(t, before, after, "no meter moved")
	assert.Zero(t, f.m.Snapshot().Credit)
	f.tap("Arrêter le mode test")
	assert.Contains(t, f.text(), "Mode test arrêté")

	f.billIn(5 * game.Euro)
	require.Eventually(t, func() bool { return f.m.Snapshot().Credit == 5*game.Euro }, 15*time.Second, 5*time.Millisecond)
	f.tap("Démarrer le mode test")
	assert.Contains(t, f.text(), "Le mode test ne démarre que sans crédit ni partie en cours.")
	assert.Contains(t, f.text(), "Mode test arrêté")
}

// Leaving the maintenance screen ends test mode (kiosk.Office.Logout): the
// technician is asked first, and told when an idle session ended it.
func TestShellLeavingTestModeAsksOrSays(t *testing.T) {
	f := newShFix(t, true)
	ctx := context.Background()
	f.open(ui.French)
	f.pin(shTechPIN)
	f.tap("Mode test")
	f.tap("Démarrer le mode test")
	s := f.sh.Session()
	f.tap("Quitter")
	assert.False(t, f.sh.Closed(), "Quitter asks first while test mode is on")
	assert.Contains(t, f.text(), "Le mode test est en marche")
	f.tap("Rester")
	assert.Equal(t, "testmode", f.sh.Current(), "back to the view left")
	on, _, err := f.o.TestMode(ctx, s)
	require.NoError(t, err)
	assert.True(t, on, "staying keeps test mode on")
	f.tap("Quitter")
	f.tap("Arrêter et quitter")
	assert.True(t, f.sh.Closed())
	require.NotEmpty(t, f.events("test_mode"))
	assert.Contains(t, f.events("test_mode")[len(f.events("test_mode"))-1].Detail, "session ended")

	// Test mode stopped by hand: Quitter leaves at once.
	f.open(ui.French)
	f.pin(shTechPIN)
	f.tap("Mode test")
	f.tap("Démarrer le mode test")
	f.tap("Arrêter le mode test")
	f.tap("Quitter")
	assert.True(t, f.sh.Closed(), "no question once test mode is off")

	// An idle session ends test mode and the PIN pad says so.
	f.open(ui.French)
	f.pin(shTechPIN)
	f.tap("Mode test")
	f.tap("Démarrer le mode test")
	f.clock.Advance(kiosk.DefaultOfficeIdle)
	f.sh.Poll(f.clock.Now())
	assert.Nil(t, f.sh.Session())
	assert.Contains(t, f.text(), "Session fermée après inactivité\u00a0; le mode test est arrêté.")
}

// testDev is the simulated validator as a development run gives it to the
// maintenance screen (cmd/pharaon's devPanel).
type testDev struct{ *devsim.Devices }

func (testDev) Notes() []game.Money { return devsim.Notes }

// In a development run test mode is tried from its own view: the player's
// development panel is under the maintenance screen, so the view offers
// the simulated validator's notes; a note inserted there is given back
// and listed, nothing credited.
func TestTestModeViewDevNotes(t *testing.T) {
	f := newRptFix(t)
	require.Eventually(t, func() bool { return f.m.Snapshot().Cash.CanCashIn }, 15*time.Second, 5*time.Millisecond)
	// The maintenance screen is open (the shell locks the player out):
	// the validator takes notes again once test mode is on.
	f.m.SetMaintenance(true)
	require.Eventually(t, func() bool { return !f.m.Snapshot().Cash.CanCashIn }, 15*time.Second, 5*time.Millisecond)
	e := f.env(f.tech)
	e.Dev = testDev{f.dev}
	f.w.SetContent(buildTestMode(e, f.o))
	f.tap("Démarrer le mode test")
	require.Eventually(t, func() bool { return f.m.Snapshot().Cash.CanCashIn }, 15*time.Second, 5*time.Millisecond,
		"test mode opens the validator under the maintenance screen")
	// The simulated unit hears of it at the driver's next poll.
	require.Eventually(t, func() bool {
		f.tap("10\u00a0€")
		return strings.Contains(f.text(), "Billet de 10\u00a0€ inséré")
	}, 15*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool { _, n, _ := f.o.TestMode(context.Background(), f.tech); return len(n) == 1 }, 15*time.Second, 5*time.Millisecond)
	f.tap("Actualiser")
	assert.Contains(t, f.text(), "billet de 10\u00a0€ reconnu, rendu")
	assert.Zero(t, f.m.Snapshot().Credit)
	// The note given back may still be in the slot: the fake goes in next.
	require.Eventually(t, func() bool {
		f.tap("Faux")
		return strings.Contains(f.text(), "Faux billet inséré")
	}, 15*time.Second, 50*time.Millisecond)
}

// The toggle's label comes with the kiosk's answer, after the view is
// laid out (off the Fyne goroutine on a kiosk): the button grows to its
// label, which never touches its edges.
func TestTestModeToggleFitsItsLabel(t *testing.T) {
	f := newRptFix(t)
	var later []func()
	e := f.env(f.tech)
	e.Go = func(g func()) { later = append(later, g) }
	f.w.SetContent(buildTestMode(e, f.o))
	f.w.Resize(fyne.NewSize(1280, 800))
	for _, g := range later {
		g()
	}
	// No settle: a kiosk's driver does not lay a row out again when a
	// button's label changes (docs/screenshots/maint-testmode.png showed
	// the label from edge to edge).
	b := f.button("Démarrer le mode test")
	require.NotNil(t, b)
	assert.GreaterOrEqual(t, b.Size().Width, b.MinSize().Width, "the button is as wide as its label and padding")
}
