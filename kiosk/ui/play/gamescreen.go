package play

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/game/breakout"
)

// DefaultBonusDelay is how long the game screen shows the cleared main wall
// and the blinking snakes before the bonus wall appears (Art. 4.7).
const DefaultBonusDelay = 2500 * time.Millisecond

// DefaultResumeNotice is how long a game resumed after a restart says so
// before an Auto game goes on; a Jouer game waits anyway with its ball on
// the paddle for the player's launch (kiosk.Game.Resumed).
const DefaultResumeNotice = 3 * time.Second

// flightTime is how long a revealed symbol takes to fly to the cartouche.
const flightTime = 600 * time.Millisecond

// gameStage is where the game screen is in a game.
type gameStage uint8

const (
	stageIdle      gameStage = iota // no game
	stagePlaying                    // the wall in play is stepped every frame
	stageLanding                    // the wall is cleared; symbols still fly to the cartouche
	stageInterlude                  // the main wall is done, the bonus wall comes next
	stageOver                       // the game is over; the cartouche may still blink
)

// Screen is the screen of a game in play (Art. 4.2): the Playfield on the
// left at the field's 6:5 aspect, the Cartouche on the right with the stake
// above it and the credit below, always visible. It runs the frame pump: once
// a frame it runs the engine ticks the Pump says are due, animates what the
// events tell (a symbol flying to the cartouche, Art. 4.6) and moves the
// canvas objects, built once, to the world's state (DESIGN.md §8).
//
// A game goes: Play(source) → the main wall is played → once cleared, every
// revealed symbol landed and the source Settled, the combination it shows blinks in the
// cartouche and OnCombination is called (the screens show the congratulation
// window, Art. 4.6) → if the unit is won through the bonus game, after
// BonusDelay the bonus wall appears and OnBonusWall is called (Art. 4.7) →
// when the last wall is cleared, OnEnd is called (the screens show the
// result from the kiosk, Art. 4.8). The amounts shown are the kiosk's:
// the screen never computes what is credited.
//
// The frame pump is a fyne.Animation, so frames run on the Fyne goroutine;
// any other goroutine must go through fyne.Do to call the screen. The On…
// hooks are called on the Fyne goroutine during a frame; they may call Play,
// Stop or show windows.
type Screen struct {
	widget.BaseWidget

	// OnCartoucheTapped is called when the player taps the cartouche: show
	// the prize table of Stake() (Art. 4.2).
	OnCartoucheTapped func()
	// OnActivity is called on any touch of the playfield (the kiosk's idle
	// timer, kiosk.Machine.Touch).
	OnActivity func()
	// OnCombination is called once the main wall is cleared and every
	// symbol has landed, when it shows a combination (a win, or three
	// snakes): the cartouche blinks it from then on. o is what the
	// cartouche shows (game.Evaluate of the reveal); the congratulation
	// window takes its amount from the kiosk's result. Not called for a
	// losing wall.
	OnCombination func(o game.Outcome)
	// OnLanded is called when a revealed symbol lands in the cartouche,
	// with how many of it the cartouche shows now (the voice says it).
	OnLanded func(s game.Symbol, n int)
	// OnBallDown is called in a Jouer wall each time the ball starts down
	// toward the paddle, with the side of the paddle it is on then (the
	// voice says it to a player who plays by keys).
	OnBallDown func(side BallSide)
	// OnBonusWall is called when the bonus wall appears (Art. 4.7).
	OnBonusWall func()
	// OnEnd is called once when the game is over: its last wall is
	// cleared, every symbol has landed and the source is Settled (the
	// kiosk credited the prize, Art. 4.8).
	OnEnd func()
	// OnFrameStats, if set, is called about once a second with the frame
	// rate and the time spent per frame (the --fps log). A frame is a tick
	// of the pump; Fyne redraws the window after it when anything moved.
	OnFrameStats func(FrameStats)
	// BonusDelay is how long the cleared main wall stays before the bonus
	// wall (DefaultBonusDelay if zero).
	BonusDelay time.Duration
	// ResumeNotice is how long a resumed game says so
	// (DefaultResumeNotice if zero).
	ResumeNotice time.Duration

	now   func() time.Time
	field *Playfield
	cart  *Cartouche
	// large is the screens' large-text mode (SetLargeText).
	large bool

	src     Source
	stage   gameStage
	stageAt time.Time
	// noticeUntil is when the notice of a resumed game goes (zero: none)
	noticeUntil time.Time
	pump        *Pump
	meter       FrameMeter
	anim        *fyne.Animation
	running     bool

	credit game.Money
	// session is the session's line above the credit (SetSession).
	session string
	stake   game.Stake
	words   Words // its words, and the language of its amounts

	frameNow time.Time
	ballDown bool                 // the ball was going down at the last frame (OnBallDown)
	launched [game.NumSymbols]int // symbols sent flying on this wall
	flights  [game.NumSymbols][game.MaxPerSymbol]flight
	inFlight int

	rend *screenRenderer
}

