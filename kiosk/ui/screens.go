package ui

import (
	"errors"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/ui/play"
)

// Defaults of Options.
const (
	DefaultAttractAfter   = 60 * time.Second
	DefaultOverlayTimeout = 20 * time.Second
	DefaultHistoryTimeout = 60 * time.Second
	// DefaultWarningEvery is how long each of the three warnings on
	// gambling stays in the notice before the next.
	DefaultWarningEvery = time.Minute
	DefaultHistorySize  = 20
	DefaultWindowDelay  = 1200 * time.Millisecond
	windowRise          = 350 * time.Millisecond
)

// Options tune the screens. The zero value is the kiosk's defaults.
type Options struct {
	// Lang is the language at start, and again each time the kiosk falls
	// idle into its attract loop (French by default).
	Lang Lang
	// Now is the clock of motion and idle time: time.Now (monotonic) if nil.
	Now func() time.Time
	// AttractAfter is how long the home screen waits untouched, without
	// credit, before the attract loop (DefaultAttractAfter if 0; never if
	// negative).
	AttractAfter time.Duration
	// WarningEvery is how long each warning on gambling stays in the
	// notice at the screens' foot before the next (DefaultWarningEvery if
	// under a second).
	WarningEvery time.Duration
	// OverlayTimeout closes the prize table left open, so a game does not
	// wait forever on a player who walked away (DefaultOverlayTimeout if 0).
	OverlayTimeout time.Duration
	// HistoryTimeout returns home from the history left open
	// (DefaultHistoryTimeout if 0).
	HistoryTimeout time.Duration
	// HistorySize is how many games the history shows (DefaultHistorySize if 0).
	HistorySize int
	// WindowDelay is how long the winning combination blinks alone in the
	// cartouche before its congratulation window rises (DefaultWindowDelay
	// if 0).
	WindowDelay time.Duration
	// BonusDelay is the game screen's pause between the main wall and the
	// bonus wall, under the "Jeu Bonus !" window (DefaultBonusDelay if 0).
	BonusDelay time.Duration
	// OnFrameStats receives the frame statistics of the game screen and of
	// the attract loop about once a second (the -fps log); nil for none.
	OnFrameStats func(play.FrameStats)
	// PlainPlayfield draws only the frieze and the base band of the game's
	// playfield backdrop, over the theme's lapis, whatever the field's size
	// (play.Playfield's SetFullBackdropMaxPixels 0): for a screen whose GL cannot afford the whole
	// backdrop at 60 fps. The kiosk draws it whole by default: with it the
	// game screen costs less CPU than the bare peer scene of
	// docs/performance.md.
	PlainPlayfield bool
	// FullBackdropMaxPixels bounds the playfield's size the whole backdrop
	// is drawn at: a larger field draws it as PlainPlayfield does (0:
	// DefaultFullBackdropMaxPixels; negative: whatever its size, for a
	// kiosk with a GPU).
	FullBackdropMaxPixels int
	// OnHome is called each time the home screen is shown (start-up timing).
	OnHome func()
	// OnShow is called each time a screen or a window over it is shown,
	// with their names (screenNames, overlayNames; overlay "none" when a
	// new screen shows alone): the -fps log, which a scripted session
	// waits on (docs/performance.md).
	OnShow func(screen, overlay string)
	// OnOutOfService is called each time the out-of-service screen is
	// shown (a kiosk that could not start tells its service manager it is
	// up, and why it is out of service).
	OnOutOfService func()
	// OnNoteShown is called when the screens show that a note was
	// credited (the -dev log times "credit shown" with it).
	OnNoteShown func(kiosk.CashInEvent)
	// OnMaintenance opens the maintenance screen, asked for by a long
	// press in the top-left corner (maintenance.go) once no game is on;
	// nil: the corner does nothing.
	OnMaintenance func()
	// MaintenanceHold is how long the corner is held
	// (DefaultMaintenanceHold if 0).
	MaintenanceHold time.Duration
	// DevPINs, in a development run, are the demo PINs of the maintenance
	// screen (staff, technician), shown on the development panel.
	DevPINs [2]string
	// Dev are the simulated cash devices of a development run, which the
	// development panel drives; nil: no panel. The panel shows only when
	// the machine also says it is a development build (Snapshot.Dev).
	Dev DevDevices
	// Voice speaks the screens once the player turns it on (voice.go);
	// nil: the kiosk has no voice, and no « Voix » button.
	Voice Voice
	// Do hands work from the machine's goroutines to the Fyne goroutine
	// (fyne.Do if nil): a test of another package that drives the screens
	// by taps runs that work on its own goroutine, as the Fyne loop would.
	Do func(func())
}

