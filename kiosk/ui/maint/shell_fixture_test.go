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
	"pharaon/hw/escpos"
	"pharaon/kiosk"
	"pharaon/kiosk/kiosktest"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/golden"
	"pharaon/store"
)

// The shell's tests run the real back office (kiosk.Office, kiosk.Access)
// on a real store and machine, with a voucher printer that prints into
// memory; the work the shell sends off the Fyne goroutine runs at once.

var (
	shTemplateOnce sync.Once
	shTemplate     kiosktest.TemplateFiles
	shTemplateErr  error
)

type shClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *shClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *shClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// shPrinter prints vouchers into memory; fail makes the next prints fail.
type shPrinter struct {
	mu     sync.Mutex
	prints int
	fail   error
}

func (p *shPrinter) Print(context.Context, *escpos.Doc) (escpos.Status, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return escpos.Status{}, p.fail
	}
	p.prints++
	return escpos.Status{}, nil
}

func (p *shPrinter) Status(context.Context) (escpos.Status, error) { return escpos.Status{}, nil }

func (p *shPrinter) count() int { p.mu.Lock(); defer p.mu.Unlock(); return p.prints }

// Demo PINs of the tests.
const (
	shStaffPIN = "135700"
	shTechPIN  = "246800"
)

type shFix struct {
	t       *testing.T
	clock   *shClock
	st      *store.Store
	m       *kiosk.Machine
	a       *kiosk.Access
	o       *kiosk.Office
	printer *shPrinter
	w       fyne.Window
	player  fyne.CanvasObject
	sh      *Shell
	closed  int
	notes   int
	// blockDir is the shell's Config.BlockDir.
	blockDir string
}

// shAccessConfig is a cheap argon2id: the tests check PINs many times.
var shAccessConfig = kiosk.AccessConfig{KDF: kiosk.KDF{Time: 1, MemoryKiB: 64, Threads: 1}}

// newShFix is a started kiosk; pins: its PINs are set (else it needs the
// first start's setup).
func newShFix(t *testing.T, pins bool, opts ...func(*kiosk.Config)) *shFix {
	t.Helper()
	shTemplateOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pharaon-maint-shell-")
		if err != nil {
			shTemplateErr = err
			return
		}
		defer os.RemoveAll(dir)
		heads := map[game.Stake][]kiosktest.Unit{}
		for _, s := range game.Stakes {
			heads[s] = kiosktest.EveryOutcome()
		}
		shTemplate, shTemplateErr = kiosktest.Template(filepath.Join(dir, "pharaon.db"), heads)
	})
	require.NoError(t, shTemplateErr)
	path, err := kiosktest.CopyTemplate(shTemplate, t.TempDir())
	require.NoError(t, err)
	f := &shFix{t: t, clock: &shClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}, printer: &shPrinter{}}
	st, err := store.Open(path, store.WithClock(f.clock.Now))
	require.NoError(t, err)
	cfg := kiosk.Config{Keys: kiosktest.Keys, KioskID: "PH-0042", Venue: "Tabac de la Gare, Lyon",
		ResultTimeout: time.Hour, Cash: kiosk.CashConfig{Printer: f.printer, PrinterCheck: 10 * time.Millisecond}}
	for _, o := range opts {
		o(&cfg)
	}
	m, err := kiosk.New(st, f.clock, cfg)
	require.NoError(t, err)
	require.NoError(t, m.Start(context.Background()))
	t.Cleanup(func() { _ = m.Close(); _ = st.Close() })
	f.st, f.m = st, m
	f.a = kiosk.NewAccess(st, f.clock, shAccessConfig)
	f.o = kiosk.NewOffice(m, f.a, kiosk.DefaultOfficeIdle)
	if pins {
		ctx := context.Background()
		setup, err := f.a.SetupSession(ctx)
		require.NoError(t, err)
		require.NoError(t, f.a.Setup(ctx, setup, shTechPIN, shStaffPIN))
	}
	app := test.NewTempApp(t)
	app.Settings().SetTheme(art.Theme())
	f.player = widget.NewLabel("Écran du joueur")
	f.w = test.NewTempWindow(t, f.player)
	f.w.SetPadded(false)
	f.w.Resize(fyne.NewSize(1280, 800))
	require.Eventually(t, func() bool { return m.Snapshot().Cash.Printer.OK }, 15*time.Second, 2*time.Millisecond, "printer ready")
	return f
}

// open opens the maintenance screen as the hidden corner would.
func (f *shFix) open(lang ui.Lang) {
	f.sh = Open(f.w, Config{Office: f.o, Lock: f.m.SetMaintenance, Lang: lang, Now: f.clock.Now, Loc: f.m.Location(),
		PollEvery: -1, Go: func(g func()) { g() }, Do: func(g func()) { g() }, OnClose: func() { f.closed++ }, BlockDir: f.blockDir})
}

// walk visits every visible object of the window.
func shWalk(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	if o == nil || !o.Visible() {
		return
	}
	fn(o)
	switch c := o.(type) {
	case *fyne.Container:
		for _, k := range c.Objects {
			shWalk(k, fn)
		}
	case fyne.Widget:
		r := test.WidgetRenderer(c)
		if r == nil {
			return
		}
		for _, k := range r.Objects() {
			shWalk(k, fn)
		}
	}
}

// text is every text shown, joined.
func (f *shFix) text() string {
	var out []string
	shWalk(f.w.Content(), func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Label:
			out = append(out, x.Text)
		case *widget.Button:
			out = append(out, x.Text)
		case *canvas.Text:
			out = append(out, x.Text)
		}
	})
	return strings.Join(out, " | ")
}

// button is the visible button showing label (nil if none).
func (f *shFix) button(label string) *widget.Button {
	var found *widget.Button
	shWalk(f.w.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == label && found == nil {
			found = b
		}
	})
	return found
}

// tap taps the visible, enabled button showing label.
func (f *shFix) tap(label string) {
	f.t.Helper()
	b := f.button(label)
	require.NotNil(f.t, b, "no button %q; texts: %s", label, f.text())
	require.False(f.t, b.Disabled(), "button %q is disabled", label)
	test.Tap(b)
}

// pin types pin on the pad's keys, then Valider.
func (f *shFix) pin(pin string) {
	f.t.Helper()
	for _, r := range pin {
		f.tap(string(r))
	}
	if f.button("Valider") != nil {
		f.tap("Valider")
	} else {
		f.tap("Enter")
	}
}

// golden compares the window with testdata/name.
func (f *shFix) golden(name string) {
	f.t.Helper()
	settle(f.w)
	golden.Assert(f.t, name, f.w.Canvas().Capture())
}

// events are the events of code, oldest first.
func (f *shFix) events(code string) []store.Event {
	f.t.Helper()
	all, err := f.st.Events(context.Background(), 1000, 0)
	require.NoError(f.t, err)
	var out []store.Event
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Code == code {
			out = append(out, all[i])
		}
	}
	return out
}

// cashOut puts amount in the kiosk as a note would, prints it on a
// voucher, and returns the voucher's validation number.
func (f *shFix) cashOut(amount game.Money) string {
	f.t.Helper()
	ctx := context.Background()
	f.notes++
	_, err := f.st.BillIn(ctx, amount, fmt.Sprint("test-note-", f.notes))
	require.NoError(f.t, err)
	require.Eventually(f.t, func() bool { return f.m.Snapshot().Credit == amount }, 15*time.Second, 2*time.Millisecond, "credit read back")
	_, err = f.m.CashOut(ctx)
	require.NoError(f.t, err)
	v, err := f.st.LastVoucher(ctx)
	require.NoError(f.t, err)
	return v.Validation
}
