package maint

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/golden"
)

// fsSetUp is a brand-new kiosk whose setup is done (the PINs set, the
// sequence begun), its sequence shown at 1280×800; shown collects what
// FirstStartConfig.Shown was told.
func fsSetUp(t *testing.T) (*fsKiosk, fyne.Window, *FirstStart, *[]string) {
	k := newFSKiosk(t)
	ctx := context.Background()
	require.NoError(t, k.m.BeginFirstStart(ctx))
	setup, err := k.a.SetupSession(ctx)
	require.NoError(t, err)
	require.NoError(t, k.a.Setup(ctx, setup, shTechPIN, shStaffPIN))
	app := test.NewTempApp(t)
	app.Settings().SetTheme(art.Theme())
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.SetPadded(false)
	w.Resize(fyne.NewSize(1280, 800))
	var shown []string
	k.m.SetMaintenance(true)
	f := NewFirstStart(w, FirstStartConfig{Steps: k.o, Office: k.o, BlockDir: k.media, Lang: ui.French,
		Go: func(g func()) { g() }, Do: func(g func()) { g() },
		Shown: func(screen, found string) { shown = append(shown, screen+" "+found) }})
	return k, w, f, &shown
}

// The technician's PIN of the sequence from a keyboard (a technician's
// USB keypad; the virtual machine's test types it so), as the maintenance
// screen's pad takes it; the keyboard is let go once the steps show, so a
// key typed there reaches nothing unseen. Each screen shown is told.
func TestFirstStartTakesTheTechnicianPINFromAKeyboard(t *testing.T) {
	_, w, _, shown := fsSetUp(t)
	f := &shFix{t: t, w: w}
	assert.Equal(t, []string{"login "}, *shown)
	enter := func() { w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyReturn}) }

	test.TypeOnCanvas(w.Canvas(), shStaffPIN)
	enter()
	assert.Contains(t, f.text(), "Ce n’est pas le code technicien")
	test.TypeOnCanvas(w.Canvas(), shTechPIN+"9")
	w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	enter()
	assert.Contains(t, f.text(), "Étape 1 sur 4\u00a0: Clés d’émetteur", "the PIN typed, the last digit erased")
	assert.Equal(t, []string{"login ", "login ", "keys "}, *shown)
	assert.Nil(t, w.Canvas().OnTypedRune(), "the steps leave the keyboard alone")
	assert.Nil(t, w.Canvas().OnTypedKey())

	f.tap("Vérifier et continuer")
	assert.Equal(t, "devices keys.found", (*shown)[len(*shown)-1], "the next step, with what the check found")
}

// The sequence's screens a technician meets first and last, at the
// shops' common size: a step (its one button to go on) and the kiosk
// ready (its one button to open it). The virtual machine's test finds
// those buttons on these pictures (packaging/image/vmtest/vmscreen).
func TestFirstStartGoldens(t *testing.T) {
	_, w, f, _ := fsSetUp(t)
	fx := &shFix{t: t, w: w}
	for _, r := range shTechPIN {
		fx.tap(string(r))
	}
	fx.tap("Valider")
	require.Contains(t, fx.text(), "Étape 1 sur 4")
	settle(w)
	golden.Assert(t, "first-keys.png", w.Canvas().Capture())
	f.step = kiosk.StepDone
	f.showStep(kiosk.FirstCheck{Step: kiosk.StepVoucher, OK: true, Code: "voucher.printed", N: 1, Validation: "691224989748145220"})
	require.Contains(t, fx.text(), "La borne est prête")
	settle(w)
	golden.Assert(t, "first-ready.png", w.Canvas().Capture())
}
