package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/store"
)

// The money flow on the screens, end to end: the development panel puts a
// note in the simulated validator, the kiosk's real ID-003 driver takes it
// over a pseudo-terminal, the kiosk credits it, the screens show it; the
// cash-out prints on the simulated ESC/POS printer, whose receipts land as
// files the tests read back.

// insertNote taps the development panel's note of amount (again while the
// validator does not take it yet) and waits for its credit on screen; its
// toast is then left to go.
func (f *scrFixture) insertNote(amount game.Money) {
	f.t.Helper()
	want := f.s.snap.Credit + amount
	f.panelTap(fr(amount))
	f.waitFor(func() bool { return f.s.snap.Credit == want }, "credit %s", want.Plain())
	f.expireToast()
}

// panelTap taps a button of the development panel that puts a note in the
// slot, again while the simulator refuses it (the last note is still
// on its way to the cash box, or the kiosk has not enabled the slot yet).
func (f *scrFixture) panelTap(label string) {
	f.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		f.tap(label)
		if !f.s.dev.failed {
			return
		}
		require.True(f.t, time.Now().Before(deadline), "the validator never took the note: %s", f.s.dev.status(Tr{Lang: French}))
		time.Sleep(5 * time.Millisecond)
	}
}

// expireToast moves the clock past the toast's time.
func (f *scrFixture) expireToast() {
	f.clock.Advance(toastReturned)
	f.s.Poll(f.clock.Now())
	require.Equal(f.t, kiosk.CashInNone, f.s.toast.ev.Kind)
}

// toastText is the toast's text, "" when there is none.
func (f *scrFixture) toastText() string {
	f.flush()
	var out []string
	visible(f.s.toastBox, func(o fyne.CanvasObject) {
		if t, ok := o.(*canvas.Text); ok && t.Text != "" {
			out = append(out, t.Text)
		}
	})
	return strings.Join(out, " ")
}

// creditShown is the amount the home screen's credit panel shows.
func (f *scrFixture) homeCredit() string {
	texts := f.texts()
	for i, t := range texts {
		if t == "CRÉDIT" && i+1 < len(texts) {
			return texts[i+1]
		}
	}
	return ""
}

// textObject is the text object on screen showing s, or nil.
func (f *scrFixture) textObject(s string) *canvas.Text {
	f.flush()
	var found *canvas.Text
	visible(f.s.Content(), func(o fyne.CanvasObject) {
		if t, ok := o.(*canvas.Text); ok && t.Text == s && found == nil {
			found = t
		}
	})
	return found
}

func TestScreensCashInNote(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	assert.Equal(t, fr(0), f.homeCredit())
	rules := f.textObject("Règle du jeu")
	require.NotNil(t, rules)
	assert.True(t, f.button("Encaisser").Disabled(), "nothing to cash out")

	f.panelTap(fr(20 * game.Euro))
	assert.Contains(t, f.texts(), "DÉVELOPPEMENT  ·  billet de 20\u00a0€ inséré", "the panel says what it did")
	f.waitFor(func() bool { return f.s.snap.Credit == 20*game.Euro }, "the note credited")
	// The toast went through the note's steps and says what came of it.
	assert.Equal(t, []string{"Lecture du billet…", "Billet de 20\u00a0€\u00a0: un instant…", "Billet de 20\u00a0€ accepté"}, f.toasts)
	assert.Equal(t, "Billet de 20\u00a0€ accepté Crédit\u00a0: 20\u00a0€", f.toastText())
	assert.Same(t, rules, f.textObject("Règle du jeu"),
		"a note redraws only what shows the machine's state, not the rules (the credit shows in the next frame)")
	f.golden("screen-cash-note-credited.png")

	// The toast goes; the credit stays, and cash-out works.
	f.clock.Advance(toastCredited - time.Millisecond)
	f.s.Poll(f.clock.Now())
	assert.NotEmpty(t, f.toastText(), "the toast stays its time")
	f.clock.Advance(time.Millisecond)
	f.s.Poll(f.clock.Now())
	assert.Empty(t, f.toastText())
	assert.Equal(t, fr(20*game.Euro), f.homeCredit())
	assert.False(t, f.button("Encaisser").Disabled())
	assert.False(t, f.button("Jouer").Disabled())

	// In English.
	f.tap("EN")
	f.insertNoteWatching(10*game.Euro, "€10 note accepted Credit: €30")
}

// insertNoteWatching inserts a note through the panel (labels in the
// language shown) and checks its toast once credited.
func (f *scrFixture) insertNoteWatching(amount game.Money, toast string) {
	f.t.Helper()
	want := f.s.snap.Credit + amount
	f.panelTap(f.s.tr.Money(amount))
	f.waitFor(func() bool { return f.s.snap.Credit == want }, "credit %s", want.Plain())
	assert.Equal(f.t, toast, f.toastText())
}

