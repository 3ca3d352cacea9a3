package maint

import (
	"context"
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
// here whether or not the number's field has the focus. The field shows
// the digits in groups of four, as the paper prints them. The Office checks
// the number and pays the voucher once; a refusal says why in words staff
// can repeat to the player: a number mistyped (its check digits, and the
// groups that look wrong when the check can tell), unknown, or when and by
// whom the voucher was paid, when it expired, why it is void. After a
// refusal the number stays in the field: the keypad's keys correct it
// (Effacer, then the digits), while a scan (or a keyboard) starts a new
// number unless Effacer was touched first. A voucher
// above the counter's payout limit (its paper sends the player to a
// payment centre) is paid only once staff confirm.

var (
	_ = register(View{ID: "voucher", Title: "voucher.menu", Need: kiosk.RoleStaff, Order: 10,
		Build: func(env *Env, o Office) fyne.CanvasObject { return buildVoucher(env, o) }})
	_ = register(View{ID: "reprint", Title: "reprint.menu", Need: kiosk.RoleStaff, Order: 11,
		Build: func(env *Env, o Office) fyne.CanvasObject { return buildReprint(env, o) }})
)

type voucherView struct {
	env    *Env
	o      voucherDesk
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
	// refused: the number in the field was refused; the next digit a
	// scanner or a keyboard types starts a new one, the keypad corrects it.
	refused bool
}

// voucherDesk is what the voucher desk does to the money: it checks a typed
// number and pays the voucher.
type voucherDesk interface {
	CheckVoucher(ctx context.Context, s *kiosk.Session, typed string) (kiosk.VoucherCheck, error)
	PayVoucher(ctx context.Context, s *kiosk.Session, typed string) (store.Voucher, error)
}

func buildVoucher(env *Env, o voucherDesk) fyne.CanvasObject {
	tr := env.Tr
	v := &voucherView{env: env, o: o}
	v.number = widget.NewEntry()
	v.number.SetPlaceHolder(tr.F("voucher.placeholder", tr.Count(store.ValidationDigits, "n.digit")))
	v.number.TextStyle = fyne.TextStyle{Monospace: true}
	v.number.OnChanged = func(string) { v.touch() }
	v.number.OnSubmitted = func(string) { v.submit() }
	v.result = widget.NewLabel("")
	v.result.Wrapping = fyne.TextWrapWord
	v.amount = widget.NewLabel("")
	v.amount.TextStyle = fyne.TextStyle{Bold: true}
	v.amount.SizeName = theme.SizeNameHeadingText
	v.amount.Wrapping = fyne.TextWrapWord
	var keys fyne.CanvasObject
	keys, v.pay = shKeypad(tr, v.key, v.erase, tr.T("voucher.pay"), v.submit)
	// A scanner types into the window even when the field has no focus.
	shTakeKeys(env.Win.Canvas(), v.typed, v.submit, v.erase)
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

// key is a digit of the keypad: it goes on the number in the field, a
// number refused included (staff correct it).
func (v *voucherView) key(r rune) {
	v.refused = false
	v.digit(r)
}

// typed is a digit a scanner or a keyboard typed: after a refusal it
// starts a new number (a scan is a whole number).
func (v *voucherView) typed(r rune) {
	if v.refused && !v.busy {
		v.refused = false
		v.number.SetText("")
	}
	v.digit(r)
}

func (v *voucherView) digit(r rune) {
	v.touch()
	digits := kiosk.TypedDigits(v.number.Text)
	if v.busy || len(digits) >= store.ValidationDigits+8 {
		return
	}
	v.number.SetText(kiosk.FormatValidation(digits + string(r)))
}

func (v *voucherView) erase() {
	v.touch()
	if d := kiosk.TypedDigits(v.number.Text); d != "" && !v.busy {
		v.refused = false
		v.number.SetText(kiosk.FormatValidation(d[:len(d)-1]))
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
	v.refused = false
	v.busy = true
	v.pay.Disable()
	v.say(widget.MediumImportance, tr.T("voucher.checking"), "")
	env.Go(func() {
		// A number the check does not find goes to the payment all the
		// same: its refusal says why, and is logged.
		c, err := v.o.CheckVoucher(env.Ctx, env.Session, typed)
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
	paid, err := v.o.PayVoucher(env.Ctx, env.Session, typed)
	env.Do(func() {
		v.busy = false
		v.pay.Enable()
		if err != nil {
			// A number nothing pays stays in sight, for staff to compare
			// it with the paper and correct it; the keys go to the view
			// again, so that a scan starts a new number.
			v.number.SetText("")
			if paysNothing(err) {
				v.number.SetText(kiosk.FormatValidation(kiosk.TypedDigits(typed)))
				v.refused = true
				v.env.Win.Canvas().Unfocus()
			}
			v.say(widget.DangerImportance, voucherRefusal(env, err, typed), "")
			return
		}
		v.number.SetText("")
		v.say(widget.SuccessImportance, tr.F("voucher.paid", paid.ID), tr.F("voucher.handover", tr.Money(paid.Amount)))
	})
}

func (v *voucherView) say(imp widget.Importance, line, amount string) {
	v.result.Importance = imp
	v.result.SetText(line)
	v.amount.Importance = imp
	v.amount.SetText(amount)
}

// paysNothing reports whether a refusal says the number typed pays no
// voucher anywhere, now or later: mistyped, unknown, or a voucher paid,
// expired or void. Any other refusal may be of a payable voucher (another
// kiosk's, one the centre must see first), whose number is not left in
// sight.
func paysNothing(err error) bool {
	var me *kiosk.MistypedError
	return errors.As(err, &me) || (errors.Is(err, store.ErrNotFound) && !errors.Is(err, kiosk.ErrFleetOffline)) ||
		errors.Is(err, store.ErrVoucherPaid) || errors.Is(err, store.ErrVoucherExpired) ||
		errors.Is(err, store.ErrVoucherState) || errors.Is(err, kiosk.ErrPaidElsewhere)
}

// voucherRefusal says why the voucher whose number staff typed was not
// paid.
func voucherRefusal(env *Env, err error, typed string) string {
	tr := env.Tr
	var me *kiosk.MistypedError
	if errors.As(err, &me) {
		return mistyped(tr, me, kiosk.TypedDigits(typed))
	}
	if line, ok := fleetRefusal(env, err); ok {
		return line
	}
	var r *store.VoucherRefusal
	if errors.As(err, &r) {
		vc := r.Voucher
		if errors.Is(err, store.ErrVoucherTest) {
			return tr.F("voucher.refused.test", vc.ID) // no amount to show: it has none
		}
		head := tr.F("voucher.which", vc.ID, tr.Money(vc.Amount))
		switch {
		case errors.Is(err, store.ErrVoucherPaid):
			return head + " " + tr.F("voucher.refused.paid", tr.Time(vc.Paid, env.Loc), shRoleName(tr, vc.PaidBy))
		case errors.Is(err, store.ErrVoucherExpired):
			return head + " " + tr.F("voucher.refused.expired", tr.Time(vc.Expires, env.Loc))
		case vc.State == store.VoucherVoid:
			return head + " " + tr.T("voucher.refused.void") + "\n" + tr.Detail(vc.VoidReason)
		default:
			return head + " " + tr.T("voucher.refused.state")
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return tr.T("voucher.refused.unknown")
	}
	return shErr(env, err)
}

// mistyped says how a number staff typed is mistyped: its length, or its
// check digits and, when the check narrows the mistake to one or two
// groups of four, which (numbered as printed, with their digits as typed).
func mistyped(tr Tr, me *kiosk.MistypedError, digits string) string {
	switch {
	case me.NotDigits:
		return tr.T("voucher.mistyped.letters")
	case me.Digits != kiosk.ValidationDigits:
		return tr.F("voucher.mistyped.length", tr.Count(int64(me.Digits), "n.digit"), kiosk.ValidationDigits)
	}
	group := func(g int) string {
		from := min((g-1)*4, len(digits))
		return tr.F("voucher.mistyped.group", g, digits[from:min(from+4, len(digits))])
	}
	switch len(me.Groups) {
	case 1:
		return tr.T("voucher.mistyped.check") + " " + tr.F("voucher.mistyped.look1", group(me.Groups[0]))
	case 2:
		return tr.T("voucher.mistyped.check") + " " + tr.F("voucher.mistyped.look2", group(me.Groups[0]), group(me.Groups[1]))
	}
	return tr.T("voucher.mistyped.check") + " " + tr.T("voucher.mistyped.lookall")
}

// fleetRefusal says why the fleet's voucher check refused a voucher
// (kiosk/voucher_registry.go): paid at the centre or at another kiosk,
// printed by another kiosk, or the centre away.
func fleetRefusal(env *Env, err error) (string, bool) {
	tr := env.Tr
	var fr *kiosk.FleetRefusal
	if errors.As(err, &fr) {
		fv := fr.Voucher
		if fv.Test() {
			return tr.F("voucher.foreign.test", fv.ID, fv.Kiosk), true
		}
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

// reprintDesk is what the duplicate view reads and prints.
type reprintDesk interface {
	LastVoucher(ctx context.Context, s *kiosk.Session) (kiosk.VoucherInfo, error)
	ReprintLast(ctx context.Context, s *kiosk.Session) (kiosk.VoucherInfo, error)
}

// buildReprint is the reprint of the last voucher as a DUPLICATA: the
// voucher a duplicate reproduces shows before it is printed (its number,
// masked as the screens show it, amount, time and state), its print key
// live only while that voucher is payable, and a refusal (the voucher paid
// since it was shown) says what became of it.
func buildReprint(env *Env, o reprintDesk) fyne.CanvasObject {
	tr := env.Tr
	help := shPara(tr.T("reprint.help"), 3)
	last := widget.NewLabel("")
	last.Wrapping = fyne.TextWrapWord
	result := widget.NewLabel("")
	result.Wrapping = fyne.TextWrapWord
	var print *widget.Button
	showLast := func() {
		env.Go(func() {
			info, err := o.LastVoucher(env.Ctx, env.Session)
			env.Do(func() {
				switch {
				case errors.Is(err, kiosk.ErrNoVoucher):
					last.SetText(tr.T("reprint.none"))
					print.Disable()
				case err != nil:
					last.SetText(shErr(env, err))
				default:
					last.SetText(lastVoucher(env, info))
					if info.Payable {
						print.Enable()
					} else {
						print.Disable() // its state, above, says why
					}
				}
			})
		})
	}
	print = widget.NewButton(tr.T("reprint.print"), func() {
		if env.Touch != nil {
			env.Touch()
		}
		print.Disable()
		result.Importance = widget.MediumImportance
		result.SetText(tr.T("reprint.printing"))
		env.Go(func() {
			info, err := o.ReprintLast(env.Ctx, env.Session)
			env.Do(func() {
				print.Enable()
				showLast()
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
	showLast()
	note := widget.NewLabel(tr.T("reprint.note"))
	note.Wrapping = fyne.TextWrapWord
	note.SizeName = theme.SizeNameCaptionText
	return container.NewVBox(shTitle(tr.T("reprint.title")), help, last,
		container.NewHBox(shSized(fyne.NewSize(320, 64), print)), result, note)
}

// lastVoucher shows the last voucher printed: its number, amount, time,
// validation number masked, and what became of it.
func lastVoucher(env *Env, v kiosk.VoucherInfo) string {
	tr := env.Tr
	return tr.F("reprint.last", v.Number, tr.Money(v.Amount), tr.Time(v.Issued, env.Loc)) + "\n" +
		tr.F("reprint.masked", v.Masked()) + "\n" +
		tr.F("reprint.state", voucherState(env, v))
}

// voucherState says what became of a voucher: payable until its expiry,
// paid (when, by whom), expired (when), void (its print not confirmed).
func voucherState(env *Env, v kiosk.VoucherInfo) string {
	tr := env.Tr
	switch {
	case v.State == store.VoucherPaid:
		return tr.F("reprint.st.paid", tr.Time(v.Paid, env.Loc), shRoleName(tr, v.PaidBy))
	case v.Expired():
		return tr.F("reprint.st.expired", tr.Time(v.Expires, env.Loc))
	case v.State == store.VoucherVoid:
		return tr.T("reprint.st.void")
	case v.Payable:
		return tr.F("reprint.st.payable", tr.Time(v.Expires, env.Loc))
	}
	return tr.T("reprint.st.printing")
}

func reprintRefusal(env *Env, err error) string {
	tr := env.Tr
	var rr *kiosk.ReprintRefusal
	switch {
	case errors.As(err, &rr):
		return tr.F("reprint.refused", rr.Voucher.Number, tr.Money(rr.Voucher.Amount), voucherState(env, rr.Voucher))
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
	"voucher.menu":                   {"Payer un bon", "Pay a voucher"},
	"voucher.title":                  {"Payer un bon de paiement", "Pay a payment voucher"},
	"voucher.help":                   {"Scannez le code-barres du bon de paiement, ou tapez son numéro de validation puis Payer. Un bon n’est payé qu’une fois.", "Scan the voucher’s barcode, or type its validation number, then Pay. A voucher is paid once only."},
	"voucher.placeholder":            {"N° de validation (%s)", "Validation no. (%s)"},
	"voucher.pay":                    {"Payer", "Pay"},
	"voucher.empty":                  {"Tapez ou scannez d’abord le numéro de validation du bon.", "Type or scan the voucher’s validation number first."},
	"voucher.checking":               {"Vérification du bon…", "Checking the voucher…"},
	"voucher.paid":                   {"Bon n°\u00a0%06d payé.", "Voucher no.\u00a0%06d paid."},
	"voucher.handover":               {"Remettez %s au joueur", "Hand %s to the player"},
	"voucher.which":                  {"Bon n°\u00a0%06d de %s\u00a0:", "Voucher no.\u00a0%06d of %s:"},
	"voucher.refused.paid":           {"déjà payé le %s par le %s. Ne le payez pas une seconde fois.", "already paid on %s by %s. Do not pay it twice."},
	"voucher.refused.expired":        {"expiré le %s, il ne peut plus être payé.", "expired on %s, it can no longer be paid."},
	"voucher.refused.void":           {"annulé\u00a0: son impression n’a pas été confirmée, le crédit est resté au joueur. Il ne peut pas être payé.", "void: its print was not confirmed, the credit stayed with the player. It cannot be paid."},
	"voucher.refused.test":           {"Bon n°\u00a0%06d\u00a0: BON D’ESSAI — ANNULÉ — SANS VALEUR. C’est le bon d’essai imprimé à la mise en service de la borne\u00a0; il ne se paie pas.", "Voucher no.\u00a0%06d: TEST VOUCHER — VOID — NO VALUE. It is the test voucher printed when the kiosk was commissioned; it is not paid."},
	"voucher.foreign.test":           {"Bon n°\u00a0%06d de la borne %s\u00a0: BON D’ESSAI — ANNULÉ — SANS VALEUR, imprimé à la mise en service de cette borne\u00a0; il ne se paie nulle part.", "Voucher no.\u00a0%06d of kiosk %s: TEST VOUCHER — VOID — NO VALUE, printed when that kiosk was commissioned; it is paid nowhere."},
	"voucher.refused.state":          {"jamais imprimé, il ne peut pas être payé.", "never printed, it cannot be paid."},
	"voucher.refused.unknown":        {"Numéro inconnu\u00a0: il est bien formé, mais aucun bon de paiement connu de cette borne ne le porte. Vérifiez que le bon vient de cette borne.", "Unknown number: it is well formed, but no voucher this kiosk knows carries it. Check that the voucher comes from this kiosk."},
	"voucher.mistyped.letters":       {"Numéro mal saisi\u00a0: un numéro de validation n’a que des chiffres. Corrigez-le ci-dessus.", "Mistyped number: a validation number has digits only. Correct it above."},
	"voucher.mistyped.length":        {"Numéro mal saisi\u00a0: %s tapés, un numéro de validation en a %d. Corrigez-le ci-dessus.", "Mistyped number: %s typed, a validation number has %d. Correct it above."},
	"voucher.mistyped.check":         {"Numéro mal saisi\u00a0: ses chiffres ne concordent pas avec ses deux derniers, qui les contrôlent.", "Mistyped number: its digits do not agree with its last two, which check them."},
	"voucher.mistyped.group":         {"le groupe %d (%s)", "group %d (%s)"},
	"voucher.mistyped.look1":         {"Vérifiez surtout %s, puis corrigez-le ci-dessus.", "Check %s first, then correct it above."},
	"voucher.mistyped.look2":         {"Vérifiez surtout %s et %s, puis corrigez-le ci-dessus.", "Check %s and %s first, then correct it above."},
	"voucher.mistyped.lookall":       {"Comparez-le au bon, puis corrigez-le ci-dessus.", "Compare it with the voucher, then correct it above."},
	"voucher.above":                  {"Bon n°\u00a0%06d de %s\u00a0: au-dessus du plafond de paiement au comptoir (%s). Le bon envoie le joueur vers un centre de paiement. Le payer quand même ici\u00a0?", "Voucher no.\u00a0%06d of %s: above the counter’s payout limit (%s). The voucher sends the player to a payment centre. Pay it here all the same?"},
	"voucher.payanyway":              {"Payer quand même", "Pay all the same"},
	"voucher.dontpay":                {"Ne pas payer", "Do not pay"},
	"voucher.notpaid":                {"Bon non payé.", "Voucher not paid."},
	"voucher.refused.fleetpaid":      {"déjà payé le %s %s. Ne le payez pas une seconde fois.", "already paid on %s %s. Do not pay it twice."},
	"voucher.paid.kiosk":             {"à la borne %s", "at kiosk %s"},
	"voucher.paid.centre":            {"par le centre (guichet «\u00a0%s\u00a0»)", "through the centre (counter “%s”)"},
	"voucher.refused.fleet":          {"le centre de la flotte ne le tient pas pour payable (annulé, expiré ou numéro d’une autre borne). Ne le payez pas.", "the fleet’s centre does not hold it payable (void, expired, or another kiosk’s number). Do not pay it."},
	"voucher.foreign.which":          {"Bon n°\u00a0%06d de la borne %s, %s\u00a0:", "Voucher no.\u00a0%06d of kiosk %s, %s:"},
	"voucher.foreign.payable":        {"valable et non payé, mais cette borne ne paie que ses propres bons. Il se paie à la borne %s ou au centre.", "valid and unpaid, but this kiosk pays only its own vouchers. It is paid at kiosk %s or at the centre."},
	"voucher.foreign.notpayable":     {"ni payable ici ni ailleurs (jamais imprimé, annulé ou expiré).", "payable neither here nor elsewhere (never printed, void or expired)."},
	"voucher.refused.offline":        {"Le centre de la flotte ne répond pas\u00a0: sans lui, cette borne ne paie ses bons que jusqu’à %[3]s. Le bon n°\u00a0%06[1]d de %[2]s attendra son retour.", "The fleet’s centre does not answer: without it, this kiosk pays its vouchers only up to %[3]s. Voucher no.\u00a0%06[1]d of %[2]s must wait until it answers."},
	"voucher.refused.unknownoffline": {"Numéro inconnu de cette borne, et le centre de la flotte ne répond pas pour dire s’il vient d’une autre borne\u00a0: vérifiez le numéro, réessayez plus tard.", "A number this kiosk does not know, and the fleet’s centre does not answer to say whether it is another kiosk’s: check the number, try again later."},
	"reprint.menu":                   {"Duplicata du dernier bon", "Duplicate of the last voucher"},
	"reprint.title":                  {"Duplicata du dernier bon de paiement", "Duplicate of the last voucher"},
	"reprint.help":                   {"Imprime à nouveau le dernier bon de paiement, marqué DUPLICATA, s’il est encore payable (ni payé, ni expiré, ni annulé). Aucun crédit ne bouge.", "Prints the last voucher again, marked DUPLICATA, if it is still payable (not paid, expired or void). No credit moves."},
	"reprint.last":                   {"Dernier bon imprimé\u00a0: bon n°\u00a0%06d de %s, imprimé le %s", "Last voucher printed: voucher no.\u00a0%06d of %s, printed on %s"},
	"reprint.masked":                 {"Numéro de validation\u00a0: %s", "Validation number: %s"},
	"reprint.state":                  {"État\u00a0: %s", "State: %s"},
	"reprint.st.payable":             {"payable jusqu’au %s", "payable until %s"},
	"reprint.st.paid":                {"payé le %s par le %s", "paid on %s by %s"},
	"reprint.st.expired":             {"expiré le %s", "expired on %s"},
	"reprint.st.void":                {"annulé, son impression n’a pas été confirmée", "void, its print was not confirmed"},
	"reprint.st.printing":            {"en cours d’impression", "being printed"},
	"reprint.print":                  {"Imprimer le duplicata", "Print the duplicate"},
	"reprint.printing":               {"Impression…", "Printing…"},
	"reprint.done":                   {"Duplicata du bon n°\u00a0%06d de %s imprimé (duplicata n°\u00a0%d).", "Duplicate of voucher no.\u00a0%06d of %s printed (duplicate no.\u00a0%d)."},
	"reprint.refused":                {"Pas de duplicata\u00a0: le bon n°\u00a0%06d de %s n’est plus payable, %s.", "No duplicate: voucher no.\u00a0%06d of %s is no longer payable, %s."},
	"reprint.none":                   {"Cette borne n’a encore imprimé aucun bon de paiement.", "This kiosk has printed no voucher yet."},
	"reprint.busy":                   {"La borne imprime déjà ou une partie est en cours\u00a0: réessayez dans un instant.", "The kiosk is printing or a game is on: try again in a moment."},
	"reprint.printer":                {"L’imprimante n’a pas imprimé le duplicata\u00a0: voyez son état.", "The printer did not print the duplicate: see its state."},
	"reprint.note":                   {"Le duplicata porte le numéro de validation complet\u00a0: remettez-le au seul porteur du bon.", "The duplicate carries the full validation number: give it to the voucher’s holder only."},
})
