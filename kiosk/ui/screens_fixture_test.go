package ui

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/hw/id003"
	"pharaon/hw/validator/drivers"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/kiosktest"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/golden"
	"pharaon/kiosk/ui/play"
	"pharaon/store"
)

// The screens' tests play real units through a real kiosk.Machine on a real
// store. They share one database template holding a block of each stake
// whose first units are chosen (scenarioHeads); each test starts from a
// copy of it, so each sells the same units in the same order.

var (
	scrTestKeys = kiosktest.Keys

	scrTemplateOnce sync.Once
	scrTemplate     kiosktest.TemplateFiles // the template database
	scrTemplateErr  error
)

// scenarioHeads are the first units sold at each stake.
var scenarioHeads = map[game.Stake][]kiosktest.Unit{
	// 0,50 €: a loser, then two crosses (tier 8), then losers
	game.Stake050: {{Tier: game.TierLose}, {Tier: 8}, {Tier: game.TierLose}},
	// 1 €: three birds (tier 1, 7 500 €), a loser, a tier-6 prize through the bonus
	game.Stake100: {{Tier: 1}, {Tier: game.TierLose}, {Tier: 6, ViaBonus: true}},
	// 2 €: a tier-4 prize through the bonus (150 €), three eyes (tier 5)
	game.Stake200: {{Tier: 4, ViaBonus: true}, {Tier: 5}},
}

// buildScreensTemplate imports the three scenario blocks into a fresh
// database and keeps its file.
func buildScreensTemplate() {
	dir, err := os.MkdirTemp("", "pharaon-ui-template-")
	if err != nil {
		scrTemplateErr = err
		return
	}
	defer os.RemoveAll(dir)
	scrTemplate, scrTemplateErr = kiosktest.Template(filepath.Join(dir, "pharaon.db"), scenarioHeads)
}

// scrClock is the tests' clock for the kiosk and the screens alike.
type scrClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *scrClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *scrClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// scrFixture is a kiosk on a copy of the template, its screens in a
// headless 1280×800 window.
type scrFixture struct {
	t     *testing.T
	clock *scrClock
	path  string
	st    *store.Store
	m     *kiosk.Machine
	s     *Screens
	w     fyne.Window
	opt   Options
	stub  *stubbedMachine
	// devs are the simulated cash devices (withDevices), receipts where
	// their vouchers land.
	devs     *devsim.Devices
	receipts string
	// ui is the Fyne goroutine's queue: what the machine's goroutines and
	// the cash-out hand to the screens (Screens.do) runs on the test's
	// goroutine when the test flushes it, as the Fyne loop runs it in
	// the kiosk.
	ui uiQueue
	// toasts are the toast headlines shown, in order (consecutive
	// repeats dropped).
	toasts []string
	// gate, if set, holds each CashOut until the test sends on it.
	gate chan struct{}
	// inFlight are the plays asked for that the kiosk has not answered.
	inFlight sync.WaitGroup
	// writes catches a durable write on the screens' goroutine.
	writes uiWrites
	// storeOpts are more options of the store.
	storeOpts []store.Option
	// deviceDown: a simulated device is made to fail before the kiosk
	// starts (deviceDownAtBoot); the fixture does not wait for the cash.
	deviceDown bool
}

// gatedCashOut holds the machine's CashOut until the test lets it go, so
// the screen of a voucher printing can be looked at.
func gatedCashOut() fixtureOption {
	return func(f *scrFixture, _ *kiosk.Config) { f.gate = make(chan struct{}) }
}

type gatedMachine struct {
	Machine
	gate chan struct{}
}

func (m gatedMachine) CashOut(ctx context.Context) (kiosk.VoucherInfo, error) {
	<-m.gate
	return m.Machine.CashOut(ctx)
}

// uiQueue is the tests' stand-in for the Fyne goroutine's queue.
type uiQueue struct {
	mu sync.Mutex
	fs []func()
	// queued has a value when something was queued since it was last
	// read: a test waits on it for what the machine hands the screens.
	queued chan struct{}
}

func (q *uiQueue) do(f func()) {
	q.mu.Lock()
	q.fs = append(q.fs, f)
	if q.queued == nil {
		q.queued = make(chan struct{}, 1)
	}
	ch := q.queued
	q.mu.Unlock()
	select {
	case ch <- struct{}{}:
	default:
	}
}

