package ui

import (
	"context"
	"errors"
	"maps"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/play"
)

// The screens on a fake machine: no store, no device, no pseudo-terminal.
// The fake has no way to be asked for a snapshot or a result: what the
// screens show comes from what it pushes (Follower), as in the kiosk.

// fakeMachine is a Machine the test drives: it sells demo games of the
// layouts it is given, and pushes the snapshots the test makes.
type fakeMachine struct {
	t         *testing.T
	mu        sync.Mutex
	snap      kiosk.Snapshot
	listeners []func(kiosk.Snapshot)

	// what the screens asked
	requests []game.Stake
	modes    []breakout.Mode
	ended    int

	// what it answers
	layouts []reveal.Walls // the games it sells, in order
	playErr error          // refuses the next plays with it
	current Game
	nextID  int64
	// cashOut, if set, is the outcome of CashOut; cashOuts receives one
	// value per CashOut once it returns.
	voucher  kiosk.VoucherInfo
	cashErr  error
	cashOuts chan struct{}
	// the player's protection: the limits asked for, the answer, and the
	// reality checks answered
	limits    []game.Money
	limitErr  error
	dismissed int
}

func newFakeMachine(t *testing.T, credit game.Money) *fakeMachine {
	return &fakeMachine{t: t, nextID: 100, cashOuts: make(chan struct{}, 8), snap: kiosk.Snapshot{
		State:     kiosk.Home,
		Credit:    credit,
		Available: map[game.Stake]bool{game.Stake050: true, game.Stake100: true, game.Stake200: true},
		Cash: kiosk.CashSnapshot{CanCashIn: true, CanCashOut: true,
			Validator: kiosk.DeviceStatus{OK: true}, Printer: kiosk.DeviceStatus{OK: true}},
	}}
}

var _ Machine = (*fakeMachine)(nil)

// SetPlayerLimit records the limit and, unless refused, shows it as the
// kiosk would.
func (m *fakeMachine) SetPlayerLimit(_ context.Context, l game.Money) error {
	m.mu.Lock()
	m.limits = append(m.limits, l)
	err := m.limitErr
	m.mu.Unlock()
	if err == nil {
		m.push(func(s *kiosk.Snapshot) { s.Protection.PlayerLimit = l })
	}
	return err
}

// DismissRealityCheck counts the answer and takes the check away.
func (m *fakeMachine) DismissRealityCheck() {
	m.mu.Lock()
	m.dismissed++
	m.mu.Unlock()
	m.push(func(s *kiosk.Snapshot) { s.Protection.RealityCheck = false })
}

func (m *fakeMachine) OnChange(f func(kiosk.Snapshot)) kiosk.Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.listeners = append(m.listeners, f)
	return m.snap
}

// push changes the snapshot and tells the listeners, as the kiosk does:
// each snapshot is a copy, which a later change leaves alone.
func (m *fakeMachine) push(change func(*kiosk.Snapshot)) {
	m.mu.Lock()
	m.snap.Available = maps.Clone(m.snap.Available)
	change(&m.snap)
	snap, ls := m.snap, append([]func(kiosk.Snapshot){}, m.listeners...)
	m.mu.Unlock()
	for _, l := range ls {
		l(snap)
	}
}

func (m *fakeMachine) RequestPlay(s game.Stake, mode breakout.Mode, done func(Game, error)) {
	m.requests = append(m.requests, s)
	m.modes = append(m.modes, mode)
	if m.playErr != nil {
		done(nil, m.playErr)
		return
	}
	require.NotEmpty(m.t, m.layouts, "no game left to sell")
	l := m.layouts[0]
	m.layouts = m.layouts[1:]
	require.Equal(m.t, s, l.Stake, "the stake asked for")
	d, err := play.NewDemoGame(l, mode, breakout.DefaultSettings())
	require.NoError(m.t, err)
	m.nextID++
	g := &fakeGame{DemoGame: d, id: m.nextID}
	m.current = g
	m.push(func(snap *kiosk.Snapshot) {
		snap.State = kiosk.Playing
		snap.Credit -= s.Money()
		snap.Game = kiosk.GameSnapshot{ID: g.id, Stake: s, Stage: kiosk.StageMain, Settled: true}
	})
	done(g, nil)
}

func (m *fakeMachine) Current() Game { return m.current }
func (m *fakeMachine) Touch()        {}
func (m *fakeMachine) EndResult() {
	m.ended++
	m.current = nil
	m.push(func(s *kiosk.Snapshot) { s.State = kiosk.Home })
}

func (m *fakeMachine) CashOut(context.Context) (kiosk.VoucherInfo, error) {
	defer func() { m.cashOuts <- struct{}{} }()
	if m.cashErr != nil {
		return kiosk.VoucherInfo{}, m.cashErr
	}
	m.push(func(s *kiosk.Snapshot) { s.Credit = 0 })
	return m.voucher, nil
}

