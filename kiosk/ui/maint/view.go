package maint

import (
	"context"
	"sort"
	"time"

	"fyne.io/fyne/v2"

	"pharaon/kiosk"
)

// Office is the back office as the shell holds it; *kiosk.Office is the
// kiosk's, and the tests may pass a fake. The shell and the PIN pad use
// its sessions; each view is given only the part it uses, declared in its
// file beside it (a voucherDesk checks and pays a voucher, a cashBoxDesk
// collects the box...), so that its signature says what it can do to the
// money.
type Office interface {
	Login(ctx context.Context, pin string) (*kiosk.Session, error)
	Logout(ctx context.Context, s *kiosk.Session, why string) error
	Expire(ctx context.Context, s *kiosk.Session) bool
	Access() *kiosk.Access

	voucherDesk
	reprintDesk
	heldDesk
	handPayDesk
	cashBoxDesk
	recallDesk
	printerDesk
	metersDesk
	eventsDesk
	dailyDesk
	blockDesk
	settingsDesk
	devicesDesk
	identityDesk
	faultDesk
	testModeDesk
	pinsDesk
	stickDesk
}

var _ Office = (*kiosk.Office)(nil)

// Env is what a view is built from besides its part of the back office:
// the session, the words in the language shown, and the ways to run work
// off and back on the Fyne goroutine.
type Env struct {
	Ctx     context.Context
	Session *kiosk.Session
	Tr      Tr
	Win     fyne.Window
	// Now is the kiosk's clock, and Loc its configured time zone: every
	// time shown is in it.
	Now func() time.Time
	Loc *time.Location
	// Go runs f off the Fyne goroutine (an Office call that may block);
	// Do hands f back to it. The tests run both at once, in order.
	Go func(f func())
	Do func(f func())
	// Touch tells the shell someone is at the screen (idle logout).
	Touch func()
	// Refresh rebuilds the view shown (after an action changed what it
	// shows).
	Refresh func()
	// BlockDir is where the blocks view looks for block files (Config.BlockDir;
	// empty: BlockDir).
	BlockDir string
	// Dev is the simulated bill validator of a development run
	// (Config.Dev; nil otherwise).
	Dev DevNotes
	// TestMode tells the shell whether test mode is on, as the test mode
	// view read or set it (nil: nobody asks).
	TestMode func(on bool)
}

// View is one entry of the maintenance menu.
type View struct {
	// ID names the view (tests and screenshots open it by ID).
	ID string
	// Title is the word key of its title in the menu.
	Title word
	// Need is the role it needs: staff views are open to technicians too
	// (kiosk.Role.Can).
	Need kiosk.Role
	// Order places it in the menu.
	Order int
	// Diagnosis: the view only reads why the kiosk is out of service; a
	// diagnosis session (kiosk.Session.Diagnosis) opens only these.
	Diagnosis bool
	// Build makes the view; it passes on to the view's builder the part of
	// the office the view uses.
	Build func(*Env, Office) fyne.CanvasObject
}

var views []View

// register adds a view to the menu; each view's file calls it from a
// package-level var.
func register(v View) bool {
	views = append(views, v)
	sort.SliceStable(views, func(i, j int) bool { return views[i].Order < views[j].Order })
	return true
}

// viewsOf are the views the session s may open, in menu order: its
// role's, and only the diagnosis views in a diagnosis session.
func viewsOf(s *kiosk.Session) []View {
	var out []View
	for _, v := range viewsFor(s.Role()) {
		if v.Diagnosis || !s.Diagnosis() {
			out = append(out, v)
		}
	}
	return out
}

// Views are the views a role may open, in menu order.
func viewsFor(r kiosk.Role) []View {
	var out []View
	for _, v := range views {
		if r.Can(v.Need) {
			out = append(out, v)
		}
	}
	return out
}
