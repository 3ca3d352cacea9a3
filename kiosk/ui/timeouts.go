package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
)

// The timeouts that act for the player say so before they act, with a
// button that gives more time (EN 301 549 asks that a player who needs
// more time can have it): the result going back home (the kiosk's own
// timeout, kiosk.Snapshot.ResultUntil), the history and the prize table
// closing by themselves. A strip at the top of the screen counts the
// seconds left over the last timeWarning; « Plus de temps » is a touch
// (Screens.activity): every idle timer starts again.

// timeWarning is how long before a timeout acts it says so.
const timeWarning = 10 * time.Second

// timeLeft is the time before a timeout acts for the player on what shows
// now, and whether one is running.
func (s *Screens) timeLeft(now time.Time) (time.Duration, bool) {
	idleSince := s.lastActivity
	switch {
	case s.overlay == ovPrizeTable:
		from := s.overlayAt
		if idleSince.After(from) {
			from = idleSince
		}
		return from.Add(s.opt.OverlayTimeout).Sub(now), true
	case s.screen == scrHistory:
		return idleSince.Add(s.opt.HistoryTimeout).Sub(now), true
	case s.screen == scrGame && s.snap.State == kiosk.Result && !s.snap.ResultUntil.IsZero() && s.gs.Over():
		if s.snap.ResultUntil.Equal(s.askedUntil) {
			return 0, false // more time asked: the kiosk's next snapshot says until when
		}
		return s.snap.ResultUntil.Sub(now), true
	}
	return 0, false
}

// showTimeWarning shows, updates or takes away the strip (Poll, each tick).
func (s *Screens) showTimeWarning(now time.Time) {
	left, on := s.timeLeft(now)
	on = on && left > 0 && left <= timeWarning && s.sized()
	secs := int((left + time.Second - 1) / time.Second)
	if !on {
		secs = 0
	}
	if secs == s.warnSecs {
		return
	}
	if s.warnSecs == 0 && secs > 0 {
		s.voiceTimeWarning(secs)
	}
	s.warnSecs = secs
	s.timeBox.Objects = nil
	if on {
		s.timeBox.Objects = []fyne.CanvasObject{s.buildTimeWarning(s.v, secs)}
	}
	s.timeBox.Refresh()
}

// moreTime is « Plus de temps »: a touch, and the strip goes.
func (s *Screens) moreTime() {
	s.askedUntil = s.snap.ResultUntil
	s.activity()
	s.showTimeWarning(s.now())
}

// timeWarningText says what will happen, and when.
func (s *Screens) timeWarningText(secs int) string {
	if s.overlay == ovPrizeTable {
		return s.tr.F(msgTimeCloses, secs)
	}
	return s.tr.F(msgTimeHome, secs)
}

func (s *Screens) buildTimeWarning(v view, secs int) fyne.CanvasObject {
	// Over the playfield's top at every screen size (the game's panel
	// starts at about 870 design units at 1024×768, where the design's
	// sides are cropped), and over the home screen's wordmark.
	x, y, w, h, bw, ty := float32(200), float32(10), float32(660), float32(84), float32(228), float32(27)
	bh := h - 20
	if v.large {
		// across the screen's top, over the whole of the title or the
		// buttons there (a band, not half a line): read alone
		x, y, w, h, bw, bh = 40, 0, 1200, 140, 340, 90
		ty = (h - v.lineHeight(sizeBody+2, true)) / 2
	}
	p := v.panelAlpha(x, y, w, h, 0xF4)
	p.StrokeColor = art.Gold
	p.StrokeWidth = 3 * v.k
	return container.NewWithoutLayout(p,
		v.textAt(s.timeWarningText(secs), sizeBody+2, art.GoldLight, true, fyne.TextAlignCenter, x+16, y+ty, w-16-bw-22),
		v.button(s.tr.T(msgMoreTime), buttonPrimary, sizeButton-4, s.moreTime, x+w-bw-12, y+(h-bh)/2, bw, bh))
}
