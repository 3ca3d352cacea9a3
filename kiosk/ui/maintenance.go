package ui

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
)

// The way to the maintenance screen (package kiosk/ui/maint): a long press
// in the top-left corner of any player's screen, which nothing on the
// player's screens tells. A game in progress is never interrupted: the
// request waits until the game and its result are over (the kiosk back
// home, or out of service), then Options.OnMaintenance opens the
// maintenance screen over the player's screens, which stay as they were
// underneath.

// DefaultMaintenanceHold is how long the corner must be held.
const DefaultMaintenanceHold = 3 * time.Second

// cornerSide is the hidden corner's side, as a fraction of the window's
// smaller side.
const cornerSide = 0.09

// cornerPress is the hidden corner: it only watches a press and its
// release. Screens.Poll, on the screens' clock, decides the press was long.
type cornerPress struct {
	widget.BaseWidget
	s      *Screens
	down   bool
	downAt time.Time
}

func newCornerPress(s *Screens) *cornerPress {
	c := &cornerPress{s: s}
	c.ExtendBaseWidget(c)
	return c
}

func (c *cornerPress) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(color.Transparent))
}

// MouseDown starts the press (a touch screen's finger is a mouse's left
// button).
func (c *cornerPress) MouseDown(*desktop.MouseEvent) {
	c.down, c.downAt = true, c.s.now()
}

// MouseUp ends it; a press held long enough counts here too. Poll sees a
// press still held, but it runs on the kiosk's clock (once a second): a
// press released between the hold's end and the next tick was ignored.
func (c *cornerPress) MouseUp(*desktop.MouseEvent) {
	if c.held(c.s.now(), c.s.maintenanceHold()) {
		c.s.RequestMaintenance()
	}
	c.down = false
}

// held reports whether the corner has been held long enough at now; the
// press then counts once.
func (c *cornerPress) held(now time.Time, hold time.Duration) bool {
	if !c.down || now.Sub(c.downAt) < hold {
		return false
	}
	c.down = false
	return true
}

// cornerLayout puts the hidden corner in the top-left corner of the window.
type cornerLayout struct{}

func (cornerLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	side := min(size.Width, size.Height) * cornerSide
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(fyne.NewSize(side, side))
	}
}

func (cornerLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(0, 0) }

// RequestMaintenance asks for the maintenance screen (the hidden corner's
// long press calls it): at once when no game is on, else once the game's
// result is over.
func (s *Screens) RequestMaintenance() {
	if s.opt.OnMaintenance == nil {
		return
	}
	s.maintWanted = true
	s.maintenanceDue()
}

// MaintenancePending reports whether a request waits for the game's end.
func (s *Screens) MaintenancePending() bool { return s.maintWanted }

// maintenanceDue opens the maintenance screen asked for once no game, no
// result and no request of a unit is under way.
func (s *Screens) maintenanceDue() {
	if !s.maintWanted {
		return
	}
	snap := s.snap
	switch {
	case snap.State == kiosk.Playing, snap.State == kiosk.Bonus, snap.State == kiosk.Result,
		s.requesting, s.gameRunning(), s.m.Current() != nil:
		return
	}
	s.maintWanted = false
	s.opt.OnMaintenance()
}

// maintenanceChanged follows the maintenance screen opening and closing:
// while it is open nothing of the player's screens moves by itself (no
// attract loop, no timeout); when it closes the idle timers start again
// from then.
func (s *Screens) maintenanceChanged(old, snap kiosk.Snapshot) {
	if old.Maintenance && !snap.Maintenance {
		s.lastActivity = s.now()
		s.overlayAt = s.now()
	}
}

// pollCorner does the hidden corner's part of Poll; it reports whether the
// maintenance screen is open (Poll then does nothing more).
func (s *Screens) pollCorner(now time.Time) bool {
	if s.corner.held(now, s.maintenanceHold()) {
		s.RequestMaintenance()
	}
	s.maintenanceDue()
	return s.snap.Maintenance
}

// maintenanceHold is how long the hidden corner must be held.
func (s *Screens) maintenanceHold() time.Duration {
	if s.opt.MaintenanceHold <= 0 {
		return DefaultMaintenanceHold
	}
	return s.opt.MaintenanceHold
}

// devPINsLine is what the development panel says of the way to maintenance
// and its demo PINs ("" when the run has none).
func (s *Screens) devPINsLine() string {
	p := s.opt.DevPINs
	if p[0] == "" && p[1] == "" {
		return ""
	}
	return s.tr.F(msgDevPINs, p[0], p[1])
}
