package ui

import (
	"context"
	"errors"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
)

// Cash-out: Encaisser on the home screen asks to confirm, the
// voucher prints, then the voucher card says what to do with it, or the
// failure card says why no voucher came and that the credit is kept. The
// kiosk zeroes the credit only once the printer confirmed the voucher; the
// screens show what it says and never the full validation number, which
// pays the voucher (the next player at the kiosk could read it).

// Layout of the cash-out cards, in design units of the home screen.
const (
	cashCardX = 290
	cashCardW = designW - 2*cashCardX
)

// cashOutFlow is the cash-out shown: the voucher printed, or why none was.
type cashOutFlow struct {
	voucher kiosk.VoucherInfo
	err     error         // why there is no voucher
	printer kiosk.Message // the printer's condition when the kiosk refused
}

// askCashOut is a tap on Encaisser: the confirmation.
func (s *Screens) askCashOut() {
	s.activity()
	s.message = nil
	if !s.snap.Cash.CanCashOut || s.snap.Credit <= 0 {
		return
	}
	s.setOverlay(ovCashConfirm, s.buildCashConfirm)
}

// cancelCashOut closes the confirmation.
func (s *Screens) cancelCashOut() {
	s.activity()
	if s.overlay == ovCashConfirm {
		s.clearOverlay()
	}
}

// printVoucher is Imprimer: the kiosk prints the whole credit on a
// voucher. CashOut blocks for the print, so it runs off the Fyne goroutine
// and its outcome comes back through s.do.
func (s *Screens) printVoucher() {
	s.activity()
	if s.overlay != ovCashConfirm {
		return
	}
	s.setOverlay(ovCashPrinting, s.buildCashPrinting)
	go func() {
		v, err := s.m.CashOut(context.Background())
		s.do(func() { s.cashOutDone(v, err) })
	}()
}

// cashOutDone shows the voucher card, or why there is no voucher.
func (s *Screens) cashOutDone(v kiosk.VoucherInfo, err error) {
	if !s.started {
		return
	}
	s.activity()
	// The kiosk pushed what the cash-out changed before it returned: s.snap
	// has it.
	if s.snap.State == kiosk.OutOfService {
		if err != nil {
			fyne.LogError("cash out", err)
		}
		s.showOutOfService()
		return
	}
	if errors.Is(err, kiosk.ErrHandPay) || s.snap.HandPay.Pending() {
		s.showHandPay() // above the hand-pay limit: no voucher, the staff pay
		return
	}
	if s.screen != scrHome {
		s.showHome()
	}
	if err == nil {
		s.cash = cashOutFlow{voucher: v}
		s.setOverlay(ovVoucher, s.buildVoucherCard)
		return
	}
	if !errors.As(err, new(*kiosk.PrintFailure)) && !errors.Is(err, kiosk.ErrCashOutUnavailable) &&
		!errors.Is(err, kiosk.ErrNoCredit) && !errors.Is(err, kiosk.ErrBusy) {
		fyne.LogError("cash out", err)
	}
	s.cash = cashOutFlow{err: err, printer: s.snap.Cash.Printer.Message}
	s.setOverlay(ovCashFailed, s.buildCashFailed)
}

// failure is the failure card's title and reason, and whether a voucher
// may have come out in part.
func (s *Screens) failure() (title msg, reason string, partly bool) {
	tr, err := s.tr, s.cash.err
	var pf *kiosk.PrintFailure
	switch {
	case errors.As(err, &pf):
		return msgCashNotPrinted, tr.Message(pf.Message), true
	case errors.Is(err, kiosk.ErrCashOutUnavailable):
		return msgCashImpossible, tr.Message(s.cash.printer), false
	case errors.Is(err, kiosk.ErrNoCredit):
		return msgCashImpossible, tr.T(msgCashNoCredit), false
	case errors.Is(err, kiosk.ErrBusy):
		return msgCashImpossible, tr.T(msgErrCashBusy), false
	}
	return msgCashImpossible, tr.T(msgCashError), false
}