func (o *Options) fill() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Do == nil {
		o.Do = fyne.Do
	}
	if o.AttractAfter == 0 {
		o.AttractAfter = DefaultAttractAfter
	}
	if o.OverlayTimeout <= 0 {
		o.OverlayTimeout = DefaultOverlayTimeout
	}
	if o.HistoryTimeout <= 0 {
		o.HistoryTimeout = DefaultHistoryTimeout
	}
	if o.HistorySize <= 0 {
		o.HistorySize = DefaultHistorySize
	}
	if o.WindowDelay <= 0 {
		o.WindowDelay = DefaultWindowDelay
	}
}

// screen is what fills the window.
type screen uint8

const (
	scrNone screen = iota
	scrHome
	scrGame
	scrHistory
	scrOutOfService
	scrAttract
	scrHandPay // the hand-pay lock: call the staff (handpay.go)
	scrRestart // the restart into a new system (restart.go)
)

// screenNames name the screens for Options.OnShow.
var screenNames = [...]string{scrNone: "none", scrHome: "home", scrGame: "game", scrHistory: "history",
	scrOutOfService: "out-of-service", scrAttract: "attract", scrHandPay: "hand-pay", scrRestart: "restart"}

// overlay is what shows over the screen.
type overlay uint8

const (
	ovNone         overlay = iota
	ovPrizeTable           // Art. 4.2
	ovBonusIntro           // three snakes: the bonus game comes (Art. 4.6, 4.7)
	ovWin                  // a direct win (Art. 4.6, 4.8)
	ovBonusWin             // the bonus game's window (Art. 4.7)
	ovResult               // the total won after a bonus game (Art. 4.8)
	ovLose                 // a loss: a quiet banner, no window (Art. 4.8)
	ovCashConfirm          // cash-out: "Encaisser 20 € ?"
	ovCashPrinting         // cash-out: the voucher is printing
	ovVoucher              // cash-out: the voucher card
	ovCashFailed           // cash-out: why no voucher came out; the credit is kept
	ovDevFaults            // the development panel's faults
	ovReality              // the reality check (protection.go)
	ovLimit                // the player's limit (protection.go)
	ovRules                // the rules, in the large-text mode (large.go)
)

// overlayNames name the windows for Options.OnShow.
var overlayNames = [...]string{ovNone: "none", ovPrizeTable: "prize-table", ovBonusIntro: "bonus-intro", ovWin: "win",
	ovBonusWin: "bonus-win", ovResult: "result", ovLose: "lose", ovCashConfirm: "cash-confirm",
	ovCashPrinting: "cash-printing", ovVoucher: "voucher", ovCashFailed: "cash-failed", ovDevFaults: "dev-faults",
	ovReality: "reality-check", ovLimit: "limit", ovRules: "rules"}

// shown tells Options.OnShow what shows now.
func (s *Screens) shown() {
	if s.opt.OnShow != nil {
		s.opt.OnShow(screenNames[s.screen], overlayNames[s.overlay])
	}
	if s.screen == scrAttract {
		s.focus.used = false
	}
	s.resetFocus()
	s.voiceShown()
	s.largeShown()
}