func TestScreensCashInCounterfeitReturned(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.panelTap("Faux")
	f.waitFor(func() bool { return f.s.toast.ev.Kind == kiosk.NoteReturned }, "the note given back")
	text := f.toastText()
	assert.Equal(t, "Billet rendu Ce billet n’a pas été reconnu. Vérifiez-le et réessayez, ou adressez-vous au personnel.", text, "the toast says why")
	assert.Equal(t, "Billet rendu", f.toasts[len(f.toasts)-1])
	assert.Zero(t, f.m.Snapshot().Credit, "a counterfeit credits nothing")
	f.golden("screen-cash-note-returned.png")

	// The history shows no credit, so no toast either.
	f.tap("Historique")
	assert.Empty(t, f.toastText())
	f.tap("Retour")
	assert.Equal(t, text, f.toastText(), "back home, the toast is there until its time is up")
}

func TestScreensCashInMaxCredit(t *testing.T) {
	f := newScrFixture(t, withDevices(func(c *kiosk.CashConfig) { c.MaxCredit = 30 * game.Euro }))
	f.insertNote(20 * game.Euro)
	// 20 € more would pass 30 €: the note comes back, and the toast says why.
	f.panelTap(fr(20 * game.Euro))
	f.waitFor(func() bool { return f.s.toast.ev.Kind == kiosk.NoteReturned }, "the note given back")
	assert.Equal(t, "Billet de 20\u00a0€ rendu Il porterait votre crédit de 20\u00a0€ au-delà du maximum de 30\u00a0€.", f.toastText())
	assert.Equal(t, 20*game.Euro, f.m.Snapshot().Credit)
	f.expireToast()
	// 10 € reach it: the kiosk takes no more notes, and says so.
	f.insertNote(10 * game.Euro)
	f.waitFor(func() bool { return !f.s.snap.Cash.CanCashIn }, "notes refused")
	assert.Contains(t, f.screenText(), "Crédit maximum\u00a0: 30\u00a0€. Votre crédit de 30\u00a0€ ne laisse plus de place pour un billet.")
	assert.NotContains(t, f.screenText(), "Insérez un billet")
	// The slot is shut once the kiosk inhibited the unit (at its next
	// command): the simulator refuses the note at once.
	f.waitDevice(func() bool { _, _, inhibit := f.devs.Validator.Settings(); return inhibit != 0 }, "the validator inhibited")
	f.tap(fr(5 * game.Euro))
	assert.True(t, f.s.dev.failed)
	assert.Contains(t, f.s.dev.status(Tr{Lang: French}), "refusé\u00a0: ")
}

func TestScreensCashInValidatorFault(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.cashReady() // the validator's state shows: not while it starts
	f.tap("Pannes")
	require.Equal(t, ovDevFaults, f.s.overlay)
	assert.Contains(t, f.texts(), "Lecteur de billets\u00a0: En service")
	assert.Contains(t, f.texts(), "Imprimante\u00a0: En service")
	f.tap("Bourrage du lecteur")
	// The jam itself: a loaded machine may first see the unit resetting
	// (« en initialisation »), which is not what this test looks at.
	f.waitFor(func() bool {
		return !f.s.snap.Cash.Validator.OK && strings.Contains(Tr{Lang: French}.Message(f.s.snap.Cash.Validator.Message), "Bourrage")
	}, "the validator jammed")
	jam := Tr{Lang: French}.Message(f.s.snap.Cash.Validator.Message)
	assert.Contains(t, f.texts(), "Lecteur de billets\u00a0: "+jam, "the panel shows the kiosk's view of the device")
	f.golden("screen-cash-dev-faults.png")
	f.tap("Fermer")

	assert.Contains(t, f.screenText(), "Billets refusés pour le moment\u00a0: "+lowerFirst(jam))
	assert.False(t, f.s.snap.Cash.CanCashIn)
	f.golden("screen-cash-validator-fault.png")

	// Staff clear it: Réparer, then the kiosk resets the validator.
	f.tap("Pannes")
	f.tap("Tout réparer")
	f.waitFor(func() bool { return f.s.snap.Cash.CanCashIn }, "notes taken again")
	f.tap("Fermer")
	assert.NotContains(t, f.screenText(), "Billets refusés")
	f.insertNote(5 * game.Euro)
}

