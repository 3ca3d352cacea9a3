package maint

import (
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/store"
)

// The staff's voucher views: paying a voucher a player brings to the
// counter, and printing the last voucher again as a DUPLICATA. Staff type
// the validation number on the screen's keypad or scan the voucher's
// barcode: a scanner is a keyboard that types the digits and Enter, taken
// here whether or not the number's field has the focus. The Office checks
// the number and pays the voucher once; a refusal says why in words staff
// can repeat to the player: when and by whom it was paid, when it expired,
// why it is void. A voucher above the counter's payout limit (its paper
// sends the player to a payment centre) is paid only once staff confirm.

var (
	_ = register(View{ID: "voucher", Title: "voucher.menu", Need: kiosk.RoleStaff, Order: 10, Build: buildVoucher})
	_ = register(View{ID: "reprint", Title: "reprint.menu", Need: kiosk.RoleStaff, Order: 11, Build: buildReprint})
)

type voucherView struct {
	env    *Env
	number *widget.Entry
	result *widget.Label
	amount *widget.Label
	pay    *widget.Button
	busy   bool
	// confirm asks staff to pay a voucher above the payout limit all the
	// same; pending is its number meanwhile.
	confirm *fyne.Container
	pending string
	left    *fyne.Container // the view's column, laid out again with the confirmation
}

func buildVoucher(env *Env) fyne.CanvasObject {
	tr := env.Tr
	v := &voucherView{env: env}
	v.number = widget.NewEntry()
	v.number.SetPlaceHolder(tr.F("voucher.placeholder", store.ValidationDigits))
	v.number.OnChanged = func(string) { v.touch() }
	v.number.OnSubmitted = func(string) { v.submit() }
	v.result = widget.NewLabel("")
	v.result.Wrapping = fyne.TextWrapWord
	v.amount = widget.NewLabel("")
	v.amount.TextStyle = fyne.TextStyle{Bold: true}
	v.amount.SizeName = theme.SizeNameHeadingText
	v.amount.Wrapping = fyne.TextWrapWord
	var keys fyne.CanvasObject
	keys, v.pay = shKeypad(tr, v.digit, v.erase, tr.T("voucher.pay"), v.submit)
	// A scanner types into the window even when the field has no focus.
	shTakeKeys(env.Win.Canvas(), v.digit, v.submit, v.erase)
	anyway := widget.NewButton(tr.T("voucher.payanyway"), v.payAnyway)
	anyway.Importance = widget.WarningImportance
	dont := widget.NewButton(tr.T("voucher.dontpay"), v.dontPay)
	v.confirm = shFlow(shSized(fyne.NewSize(240, 64), anyway), shSized(fyne.NewSize(200, 64), dont))
	v.confirm.Hide()
	help := shPara(tr.T("voucher.help"), 3)
	v.left = container.NewVBox(shTitle(tr.T("voucher.title")), help, v.number, v.result, v.confirm, v.amount)
	return container.NewBorder(nil, nil, nil, container.NewVBox(container.NewCenter(keys)), v.left)
}

func (v *voucherView) touch() {
	if v.env.Touch != nil {
		v.env.Touch()
	}
}

func (v *voucherView) digit(r rune) {
	v.touch()
	if v.busy || len(v.number.Text) >= store.ValidationDigits+8 {
		return
	}
	v.number.SetText(v.number.Text + string(r))
}

func (v *voucherView) erase() {
	v.touch()
	if t := v.number.Text; t != "" && !v.busy {
		v.number.SetText(t[:len(t)-1])
	}
}

// submit checks the voucher whose number was typed and pays it, once
// staff confirmed if it is above the counter's payout limit.
func (v *voucherView) submit() {
	v.touch()
	env, tr := v.env, v.env.Tr
	typed := strings.TrimSpace(v.number.Text)
	if v.busy {
		return
	}
	if typed == "" {
		v.say(widget.WarningImportance, tr.T("voucher.empty"), "")
		return
	}
	v.busy = true
	v.pay.Disable()
	v.say(widget.MediumImportance, tr.T("voucher.checking"), "")
	env.Go(func() {
		// A number the check does not find goes to the payment all the
		// same: its refusal says why, and is logged.
		c, err := env.Office.CheckVoucher(env.Ctx, env.Session, typed)
		if err != nil || !c.AboveLimit() {
			v.payNow(typed)
			return
		}
		env.Do(func() {
			v.pending = typed
			v.number.SetText("") // a payable voucher's number is not left in sight
			v.say(widget.WarningImportance, tr.F("voucher.above", c.ID, tr.Money(c.Amount), tr.Money(c.PayoutLimit)), "")
			v.showConfirm(true)
		})
	})
}

