package kiosk

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"pharaon/game"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
)

// The tests share one database template holding a block of each stake whose
// first units are a scenario: a loser, then every tier won directly, then
// every tier won through the bonus; the rest of the block follows. Each test
// copies the template, so every test sells the same units in the same order.

var (
	testKeys = kiosktest.Keys

	templateOnce sync.Once
	template     kiosktest.TemplateFiles // opened without an anchor
	anchoredTmpl kiosktest.TemplateFiles // opened with one, as the kiosk binary does
	templateErr  error
)

// scenario is the head of every test block: a loser, then every tier won
// directly, then every tier won through the bonus.
func scenario() []kiosktest.Unit { return kiosktest.EveryOutcome() }

func buildTemplate() {
	dir, err := os.MkdirTemp("", "kiosk-template-")
	if err != nil {
		templateErr = err
		return
	}
	defer os.RemoveAll(dir)
	heads := map[game.Stake][]kiosktest.Unit{}
	for _, s := range game.Stakes {
		heads[s] = scenario()
	}
	if template, templateErr = kiosktest.Template(filepath.Join(dir, "pharaon.db"), heads); templateErr != nil {
		return
	}
	anchored := filepath.Join(dir, "anchored")
	if templateErr = os.Mkdir(anchored, 0o700); templateErr == nil {
		anchoredTmpl, templateErr = kiosktest.AnchoredTemplate(filepath.Join(anchored, "pharaon.db"), heads)
	}
}

// templateCopy copies the template database into a new test directory.
func templateCopy(t testing.TB) string { return copyOf(t, false) }

// anchoredCopy copies the anchored template (the database, its anchor and
// its trust root) into a new test directory: the store is opened with
// store.DefaultAnchor beside it.
func anchoredCopy(t testing.TB) string { return copyOf(t, true) }

func copyOf(t testing.TB, anchored bool) string {
	t.Helper()
	templateOnce.Do(buildTemplate)
	if templateErr != nil {
		t.Fatalf("template database: %v", templateErr)
	}
	tmpl := template
	if anchored {
		tmpl = anchoredTmpl
	}
	path, err := kiosktest.CopyTemplate(tmpl, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeClock is a clock the test moves. Advance moves time (the wall
// clock and the time that runs, the Stopwatch); SetWall only sets the wall
// clock, as a person setting the kiosk's clock does.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
	run time.Duration
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Running() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.run
}
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.run += d
	c.mu.Unlock()
}
func (c *fakeClock) SetWall(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// noProtection turns off the player-protection rules that act on a
// session (the reality check, the ceiling on notes) for the tests that are
// not about them: their sessions last days of the test's clock and take
// notes by the thousand. protection_test.go sets its own.
var noProtection = ProtectionConfig{RealityEvery: -1, SessionCeiling: -1}

// noHandPay is the hand-pay limit of the tests that are not about it: no
// prize is above it, so the top prizes they play do not lock the kiosk.
const noHandPay = PayoutLimitBound

type fixture struct {
	t     testing.TB
	path  string
	clock *fakeClock
	st    *store.Store
	m     *Machine
	cfg   Config
	// anchored: the store anchors its heads beside the database
	// (store.WithAnchor), as the kiosk binary opens it.
	anchored bool
	// storeOpts are more options of the store's.
	storeOpts []store.Option
}

// newFixture copies the template database and starts a development machine on it.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	path := templateCopy(t)
	f := &fixture{t: t, path: path, clock: &fakeClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)},
		cfg: Config{Dev: true, Keys: testKeys, Cash: CashConfig{HandPayLimit: noHandPay}, Protection: noProtection}}
	f.start()
	t.Cleanup(f.stop)
	return f
}

func (f *fixture) start() {
	f.t.Helper()
	opts := append([]store.Option{store.WithClock(f.clock.Now)}, f.storeOpts...)
	if f.anchored {
		opts = append(opts, store.WithAnchor(store.DefaultAnchor(f.path)))
	}
	st, err := store.Open(f.path, opts...)
	if err != nil {
		f.t.Fatalf("open store: %v", err)
	}
	m, err := New(st, f.clock, f.cfg)
	if err != nil {
		f.t.Fatalf("new machine: %v", err)
	}
	watch(m)
	f.st, f.m = st, m
}

func (f *fixture) boot() {
	f.t.Helper()
	if err := f.m.Start(context.Background()); err != nil {
		f.t.Fatalf("start: %v", err)
	}
}

// stop closes the machine and the store, as a process ending would.
func (f *fixture) stop() {
	if f.m != nil {
		f.m.Close()
		f.m = nil
	}
	if f.st != nil {
		f.st.Close()
		f.st = nil
	}
}

// credit gives the kiosk credit for the tests that are not about bank
// notes: a technician's test movement of the ledger (counted apart from the
// money meters), shown at once as the machine's cash loop would read it
// back. The kiosk has no API that gives credit: it comes from notes.
func (f *fixture) credit(amount game.Money) {
	f.t.Helper()
	f.m.ledgerMu.Lock()
	e, err := f.st.TestModeMovement(context.Background(), amount, "", "test credit")
	if err == nil {
		f.m.showBalance(e.Balance)
	}
	f.m.ledgerMu.Unlock()
	if err != nil {
		f.t.Fatalf("test credit: %v", err)
	}
	f.m.notify()
}

// restart is a crash and a reboot: nothing is finished on the way out.
func (f *fixture) restart() {
	f.t.Helper()
	f.stop()
	f.start()
	f.boot()
}