// wait returns the channel that has a value once something is queued.
func (q *uiQueue) wait() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queued == nil {
		q.queued = make(chan struct{}, 1)
	}
	return q.queued
}

func (q *uiQueue) next() func() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.fs) == 0 {
		return nil
	}
	f := q.fs[0]
	q.fs = q.fs[1:]
	return f
}

// flush runs what the machine handed to the screens so far, in order.
func (f *scrFixture) flush() {
	for fn := f.ui.next(); fn != nil; fn = f.ui.next() {
		f.runUI(fn)
		if head, _, _ := f.s.toastLines(); head != "" && f.s.toastVisible() &&
			(len(f.toasts) == 0 || f.toasts[len(f.toasts)-1] != head) {
			f.toasts = append(f.toasts, head)
		}
	}
}

// waitFor runs what the machine hands the screens until cond holds (the
// devices and the cash-out run on their own goroutines): it wakes when
// something is queued (Screens.do), never on a timer.
func (f *scrFixture) waitFor(cond func() bool, msg string, args ...any) {
	f.t.Helper()
	timeout := time.NewTimer(15 * time.Second)
	defer timeout.Stop()
	for {
		f.flush()
		if cond() {
			return
		}
		select {
		case <-f.ui.wait():
		case <-timeout.C:
			f.t.Fatalf("timed out waiting: "+msg+"; texts: %q", append(args, f.texts())...)
		}
	}
}

// waitDevice waits until cond, about a simulated device, holds: the
// simulators on their pseudo-terminals tell no one, so it looks again every
// few milliseconds, running what the machine handed the screens meanwhile.
func (f *scrFixture) waitDevice(cond func() bool, msg string, args ...any) {
	f.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		f.flush()
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out waiting: "+msg+"; texts: %q", append(args, f.texts())...)
		}
		<-tick.C
	}
}

// credit gives the kiosk credit as a technician's test movement of the
// ledger (counted apart from the money meters), which the machine reads
// back: the flows that are not about notes start with credit this way.
func (f *scrFixture) credit(amount game.Money) {
	f.t.Helper()
	want := f.m.Snapshot().Credit + amount
	_, err := f.st.TestModeMovement(context.Background(), amount, "", "screens test credit")
	require.NoError(f.t, err)
	f.waitFor(func() bool { return f.s.snap.Credit == want }, "credit %s shown", want.Plain())
}

type fixtureOption func(*scrFixture, *kiosk.Config)

// stubbedMachine is the real machine with its snapshot rewritten and, if
// playErr is set, its Play refused: for the states a test cannot reach
// through the store (a fault, a stake without a block).
type stubbedMachine struct {
	Machine
	rewrite func(kiosk.Snapshot) kiosk.Snapshot
	playErr error
}

func (m *stubbedMachine) OnChange(f func(kiosk.Snapshot)) kiosk.Snapshot {
	return m.rewrite(m.Machine.OnChange(func(s kiosk.Snapshot) { f(m.rewrite(s)) }))
}

func (m *stubbedMachine) RequestPlay(s game.Stake, mode breakout.Mode, done func(Game, error)) {
	if m.playErr != nil {
		go done(nil, m.playErr) // the kiosk answers from its writer's goroutine
		return
	}
	m.Machine.RequestPlay(s, mode, done)
}

// trackedMachine counts the plays asked for and not yet answered, so that
// a test waits for the kiosk's answer (the stake's commit) instead of
// polling for it.
type trackedMachine struct {
	Machine
	inFlight *sync.WaitGroup
}

func (m trackedMachine) RequestPlay(s game.Stake, mode breakout.Mode, done func(Game, error)) {
	m.inFlight.Add(1)
	m.Machine.RequestPlay(s, mode, func(g Game, err error) {
		done(g, err)
		m.inFlight.Done()
	})
}

// goroutineID is the calling goroutine's number, from its stack's header
// ("goroutine 18 [running]:"): only to tell goroutines apart in a test.
func goroutineID() string {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	f := strings.Fields(string(b[:n]))
	if len(f) < 2 {
		return ""
	}
	return f[1]
}

// uiWrites watches the store's writes: one made on the test's goroutine
// while it runs the screens (a tap, a frame, what the machine handed to
// the screens) is a durable write on the Fyne goroutine, which holds up a
// frame for a commit (synchronous=FULL waits for the disk). It is
// recorded with its stack, and the test fails.
type uiWrites struct {
	goroutine string // the test's, the screens' goroutine in these tests
	inUI      bool   // the test's goroutine runs the screens; read only there
	mu        sync.Mutex
	stacks    []string
	// gate, if set, holds every write of the kiosk's goroutines until it
	// is closed (holdWrites).
	gate chan struct{}
}

