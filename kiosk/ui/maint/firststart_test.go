package maint

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw"
	"pharaon/hw/escpos"
	"pharaon/hw/validator"
	"pharaon/hw/validator/drivers"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/kiosktest"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/store"
)

// fsKiosk is a brand-new kiosk: an empty database, no kiosk-id
// configured, the simulated validator and printer on pseudo-terminals,
// and the issuer's stick with one block file.
type fsKiosk struct {
	t     *testing.T
	db    string
	dev   *devsim.Devices
	media string
	st    *store.Store
	m     *kiosk.Machine
	o     *kiosk.Office
	a     *kiosk.Access
}

func newFSKiosk(t *testing.T) *fsKiosk {
	dir := t.TempDir()
	d, err := devsim.Start(devsim.Config{Dir: filepath.Join(dir, "dev"), Receipts: filepath.Join(dir, "receipts")})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	k := &fsKiosk{t: t, db: filepath.Join(dir, "pharaon.db"), dev: d, media: filepath.Join(dir, "media")}
	require.NoError(t, os.MkdirAll(filepath.Join(k.media, "usb0"), 0o755))
	var buf bytes.Buffer
	require.NoError(t, kiosktest.WriteBlock(&buf, game.Stake100, 11, nil))
	require.NoError(t, os.WriteFile(filepath.Join(k.media, "usb0", "b11.pblk"), buf.Bytes(), 0o644))
	k.start(true)
	return k
}

// start opens the kiosk (a power-up); stop closes it (a power cut's
// effect on what is stored: the store is closed, nothing else is kept).
func (k *fsKiosk) start(create bool) {
	st, err := store.Open(k.db, store.WithCreate(create))
	require.NoError(k.t, err)
	m, err := kiosk.New(st, kiosk.SystemClock{}, kiosk.Config{Keys: kiosktest.Keys, ResultTimeout: time.Hour, Cash: kiosk.CashConfig{
		ValidatorPath: k.dev.ValidatorPath, PrinterPath: k.dev.PrinterPath,
		Validator: validator.Settings{PollInterval: 5 * time.Millisecond, ReplyTimeout: 150 * time.Millisecond,
			Backoff: hw.Backoff{Min: 5 * time.Millisecond, Max: 50 * time.Millisecond}},
		Drivers:       drivers.Opener{},
		PrinterTiming: escpos.Config{StatusTimeout: 2 * time.Second, PollInterval: 20 * time.Millisecond},
		PrinterCheck:  30 * time.Millisecond,
	}})
	require.NoError(k.t, err)
	require.NoError(k.t, m.Start(context.Background()))
	k.st, k.m = st, m
	k.a = kiosk.NewAccess(st, kiosk.SystemClock{}, shAccessConfig)
	k.o = kiosk.NewOffice(m, k.a, kiosk.DefaultOfficeIdle)
	k.t.Cleanup(k.stop)
}

func (k *fsKiosk) stop() {
	if k.m != nil {
		_ = k.m.Close()
		_ = k.st.Close()
		k.m, k.st = nil, nil
	}
}

// sequence shows the guided sequence on w, the player locked out as
// cmd/pharaon does; opened counts its end, which lets the player in.
func (k *fsKiosk) sequence(w fyne.Window, opened *int) *FirstStart {
	k.m.SetMaintenance(true)
	return NewFirstStart(w, FirstStartConfig{Steps: k.o, Office: k.o, BlockDir: k.media, Lang: ui.French,
		Go: func(g func()) { g() }, Do: func(g func()) { g() }, Done: func() { *opened++; k.m.SetMaintenance(false) }})
}

// tapRadio taps the choice showing label in the window's radio group: a
// finger on the screen, not SetSelected.
func tapRadio(t *testing.T, w fyne.Window, label string) {
	t.Helper()
	var found fyne.Tappable
	shWalk(w.Content(), func(o fyne.CanvasObject) {
		rg, ok := o.(*widget.RadioGroup)
		if !ok || found != nil {
			return
		}
		i := slices.IndexFunc(rg.Options, func(opt string) bool { return strings.Contains(opt, label) })
		var items []fyne.Tappable
		for _, item := range test.WidgetRenderer(rg).Objects() {
			if tp, ok := item.(fyne.Tappable); ok {
				items = append(items, tp)
			}
		}
		if i >= 0 && i < len(items) && len(items) == len(rg.Options) {
			found = items[i]
		}
	})
	require.NotNil(t, found, "no choice %q", label)
	test.Tap(found)
}

