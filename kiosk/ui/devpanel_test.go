package ui

import (
	"errors"
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

// The faults panel shows the printer as the kiosk sees it right after a
// fault is caused, not at the kiosk's next routine status read (here an
// hour away): the panel has the kiosk read the printer at once.
func TestDevPanelPrinterStatusFollowsDevice(t *testing.T) {
	f := newScrFixture(t, withDevices(func(c *kiosk.CashConfig) { c.PrinterCheck = time.Hour }))
	f.tap("Pannes")
	assert.Contains(t, f.texts(), "Imprimante\u00a0: En service")
	f.tap("Plus de papier")
	f.waitFor(func() bool { return f.s.snap.Cash.Printer.Code == "paper_out" }, "the printer seen out of paper")
	assert.Contains(t, f.texts(), "Imprimante\u00a0: Plus de papier")
	f.tap("Tout réparer")
	f.waitFor(func() bool { return f.s.snap.Cash.Printer.OK }, "the printer seen repaired")
	assert.Contains(t, f.texts(), "Imprimante\u00a0: En service")
}

// Tout réparer clears a fault armed for the next print too: the cash-out
// after it prints its voucher.
func TestDevPanelRepairDisarmsPrintFault(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.insertNote(10 * game.Euro)
	f.tap("Pannes")
	f.tap("Papier épuisé pendant l’impression")
	f.tap("Tout réparer")
	f.tap("Fermer")
	f.waitFor(func() bool { return f.s.snap.Cash.CanCashOut }, "cash-out possible")
	f.tap("Encaisser")
	f.tap("Imprimer")
	f.waitFor(func() bool { return f.s.overlay == ovVoucher || f.s.overlay == ovCashFailed }, "the cash-out's end")
	require.Equal(t, ovVoucher, f.s.overlay, "the voucher printed; texts: %q", f.texts())
	assert.Equal(t, game.Money(0), f.m.Snapshot().Credit)
}

// The panel speaks the screens' language, what its last action did too.
func TestDevPanelInEnglish(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.cashReady() // the validator's state shows: not while it starts
	f.tap("Pannes")
	f.tap("Plus de papier")
	f.waitFor(func() bool { return f.s.snap.Cash.Printer.Code == "paper_out" }, "the printer seen out of paper")
	f.tap("Fermer")
	assert.Contains(t, f.texts(), "DÉVELOPPEMENT  ·  panne\u00a0: Plus de papier")
	f.tap("EN")
	assert.Contains(t, f.texts(), "DEVELOPMENT  ·  fault: Out of paper")
	f.tap("Faults")
	texts := f.texts()
	assert.Contains(t, texts, "Simulators: device faults")
	assert.Contains(t, texts, "Printer: Out of paper")
	assert.Contains(t, texts, "fault: Out of paper")
	for _, fr := range []string{"panne", "Plus de papier", "Tout réparer", "Fermer"} {
		assert.NotContains(t, texts, fr)
	}
	// The picture with the validator working: a loaded machine may catch
	// it starting again after a reply it waited too long for.
	f.waitFor(func() bool { return f.s.snap.Cash.Validator.OK }, "the validator working")
	f.golden("screen-cash-dev-faults-en.png")
}

// refusingPanel is the simulated devices with Cause refused with err.
type refusingPanel struct {
	simPanel
	err error
}

func (p refusingPanel) Cause(string) error { return p.err }

// longRefusal is a refusal whose code the catalogue does not know, and
// which is not short: the panel shows the code, cut short.
type longRefusal struct{}

func (longRefusal) Error() string { return "long" }
func (longRefusal) RefusalCode() string {
	return "le_simulateur_a_refusé_cette_panne_pour_une_raison_bien_trop_longue_pour_tenir_sur_une_ligne"
}

// A device's raw error (English, long) never shows in the panel: a short
// word does, the error goes to the log; a reason too long is cut short.
// Either way the header stays inside its plate.
func TestDevPanelErrorFits(t *testing.T) {
	raw := errors.New("devsim: printer-paper-out: simulator: write /dev/pts/7: input/output error while the unit was busy")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{raw, "DÉVELOPPEMENT  ·  refusé\u00a0: erreur du simulateur (voir le journal)"},
		{longRefusal{}, "DÉVELOPPEMENT  ·  refusé\u00a0: le_simulateur_a_refusé"},
	} {
		f := newScrFixture(t, withDevices(nil), func(f *scrFixture, _ *kiosk.Config) {
			f.opt.Dev = refusingPanel{f.opt.Dev.(simPanel), tc.err}
		})
		f.tap("Pannes")
		f.tap("Plus de papier")
		f.tap("Fermer")
		var header *canvas.Text
		for _, o := range f.textObjects() {
			if strings.HasPrefix(o.Text, "DÉVELOPPEMENT") {
				header = o
			}
		}
		require.NotNil(t, header)
		assert.True(t, strings.HasPrefix(header.Text, tc.want), "%q", header.Text)
		assert.NotContains(t, header.Text, "devsim")
		width := fyne.MeasureText(header.Text, header.TextSize, header.TextStyle).Width
		assert.LessOrEqual(t, width, (actionsW-16)*f.s.v.k, "%q fits its plate", header.Text)
	}
}

// textObjects are the visible text objects of the window.
func (f *scrFixture) textObjects() []*canvas.Text {
	f.flush()
	var out []*canvas.Text
	visible(f.s.Content(), func(o fyne.CanvasObject) {
		if t, ok := o.(*canvas.Text); ok && t.Text != "" {
			out = append(out, t)
		}
	})
	return out
}

// The demo PINs of a development run are on the panel, whole, in both
// languages: the line names both roles and is not cut short.
func TestDevPanelShowsTheDemoPINs(t *testing.T) {
	f := newScrFixture(t, withDevices(nil), func(f *scrFixture, _ *kiosk.Config) { f.opt.DevPINs = [2]string{"111111", "222222"} })
	assert.Contains(t, f.texts(), "DÉVELOPPEMENT  ·  Coin haut-gauche 3\u00a0s\u00a0: personnel 111111, technicien 222222")
	f.tap("EN")
	assert.Contains(t, f.texts(), "DEVELOPMENT  ·  Top-left corner 3 s: staff 111111, technician 222222")
}

// What the panel's last action did shows for a few seconds, then the
// demo PINs come back: the strip kept the first note's line for minutes
// and its PIN reminder never came back.
func TestDevPanelStatusFadesBackToThePINs(t *testing.T) {
	f := newScrFixture(t, withDevices(nil), func(f *scrFixture, _ *kiosk.Config) { f.opt.DevPINs = [2]string{"111111", "222222"} })
	pins := "DÉVELOPPEMENT  ·  Coin haut-gauche 3\u00a0s\u00a0: personnel 111111, technicien 222222"
	f.cashReady()
	f.tap(fr(10 * game.Euro))
	assert.Contains(t, f.texts(), "DÉVELOPPEMENT  ·  billet de 10\u00a0€ inséré")
	f.clock.Advance(devStatusHold - time.Second)
	f.runUI(func() { f.s.Poll(f.clock.Now()) })
	assert.Contains(t, f.texts(), "DÉVELOPPEMENT  ·  billet de 10\u00a0€ inséré", "still there a moment after")
	f.clock.Advance(time.Second)
	f.runUI(func() { f.s.Poll(f.clock.Now()) })
	assert.Contains(t, f.texts(), pins, "the PINs back once the status is old")
}