// payAnyway pays the voucher above the payout limit staff confirmed.
func (v *voucherView) payAnyway() {
	v.touch()
	typed := v.pending
	if typed == "" {
		return
	}
	v.pending = ""
	v.showConfirm(false)
	v.say(widget.MediumImportance, v.env.Tr.T("voucher.checking"), "")
	v.env.Go(func() { v.payNow(typed) })
}

// dontPay leaves the voucher above the payout limit unpaid.
func (v *voucherView) dontPay() {
	v.touch()
	v.pending = ""
	v.showConfirm(false)
	v.busy = false
	v.pay.Enable()
	v.number.SetText("")
	v.say(widget.MediumImportance, v.env.Tr.T("voucher.notpaid"), "")
}

// showConfirm shows or hides the confirmation, in its place in the column.
func (v *voucherView) showConfirm(on bool) {
	if on {
		v.confirm.Show()
	} else {
		v.confirm.Hide()
	}
	v.left.Refresh()
}

// payNow asks the Office to pay the voucher (off the UI goroutine).
func (v *voucherView) payNow(typed string) {
	env, tr := v.env, v.env.Tr
	paid, err := env.Office.PayVoucher(env.Ctx, env.Session, typed)
	env.Do(func() {
		v.busy = false
		v.pay.Enable()
		v.number.SetText("")
		if err != nil {
			v.say(widget.DangerImportance, voucherRefusal(env, err), "")
			return
		}
		v.say(widget.SuccessImportance, tr.F("voucher.paid", paid.ID), tr.F("voucher.handover", tr.Money(paid.Amount)))
	})
}

func (v *voucherView) say(imp widget.Importance, line, amount string) {
	v.result.Importance = imp
	v.result.SetText(line)
	v.amount.Importance = imp
	v.amount.SetText(amount)
}

// voucherRefusal says why a voucher was not paid.
func voucherRefusal(env *Env, err error) string {
	tr := env.Tr
	if line, ok := fleetRefusal(env, err); ok {
		return line
	}
	var r *store.VoucherRefusal
	if errors.As(err, &r) {
		vc := r.Voucher
		head := tr.F("voucher.which", vc.ID, tr.Money(vc.Amount))
		switch {
		case errors.Is(err, store.ErrVoucherPaid):
			return head + " " + tr.F("voucher.refused.paid", tr.Time(vc.Paid, env.Loc), shRoleName(tr, vc.PaidBy))
		case errors.Is(err, store.ErrVoucherExpired):
			return head + " " + tr.F("voucher.refused.expired", tr.Time(vc.Expires, env.Loc))
		case vc.State == store.VoucherVoid:
			return head + " " + tr.F("voucher.refused.void", vc.VoidReason)
		default:
			return head + " " + tr.T("voucher.refused.state")
		}
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return tr.T("voucher.refused.unknown")
	case errors.Is(err, store.ErrBadRequest):
		return tr.F("voucher.refused.format", store.ValidationDigits)
	}
	return shErr(env, err)
}

// fleetRefusal says why the fleet's voucher check refused a voucher
// (kiosk/voucher_registry.go): paid at the centre or at another kiosk,
// printed by another kiosk, or the centre away.
func fleetRefusal(env *Env, err error) (string, bool) {
	tr := env.Tr
	var fr *kiosk.FleetRefusal
	if errors.As(err, &fr) {
		fv := fr.Voucher
		head := tr.F("voucher.which", fv.ID, tr.Money(fv.Amount))
		if errors.Is(err, kiosk.ErrForeignVoucher) {
			head = tr.F("voucher.foreign.which", fv.ID, fv.Kiosk, tr.Money(fv.Amount))
		}
		switch {
		case fv.State == string(store.VoucherPaid):
			return head + " " + tr.F("voucher.refused.fleetpaid", tr.Time(fv.PaidAt, env.Loc), fleetPayer(tr, fv)), true
		case errors.Is(err, kiosk.ErrForeignVoucher) && env.Now != nil && fv.Payable(env.Now()):
			return head + " " + tr.F("voucher.foreign.payable", fv.Kiosk), true
		case errors.Is(err, kiosk.ErrForeignVoucher):
			return head + " " + tr.T("voucher.foreign.notpayable"), true
		}
		return head + " " + tr.T("voucher.refused.fleet"), true
	}
	var off *kiosk.OfflineRefusal
	if errors.As(err, &off) {
		return tr.F("voucher.refused.offline", off.ID, tr.Money(off.Amount), tr.Money(off.Limit)), true
	}
	if errors.Is(err, store.ErrNotFound) && errors.Is(err, kiosk.ErrFleetOffline) {
		return tr.T("voucher.refused.unknownoffline"), true
	}
	return "", false
}