// Screens are the player's screens of the kiosk and the way between them:
// home (Art. 4.1), the game (play.Screen, Art. 4.2–4.7) with the prize
// table, the congratulation windows and the result (Art. 4.6–4.8), the
// history, the out-of-service screen and the attract loop. They follow the
// machine's snapshot: they show what the kiosk says and ask it to act; they
// never decide an amount.
//
// Like every Fyne object they are used from the Fyne goroutine; the
// machine's change notices are handed over with fyne.Do.
type Screens struct {
	m   Machine
	opt Options
	tr  Tr
	now func() time.Time

	root *fyne.Container
	// noticeBox holds the warning of the screen's notice (buildNotice),
	// nil when the screen has none; warning is the one it shows.
	noticeBox *fyne.Container
	warning   int
	scrBox    *fyne.Container
	ovBox     *fyne.Container
	toastBox  *fyne.Container
	// timeBox holds the strip that says a timeout acts soon (timeouts.go);
	// warnSecs is the count it shows, 0 when none.
	timeBox  *fyne.Container
	warnSecs int
	// focusBox holds the keypad's ring around the button focused (keys.go).
	focusBox *fyne.Container
	focus    focusState
	// askedUntil is the result's timeout when the player asked for more
	// time: the kiosk's Touch moves it in its next snapshot.
	askedUntil time.Time
	covers     map[string]cover // the backdrops the screens share (cover)
	// do hands work to the Fyne goroutine (fyne.Do; the tests queue it).
	do func(func())
	v  view

	snap      kiosk.Snapshot
	screen    screen
	overlay   overlay
	overlayAt time.Time
	buildScr  func(view) fyne.CanvasObject
	buildOv   func(view) fyne.CanvasObject

	// home
	stake    game.Stake      // the stake chosen
	message  func(Tr) string // a line under the buttons (an error of Play), in the language shown; nil: none
	limitErr func(Tr) string // why the limit chosen was refused, on the limit's card
	homeLive *fyne.Container // what the home screen shows of the machine (buildHomeLive)

	voice voiceState  // the voice, on or off (voice.go)
	large largeState  // the large text and high contrast, on or off (large.go)
	cash  cashOutFlow // the cash-out under way (cashout.go)
	toast toast       // the feedback of the last note (cashin.go)
	dev   devPanel    // the development panel's state (devpanel.go)

	// game
	gs   *play.Screen
	game Game
	mode breakout.Mode
	// requesting: a unit is asked for and the kiosk has not answered
	// (requestPlay); Jouer, Auto and Rejouer wait.
	requesting bool
	result     kiosk.GameResult
	riseAnim   *fyne.Animation
	warmedK    float32 // the field's scale the windows' drawings were rasterised for (warmWindows)

	// awaitEnd: the game screen's game is over and its end shows once the
	// kiosk's snapshot has it (showEnd).
	awaitEnd bool

	attract      *attractLoop
	corner       *cornerPress // the hidden corner to maintenance (maintenance.go)
	maintWanted  bool         // maintenance asked for, waiting for the game's end
	lastActivity time.Time
	started      bool
}

// New makes the screens of machine m. Put Content in the window, then Start.
func New(m Machine, opt Options) *Screens {
	opt.fill()
	s := &Screens{m: m, opt: opt, tr: Tr{Lang: opt.Lang}, now: opt.Now, do: opt.Do}
	s.scrBox = container.NewStack()
	s.ovBox = container.NewStack()
	s.toastBox = container.NewStack()
	s.timeBox = container.NewStack()
	s.focusBox = container.NewWithoutLayout()
	s.focus.index = -1
	s.corner = newCornerPress(s)
	s.root = container.New(&rootLayout{s: s}, s.scrBox, s.ovBox, s.toastBox, s.timeBox, s.focusBox, container.New(cornerLayout{}, s.corner))
	s.gs = play.NewScreen(s.now)
	s.gs.SetFullBackdropMaxPixels(fullBackdropMaxPixels(opt))
	s.gs.BonusDelay = opt.BonusDelay
	s.gs.OnActivity = s.activity
	s.gs.OnCartoucheTapped = func() { s.showPrizeTable(s.gs.Stake()) }
	s.gs.OnCombination = s.onCombination
	s.gs.OnLanded = s.voiceLanded
	s.gs.OnBallDown = s.playBall
	s.gs.Playfield().OnCountdown = s.voiceAutoCountdown
	if s.voiceAvailable() {
		s.voice.volume = opt.Voice.Volume()
	}
	s.gs.OnBonusWall = s.onBonusWall
	s.gs.OnEnd = s.onGameEnd
	s.gs.OnFrameStats = opt.OnFrameStats
	s.gs.SetWords(PlayWords(s.tr.Lang))
	return s
}