// holdWrites holds the kiosk's writes (its play writer, its cash loop)
// until the returned function is called: a database stalled on its disk.
func (f *scrFixture) holdWrites() (release func()) {
	gate := make(chan struct{})
	f.writes.mu.Lock()
	f.writes.gate = gate
	f.writes.mu.Unlock()
	return func() {
		f.writes.mu.Lock()
		f.writes.gate = nil
		f.writes.mu.Unlock()
		close(gate)
	}
}

func (u *uiWrites) hook() {
	if goroutineID() != u.goroutine {
		u.mu.Lock()
		gate := u.gate
		u.mu.Unlock()
		if gate != nil {
			<-gate
		}
		return
	}
	if !u.inUI {
		return
	}
	buf := make([]byte, 8<<10)
	buf = buf[:runtime.Stack(buf, false)]
	u.mu.Lock()
	u.stacks = append(u.stacks, string(buf))
	u.mu.Unlock()
}

// ui runs f as the screens' goroutine.
func (f *scrFixture) runUI(fn func()) {
	f.writes.inUI = true
	defer func() { f.writes.inUI = false }()
	fn()
}

// stubbed shows the screens a rewritten snapshot, and refuses Play with
// playErr if it is not nil.
func stubbed(rewrite func(kiosk.Snapshot) kiosk.Snapshot, playErr error) fixtureOption {
	return func(f *scrFixture, _ *kiosk.Config) { f.stub = &stubbedMachine{rewrite: rewrite, playErr: playErr} }
}

// production makes the machine a production one: no Config.Dev.
func production() fixtureOption { return func(_ *scrFixture, c *kiosk.Config) { c.Dev = false } }

// inEnglish starts the screens in English.
func inEnglish() fixtureOption { return func(f *scrFixture, _ *kiosk.Config) { f.opt.Lang = English } }

// withDevices runs both cash devices as simulators on pseudo-terminals,
// the kiosk's real drivers on them, and gives the screens the development
// panel that drives them. mod may change the cash settings.
func withDevices(mod func(*kiosk.CashConfig)) fixtureOption {
	return func(f *scrFixture, c *kiosk.Config) {
		dir := f.t.TempDir()
		f.receipts = filepath.Join(dir, "vouchers")
		d, err := devsim.Start(devsim.Config{Dir: filepath.Join(dir, "run"), Receipts: f.receipts})
		require.NoError(f.t, err)
		f.t.Cleanup(func() { _ = d.Close() })
		f.devs = d
		c.KioskID, c.Venue = "PH-0042", "Tabac de la Gare, Lyon"
		// Fast polls, and waits for an answer a loaded machine meets.
		c.Cash = kiosk.CashConfig{
			ValidatorPath: d.ValidatorPath,
			PrinterPath:   d.PrinterPath,
			Validator:     kiosktest.ValidatorTiming(),
			Drivers:       drivers.Opener{},
			PrinterTiming: kiosktest.PrinterTiming(),
			PrinterCheck:  30 * time.Millisecond,
			HandPayLimit:  c.Cash.HandPayLimit,
		}
		if mod != nil {
			mod(&c.Cash)
		}
		f.opt.Dev = simPanel{d}
	}
}

// simPanel is the development panel's devices on kiosk/devsim, as
// cmd/pharaon wires them.
type simPanel struct{ d *devsim.Devices }

func (p simPanel) Notes() []game.Money { return devsim.Notes }
func (p simPanel) Faults() []DevFault {
	out := make([]DevFault, len(devsim.Faults))
	for i, f := range devsim.Faults {
		out[i] = DevFault{ID: string(f)}
	}
	return out
}
func (p simPanel) InsertNote(a game.Money) error { return p.d.InsertNote(a) }
func (p simPanel) InsertCounterfeit() error      { return p.d.InsertCounterfeit() }
func (p simPanel) Cause(id string) error         { return p.d.Cause(devsim.Fault(id)) }
func (p simPanel) Repair() error                 { return p.d.Repair() }