// The whole first start of a brand-new kiosk with a finger alone (taps on
// buttons and on a file's choice; no key event, nothing typed): the PINs
// and the kiosk id, the technician's PIN, the issuer keys, the devices, a
// block imported from the stick after a check that says there is none
// and what to do, a power cut that resumes at the step reached, the test
// voucher printed and void, moving no money; then the player's screens,
// tapped, sell a game and print its voucher.
func TestFirstStartWithAFingerAlone(t *testing.T) {
	k := newFSKiosk(t)
	ctx := context.Background()
	app := test.NewTempApp(t)
	app.Settings().SetTheme(art.Theme())
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.SetPadded(false)
	w.Resize(fyne.NewSize(1280, 800))
	f := &shFix{t: t, w: w}
	taps := func(keys string) {
		for _, r := range keys {
			f.tap(string(r))
		}
	}
	opened := 0
	k.m.SetMaintenance(true)
	s := NewSetup(w, SetupConfig{Access: k.a, KioskID: "", SetKioskID: k.m.SetKioskID, Begin: k.m.BeginFirstStart, Lang: ui.French,
		Go: func(g func()) { g() }, Do: func(g func()) { g() }, Done: func() { k.sequence(w, &opened) }})
	f.tap(f.sh0row(s, 0))
	taps(shTechPIN)
	f.tap("Suivant")
	taps(shTechPIN)
	f.tap("Suivant")
	taps(shStaffPIN)
	f.tap("Suivant")
	taps(shStaffPIN)
	f.tap("Suivant")
	taps("PH-0042")
	f.tap("Enregistrer")
	require.True(t, s.Done(), f.text())
	pending, err := k.m.FirstStartPending(ctx)
	require.NoError(t, err)
	assert.True(t, pending, "the sequence is stored as started")

	// The technician's PIN, then the steps.
	assert.Contains(t, f.text(), "Tapez le code technicien")
	taps(shStaffPIN)
	f.tap("Valider")
	assert.Contains(t, f.text(), "Ce n’est pas le code technicien\u00a0: retapez-le.", "staff cannot commission the kiosk")
	taps(shTechPIN)
	f.tap("Valider")
	assert.Contains(t, f.text(), "Étape 1 sur 4\u00a0: Clés d’émetteur")
	f.tap("Vérifier et continuer")
	assert.Contains(t, f.text(), "Clés d’émetteur trouvées\u00a0: 1.")
	assert.Contains(t, f.text(), "Étape 2 sur 4\u00a0: Lecteur de billets et imprimante")
	require.Eventually(t, func() bool { c := k.m.Snapshot().Cash; return c.Validator.OK && c.Printer.OK }, 15*time.Second, 5*time.Millisecond)
	f.tap("Vérifier et continuer")
	assert.Contains(t, f.text(), "Le lecteur de billets et l’imprimante répondent et fonctionnent.")
	assert.Contains(t, f.text(), "Étape 3 sur 4\u00a0: Bloc d’unités de jeu")
	f.tap("Vérifier et continuer")
	assert.Contains(t, f.text(), "Aucun bloc n’est en vente.")
	assert.Contains(t, f.text(), "À faire\u00a0: branchez la clé USB de l’émetteur, choisissez le fichier du bloc ci-dessous")
	assert.Contains(t, f.text(), "Étape 3 sur 4", "a failed check stays at its step")

	// A power cut: the kiosk starts again at the step reached, after the
	// technician's PIN.
	k.stop()
	k.start(false)
	pending, err = k.m.FirstStartPending(ctx)
	require.NoError(t, err)
	require.True(t, pending)
	need, err := k.a.NeedsSetup(ctx)
	require.NoError(t, err)
	assert.False(t, need, "the PINs are kept")
	assert.Equal(t, "PH-0042", k.m.KioskID())
	k.sequence(w, &opened)
	taps(shTechPIN)
	f.tap("Valider")
	assert.Contains(t, f.text(), "Étape 3 sur 4\u00a0: Bloc d’unités de jeu", "resumed at the step reached")

	tapRadio(t, w, "b11.pblk")
	f.tap("Vérifier et importer")
	assert.Contains(t, f.text(), "b11.pblk importé")
	f.tap("Vérifier et continuer")
	assert.Contains(t, f.text(), "Mises avec un bloc en vente\u00a0: 1.")
	assert.Contains(t, f.text(), "Étape 4 sur 4\u00a0: Bon d’essai")
	require.Eventually(t, func() bool { return k.m.Snapshot().Cash.Printer.OK }, 15*time.Second, 5*time.Millisecond)
	f.tap("Imprimer le bon d’essai")
	tv, err := k.st.LastTestVoucher(ctx)
	require.NoError(t, err, "the test voucher is recorded")
	assert.Contains(t, f.text(), "Bon d’essai n°\u00a0000001 imprimé, annulé, sans valeur\u00a0; n° de validation "+kiosk.FormatValidation(tv.Validation)+".")
	require.Equal(t, 0, opened)
	f.tap("Ouvrir la borne aux joueurs")
	require.Equal(t, 1, opened)
	pending, err = k.m.FirstStartPending(ctx)
	require.NoError(t, err)
	assert.False(t, pending)
	receipt, err := os.ReadFile(k.dev.ReceiptFile(1) + ".txt")
	require.NoError(t, err, "the test voucher is on paper")
	for _, want := range []string{"BON D'ESSAI", "SANS VALEUR", "Bon n° 000001", kiosk.FormatValidation(tv.Validation)} {
		assert.Contains(t, string(receipt), want)
	}
	require.NoError(t, k.st.Verify(ctx), "the whole reconciliation is exact after the first start")
	mt, err := k.st.Meters(ctx)
	require.NoError(t, err)
	assert.Empty(t, mt.Names(), "the first start moved no meter")

	// The kiosk sells and prints, through the player's screens and with a
	// finger: a note, a game at 1 €, the cash-out and its voucher.
	p := k.player(w)
	p.sell(t, 5*game.Euro, game.Stake100)
	voucher, err := os.ReadFile(k.dev.ReceiptFile(2) + ".txt")
	require.NoError(t, err, "the voucher is on paper")
	assert.Contains(t, string(voucher), "PH-0042", "the voucher names the kiosk by the id typed on the screen")
	assert.Contains(t, string(voucher), "Bon n° 000002", "the number after the test voucher's")
	require.NoError(t, k.st.Verify(ctx))
}