// flight is a revealed symbol flying from its brick to the cartouche.
type flight struct {
	on    bool
	brick int
	at    time.Time
}

// NewScreen returns a game screen reading time from now (a monotonic
// clock: time.Now in the kiosk, a fake in tests).
func NewScreen(now func() time.Time) *Screen {
	if now == nil {
		now = time.Now
	}
	g := &Screen{now: now, pump: NewPump(DefaultMaxCatchUp)}
	g.field = NewPlayfield()
	g.field.OnActivity = func() {
		if g.OnActivity != nil {
			g.OnActivity()
		}
	}
	g.cart = NewCartouche()
	g.cart.OnTapped = func() {
		// a player reading the prize table is there: the wall does
		// not go to Auto for want of a touch (Playfield.Input)
		g.field.touched = true
		if g.OnCartoucheTapped != nil {
			g.OnCartoucheTapped()
		}
	}
	g.anim = &fyne.Animation{
		Duration:    time.Second,
		RepeatCount: fyne.AnimationRepeatForever,
		Tick:        func(float32) { g.Frame(g.now()) },
	}
	g.ExtendBaseWidget(g)
	return g
}

// Playfield is the screen's playfield (for its TouchRadius, say).
func (g *Screen) Playfield() *Playfield { return g.field }

// SetFullBackdropMaxPixels bounds the field's size the playfield's whole
// backdrop is drawn at (Playfield.SetFullBackdropMaxPixels).
func (g *Screen) SetFullBackdropMaxPixels(maxPixels int) { g.field.SetFullBackdropMaxPixels(maxPixels) }

// Cartouche is the screen's cartouche.
func (g *Screen) Cartouche() *Cartouche { return g.cart }

// Play shows src from where it is (a new game, or one recovered after a
// restart) and starts the frame pump. Play(nil) clears the screen and stops
// the pump.
func (g *Screen) Play(src Source) {
	if src == nil || src.World() == nil {
		g.src, g.stage = nil, stageIdle
		g.noticeUntil = time.Time{}
		g.field.setNotice(false)
		g.field.SetWorld(nil)
		g.cart.StopBlink()
		g.cart.SetCounts(game.Counts{})
		g.cancelFlights()
		g.updateFinish()
		g.Stop()
		return
	}
	g.src = src
	g.stake = src.Stake()
	g.field.SetWorld(src.World())
	g.cart.StopBlink()
	g.cart.SetCounts(src.Revealed())
	g.cancelFlights()
	g.launched = src.Revealed()
	g.stage, g.stageAt = stagePlaying, g.now()
	g.noticeUntil = time.Time{}
	if r, ok := src.(resumable); ok && r.Resumed() {
		g.noticeUntil = g.stageAt.Add(g.resumeNotice())
	}
	g.field.setNotice(!g.noticeUntil.IsZero())
	if src.World().Done() {
		g.stage = stageLanding
	}
	g.pump.Reset()
	g.meter.Reset()
	if g.rend != nil {
		g.rend.applyTexts()
	}
	g.updateFinish()
	g.Start()
}

// Start runs the frame pump (Play does); Stop stops it. A stopped screen
// keeps its drawing and its game; Start goes on without catching up.
func (g *Screen) Start() {
	if g.running {
		return
	}
	g.running = true
	g.pump.Reset()
	g.meter.Reset()
	g.anim.Start()
}

// Stop stops the frame pump: call it when the screen is left.
func (g *Screen) Stop() {
	if !g.running {
		return
	}
	g.running = false
	g.anim.Stop()
}

// Over reports whether the game is over (OnEnd was called).
func (g *Screen) Over() bool { return g.stage == stageOver }

// Running reports whether the frame pump runs (between Start and Stop).
func (g *Screen) Running() bool { return g.running }

// Landed reports whether the wall in play is cleared and every symbol it
// revealed has landed in the cartouche: the screen waits for the source to
// settle before it goes on.
func (g *Screen) Landed() bool { return g.stage == stageLanding && g.inFlight == 0 }

// Credit is the credit shown.
func (g *Screen) Credit() game.Money { return g.credit }