func (m *fakeMachine) ResetValidator()              {}
func (m *fakeMachine) CheckPrinter(context.Context) {}
func (m *fakeMachine) PlayerHistory(context.Context, int) (kiosk.PlayerHistory, error) {
	return kiosk.PlayerHistory{}, nil
}

// fakeGame is a demo game with a play's id.
type fakeGame struct {
	*play.DemoGame
	id int64
}

func (g *fakeGame) ID() int64 { return g.id }

// newFakeFixture shows the screens of m in a headless window; the fixture's
// helpers (tap, texts, frames) work on it as on the kiosk's.
func newFakeFixture(t *testing.T, m *fakeMachine, opts ...func(*Options)) *scrFixture {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(art.Theme())
	f := &scrFixture{t: t, clock: &scrClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}}
	f.opt = Options{Now: f.clock.Now, AttractAfter: 45 * time.Second}
	for _, o := range opts {
		o(&f.opt)
	}
	f.s = New(m, f.opt)
	f.s.do = f.ui.do
	f.w = test.NewWindow(f.s.Content())
	f.w.SetPadded(false)
	f.runUI(func() { f.w.Resize(windowSize) })
	t.Cleanup(f.w.Close)
	t.Cleanup(func() { f.s.Stop() })
	f.runUI(f.s.Start)
	return f
}

// fakeLayout is the layout of a unit of tier at stake.
func fakeLayout(t *testing.T, s game.Stake, tier game.Tier, viaBonus bool) reveal.Walls {
	t.Helper()
	l, err := reveal.Layout(s, tier, viaBonus, 42, reveal.Latest)
	require.NoError(t, err)
	return l
}

// The home screen shows what the machine pushes, and Jouer asks it for a
// unit of the stake chosen; a refusal is said on the home screen.
func TestFakeHomeFollowsThePush(t *testing.T) {
	m := newFakeMachine(t, 0)
	f := newFakeFixture(t, m)
	require.Equal(t, scrHome, f.s.screen)
	require.NotNil(t, f.button("Jouer"))
	assert.True(t, f.button("Jouer").Disabled(), "no credit, no game")

	m.push(func(s *kiosk.Snapshot) { s.Credit = 5 * game.Euro })
	assert.Zero(t, f.s.snap.Credit, "the push waits for the screens' goroutine")
	f.flush()
	assert.Contains(t, f.texts(), fr(5*game.Euro), "the credit pushed shows")
	assert.False(t, f.button("Jouer").Disabled())

	m.push(func(s *kiosk.Snapshot) { s.Available[game.Stake200] = false })
	assert.True(t, f.button(fr(game.Stake200.Money())).Disabled(), "a stake closed by the push")

	m.playErr = kiosk.ErrInsufficientCredit
	f.tap(fr(game.Stake100.Money()))
	f.tap("Jouer")
	assert.Equal(t, []game.Stake{game.Stake100}, m.requests)
	assert.Equal(t, []breakout.Mode{breakout.Play}, m.modes)
	assert.Equal(t, scrHome, f.s.screen)
	assert.Contains(t, f.screenText(), Tr{Lang: French}.F(msgErrInsuff, fr(game.Stake100.Money())))
}

// A game's end shows once the machine pushed it, with the amount it
// pushed, and not before: the screens ask neither the game nor the machine
// for the result.
func TestFakeGameResultComesByThePush(t *testing.T) {
	m := newFakeMachine(t, 10*game.Euro)
	m.layouts = []reveal.Walls{fakeLayout(t, game.Stake100, 1, false), fakeLayout(t, game.Stake100, game.TierLose, false)}
	f := newFakeFixture(t, m)
	f.tap(fr(game.Stake100.Money()))
	f.tap("Auto")
	require.Equal(t, scrGame, f.s.screen)
	assert.Equal(t, 9*game.Euro, f.s.gs.Credit(), "the credit the stake left, pushed")

	f.playToEnd(false)
	require.True(t, f.s.gs.Over())
	for i := 0; i < 120; i++ {
		f.frame()
	}
	assert.Equal(t, ovNone, f.s.overlay, "no window before the kiosk pushed the end")
	assert.Equal(t, 9*game.Euro, f.s.gs.Credit())

	won := prize(game.Stake100, 1)
	g := m.current.(*fakeGame)
	m.push(func(s *kiosk.Snapshot) {
		s.State = kiosk.Result
		s.Credit = 9*game.Euro + won
		s.Game = kiosk.GameSnapshot{ID: g.id, Stake: game.Stake100, Stage: kiosk.StageDone, Settled: true,
			Result: kiosk.GameResult{Outcome: game.Outcome{Kind: game.Win, Combination: game.Table(game.Stake100).Prizes[0].Combination,
				Tier: 1, Amount: won}, Won: won}}
	})
	f.flush()
	assert.Equal(t, ovWin, f.s.overlay, "the push alone shows the end")
	assert.Contains(t, f.texts(), fr(won), "the amount pushed")
	assert.Equal(t, 9*game.Euro+won, f.s.gs.Credit())

	// The other order: the kiosk's end comes first, the window when the
	// symbols have landed.
	f.tap(Tr{Lang: French}.F(msgAgain, fr(game.Stake100.Money())))
	require.Len(t, m.requests, 2)
	g = m.current.(*fakeGame)
	m.push(func(s *kiosk.Snapshot) {
		s.State = kiosk.Result
		s.Game = kiosk.GameSnapshot{ID: g.id, Stake: game.Stake100, Stage: kiosk.StageDone, Settled: true,
			Result: kiosk.GameResult{Outcome: game.Outcome{Kind: game.Lose}}}
	})
	f.flush()
	assert.False(t, f.s.gs.Over())
	assert.NotEqual(t, ovLose, f.s.overlay, "no end before the symbols landed")
	f.playToEnd(false)
	f.flush()
	assert.Equal(t, ovLose, f.s.overlay)

	f.tap("Accueil")
	assert.Equal(t, 1, m.ended, "Accueil ends the result")
	assert.Equal(t, scrHome, f.s.screen)
}

