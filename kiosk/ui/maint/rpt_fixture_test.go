package maint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/validator/drivers"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/kiosktest"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/golden"
	"pharaon/store"
)

// The report, printer, device, settings and identity views are built from
// an Env on a real machine with both simulated devices, and shown alone in
// a test window (the shell that holds them in the maintenance screen is
// tested on its own).

var (
	rptTemplateOnce sync.Once
	rptTemplate     kiosktest.TemplateFiles
	rptTemplateErr  error
)

// rptClock is the kiosk's clock in these tests.
type rptClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *rptClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *rptClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type rptFix struct {
	t           *testing.T
	clock       *rptClock
	st          *store.Store
	m           *kiosk.Machine
	o           *kiosk.Office
	dev         *devsim.Devices
	w           fyne.Window
	staff, tech *kiosk.Session
	lang        ui.Lang
	notes       int
	shown       string
	// systemStatus is where the machine reads its A/B slots' status
	// (none: a kiosk without slots).
	systemStatus string
}

func newRptFix(t *testing.T) *rptFix {
	t.Helper()
	rptTemplateOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pharaon-maint-template-")
		if err != nil {
			rptTemplateErr = err
			return
		}
		defer os.RemoveAll(dir)
		heads := map[game.Stake][]kiosktest.Unit{}
		for _, s := range game.Stakes {
			heads[s] = kiosktest.EveryOutcome()
		}
		rptTemplate, rptTemplateErr = kiosktest.Template(filepath.Join(dir, "pharaon.db"), heads)
	})
	require.NoError(t, rptTemplateErr)
	dir := t.TempDir()
	path, err := kiosktest.CopyTemplate(rptTemplate, dir)
	require.NoError(t, err)
	d, err := devsim.Start(devsim.Config{Dir: filepath.Join(dir, "dev"), Receipts: filepath.Join(dir, "receipts")})
	require.NoError(t, err)
	f := &rptFix{t: t, clock: &rptClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}, dev: d}
	st, err := store.Open(path, store.WithClock(f.clock.Now))
	require.NoError(t, err)
	cfg := kiosk.Config{Dev: true, Keys: kiosktest.Keys, KioskID: "PH-0042", Venue: "Tabac de la Gare, Lyon",
		ResultTimeout: time.Hour, Cash: kiosk.CashConfig{
			ValidatorPath: d.ValidatorPath, PrinterPath: d.PrinterPath,
			Validator:     kiosktest.ValidatorTiming(),
			Drivers:       drivers.Opener{},
			PrinterTiming: kiosktest.PrinterTiming(),
			PrinterCheck:  30 * time.Millisecond,
		}, SystemStatus: filepath.Join(dir, "system.json")}
	f.systemStatus = cfg.SystemStatus
	m, err := kiosk.New(st, f.clock, cfg)
	require.NoError(t, err)
	require.NoError(t, m.Start(context.Background()))
	t.Cleanup(func() { _ = m.Close(); _ = st.Close(); _ = d.Close() })
	f.st, f.m = st, m
	a := kiosk.NewAccess(st, f.clock, kiosk.AccessConfig{KDF: kiosk.KDF{Time: 1, MemoryKiB: 64, Threads: 1}})
	ctx := context.Background()
	setup, err := a.SetupSession(ctx)
	require.NoError(t, err)
	require.NoError(t, a.Setup(ctx, setup, "246800", "135700"))
	f.o = kiosk.NewOffice(m, a, 1000*time.Hour) // the tests move the clock by days
	f.staff, err = f.o.Login(ctx, "135700")
	require.NoError(t, err)
	f.tech, err = f.o.Login(ctx, "246800")
	require.NoError(t, err)

	app := test.NewTempApp(t)
	app.Settings().SetTheme(art.Theme())
	f.w = test.NewTempWindow(t, widget.NewLabel(""))
	f.w.Resize(fyne.NewSize(1280, 800))
	f.printerReady()
	return f
}