// Content is the window's content.
func (s *Screens) Content() fyne.CanvasObject { return s.root }

// Start shows what the machine is doing (a game resumed after a restart is
// shown where it is) and follows its changes from now on.
func (s *Screens) Start() {
	if s.started {
		return
	}
	s.started = true
	s.lastActivity = s.now()
	// The kiosk pushes every change, and a snapshot at every tick of its
	// clock: the idle timers run then (Poll), with no clock of the
	// screens' own.
	snap := s.m.OnChange(func(snap kiosk.Snapshot) {
		s.do(func() {
			if s.started {
				s.apply(snap)
				s.Poll(s.now())
			}
		})
	})
	// A note's feedback is shown for what happens from now on, not for
	// the last thing a note did before the screens started.
	s.toast.seq = snap.Cash.CashIn.Seq
	if g := s.m.Current(); g != nil {
		// A game resumed after a restart: Rejouer plays again in the
		// mode it was started in.
		s.snap = snap
		s.mode = g.World().Mode()
		s.showGame(g)
	} else {
		s.apply(snap)
	}
}

// Stop stops the frame pump and the idle timers. The screens stay drawn.
func (s *Screens) Stop() {
	if !s.started {
		return
	}
	s.started = false
	s.gs.Stop()
	s.stopAttract()
}

// Lang is the language shown.
func (s *Screens) Lang() Lang { return s.tr.Lang }

// SetLang shows every screen in language l.
func (s *Screens) SetLang(l Lang) {
	if l == s.tr.Lang {
		return
	}
	s.tr = Tr{Lang: l}
	s.gs.SetWords(PlayWords(s.tr.Lang))
	s.rebuild()
	if s.voice.on {
		s.say(s.describe()) // the screen again, in the new language
	}
}

// GameScreen is the game screen (for the frame log and the tests).
func (s *Screens) GameScreen() *play.Screen { return s.gs }

// activity is any touch of the player: the idle timers start again and the
// kiosk is told (its result timeout, Art. 4.8).
func (s *Screens) activity() {
	s.lastActivity = s.now()
	s.m.Touch()
}

// apply follows a change of the machine.
func (s *Screens) apply(snap kiosk.Snapshot) {
	old := s.snap
	s.snap = snap
	s.gs.SetSession(s.sessionLine())
	s.noteActivity(snap)
	s.maintenanceChanged(old, snap)
	defer s.maintenanceDue()
	defer s.realityApply()
	if s.handPayApply(snap) || s.restartApply(snap) {
		return
	}
	switch snap.State {
	case kiosk.OutOfService:
		s.awaitEnd = false
		s.showOutOfService()
		return
	case kiosk.Playing, kiosk.Bonus:
		if s.screen != scrGame {
			if g := s.m.Current(); g != nil {
				s.showGame(g)
			}
			return
		}
		s.gs.SetCredit(snap.Credit)
		return
	case kiosk.Result:
		if s.screen == scrGame && s.awaitEnd {
			s.showEnd()
			return
		}
		if s.screen == scrGame {
			s.resultChanged(old, snap)
			return
		}
	case kiosk.Home:
		if s.screen == scrGame && s.gameRunning() {
			return // cannot happen while a game runs; its end decides
		}
		if s.screen == scrGame || s.screen == scrOutOfService || s.screen == scrNone {
			s.showHome()
			return
		}
	}
	if s.screen == scrNone || s.screen == scrOutOfService {
		s.showHome()
		return
	}
	switch {
	case s.screen == scrHome && availabilityChanged(old, snap):
		s.pickStake()
		s.rebuild()
	case s.screen == scrHome && homeChanged(old, snap):
		s.refreshHomeLive()
	case s.screen == scrAttract && snap.Credit != old.Credit:
		s.showHome() // credit came in: a player is there
	}
}

