package ui

import (
	"fyne.io/fyne/v2"

	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
)

// restartApply follows the lock for the restart into a new system
// (kiosk.Snapshot.Restarting, which the idle kiosk takes: no credit, no
// game): its screen says, in both languages, that the kiosk restarts and
// is back in a moment, instead of a home screen whose Jouer would be
// refused without a word; the lock's end (a restart that did not come)
// brings the screen the kiosk's state calls for. It reports whether it
// decided the screen.
func (s *Screens) restartApply(snap kiosk.Snapshot) bool {
	if !snap.Restarting {
		if s.screen != scrRestart {
			return false
		}
		if snap.State == kiosk.OutOfService {
			s.showOutOfService()
		} else {
			s.showHome()
		}
		return true
	}
	if s.screen != scrRestart {
		s.game = nil
		s.setScreen(scrRestart, s.buildRestart)
	}
	return true
}

func (s *Screens) buildRestart(v view) fyne.CanvasObject {
	x, w := bilingualText(v)
	return s.buildBilingual(v, msgRestartTitle, art.GoldLight, func(tr Tr, size, y float32) ([]fyne.CanvasObject, float32) {
		return v.para(tr.T(msgRestartText), (sizeBody+2)*size, art.Sand, false, fyne.TextAlignCenter, x, y, w)
	})
}