func TestScreensCashOutVoucher(t *testing.T) {
	f := newScrFixture(t, withDevices(nil), gatedCashOut())
	f.insertNote(20 * game.Euro)
	// A game first: a 0,50 € loss leaves 19,50 €.
	f.tap(fr(game.Stake050.Money()))
	f.tap("Auto")
	f.playToEnd(false)
	f.tap("Accueil")
	credit := 20*game.Euro - game.Stake050.Money()
	require.Equal(t, credit, f.m.Snapshot().Credit)

	f.tap("Encaisser")
	require.Equal(t, ovCashConfirm, f.s.overlay)
	assert.Contains(t, f.texts(), "Encaisser 19,50\u00a0€\u00a0?")
	assert.Contains(t, f.texts(), "Un bon de paiement va être imprimé.")
	f.golden("screen-cash-confirm.png")
	f.tap("Annuler")
	assert.Equal(t, ovNone, f.s.overlay, "Annuler prints nothing")

	f.tap("Encaisser")
	f.tap("Imprimer")
	require.Equal(t, ovCashPrinting, f.s.overlay)
	assert.Contains(t, f.texts(), "Impression du bon…")
	assert.Nil(t, f.button("Imprimer"), "nothing to tap while it prints")
	f.golden("screen-cash-printing.png")
	f.gate <- struct{}{}
	f.waitFor(func() bool { return f.s.overlay == ovVoucher }, "the voucher card")

	v, err := f.st.Voucher(context.Background(), 1)
	require.NoError(t, err)
	require.Equal(t, store.VoucherPrinted, v.State)
	assert.Equal(t, credit, v.Amount)
	masked := kiosk.MaskValidation(v.Validation)
	texts := f.texts()
	assert.Contains(t, texts, "Prenez votre bon")
	assert.Contains(t, texts, "Bon de paiement n°\u00a0000001")
	assert.Contains(t, texts, fr(credit))
	assert.Contains(t, texts, "N° de validation "+masked)
	assert.Contains(t, texts, "Valable jusqu’au 29/01/2027 à 11:00", "60 days")
	assert.Contains(t, texts, "Payable au comptoir")
	screen := f.screenText()
	for _, full := range []string{v.Validation, kiosk.FormatValidation(v.Validation), kiosk.FormatValidation(v.Validation)[:19]} {
		assert.NotContains(t, screen, full, "the screen never shows the number that pays the voucher")
	}
	assert.Equal(t, game.Money(0), f.m.Snapshot().Credit, "the credit is paid out")

	// The printed voucher, read back from the receipts directory: the
	// amount in figures and in words, and the full number, the store's.
	r := f.receipt(1)
	assert.Contains(t, r, doubleWidth(credit.French()), "the amount in figures, printed large")
	assert.Contains(t, strings.Join(strings.Fields(r), " "), credit.FrenchWords())
	assert.Contains(t, r, kiosk.FormatValidation(v.Validation))
	assert.Contains(t, r, "Payable au comptoir")
	assert.FileExists(t, filepath.Join(f.receipts, "0001.png"))

	// The golden: the random digits shown replaced by fixed ones.
	f.fixText("N° de validation "+masked, "N° de validation "+kiosk.MaskValidation("000000000000001234"))
	f.golden("screen-cash-voucher.png")

	f.tap("Terminé")
	assert.Equal(t, ovNone, f.s.overlay)
	assert.Equal(t, fr(0), f.homeCredit())
	assert.True(t, f.button("Encaisser").Disabled())
	assert.True(t, f.button("Jouer").Disabled())
}

// The voucher card left alone goes, so the next player does not find it.
func TestScreensVoucherCardTimesOut(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.insertNote(5 * game.Euro)
	f.tap("Encaisser")
	f.tap("Imprimer")
	f.waitFor(func() bool { return f.s.overlay == ovVoucher }, "the voucher card")
	f.clock.Advance(DefaultOverlayTimeout - time.Second)
	f.s.Poll(f.clock.Now())
	assert.Equal(t, ovVoucher, f.s.overlay)
	f.clock.Advance(time.Second)
	f.s.Poll(f.clock.Now())
	assert.Equal(t, ovNone, f.s.overlay)
	assert.NotContains(t, f.screenText(), "N° de validation")
}

func TestScreensCashOutPrinterFault(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.insertNote(10 * game.Euro)
	f.tap("Pannes")
	f.tap("Plus de papier")
	f.tap("Fermer")
	f.waitFor(func() bool { return f.s.snap.Cash.Printer.Code == "paper_out" }, "the printer seen out of paper")
	b := f.button("Encaisser")
	assert.True(t, b.Disabled(), "no cash-out without paper")
	assert.Equal(t, "Plus de papier", b.Caption, "the button says why")
	assert.Contains(t, f.screenText(), "Encaissement impossible pour le moment\u00a0: plus de papier. Votre crédit est conservé.")
	assert.Equal(t, fr(10*game.Euro), f.homeCredit(), "the credit is kept")
	assert.False(t, f.button("Jouer").Disabled(), "the credit still plays")
	f.golden("screen-cash-printer-fault.png")

	f.tap("EN")
	assert.Equal(t, "Out of paper", f.button("Cash out").Caption)
	f.tap("FR")

	f.tap("Pannes")
	f.tap("Tout réparer")
	f.tap("Fermer")
	f.waitFor(func() bool { return f.s.snap.Cash.CanCashOut }, "cash-out back")
	b = f.button("Encaisser")
	assert.False(t, b.Disabled())
	assert.Empty(t, b.Caption)
}

