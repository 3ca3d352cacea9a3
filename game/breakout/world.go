package breakout

import (
	"errors"
	"fmt"
	"math/bits"

	"pharaon/game"
	"pharaon/game/reveal"
)

// EngineVersion identifies the physics and the Auto controller. Recordings
// carry it; a change that alters any replay (the golden replays of
// testdata tell) must increase it, and the kiosk must keep the old engine
// to recall the games played with it.
const EngineVersion = 1

// Mode is who plays: the player (Jouer) or the system (Auto, Art. 4.1).
type Mode uint8

const (
	Play Mode = iota // Jouer: the player moves the paddle and launches
	Auto             // the system destroys every brick on its own
)

func (m Mode) String() string {
	switch m {
	case Play:
		return "play"
	case Auto:
		return "auto"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// Phase is where the ball is.
type Phase uint8

const (
	OnPaddle Phase = iota // resting on the paddle, waiting to be launched
	Flying                // in play
	Lost                  // fell past the paddle; the ghost mask shows
)

func (p Phase) String() string {
	switch p {
	case OnPaddle:
		return "on-paddle"
	case Flying:
		return "flying"
	case Lost:
		return "lost"
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// Input is what the player did during one step. The zero Input is "nothing".
type Input struct {
	// Steer says PaddleX is set: the paddle's target, the x of the
	// finger in sub-units (clamped to the field). The paddle moves toward
	// it at up to PaddleSpeed per tick.
	Steer   bool
	PaddleX int32
	// Launch launches the ball if it rests on the paddle (the player
	// tapped the ball, Art. 4.4).
	Launch bool
	// Auto hands the game over to Auto for good (the kiosk resuming a
	// game after a restart, for instance).
	Auto bool
	// Rest puts a ball in flight, or lost, back on the paddle, where it
	// waits for the player's launch (Jouer only): the kiosk resuming a
	// Jouer game after a restart, so the player is not met by a ball
	// already falling. It is recorded, so a replay of the whole game
	// rests the ball at the same tick; the other fields are ignored on
	// the step that rests.
	Rest bool
}

// Brick is one brick of the wall as the UI draws it.
type Brick struct {
	Rect    Rect
	Content reveal.Content
	// Hits is how many hits the brick still needs: 1 for a brick
	// standing, 2 for the red brick before its first hit, 0 once
	// destroyed.
	Hits int
}

// Alive reports whether the brick still stands.
func (b Brick) Alive() bool { return b.Hits > 0 }

// Ball is the ball's state. X and Y are its centre in sub-units; VX and VY
// its velocity in sub-units per tick; Ghost, while Phase is Lost, the ticks
// before it is back on the paddle (the ghost mask shows meanwhile).
type Ball struct {
	X, Y, VX, VY int32
	Radius       int32
	Phase        Phase
	Ghost        int
}

// Paddle is the paddle's state in sub-units: X its centre, Y its top,
// Width its current width (changed by the pink and green stones), Target
// where it is heading.
type Paddle struct {
	X, Y, Width, Height int32
	Target              int32
}

// World is one wall in play: the main wall of a unit, or its bonus wall.
// It is not safe for concurrent use; the UI's loop owns it.
type World struct {
	settings Settings
	digest   uint64
	bricks   []Brick
	boxes    []box
	alive    uint64 // bit i: brick i stands
	red      int    // index of the red brick, -1 on a main wall
	worth    []int8

	tick uint32
	mode Mode
	done bool

	bx, by, vx, vy int32
	phase          Phase
	ghost          int32
	stuck          int32 // ball x minus paddle x while on the paddle
	px, target     int32
	lastDir        int8 // last direction the paddle moved: -1 left, +1 right
	effects        [game.NumStones]int32
	idle           int32
	revealed       game.Counts

	events []Event

	rec       []byte // encoded input entries (record.go)
	recTick   uint32
	recTarget int32
	startMode Mode

	auto autoState

	onSegment func(x0, y0, x1, y1 int64) // test hook, see segment
}

// ErrBadMode is returned by New for a mode that is neither Play nor Auto.
var ErrBadMode = errors.New("bad mode")

// New starts a world on wall (a main wall, or a bonus wall with its red
// brick), with the ball on the paddle at the centre. The world shares no
// memory with wall: it copies what it needs into its own bricks.
func New(wall reveal.Wall, mode Mode, s Settings) (*World, error) {
	if err := wall.Validate(); err != nil {
		return nil, fmt.Errorf("new world: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("new world: %w", err)
	}
	if mode != Play && mode != Auto {
		return nil, fmt.Errorf("new world: %v: %w", mode, ErrBadMode)
	}
	n := wall.Len()
	w := &World{
		settings:  s,
		digest:    WallDigest(wall),
		bricks:    make([]Brick, n),
		boxes:     make([]box, n),
		red:       -1,
		mode:      mode,
		startMode: mode,
		phase:     OnPaddle,
		px:        FieldWidth / 2,
		target:    FieldWidth / 2,
		recTarget: FieldWidth / 2,
		lastDir:   1,
		events:    make([]Event, 0, 64),
		rec:       make([]byte, 0, 256),
	}
	rects := brickRects(wall.Rows, make([]Rect, 0, n))
	for i, c := range wall.Bricks {
		hits := 1
		if c.IsRed() {
			hits = 2
			w.red = i
		}
		w.bricks[i] = Brick{Rect: rects[i], Content: c, Hits: hits}
		w.boxes[i] = expand(rects[i])
		w.alive |= 1 << i
	}
	w.worth = brickWorth(w.bricks, w.red)
	w.followPaddle()
	w.auto.dirty = true
	return w, nil
}

// Step advances the world by one tick (1/120 s) with the player's input
// (ignored in Auto) and returns what happened. The slice belongs to the
// world and is overwritten by the next Step. Once the wall is cleared,
// Step does nothing and returns no events.
func (w *World) Step(in Input) []Event {
	w.events = w.events[:0]
	if w.done {
		return w.events
	}
	w.tick++
	w.tickEffects()
	launch := false
	if w.mode == Play {
		launch = w.input(in)
	}
	if w.mode == Auto {
		launch = w.autoControl()
	}
	w.movePaddle()
	switch w.phase {
	case OnPaddle:
		w.followPaddle()
		if launch {
			w.launch()
		}
	case Flying:
		w.moveBall()
	case Lost:
		w.ghost--
		if w.ghost <= 0 {
			w.phase, w.stuck, w.ghost = OnPaddle, 0, 0
			w.followPaddle()
			w.auto.dirty = true
			w.emit(Event{Kind: BallOnPaddle, Brick: -1})
		}
	}
	return w.events
}

func (w *World) emit(e Event) { w.events = append(w.events, e) }

// input applies the player's input and says whether to launch. An input
// is activity when it moves the paddle's target, launches, or asks for
// Auto; only activity is recorded, and IdleTicks without activity hand the
// game to Auto.
func (w *World) input(in Input) (launch bool) {
	if in.Rest && w.phase != OnPaddle {
		w.rest()
		return false
	}
	var flags byte
	if in.Steer {
		t := clamp32(in.PaddleX, 0, FieldWidth)
		if t != w.target {
			w.target = t
			flags |= flagPaddle
		}
	}
	if in.Launch {
		flags |= flagLaunch
	}
	if in.Auto {
		flags |= flagAuto
	}
	if flags != 0 {
		w.record(flags)
		w.idle = 0
	} else {
		w.idle++
	}
	// A game as long as a recording can be goes on in Auto, so that it
	// stays replayable (MaxTicks is a day: only a stuck input gets there).
	if in.Auto || int(w.idle) >= w.settings.IdleTicks || w.tick >= MaxTicks-2*AutoBoundTicks {
		w.engageAuto()
	}
	return in.Launch
}

// rest puts the ball back on the paddle at its centre (Input.Rest) and
// records it; the step goes on with the ball on the paddle.
func (w *World) rest() {
	w.recordRest()
	w.idle = 0
	w.phase, w.stuck, w.ghost = OnPaddle, 0, 0
	w.followPaddle()
	w.auto.dirty = true
	w.emit(Event{Kind: BallOnPaddle, Brick: -1})
}

func (w *World) engageAuto() {
	w.mode = Auto
	if w.phase == Flying {
		w.vx = int32(int64(w.vx) * AutoSpeed / PlaySpeed)
		w.vy = int32(int64(w.vy) * AutoSpeed / PlaySpeed)
	}
	w.auto = autoState{dirty: true}
	w.emit(Event{Kind: AutoEngaged, Brick: -1})
}

func (w *World) speed() int32 {
	if w.mode == Auto {
		return AutoSpeed
	}
	return PlaySpeed
}

func (w *World) halfWidth() int32 {
	switch {
	case w.effects[game.Pink] > 0:
		return PaddleWidthPink / 2
	case w.effects[game.Green] > 0:
		return PaddleWidthGreen / 2
	}
	return PaddleWidth / 2
}

func (w *World) movePaddle() {
	hw := w.halfWidth()
	t := clamp32(w.target, hw, FieldWidth-hw)
	d := t - w.px
	if d > PaddleSpeed {
		d = PaddleSpeed
	} else if d < -PaddleSpeed {
		d = -PaddleSpeed
	}
	w.px += d
	w.lastDir = side(int64(d), w.lastDir)
	w.fitPaddle()
}

// fitPaddle keeps the paddle inside the field when its width changes: a
// wider paddle steps away from a side at once.
func (w *World) fitPaddle() {
	hw := w.halfWidth()
	w.px = clamp32(w.px, hw, FieldWidth-hw)
	if w.phase == OnPaddle {
		w.followPaddle()
	}
}

// followPaddle keeps a resting ball on the paddle, inside the field.
func (w *World) followPaddle() {
	hw := w.halfWidth()
	w.stuck = clamp32(w.stuck, -hw, hw)
	w.bx = clamp32(w.px+w.stuck, BallRadius, FieldWidth-BallRadius)
	w.by = paddleContactLine
	w.vx, w.vy = 0, 0
}

// side is the sign of v, or fallback when v is 0: the direction of a
// bounce or launch at offset v from the paddle's centre, of a velocity, or
// of a paddle move.
func side(v int64, fallback int8) int8 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return fallback
}

func (w *World) launch() {
	off := int64(w.bx - w.px)
	k := angleIndex(off, int64(w.halfWidth()))
	w.vx, w.vy = velocity(w.speed(), k, side(off, w.lastDir))
	w.phase = Flying
	w.auto.dirty = true
	w.emit(Event{Kind: Launched, Brick: -1})
}

func (w *World) tickEffects() {
	for s := range w.effects {
		if w.effects[s] > 0 {
			w.effects[s]--
			if w.effects[s] == 0 {
				w.auto.dirty = true
				w.emit(Event{Kind: StoneEnded, Brick: -1, Stone: game.Stone(s)})
			}
		}
	}
}

func (w *World) startStone(s game.Stone) {
	// Pink widens and green narrows: the newer one replaces the other.
	o, opposed := game.Stone(0), false
	switch s {
	case game.Pink:
		o, opposed = game.Green, true
	case game.Green:
		o, opposed = game.Pink, true
	}
	if opposed && w.effects[o] > 0 {
		w.effects[o] = 0
		w.emit(Event{Kind: StoneEnded, Brick: -1, Stone: o})
	}
	w.effects[s] = int32(w.settings.StoneTicks)
	w.fitPaddle()
	w.auto.dirty = true
	w.emit(Event{Kind: StoneStarted, Brick: -1, Stone: s, Ticks: w.settings.StoneTicks})
}

// hitBrick applies one hit to brick i.
func (w *World) hitBrick(i int) {
	b := &w.bricks[i]
	b.Hits--
	w.emit(Event{Kind: BrickHit, Brick: i, Content: b.Content, N: b.Hits})
	if b.Content.IsRed() {
		w.emit(Event{Kind: RedBrickHit, Brick: i, Content: b.Content, N: 2 - b.Hits})
	}
	if b.Hits > 0 {
		return
	}
	w.alive &^= 1 << i
	w.emit(Event{Kind: BrickDestroyed, Brick: i, Content: b.Content})
	if s, ok := b.Content.Symbol(); ok {
		w.revealed.Add(s)
		w.emit(Event{Kind: SymbolRevealed, Brick: i, Content: b.Content, Symbol: s})
	}
	if s, ok := b.Content.Stone(); ok {
		w.startStone(s)
	}
	if i == w.red || (w.red < 0 && w.alive == 0) {
		w.clear()
	}
}

// clear ends the wall (Art. 4.4: every brick destroyed; Art. 4.7: the red
// brick hit twice).
func (w *World) clear() {
	w.done = true
	for s := range w.effects {
		if w.effects[s] > 0 {
			w.effects[s] = 0
			w.emit(Event{Kind: StoneEnded, Brick: -1, Stone: game.Stone(s)})
		}
	}
	w.fitPaddle()
	w.emit(Event{Kind: WallCleared, Brick: -1})
}

// Tick is the number of steps taken (the last one that did something).
func (w *World) Tick() uint32 { return w.tick }

// Mode is who plays now.
func (w *World) Mode() Mode { return w.mode }

// Done reports whether the wall is cleared.
func (w *World) Done() bool { return w.done }

// IsBonus reports whether this is a bonus wall (it has the red brick).
func (w *World) IsBonus() bool { return w.red >= 0 }

// Bricks returns the wall's bricks. The slice is the world's own: read it,
// never change it; it is up to date after each Step.
func (w *World) Bricks() []Brick { return w.bricks }

// Standing is the number of bricks still standing.
func (w *World) Standing() int { return bits.OnesCount64(w.alive) }

// RedHits is how many times the red brick was hit (0, 1 or 2); 0 on a
// main wall.
func (w *World) RedHits() int {
	if w.red < 0 {
		return 0
	}
	return 2 - w.bricks[w.red].Hits
}

// Ball returns the ball's state.
func (w *World) Ball() Ball {
	return Ball{X: w.bx, Y: w.by, VX: w.vx, VY: w.vy, Radius: BallRadius, Phase: w.phase, Ghost: int(w.ghost)}
}

// Paddle returns the paddle's state.
func (w *World) Paddle() Paddle {
	return Paddle{X: w.px, Y: PaddleTop, Width: 2 * w.halfWidth(), Height: PaddleHeight, Target: w.target}
}

// Effect is how many ticks stone s's effect still lasts, 0 if it is not
// in effect.
func (w *World) Effect(s game.Stone) int {
	if !s.Valid() {
		return 0
	}
	return int(w.effects[s])
}

// Revealed is what the destroyed bricks have uncovered so far. When the
// main wall is cleared it equals the layout's counts; the kiosk checks it.
func (w *World) Revealed() game.Counts { return w.revealed }

// Idle is the number of ticks since the player's last input (Jouer only):
// the game continues in Auto when it reaches Settings().IdleTicks.
func (w *World) Idle() int { return int(w.idle) }

// Settings returns the world's settings.
func (w *World) Settings() Settings { return w.settings }

func clamp32(v, lo, hi int32) int32 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