// The game screen draws the playfield's whole backdrop at the kiosk's
// 1280×800, and only its frieze and base band at 1920×1080, where the sky
// would cost the frame rate under a software GL; a kiosk said to have the
// GPU for it draws it at any size, and a plain one at none.
func TestFakeGameBackdropBySize(t *testing.T) {
	for _, c := range []struct {
		name          string
		opt           func(*Options)
		at800, at1080 bool
	}{
		{"default", func(*Options) {}, true, false},
		{"no limit", func(o *Options) { o.FullBackdropMaxPixels = -1 }, true, true},
		{"plain", func(o *Options) { o.PlainPlayfield = true }, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newFakeMachine(t, 10*game.Euro)
			m.layouts = []reveal.Walls{fakeLayout(t, game.Stake100, game.TierLose, false)}
			f := newFakeFixture(t, m, c.opt)
			f.tap(fr(game.Stake100.Money()))
			f.tap("Auto")
			require.Equal(t, scrGame, f.s.screen)
			f.frame()
			field := f.s.gs.Playfield()
			assert.Equal(t, c.at800, field.FullBackdropShown(), "at 1280×800")
			f.runUI(func() { f.w.Resize(fyne.NewSize(1920, 1080)) })
			f.frame()
			assert.Equal(t, c.at1080, field.FullBackdropShown(), "at 1920×1080")
			f.runUI(func() { f.w.Resize(windowSize) })
			f.frame()
			assert.Equal(t, c.at800, field.FullBackdropShown(), "at 1280×800 again")
		})
	}
}

// Cash-out on the fake: Encaisser, Imprimer, then the voucher card with
// what the machine answered; a print failure keeps the credit and says so.
func TestFakeCashOutFlow(t *testing.T) {
	m := newFakeMachine(t, 20*game.Euro)
	m.voucher = kiosk.VoucherInfo{Number: 42, Amount: 20 * game.Euro,
		Issued: time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC), Expires: time.Date(2027, 2, 28, 11, 0, 0, 0, time.UTC)}
	f := newFakeFixture(t, m)
	f.tap("Encaisser")
	require.Equal(t, ovCashConfirm, f.s.overlay)
	f.tap("Imprimer")
	<-m.cashOuts
	// CashOut has returned; its outcome reaches the screens from the
	// cash-out's own goroutine, which may not have queued it yet.
	f.waitFor(func() bool { return f.s.overlay != ovCashPrinting }, "the voucher card")
	require.Equal(t, ovVoucher, f.s.overlay)
	texts := f.screenText()
	assert.Contains(t, texts, Tr{Lang: French}.F(msgVoucherNumber, 42))
	assert.Contains(t, texts, fr(20*game.Euro))
	assert.Equal(t, game.Money(0), f.s.snap.Credit, "the credit pushed after the cash-out")

	m.push(func(s *kiosk.Snapshot) { s.Credit = 10 * game.Euro })
	f.flush()
	f.runUI(f.s.closeCashOverlay)
	m.cashErr = errors.New("printer on fire")
	f.tap("Encaisser")
	f.tap("Imprimer")
	<-m.cashOuts
	f.waitFor(func() bool { return f.s.overlay != ovCashPrinting }, "why no voucher came out")
	require.Equal(t, ovCashFailed, f.s.overlay)
	assert.Equal(t, 10*game.Euro, f.s.snap.Credit, "the credit is kept")
}