// fleetPayer is where the fleet says a voucher was paid.
func fleetPayer(tr Tr, fv kiosk.FleetVoucher) string {
	if fv.PaidKiosk != "" {
		return tr.F("voucher.paid.kiosk", fv.PaidKiosk)
	}
	return tr.F("voucher.paid.centre", fv.PaidBy)
}

// shRoleName is a role as staff read it.
func shRoleName(tr Tr, role string) string {
	switch kiosk.Role(role) {
	case kiosk.RoleStaff:
		return tr.T("shell.role.staff")
	case kiosk.RoleTechnician:
		return tr.T("shell.role.technician")
	}
	return role
}

// buildReprint is the reprint of the last voucher as a DUPLICATA.
func buildReprint(env *Env) fyne.CanvasObject {
	tr := env.Tr
	help := shPara(tr.T("reprint.help"), 3)
	result := widget.NewLabel("")
	result.Wrapping = fyne.TextWrapWord
	var print *widget.Button
	print = widget.NewButton(tr.T("reprint.print"), func() {
		if env.Touch != nil {
			env.Touch()
		}
		print.Disable()
		result.Importance = widget.MediumImportance
		result.SetText(tr.T("reprint.printing"))
		env.Go(func() {
			info, err := env.Office.ReprintLast(env.Ctx, env.Session)
			env.Do(func() {
				print.Enable()
				if err != nil {
					result.Importance = widget.DangerImportance
					result.SetText(reprintRefusal(env, err))
					return
				}
				result.Importance = widget.SuccessImportance
				result.SetText(tr.F("reprint.done", info.Number, tr.Money(info.Amount), info.Reprints))
			})
		})
	})
	print.Importance = widget.HighImportance
	note := widget.NewLabel(tr.T("reprint.note"))
	note.Wrapping = fyne.TextWrapWord
	note.SizeName = theme.SizeNameCaptionText
	return container.NewVBox(shTitle(tr.T("reprint.title")), help,
		container.NewHBox(shSized(fyne.NewSize(320, 64), print)), result, note)
}

func reprintRefusal(env *Env, err error) string {
	tr := env.Tr
	switch {
	case errors.Is(err, kiosk.ErrNoVoucher):
		return tr.T("reprint.none")
	case errors.Is(err, kiosk.ErrBusy):
		return tr.T("reprint.busy")
	case errors.Is(err, kiosk.ErrPrintFailed), errors.Is(err, kiosk.ErrCashOutUnavailable):
		shErr(env, err)
		return tr.T("reprint.printer")
	}
	return shErr(env, err)
}