// resultChanged follows a change on the result of a game: a note credited
// there shows in the game screen's credit, and Rejouer appears when the
// credit now covers the stake (and not while a hand-pay locks the kiosk). Until the game's end is on screen
// (onGameEnd) the credit shown stays the one its stake left: the win must
// not show in the credit before its congratulation window.
func (s *Screens) resultChanged(old, snap kiosk.Snapshot) {
	if !s.gs.Over() || old.Credit == snap.Credit && old.HandPay.Pending() == snap.HandPay.Pending() {
		return
	}
	s.gs.SetCredit(snap.Credit)
	if s.game == nil {
		return
	}
	st := s.game.Stake()
	could := old.Available[st] && old.Credit >= st.Money() && !old.HandPay.Pending()
	if could != s.canPlayAgain() {
		s.rebuild() // the window or the banner shows Rejouer now (or no more)
	}
}

// availabilityChanged reports whether a stake opened or closed: the stake
// chosen, and with it the rules' amounts, may change.
func availabilityChanged(a, b kiosk.Snapshot) bool {
	if len(a.Available) != len(b.Available) {
		return true
	}
	for k, v := range a.Available {
		if b.Available[k] != v {
			return true
		}
	}
	return false
}

// homeChanged reports whether the home screen's live part (buildHomeLive)
// shows something else.
func homeChanged(a, b kiosk.Snapshot) bool {
	if a.Credit != b.Credit || a.Dev != b.Dev {
		return true
	}
	// The session's time shows in minutes: a tick of the clock within
	// the same minute changes nothing on screen.
	if protectionShown(a.Protection) != protectionShown(b.Protection) || !slices.Equal(a.Protection.Limits, b.Protection.Limits) {
		return true
	}
	// What a note did shows in its toast, not on the home screen.
	ca, cb := a.Cash, b.Cash
	ca.CashIn, cb.CashIn = kiosk.CashInEvent{}, kiosk.CashInEvent{}
	return ca != cb
}

func (s *Screens) gameRunning() bool { return s.game != nil && !s.gs.Over() }

// setScreen fills the window with what build makes, leaving the screen
// shown before and any overlay.
func (s *Screens) setScreen(sc screen, build func(view) fyne.CanvasObject) {
	if s.screen == scrGame && sc != scrGame {
		s.gs.Stop()
	}
	if s.screen == scrAttract && sc != scrAttract {
		s.stopAttract()
	}
	if sc == scrGame {
		s.restCovers()
	}
	s.screen = sc
	s.buildScr = build
	s.clearOverlay()
	s.noticeBox = nil
	s.scrBox.Objects = nil
	if s.sized() {
		s.scrBox.Objects = []fyne.CanvasObject{build(s.v)}
	}
	s.scrBox.Refresh()
	s.showToast()              // where the new screen shows it, or not at all
	s.showTimeWarning(s.now()) // a timeout's strip goes with the screen it was about
	s.shown()
}

// sized reports whether the window has its size: until then nothing is
// built (the first layout builds what is shown).
func (s *Screens) sized() bool { return s.v.size.Width > 0 && s.v.size.Height > 0 }

// setOverlay shows what build makes over the screen.
func (s *Screens) setOverlay(ov overlay, build func(view) fyne.CanvasObject) {
	s.overlay = ov
	s.overlayAt = s.now()
	s.buildOv = build
	s.ovBox.Objects = nil
	if s.sized() {
		s.ovBox.Objects = []fyne.CanvasObject{build(s.v)}
	}
	s.ovBox.Refresh()
	s.shown()
}