// closeCashOverlay closes a card of the cash-out or the development
// panel's faults; a voucher printing stays on screen.
func (s *Screens) closeCashOverlay() {
	switch s.overlay {
	case ovCashConfirm, ovVoucher, ovCashFailed, ovDevFaults:
		s.clearOverlay()
		s.cash = cashOutFlow{}
		s.largeShown() // home with nothing left: the mode's session ends
	}
}

// cashOverlayTimedOut: a card left untouched closes, so the next player
// does not find the last one's voucher card (nor a confirmation).
func (s *Screens) cashOverlayTimedOut(now time.Time, idle time.Duration) bool {
	switch s.overlay {
	case ovCashConfirm, ovVoucher, ovCashFailed, ovDevFaults:
		return now.Sub(s.overlayAt) >= s.opt.OverlayTimeout && idle >= s.opt.OverlayTimeout
	}
	return false
}

// cashOutCaption says under Encaisser why it does not work now, or "".
func (s *Screens) cashOutCaption() string {
	c := s.snap.Cash
	switch {
	case c.CashingOut:
		return s.tr.T(msgCashPrintingCap)
	case !c.Printer.Configured:
		return s.tr.T(msgNoPrinterCap)
	case !c.Printer.OK:
		return s.tr.Message(c.Printer.Message)
	}
	return ""
}

// cashOutLine is the home screen's line when the player has credit the
// printer cannot pay out now: why, and that the credit is kept.
func (s *Screens) cashOutLine() string {
	c := s.snap.Cash
	if s.snap.Credit <= 0 || !c.Printer.Configured || c.Printer.OK || s.snap.State != kiosk.Home {
		return ""
	}
	return s.tr.F(msgCashOutOff, lowerFirst(s.tr.Message(c.Printer.Message)))
}

// card is a veil over the home screen and a panel of height h, centred;
// a tap beside the panel runs beside (nil: nothing).
func (s *Screens) card(v view, h float32, rim bool, beside func()) (objs []fyne.CanvasObject, y float32) {
	catcher := newTapCatcher(func() {
		s.activity()
		if beside != nil {
			beside()
		}
	})
	v.full(catcher)
	y = (designH - h) / 2
	p := v.panelAlpha(cashCardX, y, cashCardW, h, 0xF8)
	if rim {
		p.StrokeColor = art.Gold
		p.StrokeWidth = 3 * v.k
	}
	return []fyne.CanvasObject{v.dim(-designW, -designH, 3*designW, 3*designH), catcher, p}, y
}

// buildCashConfirm: "Encaisser 20 € ?" with Annuler and Imprimer. The
// amount is the credit now (a note credited meanwhile shows at once).
func (s *Screens) buildCashConfirm(v view) fyne.CanvasObject {
	v = v.zoom() // the large-text mode: the whole card larger (large.go)
	tr := s.tr
	objs, y := s.card(v, 300, true, s.cancelCashOut)
	x, w := float32(cashCardX), float32(cashCardW)
	objs = append(objs,
		v.textAt(tr.F(msgCashConfirm, tr.Money(s.snap.Credit)), sizeTitle, art.GoldLight, true, fyne.TextAlignCenter, x, y+36, w),
		v.textAt(tr.T(msgCashConfirmText), sizeBody+3, art.Sand, false, fyne.TextAlignCenter, x, y+110, w),
	)
	bw := float32(260)
	objs = append(objs,
		v.button(tr.T(msgCancel), buttonSecondary, sizeButton, s.cancelCashOut, x+w/2-bw-16, y+300-76-36, bw, 76),
		v.button(tr.T(msgPrint), buttonPrimary, sizeButton, s.printVoucher, x+w/2+16, y+300-76-36, bw, 76),
	)
	return container.NewWithoutLayout(objs...)
}