var _ = words(map[word]text{
	"voucher.menu":                   {"Payer un ticket", "Pay a voucher"},
	"voucher.title":                  {"Paiement d’un ticket", "Voucher payment"},
	"voucher.help":                   {"Scannez le code-barres du ticket, ou tapez son numéro de validation puis Payer. Un ticket n’est payé qu’une fois.", "Scan the voucher’s barcode, or type its validation number, then Pay. A voucher is paid once only."},
	"voucher.placeholder":            {"Numéro de validation (%d chiffres)", "Validation number (%d digits)"},
	"voucher.pay":                    {"Payer", "Pay"},
	"voucher.empty":                  {"Tapez ou scannez d’abord le numéro du ticket.", "Type or scan the voucher’s number first."},
	"voucher.checking":               {"Vérification du ticket…", "Checking the voucher…"},
	"voucher.paid":                   {"Ticket n°\u00a0%d payé.", "Voucher no. %d paid."},
	"voucher.handover":               {"Remettez %s au client", "Hand %s to the customer"},
	"voucher.which":                  {"Ticket n°\u00a0%d de %s\u00a0:", "Voucher no. %d of %s:"},
	"voucher.refused.paid":           {"déjà payé le %s par le %s. Ne le payez pas une seconde fois.", "already paid on %s by %s. Do not pay it twice."},
	"voucher.refused.expired":        {"expiré le %s, il ne peut plus être payé.", "expired on %s, it can no longer be paid."},
	"voucher.refused.void":           {"annulé (%s), il ne peut pas être payé.", "void (%s), it cannot be paid."},
	"voucher.refused.state":          {"jamais imprimé, il ne peut pas être payé.", "never printed, it cannot be paid."},
	"voucher.refused.unknown":        {"Aucun ticket de cette borne ne porte ce numéro\u00a0: vérifiez-le.", "No voucher of this kiosk has that number: check it."},
	"voucher.above":                  {"Ticket n°\u00a0%d de %s\u00a0: au-dessus du plafond de paiement au comptoir (%s). Le ticket envoie le client vers un centre de paiement. Le payer quand même ici\u00a0?", "Voucher no. %d of %s: above the counter’s payout limit (%s). The voucher sends the customer to a payment centre. Pay it here all the same?"},
	"voucher.payanyway":              {"Payer quand même", "Pay all the same"},
	"voucher.dontpay":                {"Ne pas payer", "Do not pay"},
	"voucher.notpaid":                {"Ticket non payé.", "Voucher not paid."},
	"voucher.refused.format":         {"Un numéro de validation a %d chiffres.", "A validation number has %d digits."},
	"voucher.refused.fleetpaid":      {"déjà payé le %s %s. Ne le payez pas une seconde fois.", "already paid on %s %s. Do not pay it twice."},
	"voucher.paid.kiosk":             {"à la borne %s", "at kiosk %s"},
	"voucher.paid.centre":            {"par le centre (guichet « %s »)", "through the centre (counter “%s”)"},
	"voucher.refused.fleet":          {"le centre de la flotte ne le tient pas pour payable (annulé, expiré ou numéro d’une autre borne). Ne le payez pas.", "the fleet’s centre does not hold it payable (void, expired, or another kiosk’s number). Do not pay it."},
	"voucher.foreign.which":          {"Ticket n° %d de la borne %s, %s :", "Voucher no. %d of kiosk %s, %s:"},
	"voucher.foreign.payable":        {"valable et non payé, mais cette borne ne paie que ses propres tickets. Il se paie à la borne %s ou au centre.", "valid and unpaid, but this kiosk pays only its own vouchers. It is paid at kiosk %s or at the centre."},
	"voucher.foreign.notpayable":     {"ni payable ici ni ailleurs (jamais imprimé, annulé ou expiré).", "payable neither here nor elsewhere (never printed, void or expired)."},
	"voucher.refused.offline":        {"Le centre de la flotte ne répond pas : sans lui, cette borne ne paie ses tickets que jusqu’à %[3]s. Le ticket n° %[1]d de %[2]s attendra son retour.", "The fleet’s centre does not answer: without it, this kiosk pays its vouchers only up to %[3]s. Voucher no. %[1]d of %[2]s must wait until it answers."},
	"voucher.refused.unknownoffline": {"Aucun ticket de cette borne ne porte ce numéro, et le centre de la flotte ne répond pas pour dire s’il vient d’une autre borne : vérifiez le numéro, réessayez plus tard.", "No voucher of this kiosk has that number, and the fleet’s centre does not answer to say whether it is another kiosk’s: check the number, try again later."},
	"reprint.menu":                   {"Duplicata du dernier ticket", "Duplicate of the last voucher"},
	"reprint.title":                  {"Duplicata du dernier ticket", "Duplicate of the last voucher"},
	"reprint.help":                   {"Imprime à nouveau le dernier ticket, marqué DUPLICATA, s’il est encore payable (ni payé, ni expiré, ni annulé). Aucun crédit ne bouge.", "Prints the last voucher again, marked DUPLICATA, if it is still payable (not paid, expired or void). No credit moves."},
	"reprint.print":                  {"Imprimer le duplicata", "Print the duplicate"},
	"reprint.printing":               {"Impression…", "Printing…"},
	"reprint.done":                   {"Duplicata du ticket n°\u00a0%d de %s imprimé (duplicata n°\u00a0%d).", "Duplicate of voucher no. %d of %s printed (duplicate no. %d)."},
	"reprint.none":                   {"Aucun ticket à réimprimer\u00a0: le dernier est payé, expiré ou annulé.", "No voucher to reprint: the last one is paid, expired or void."},
	"reprint.busy":                   {"La borne imprime déjà ou une partie est en cours\u00a0: réessayez dans un instant.", "The kiosk is printing or a game is on: try again in a moment."},
	"reprint.printer":                {"L’imprimante n’a pas imprimé le duplicata\u00a0: voyez son état.", "The printer did not print the duplicate: see its state."},
	"reprint.note":                   {"Le duplicata porte le numéro de validation complet\u00a0: remettez-le au seul porteur du ticket.", "The duplicate carries the full validation number: give it to the voucher’s holder only."},
})