// SetCredit shows the player's credit (always visible, DESIGN.md §8).
func (g *Screen) SetCredit(m game.Money) {
	if m == g.credit {
		return
	}
	g.credit = m
	if g.rend != nil {
		g.rend.applyTexts()
	}
}

// BallSide is where the ball is against the paddle: BallLeft, BallAbove
// (within its width) or BallRight.
type BallSide int8

const (
	BallLeft BallSide = iota - 1
	BallAbove
	BallRight
)

// BallSideOf is where ball is against paddle.
func BallSideOf(ball breakout.Ball, paddle breakout.Paddle) BallSide {
	switch half := paddle.Width / 2; {
	case ball.X < paddle.X-half:
		return BallLeft
	case ball.X > paddle.X+half:
		return BallRight
	}
	return BallAbove
}

// ballTurn calls OnBallDown when w's ball, flying in a Jouer wall, has
// just turned down toward the paddle.
func (g *Screen) ballTurn(w *breakout.World) {
	b := w.Ball()
	down := w.Mode() == breakout.Play && !w.Done() && b.Phase == breakout.Flying && b.VY > 0
	if down && !g.ballDown {
		g.OnBallDown(BallSideOf(b, w.Paddle()))
	}
	g.ballDown = down
}

// LargeScale is how much larger the texts are in the large-text mode
// (SetLargeText).
const LargeScale = 1.5

// SetLargeText draws the screen's texts LargeScale times larger in the
// high-contrast inks (art.HighContrast) on opaque grounds, with a wider
// panel that holds them (the screens' large-text mode, DESIGN.md §8).
func (g *Screen) SetLargeText(on bool) {
	if g.large == on {
		return
	}
	g.large = on
	g.field.setLargeText(on)
	if g.rend != nil {
		g.rend.applyInks()
		if g.rend.size.Width > 0 {
			g.rend.Layout(g.rend.size)
		}
		g.rend.applyTexts()
	}
}

// Session is the session's line shown.
func (g *Screen) Session() string { return g.session }

// SetSession shows the player's session (its time and net position, in
// the screens' words) above the credit; "" shows none.
func (g *Screen) SetSession(text string) {
	if text == g.session {
		return
	}
	relayout := (text == "") != (g.session == "") || g.large // the large-text mode may take two lines
	g.session = text
	if g.rend == nil {
		return
	}
	g.rend.applyTexts()
	if relayout && g.rend.size.Width > 0 {
		g.rend.Layout(g.rend.size)
	}
}

// SetStake shows the stake (Play takes it from the game).
func (g *Screen) SetStake(s game.Stake) {
	if s == g.stake {
		return
	}
	g.stake = s
	if g.rend != nil {
		g.rend.applyTexts()
	}
}

// Stake is the stake shown: the prize table to show when the cartouche is
// tapped (Art. 4.2).
func (g *Screen) Stake() game.Stake { return g.stake }

// SetWords shows the screen's words, and its amounts in their language.
func (g *Screen) SetWords(w Words) {
	g.words = w
	g.field.SetWords(w)
	if g.rend != nil {
		g.rend.applyTexts()
		g.rend.applyWords()
	}
}

// Frame is one frame at time now: the engine ticks due, the events, the
// motion. The frame pump calls it; tests call it with a fake clock. Once the
// game runs it allocates nothing.
func (g *Screen) Frame(now time.Time) {
	begin := g.now()
	g.frameNow = now
	n := g.pump.Advance(now)
	if !g.noticeUntil.IsZero() {
		switch {
		case !now.Before(g.noticeUntil):
			g.noticeUntil = time.Time{}
			g.field.setNotice(false)
		case g.src != nil && g.src.World().Mode() == breakout.Auto:
			// An Auto game goes on once the player has read that it
			// is resumed; a Jouer game's ball waits on the paddle.
			n = 0
		}
	}
	if g.stage == stagePlaying && g.src != nil {
		for i := 0; i < n && g.stage == stagePlaying; i++ {
			g.field.beforeStep()
			for _, e := range g.src.Step(g.field.Input()) {
				g.event(e, now)
			}
		}
	}
	if g.OnBallDown != nil && g.stage == stagePlaying && g.src != nil {
		g.ballTurn(g.src.World())
	}
	switch g.stage {
	case stageLanding:
		// The kiosk commits the wall's end while its symbols fly: the
		// wall is done once both are.
		if g.inFlight == 0 && g.src.Settled() {
			g.wallDone(now)
		}
	case stageInterlude:
		if now.Sub(g.stageAt) >= g.bonusDelay() {
			g.startBonus(now)
		}
	}
	alpha := float32(1) // a wall at rest is drawn as it is
	if g.stage == stagePlaying {
		alpha = g.pump.Alpha()
	}
	g.field.frameBetween(now, alpha)
	g.updateFinish()
	g.updateFlights(now)
	g.cart.Frame(now)
	if g.OnFrameStats != nil {
		if st, ok := g.meter.Frame(begin, g.now(), n, g.pump.Dropped()); ok {
			g.OnFrameStats(st)
		}
	}
}