func TestScreensCashOutPrintFailsMidway(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.insertNote(10 * game.Euro)
	f.tap("Pannes")
	f.tap("Papier épuisé pendant l’impression")
	f.tap("Fermer")
	f.tap("Encaisser")
	f.tap("Imprimer")
	f.waitFor(func() bool { return f.s.overlay == ovCashFailed }, "the failure card")
	texts := f.texts()
	assert.Contains(t, texts, "Bon non imprimé")
	assert.Contains(t, texts, "Plus de papier", "the printer's reason")
	assert.Contains(t, texts, "Votre crédit de 10\u00a0€ est conservé.")
	assert.Contains(t, f.screenText(), "Le bon n’a pas pu être imprimé en entier\u00a0: ce qui en serait sorti n’est pas valable. Réessayez, ou appelez le personnel.")
	assert.Equal(t, 10*game.Euro, f.m.Snapshot().Credit, "the credit is kept")
	v, err := f.st.Voucher(context.Background(), 1)
	require.NoError(t, err)
	assert.Equal(t, store.VoucherVoid, v.State, "the half-printed voucher is void")
	assert.NotContains(t, f.screenText(), v.Validation[10:])
	f.golden("screen-cash-print-failed.png")

	f.tap("Fermer")
	assert.Equal(t, fr(10*game.Euro), f.homeCredit())
	f.waitFor(func() bool { return f.button("Encaisser").Disabled() }, "cash-out off until the printer is fixed")
}

// A note inserted on a game's result shows in the game screen's credit,
// and Rejouer comes when the credit covers the stake again.
func TestScreensCashInOnResult(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.credit(game.Stake050.Money())
	f.tap(fr(game.Stake050.Money()))
	f.tap("Auto")
	f.playToEnd(false)
	require.Equal(t, ovLose, f.s.overlay)
	assert.True(t, f.button("Rejouer "+fr(game.Stake050.Money())).Disabled(), "no credit left")
	assert.Contains(t, f.texts(), fr(0))

	// The panel is on the home screen: the note goes into the simulator
	// directly.
	f.waitDevice(func() bool { return f.devs.InsertNote(5*game.Euro) == nil }, "the validator takes the note")
	f.waitFor(func() bool { return f.s.snap.Credit == 5*game.Euro }, "the note credited")
	assert.Equal(t, scrGame, f.s.screen, "the result stays")
	assert.Equal(t, "Billet de 5\u00a0€ accepté Crédit\u00a0: 5\u00a0€", f.toastText())
	assert.Contains(t, f.texts(), fr(5*game.Euro), "the game screen's credit")
	assert.False(t, f.button("Rejouer "+fr(game.Stake050.Money())).Disabled())
	f.golden("screen-cash-result-note.png")
}

// receipt is the text of the printed receipt number n under the receipts
// directory.
func (f *scrFixture) receipt(n int) string {
	f.t.Helper()
	var b []byte
	f.waitDevice(func() bool {
		var err error
		b, err = os.ReadFile(filepath.Join(f.receipts, fmt.Sprintf("%04d.txt", n)))
		return err == nil
	}, "receipt %d", n)
	return string(b)
}

// doubleWidth is text as a receipt's Text writes double-width characters:
// each followed by a space.
func doubleWidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
		b.WriteByte(' ')
	}
	return strings.TrimSuffix(b.String(), " ")
}

// fixText replaces a text on screen (random digits before a golden).
func (f *scrFixture) fixText(from, to string) {
	f.t.Helper()
	n := 0
	visible(f.s.Content(), func(o fyne.CanvasObject) {
		if t, ok := o.(*canvas.Text); ok && t.Text == from {
			t.Text = to
			t.Refresh()
			n++
		}
	})
	require.Equal(f.t, 1, n, "text %q on screen", from)
}

// A note in the slot of an idle kiosk ends its attract loop: a player is
// there, and sees the note counted.
func TestScreensNoteEndsAttract(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.clock.Advance(time.Minute)
	f.s.Poll(f.clock.Now())
	require.Equal(t, scrAttract, f.s.screen)
	f.waitDevice(func() bool { return f.devs.InsertNote(10*game.Euro) == nil }, "the validator takes the note")
	f.waitFor(func() bool { return f.s.screen == scrHome }, "home at the note's first step")
	f.waitFor(func() bool { return f.s.snap.Credit == 10*game.Euro }, "the note credited")
	assert.Equal(t, "Billet de 10\u00a0€ accepté Crédit\u00a0: 10\u00a0€", f.toastText())
}