func (s *Screens) clearOverlay() {
	if s.riseAnim != nil {
		s.riseAnim.Stop()
		s.riseAnim = nil
	}
	s.overlay = ovNone
	s.buildOv = nil
	if len(s.ovBox.Objects) > 0 {
		s.ovBox.Objects = nil
		s.ovBox.Refresh()
	}
}

// rebuild draws the screen and its overlay again (a new size, a new language,
// a new snapshot on the home screen).
func (s *Screens) rebuild() {
	if !s.sized() {
		return
	}
	if s.buildScr != nil {
		s.scrBox.Objects = []fyne.CanvasObject{s.buildScr(s.v)}
		s.scrBox.Refresh()
	}
	if s.buildOv != nil {
		s.ovBox.Objects = []fyne.CanvasObject{s.buildOv(s.v)}
		s.ovBox.Refresh()
	}
	s.showToast()
	s.showFocus()
}

// Poll does what time alone does: the attract loop on an idle home screen
// without credit, the prize table or the history left open closed. The
// screens call it at every snapshot the kiosk pushes, which its clock does
// every second; tests call it with their clock.
func (s *Screens) Poll(now time.Time) {
	if s.pollCorner(now) {
		return
	}
	idle := now.Sub(s.lastActivity)
	s.rotateWarning(now)
	defer s.showTimeWarning(now)
	s.expireToast(now)
	s.expireDevStatus(now)
	switch {
	case s.overlay == ovPrizeTable && now.Sub(s.overlayAt) >= s.opt.OverlayTimeout && idle >= s.opt.OverlayTimeout:
		s.closePrizeTable()
	case s.overlay == ovRules && idle >= s.opt.OverlayTimeout:
		s.clearOverlay()
	case s.cashOverlayTimedOut(now, idle):
		s.closeCashOverlay()
	case s.screen == scrHistory && idle >= s.opt.HistoryTimeout:
		s.showHome()
	case s.screen == scrHome && s.overlay == ovNone && s.opt.AttractAfter > 0 &&
		idle >= s.opt.AttractAfter && s.snap.Credit == 0 && s.snap.State == kiosk.Home:
		s.showAttract()
	}
}

// rootLayout fills the window with the screen and the overlay, and draws
// them again when the window's size changes the design scale.
type rootLayout struct{ s *Screens }

func (l *rootLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	v := viewFor(size)
	v.large = l.s.large.on
	if v != l.s.v {
		l.s.v = v
		l.s.rebuild()
	}
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l *rootLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(640, 400) }

// playError tells the player why a game did not start, on the home screen.
func (s *Screens) playError(stake game.Stake, err error) {
	snap := s.snap // the kiosk pushed the change that refused the play before its answer
	switch {
	case errors.Is(err, kiosk.ErrInsufficientCredit):
		s.message = func(tr Tr) string { return tr.F(msgErrInsuff, tr.Stake(stake)) }
	case errors.Is(err, kiosk.ErrUnavailable):
		s.message = func(tr Tr) string { return tr.F(msgErrUnavailable, tr.Stake(stake)) }
	case errors.Is(err, kiosk.ErrBusy) && (snap.Cash.NoteInPath || snap.Cash.CashingOut || s.m.Current() == nil):
		// No game holds the kiosk: a note on its way to the cash box, or
		// a voucher printing (it may have settled since the refusal).
		s.message = func(tr Tr) string { return tr.T(msgErrCashBusy) }
	case errors.Is(err, kiosk.ErrBusy):
		s.message = func(tr Tr) string { return tr.T(msgErrBusy) }
	case errors.Is(err, kiosk.ErrOutOfService):
		s.message = func(tr Tr) string { return tr.T(msgErrOutOfSvc) }
	case errors.Is(err, kiosk.ErrHandPay):
		s.showHandPay()
		return
	case errors.Is(err, kiosk.ErrRealityCheck):
		s.showHome() // its card shows (realityApply)
		return
	default:
		fyne.LogError("play", err)
		s.message = func(tr Tr) string { return tr.T(msgErrPlay) }
	}
	if snap.State == kiosk.OutOfService {
		s.showOutOfService()
		return
	}
	s.showHome()
}
