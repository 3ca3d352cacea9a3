package maint

import (
	"context"
	"io"
	"sort"
	"time"

	"fyne.io/fyne/v2"

	"pharaon/kiosk"
	"pharaon/store"
)

// Office is what the views ask of the back office; *kiosk.Office is the
// kiosk's, and the tests may pass a fake.
type Office interface {
	Login(ctx context.Context, pin string) (*kiosk.Session, error)
	Logout(ctx context.Context, s *kiosk.Session, why string) error
	Expire(ctx context.Context, s *kiosk.Session) bool
	Access() *kiosk.Access

	Meters(ctx context.Context, s *kiosk.Session) (store.Meters, error)
	Events(ctx context.Context, s *kiosk.Session, q store.EventQuery) ([]store.Event, error)
	Recall(ctx context.Context, s *kiosk.Session, q store.RecallQuery) ([]store.Recalled, error)
	RecallUnit(ctx context.Context, s *kiosk.Session, emission, number, unit uint32) (store.Recalled, error)
	Replay(ctx context.Context, s *kiosk.Session, p store.Play) (*kiosk.Replay, error)
	PendingHandPay(ctx context.Context, s *kiosk.Session) (kiosk.HandPay, error)
	PayHandPay(ctx context.Context, s *kiosk.Session) (kiosk.HandPay, store.Entry, error)
	CashBox(ctx context.Context, s *kiosk.Session) (store.CashBox, error)
	Collect(ctx context.Context, s *kiosk.Session) (store.Collection, error)
	PayVoucher(ctx context.Context, s *kiosk.Session, typed string) (store.Voucher, error)
	CheckVoucher(ctx context.Context, s *kiosk.Session, typed string) (kiosk.VoucherCheck, error)
	ReprintLast(ctx context.Context, s *kiosk.Session) (kiosk.VoucherInfo, error)
	LastVoucher(ctx context.Context, s *kiosk.Session) (kiosk.VoucherInfo, error)
	Blocks(ctx context.Context, s *kiosk.Session) ([]store.BlockInfo, error)
	ImportBlock(ctx context.Context, s *kiosk.Session, name string, r io.Reader) (store.BlockInfo, error)
	WithdrawBlock(ctx context.Context, s *kiosk.Session, id int64, reason string) (store.BlockInfo, error)
	SetSetting(ctx context.Context, s *kiosk.Session, key, value string) error
	HeldNotes(ctx context.Context, s *kiosk.Session) ([]store.BillIntent, error)
	CreditHeldNote(ctx context.Context, s *kiosk.Session, id int64, reason string) (store.Entry, error)
	CloseHeldNote(ctx context.Context, s *kiosk.Session, id int64, reason string) error
	// The PINs (pins.go).
	SetPIN(ctx context.Context, s *kiosk.Session, role kiosk.Role, pin string) error
	RevokePIN(ctx context.Context, s *kiosk.Session, role kiosk.Role) error

	// Reports, printer, devices, settings, identity (meters.go, events.go,
	// cashbox.go, printer.go, daily.go, devices.go, settings.go,
	// identity.go, testmode.go).
	EventSources(ctx context.Context, s *kiosk.Session) ([]string, error)
	PrintCollection(ctx context.Context, s *kiosk.Session, c store.Collection) error
	DailyTotals(ctx context.Context, s *kiosk.Session, day time.Time) (store.Totals, error)
	PrintDaily(ctx context.Context, s *kiosk.Session, day time.Time) error
	TestPrint(ctx context.Context, s *kiosk.Session) error
	PaperRefilled(ctx context.Context, s *kiosk.Session) (kiosk.DeviceStatus, error)
	PrinterStatus(ctx context.Context, s *kiosk.Session) (kiosk.DeviceStatus, error)
	Settings(ctx context.Context, s *kiosk.Session) ([]kiosk.Setting, error)
	Devices(ctx context.Context, s *kiosk.Session) (kiosk.Devices, error)
	TestValidator(ctx context.Context, s *kiosk.Session) (kiosk.Devices, error)
	Identity(ctx context.Context, s *kiosk.Session) (kiosk.Identity, error)
	SetTestMode(ctx context.Context, s *kiosk.Session, on bool) error
	TestMode(ctx context.Context, s *kiosk.Session) (bool, []kiosk.TestNote, error)
	// The fault and the technician's clear (fault.go).
	Fault(ctx context.Context, s *kiosk.Session) (kiosk.Fault, error)
	ClearFault(ctx context.Context, s *kiosk.Session) error
}

var _ Office = (*kiosk.Office)(nil)

// Env is what a view is built from: the session, the back office, the
// words in the language shown, and the ways to run work off and back on the
// Fyne goroutine.
type Env struct {
	Ctx     context.Context
	Office  Office
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
	Build     func(*Env) fyne.CanvasObject
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