// cashReady waits until the validator takes notes and the printer works.
func (f *scrFixture) cashReady() {
	f.t.Helper()
	f.waitFor(func() bool {
		c := f.s.snap.Cash
		return c.Validator.OK && c.Printer.OK && c.CanCashIn
	}, "cash devices ready")
	if f.devs != nil {
		// The kiosk sees the slot open a poll before the unit is idle
		// (it enables it at its next command): a note put in between is
		// refused, which a loaded machine makes likely.
		f.waitDevice(func() bool { return f.devs.Validator.State() == id003.StateIdle }, "the simulated validator idle")
	}
}

// windowSize is the size of the tests' window.
var windowSize = fyne.NewSize(designW, designH)

func newScrFixture(t *testing.T, opts ...fixtureOption) *scrFixture {
	t.Helper()
	return newScrFixtureSized(t, windowSize, opts...)
}

func newScrFixtureSized(t *testing.T, size fyne.Size, opts ...fixtureOption) *scrFixture {
	t.Helper()
	scrTemplateOnce.Do(buildScreensTemplate)
	require.NoError(t, scrTemplateErr, "template database")
	path, err := kiosktest.CopyTemplate(scrTemplate, t.TempDir())
	require.NoError(t, err)

	a := test.NewTempApp(t)
	a.Settings().SetTheme(art.Theme())
	f := &scrFixture{t: t, path: path, clock: &scrClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}}
	// The machine's clock does not tick: the tests call Poll (the
	// machine's, or the screens'). PrinterCheck is short: the machine's
	// cash loop reads the credit back from the ledger that often (credit).
	cfg := kiosk.Config{Dev: true, Keys: scrTestKeys, PollEvery: -1, ResultTimeout: time.Hour,
		Cash: kiosk.CashConfig{PrinterCheck: 20 * time.Millisecond, HandPayLimit: kiosk.PayoutLimitBound}}
	f.opt = Options{Now: f.clock.Now, AttractAfter: 45 * time.Second}
	for _, o := range opts {
		o(f, &cfg)
	}
	f.writes.goroutine = goroutineID()
	st, err := store.Open(path, append([]store.Option{store.WithClock(f.clock.Now), store.WithWriteHook(f.writes.hook)}, f.storeOpts...)...)
	require.NoError(t, err)
	m, err := kiosk.New(st, f.clock, cfg)
	require.NoError(t, err)
	require.NoError(t, m.Start(context.Background()))
	f.st, f.m = st, m
	t.Cleanup(func() {
		f.s.Stop()
		_ = m.Close()
		_ = st.Close()
		f.writes.mu.Lock()
		defer f.writes.mu.Unlock()
		for _, stack := range f.writes.stacks {
			t.Errorf("a durable write on the screens' goroutine:\n%s", stack)
		}
	})
	var sm Machine = Kiosk(m)
	if f.stub != nil {
		f.stub.Machine = sm
		sm = f.stub
	}
	if f.gate != nil {
		sm = gatedMachine{sm, f.gate}
	}
	sm = trackedMachine{sm, &f.inFlight}
	f.s = New(sm, f.opt)
	f.s.do = f.ui.do
	f.w = test.NewWindow(f.s.Content())
	f.w.SetPadded(false)
	f.runUI(func() { f.w.Resize(size) })
	t.Cleanup(f.w.Close)
	f.runUI(f.s.Start)
	if f.devs != nil && !f.deviceDown {
		f.cashReady()
	}
	return f
}

// scrFrame is one 60 Hz frame, rounded up to the nanosecond so that it is
// worth exactly two engine ticks.
const scrFrame = 16_666_667 * time.Nanosecond

// frame runs one 60 Hz frame of the game screen if its frame pump runs (in
// the kiosk, a fyne.Animation calls Frame; the test driver does not run
// animations, so the tests call it).
func (f *scrFixture) frame() { f.frameAfter(scrFrame) }

// slowFrame is a frame that comes late: the most the pump catches up in one
// frame (play.DefaultMaxCatchUp ticks). Games run to their end with these, four
// times fewer frames for the same engine steps.
const slowFrame = time.Duration(play.DefaultMaxCatchUp) * time.Second / breakout.TicksPerSecond

func (f *scrFixture) frameAfter(d time.Duration) {
	f.flush()
	f.settle()
	f.clock.Advance(d)
	if !f.s.gs.Running() {
		return
	}
	f.runUI(func() { f.s.gs.Frame(f.clock.Now()) })
	if g := f.game(); f.s.gs.Landed() && g != nil && !g.Settled() {
		// The wall cleared in this frame and the kiosk's commit of its end
		// is under way, which takes a few milliseconds on the kiosk: the
		// next frame, at the same time, finds it made.
		f.settle()
		f.runUI(func() { f.s.gs.Frame(f.clock.Now()) })
	}
}