// buildCashPrinting: the voucher is printing; nothing to tap.
func (s *Screens) buildCashPrinting(v view) fyne.CanvasObject {
	v = v.zoom() // the large-text mode: the whole card larger (large.go)
	tr := s.tr
	objs, y := s.card(v, 220, true, nil)
	x, w := float32(cashCardX), float32(cashCardW)
	objs = append(objs,
		v.textAt(tr.T(msgCashPrinting), sizeTitle, art.GoldLight, true, fyne.TextAlignCenter, x, y+50, w),
		v.textAt(tr.T(msgCashPrintingWait), sizeBody+2, art.Sand, false, fyne.TextAlignCenter, x, y+124, w),
	)
	return container.NewWithoutLayout(objs...)
}

// buildVoucherCard: the voucher printed, as the player may see it: its
// amount, its number, the validation number masked but for its last four
// digits, its expiry and where it is paid.
func (s *Screens) buildVoucherCard(v view) fyne.CanvasObject {
	v = v.zoom() // the large-text mode: the whole card larger (large.go)
	tr, vo := s.tr, s.cash.voucher
	const h = 470
	objs, y := s.card(v, h, true, nil)
	x, w := float32(cashCardX), float32(cashCardW)
	objs = append(objs,
		v.textAt(tr.T(msgVoucherTake), sizeTitle+4, art.GoldLight, true, fyne.TextAlignCenter, x, y+28, w),
		v.textAt(tr.F(msgVoucherNumber, vo.Number), sizeBody+1, art.Sand, false, fyne.TextAlignCenter, x, y+94, w),
		v.textAt(tr.Money(vo.Amount), sizeAmount+8, art.GoldLight, true, fyne.TextAlignCenter, x, y+124, w),
		v.rule(x+60, y+214, w-120),
		v.textAt(tr.F(msgVoucherValid, vo.Masked()), sizeBody+2, art.Sand, false, fyne.TextAlignCenter, x, y+232, w),
		v.textAt(tr.F(msgVoucherExpires, tr.Expiry(vo.Expires)), sizeBody+2, art.Sand, false, fyne.TextAlignCenter, x, y+266, w),
		v.textAt(tr.Message(vo.Where()), sizeBody+3, art.GoldLight, true, fyne.TextAlignCenter, x, y+306, w),
		v.button(tr.T(msgDone), buttonPrimary, sizeButton, func() { s.activity(); s.closeCashOverlay() }, x+w/2-130, y+h-76-28, 260, 76),
	)
	return container.NewWithoutLayout(objs...)
}

// buildCashFailed: no voucher, why, and the credit kept.
func (s *Screens) buildCashFailed(v view) fyne.CanvasObject {
	v = v.zoom() // the large-text mode: the whole card larger (large.go)
	tr := s.tr
	title, reason, partly := s.failure()
	const h = 400
	objs, y := s.card(v, h, false, nil)
	x, w := float32(cashCardX), float32(cashCardW)
	objs = append(objs, v.textAt(tr.T(title), sizeTitle, art.Alert, true, fyne.TextAlignCenter, x, y+32, w))
	ny := y + 100
	var lines []fyne.CanvasObject
	if reason != "" {
		lines, ny = v.para(reason, sizeHeading-4, art.GoldLight, true, fyne.TextAlignCenter, x+40, ny, w-80)
		objs = append(objs, lines...)
		ny += 14
	}
	if s.snap.Credit > 0 {
		lines, ny = v.para(tr.F(msgOOSCredit, tr.Money(s.snap.Credit)), sizeBody+2, art.Sand, false, fyne.TextAlignCenter, x+40, ny, w-80)
		objs = append(objs, lines...)
		ny += 6
	}
	if partly {
		lines, _ = v.para(tr.T(msgCashVoid), sizeBody, art.Sand, false, fyne.TextAlignCenter, x+40, ny, w-80)
		objs = append(objs, lines...)
	}
	objs = append(objs, v.button(tr.T(msgClose), buttonSecondary, sizeButton, func() { s.activity(); s.closeCashOverlay() },
		x+w/2-130, y+h-76-28, 260, 76))
	return container.NewWithoutLayout(objs...)
}
