package maint

import (
	"context"
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
	"pharaon/store"
)

// Hand-pay (staff): a win or a cash-out above the hand-pay limit locked the
// kiosk (kiosk/handpay.go) and its player screen says to call the staff.
// Staff pay the player by hand, then record it here: the amount is debited
// through the ledger, who paid is logged, and the kiosk unlocks.

var _ = register(View{ID: "handpay", Title: "handpay.title", Need: kiosk.RoleStaff, Order: 15,
	Build: func(env *Env, o Office) fyne.CanvasObject { return newHandPayView(env, o).root }})

var _ = words(map[word]text{
	"handpay.title":    {"Paiement manuel", "Hand-pay"},
	"handpay.none":     {"Aucun paiement manuel en attente.", "No hand-pay pending."},
	"handpay.pending":  {"La borne est bloquée\u00a0: remettez au joueur %s.", "The kiosk is locked: pay the player %s."},
	"handpay.win":      {"Gain de la partie n°\u00a0%d au-dessus de la limite de paiement manuel.", "Game no. %d won above the hand-pay limit."},
	"handpay.cash_out": {"Encaissement au-dessus de la limite de paiement manuel.", "Cash-out above the hand-pay limit."},
	"handpay.since":    {"Bloqué depuis le %s (référence %s).", "Locked since %s (reference %s)."},
	"handpay.pay":      {"J’ai payé %s", "I paid %s"},
	"handpay.confirm":  {"Touchez encore pour confirmer le paiement de %s.", "Touch again to confirm the payment of %s."},
	"handpay.paid":     {"Paiement de %s enregistré (écriture n°\u00a0%d). La borne est débloquée.", "Payment of %s recorded (ledger row %d). The kiosk is unlocked."},
	"handpay.failed":   {"Paiement non enregistré.", "Payment not recorded."},
})

// handPayView shows the pending hand-pay and records its payment, with a
// second touch to confirm.
type handPayView struct {
	env     *Env
	o       handPayDesk
	root    *fyne.Container
	body    *fyne.Container
	note    *widget.Label
	pay     *widget.Button
	hp      kiosk.HandPay
	confirm bool
}

// handPayDesk is what the hand-pay view does to the money: it reads the
// prize waiting for staff and pays it.
type handPayDesk interface {
	PendingHandPay(ctx context.Context, s *kiosk.Session) (kiosk.HandPay, error)
	PayHandPay(ctx context.Context, s *kiosk.Session) (kiosk.HandPay, store.Entry, error)
}

func newHandPayView(env *Env, o handPayDesk) *handPayView {
	v := &handPayView{env: env, o: o, body: container.NewVBox(), note: widget.NewLabel("")}
	v.note.Wrapping = fyne.TextWrapWord
	title := canvas.NewText(env.Tr.T("handpay.title"), art.GoldLight)
	title.TextSize, title.TextStyle = 28, fyne.TextStyle{Bold: true}
	v.root = container.NewBorder(container.NewVBox(title), nil, nil, nil, container.NewVBox(v.body, v.note))
	v.load()
	return v
}

// load reads the pending hand-pay.
func (v *handPayView) load() {
	env := v.env
	env.Go(func() {
		hp, err := v.o.PendingHandPay(env.Ctx, env.Session)
		env.Do(func() { v.show(hp, err) })
	})
}

func (v *handPayView) show(hp kiosk.HandPay, err error) {
	tr := v.env.Tr
	v.hp, v.confirm = hp, false
	v.body.Objects = nil
	switch {
	case errors.Is(err, kiosk.ErrNoHandPay):
		v.body.Add(wrapped(tr.T("handpay.none")))
	case err != nil:
		fyne.LogError("hand-pay", err)
		v.note.SetText(rptRefusal(tr, tr.T("handpay.failed"), err))
	default:
		amount := wrapped(tr.F("handpay.pending", tr.Money(hp.Amount)))
		amount.SizeName, amount.TextStyle = theme.SizeNameSubHeadingText, fyne.TextStyle{Bold: true}
		amount.Importance = widget.WarningImportance
		why := tr.T("handpay.cash_out")
		if hp.Cause == kiosk.HandPayWin {
			why = tr.F("handpay.win", hp.PlayID)
		}
		v.pay = widget.NewButton(tr.F("handpay.pay", tr.Money(hp.Amount)), v.tapped)
		v.pay.Importance = widget.HighImportance
		v.body.Add(amount)
		v.body.Add(wrapped(why))
		v.body.Add(wrapped(tr.F("handpay.since", tr.Time(hp.At, v.env.Loc), hp.Ref)))
		v.body.Add(container.NewHBox(shSized(fyne.NewSize(360, 70), v.pay)))
	}
	v.body.Refresh()
}

// tapped asks for a second touch, then records the payment.
func (v *handPayView) tapped() {
	env, tr := v.env, v.env.Tr
	if env.Touch != nil {
		env.Touch()
	}
	if !v.confirm {
		v.confirm = true
		v.note.SetText(tr.F("handpay.confirm", tr.Money(v.hp.Amount)))
		return
	}
	v.pay.Disable()
	env.Go(func() {
		hp, e, err := v.o.PayHandPay(env.Ctx, env.Session)
		env.Do(func() {
			if err != nil {
				fyne.LogError("hand-pay", err)
				v.note.SetText(rptRefusal(tr, tr.T("handpay.failed"), err))
				v.load()
				return
			}
			v.show(kiosk.HandPay{}, kiosk.ErrNoHandPay)
			v.note.SetText(tr.F("handpay.paid", tr.Money(hp.Amount), e.ID))
		})
	})
}