func (g *Screen) resumeNotice() time.Duration {
	if g.ResumeNotice > 0 {
		return g.ResumeNotice
	}
	return DefaultResumeNotice
}

func (g *Screen) bonusDelay() time.Duration {
	if g.BonusDelay > 0 {
		return g.BonusDelay
	}
	return DefaultBonusDelay
}

// event handles one engine event at time now.
func (g *Screen) event(e breakout.Event, now time.Time) {
	switch e.Kind {
	case breakout.SymbolRevealed:
		g.fly(e.Symbol, e.Brick, now)
	case breakout.WallCleared:
		g.stage, g.stageAt = stageLanding, now
	}
	g.field.Event(e, now)
}

// fly sends a revealed symbol from its brick to the cartouche (Art. 4.6).
func (g *Screen) fly(s game.Symbol, brick int, now time.Time) {
	if !s.Valid() {
		return
	}
	k := g.launched[s]
	g.launched[s]++
	if k >= game.MaxPerSymbol || g.rend == nil {
		// nothing to fly with (a wall never shows more than three): count it
		g.landed(s, now)
		return
	}
	f := &g.flights[s][k]
	if f.on { // cannot happen: each flight of a symbol is used once a wall
		g.land(s, f, now)
	}
	f.on, f.brick, f.at = true, brick, now
	g.inFlight++
}

func (g *Screen) land(s game.Symbol, f *flight, now time.Time) {
	f.on = false
	g.inFlight--
	g.landed(s, now)
}

// landed counts s in the cartouche and says so.
func (g *Screen) landed(s game.Symbol, now time.Time) {
	g.cart.Land(s, now)
	if g.OnLanded != nil {
		g.OnLanded(s, g.cart.Counts()[s])
	}
}

func (g *Screen) cancelFlights() {
	for s := range g.flights {
		for k := range g.flights[s] {
			g.flights[s][k].on = false
		}
	}
	g.inFlight = 0
	if g.rend != nil {
		g.rend.hideFlights()
	}
}

// updateFlights moves the flying symbols and lands those that arrive.
func (g *Screen) updateFlights(now time.Time) {
	if g.inFlight == 0 || g.rend == nil {
		return
	}
	for s := range g.flights {
		for k := range g.flights[s] {
			f := &g.flights[s][k]
			if !f.on {
				continue
			}
			t := float32(now.Sub(f.at)) / float32(flightTime)
			if t >= 1 {
				g.land(game.Symbol(s), f, now)
				g.rend.flightDone(s, k)
				continue
			}
			g.rend.placeFlight(s, k, f.brick, t)
		}
	}
}

// wallDone ends a cleared wall once its symbols have landed.
func (g *Screen) wallDone(now time.Time) {
	w := g.field.World()
	// The cartouche shows exactly the reveal (it does already, symbol by
	// symbol: this also covers a game recovered at its end).
	if rev := g.src.Revealed(); g.cart.Counts() != rev {
		g.cart.SetCounts(rev)
	}
	if w != nil && w.IsBonus() {
		g.over()
		return
	}
	if o, err := game.Evaluate(g.src.Revealed(), g.stake); err == nil && o.Kind != game.Lose {
		g.cart.Blink(o.Combination, now)
		if g.OnCombination != nil {
			g.OnCombination(o)
		}
	}
	if g.src.World() != w {
		g.stage, g.stageAt = stageInterlude, now
		return
	}
	g.over()
}

func (g *Screen) over() {
	g.stage = stageOver
	if g.OnEnd != nil {
		g.OnEnd()
	}
}

// startBonus puts the bonus wall in play (Art. 4.7).
func (g *Screen) startBonus(now time.Time) {
	g.cart.StopBlink()
	g.field.SetWorld(g.src.World())
	g.launched = g.src.Revealed()
	g.stage, g.stageAt = stagePlaying, now
	g.pump.Reset()
	g.pump.Advance(now)
	if g.OnBonusWall != nil {
		g.OnBonusWall()
	}
}

// CreateRenderer builds the screen's canvas objects once.
func (g *Screen) CreateRenderer() fyne.WidgetRenderer {
	r := newScreenRenderer(g)
	g.rend = r
	return r
}
