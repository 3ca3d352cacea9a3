package ui

import (
	"fyne.io/fyne/v2"

	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
)

// The hand-pay lock's screen (DESIGN.md §7): a win or a cash-out above the
// hand-pay limit locks the kiosk until staff pay the player by hand and
// record it in maintenance. The screen tells the player to call the staff,
// with the amount the kiosk holds for them, in French and in English at
// once (no button works here); a win's congratulations show first.

// handPayApply shows the lock's screen when the kiosk is locked for a
// hand-pay, and home once staff paid; it reports whether it took the
// snapshot. A game under way, and a win's result on the game screen, are
// left to finish first.
func (s *Screens) handPayApply(snap kiosk.Snapshot) bool {
	if !snap.HandPay.Pending() || snap.State == kiosk.OutOfService {
		if s.screen == scrHandPay && snap.State != kiosk.OutOfService {
			s.showHome()
			return true
		}
		return false
	}
	switch {
	case snap.State == kiosk.Playing || snap.State == kiosk.Bonus:
		return false
	case snap.State == kiosk.Result && s.screen == scrGame:
		return false // the congratulations first (Art. 4.8); Rejouer or the time-out come here
	}
	s.showHandPay()
	return true
}

// showHandPay shows the lock's screen, from the snapshot last pushed: a
// lock the kiosk has not pushed yet comes with its push (handPayApply).
func (s *Screens) showHandPay() {
	if !s.snap.HandPay.Pending() {
		s.showHome()
		return
	}
	if s.screen == scrHandPay {
		s.rebuild()
		return
	}
	s.game = nil
	s.setScreen(scrHandPay, s.buildHandPay)
}

func (s *Screens) buildHandPay(v view) fyne.CanvasObject {
	hp := s.snap.HandPay
	why := msgHandPayWin
	if hp.Cause == kiosk.HandPayCashOut {
		why = msgHandPayCashOut
	}
	x, w := bilingualText(v)
	return s.buildBilingual(v, msgHandPayTitle, art.GoldLight, func(tr Tr, size, y float32) ([]fyne.CanvasObject, float32) {
		objs, ny := v.para(tr.T(why), (sizeBody+2)*size, art.Sand, false, fyne.TextAlignCenter, x, y, w)
		lines, ny := v.para(tr.F(msgHandPayAmount, tr.Money(hp.Amount)), (sizeBody+4)*size, art.GoldLight, true, fyne.TextAlignCenter, x, ny+8, w)
		return append(objs, lines...), ny
	})
}