// settle waits until the kiosk has made the writes the game on screen
// asked for (its bonus, its finish), as time passing between two frames
// would: the tests' frames come faster than a commit.
func (f *scrFixture) settle() {
	if g := f.game(); g != nil {
		g.Wait()
	}
}

// game is the kiosk's game on the game screen, or nil.
func (f *scrFixture) game() *kiosk.Game {
	g, _ := f.s.game.(*kiosk.Game)
	return g
}

// playToEnd runs frames until the game screen's game is over, steering the
// paddle under the ball and tapping the ball to launch it when play is
// true, as a player would (Art. 4.4); on the kiosk, until its end is on
// screen too (endShown).
func (f *scrFixture) playToEnd(play bool) int {
	f.t.Helper()
	const maxFrames = 15 * 240 // four minutes of play: Auto needs at most 12 s a wall
	for i := 0; i < maxFrames; i++ {
		if f.s.gs.Over() {
			if f.m != nil {
				f.endShown()
			}
			return i
		}
		if play {
			f.steer()
		}
		f.frameAfter(slowFrame)
	}
	f.t.Fatalf("the game did not end within %d frames (stage %s)", maxFrames, f.game().Stage())
	return 0
}

// endShown waits until the end of the game over on the game screen is
// shown: the kiosk pushes it once the finish is committed, shortly after
// the game is settled (the screens wait for both, showEnd).
func (f *scrFixture) endShown() {
	f.t.Helper()
	f.waitFor(func() bool { return !f.s.awaitEnd }, "the kiosk's push of the game's end")
}

// steer is the test's player: the finger follows the ball, and taps it when
// it rests on the paddle.
func (f *scrFixture) steer() {
	g := f.game()
	if g == nil || g.Stage() == kiosk.StageDone {
		return
	}
	field := f.s.gs.Playfield()
	b := g.World().Ball()
	pos := fieldPixel(field.Size(), b.X, b.Y)
	if b.Phase == breakout.OnPaddle {
		field.Tapped(&fyne.PointEvent{Position: pos})
		return
	}
	field.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(pos.X, field.Size().Height-10)}})
}

// fieldPixel is where a point of the field is drawn on a playfield of size:
// the field's 1200 × 1000 units scaled uniformly and centred (Playfield).
func fieldPixel(size fyne.Size, x, y int32) fyne.Position {
	s := min(size.Width/1200, size.Height/1000)
	ox, oy := (size.Width-1200*s)/2, (size.Height-1000*s)/2
	return fyne.NewPos(ox+float32(x)/breakout.Unit*s, oy+float32(y)/breakout.Unit*s)
}

// visible walks the visible objects under o.
func visible(o fyne.CanvasObject, f func(fyne.CanvasObject)) {
	if o == nil || !o.Visible() {
		return
	}
	f(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			visible(c, f)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			visible(c, f)
		}
	}
}

// texts are the visible texts of the window, in drawing order.
func (f *scrFixture) texts() []string {
	f.flush()
	var out []string
	visible(f.s.Content(), func(o fyne.CanvasObject) {
		if t, ok := o.(*canvas.Text); ok && t.Text != "" {
			out = append(out, t.Text)
		}
	})
	return out
}

// screenText is the visible text of the window as one string (paragraphs
// broken into lines read whole again).
func (f *scrFixture) screenText() string { return strings.Join(f.texts(), " ") }

// button finds the visible button showing label, or nil.
func (f *scrFixture) button(label string) *touchButton {
	f.flush()
	var found *touchButton
	visible(f.s.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*touchButton); ok && b.Text == label && found == nil {
			found = b
		}
	})
	return found
}

// tap taps the visible, enabled button showing label.
func (f *scrFixture) tap(label string) {
	f.t.Helper()
	b := f.button(label)
	require.NotNil(f.t, b, "no button %q on screen; texts: %q", label, f.texts())
	require.False(f.t, b.Disabled(), "button %q is disabled", label)
	f.runUI(func() { test.Tap(b) })
	f.inFlight.Wait() // a play asked for is answered
	f.flush()
}

// golden compares the window with testdata/name (golden.Assert).
func (f *scrFixture) golden(name string) {
	f.t.Helper()
	f.flush()
	golden.Assert(f.t, name, f.w.Canvas().Capture())
}