// printerReady waits for the printer's first good status.
func (f *rptFix) printerReady() {
	f.t.Helper()
	require.Eventually(f.t, func() bool { return f.m.Snapshot().Cash.Printer.OK }, 15*time.Second, 5*time.Millisecond, "printer ready")
}

// billIn books notes as the validator would have.
func (f *rptFix) billIn(notes ...game.Money) {
	f.t.Helper()
	for _, n := range notes {
		f.notes++
		_, err := f.st.BillIn(context.Background(), n, fmt.Sprint("test-note-", f.notes))
		require.NoError(f.t, err)
	}
}

// env is what a view of session s is built from; the work it sends off
// the Fyne goroutine runs at once.
func (f *rptFix) env(s *kiosk.Session) *Env {
	e := &Env{Ctx: context.Background(), Session: s, Tr: Tr{Lang: f.lang}, Win: f.w,
		Now: f.clock.Now, Loc: f.m.Location(), Go: func(g func()) { g() }, Do: func(g func()) { g() },
		Touch: func() {}}
	e.Refresh = func() { f.show(f.shown, s) }
	return e
}

// show builds view id for s and shows it alone in the window.
func (f *rptFix) show(id string, s *kiosk.Session) {
	f.t.Helper()
	for _, v := range views {
		if v.ID == id {
			f.shown = id
			f.w.SetContent(v.Build(f.env(s), f.o))
			f.w.Resize(fyne.NewSize(1280, 800))
			return
		}
	}
	f.t.Fatalf("no view %q", id)
}

// walk visits every visible object of the window.
func rptWalk(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	if o == nil || !o.Visible() {
		return
	}
	fn(o)
	switch x := o.(type) {
	case *widget.Label, *widget.Button, *widget.Entry, *widget.Select:
		// their texts are their own
	case *fyne.Container:
		for _, c := range x.Objects {
			rptWalk(c, fn)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			rptWalk(c, fn)
		}
	}
}

// text is the window's visible text: labels, buttons, entries, one a line.
func (f *rptFix) text() string {
	var b strings.Builder
	rptWalk(f.w.Content(), func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Label:
			if x.Text != "" {
				b.WriteString(x.Text + "\n")
			}
		case *widget.Button:
			b.WriteString("[" + x.Text + "]\n")
		case *widget.Entry:
			b.WriteString("{" + x.Text + "}\n")
		case *canvas.Text:
			if x.Text != "" {
				b.WriteString(x.Text + "\n")
			}
		case *widget.Select:
			b.WriteString("<" + x.Selected + ">\n")
		}
	})
	return b.String()
}

// button finds the visible button labelled label.
func (f *rptFix) button(label string) *widget.Button {
	var found *widget.Button
	rptWalk(f.w.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == label && found == nil {
			found = b
		}
	})
	return found
}

// tap taps the visible, enabled button labelled label.
func (f *rptFix) tap(label string) {
	f.t.Helper()
	b := f.button(label)
	require.NotNil(f.t, b, "no button %q in\n%s", label, f.text())
	require.False(f.t, b.Disabled(), "button %q disabled", label)
	test.Tap(b)
}

// entries are the visible entries, in order.
func (f *rptFix) entries() []*widget.Entry {
	var out []*widget.Entry
	rptWalk(f.w.Content(), func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok {
			out = append(out, e)
		}
	})
	return out
}

// selects are the visible selects, in order.
func (f *rptFix) selects() []*widget.Select {
	var out []*widget.Select
	rptWalk(f.w.Content(), func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Select); ok {
			out = append(out, e)
		}
	})
	return out
}

// golden compares the window with testdata/name.
func (f *rptFix) golden(name string) {
	f.t.Helper()
	settle(f.w)
	golden.AssertWithin(f.t, name, f.w.Canvas().Capture(), golden.Antialiased)
}

// events are the maintenance events of code.
func (f *rptFix) events(code string) []store.Event {
	f.t.Helper()
	ev, err := f.st.EventsWhere(context.Background(), store.EventQuery{N: 200})
	require.NoError(f.t, err)
	var out []store.Event
	for _, e := range ev {
		if e.Code == code {
			out = append(out, e)
		}
	}
	return out
}
