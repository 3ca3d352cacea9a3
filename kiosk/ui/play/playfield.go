package play

import (
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"pharaon/game/breakout"
)

// Playfield is the brick-breaker of the game screen, on the left (Art. 4.2):
// the wall, the revealed symbols and stones under the destroyed bricks, the
// ball, the paddle, the timers of the spell stones (Art. 4.5), the ghost mask
// of a lost ball (Art. 4.4), the AUTO badge and, on the bonus wall, the red
// brick's hits (Art. 4.7). It draws the field's 1200 × 1000 units scaled
// uniformly into its size (6:5), centred.
//
// It draws what the world says and nothing else. It reads the world once a
// frame (Frame) and only moves, shows and hides canvas objects built once
// (DESIGN.md §8); a new wall changes images' resources, a new size
// rasterises them again, a frame does neither.
//
// Touch (Art. 4.4): dragging anywhere on the field moves the paddle toward the
// finger; a touch moves it there too. Tapping the ball launches it: the ball
// is small, so the tap counts within TouchRadius of its centre (a target of
// at least 60 px, DESIGN.md §8). A tap elsewhere only moves the paddle: a
// player who taps beside the ball to move the paddle must not launch by
// mistake, and the regulation says the player taps the ball.
//
// Like every Fyne object it must be used from the Fyne goroutine only.
type Playfield struct {
	widget.BaseWidget

	// OnActivity is called on every touch of the field (the kiosk's idle
	// timer, kiosk.Machine.Touch). Optional.
	OnActivity func()
	// OnCountdown is called when the countdown to Auto appears, with its
	// seconds (the voice says it). Optional.
	OnCountdown func(secs int)

	// TouchRadius is how far from the ball's centre, in pixels, a tap
	// still launches it. At least 30 (a 60 px target); 56 if zero.
	TouchRadius float32

	world *breakout.World
	words Words // the badge, the red brick, the guide
	// large is the screens' large-text mode (Screen.SetLargeText): the
	// texts LargeScale times larger, in the high-contrast inks, on opaque
	// plates rather than on the night sky.
	large bool
	// textBoost makes up, in the large-text mode, for a field narrower
	// than the usual one (Screen's Layout): its texts are LargeScale
	// times those of the usual field.
	textBoost float32
	now       time.Time
	// fullMax: the whole backdrop is drawn while the field is at most this
	// many pixels (SetFullBackdropMaxPixels; 0, the default: never).
	fullMax int

	// what the player did since the engine last took it (Input)
	steer   bool
	target  int32
	launch  bool
	finish  bool // the player asked to finish the wall in Auto
	touched bool // any touch: it keeps the game from going to Auto

	// notice shows that the game was resumed after a restart (the game
	// screen sets it for a while)
	notice bool

	// motion between ticks (see beforeStep): the ball and the paddle before
	// the last tick, and how far past it the frame is drawn (0 to 1)
	prevBall   breakout.Ball
	prevPaddle breakout.Paddle
	havePrev   bool
	alpha      float32

	// per-brick animation clocks, set from the world's events
	revealAt [maxBricks]time.Time
	redHitAt time.Time

	rend *playfieldRenderer
}

// maxBricks is the most bricks a wall has (reveal.MaxBricks); the renderer
// builds that many slots once.
const maxBricks = 42

// NewPlayfield returns an empty playfield; SetWorld gives it a wall.
func NewPlayfield() *Playfield {
	p := &Playfield{}
	p.ExtendBaseWidget(p)
	return p
}

// SetWorld shows world (nil for none) as it is now, without animation: a new
// wall, the bonus wall, or a game recovered after a restart.
func (p *Playfield) SetWorld(w *breakout.World) {
	p.world = w
	p.steer, p.launch, p.finish, p.touched = false, false, false, false
	p.havePrev = false
	p.revealAt = [maxBricks]time.Time{}
	p.redHitAt = time.Time{}
	if w != nil {
		p.target = w.Paddle().X
	}
	if p.rend != nil {
		p.rend.setWorld()
	}
}

// FullBackdropAlways is the SetFullBackdropMaxPixels that draws the whole
// backdrop whatever the field's size (a kiosk with a GPU).
const FullBackdropAlways = math.MaxInt

// SetFullBackdropMaxPixels draws the whole night-sky backdrop behind the
// field while the field is at most maxPixels pixels, and only its frieze
// and base band over the theme's plain lapis on a larger one; 0 or less
// (the default): never. Under a software GL the sky costs per pixel drawn,
// at every frame: about half a frame's CPU at 1280×800, and at 1920×1080
// (a field of 1 296 × 1 080 pixels) it took the game screen from 84–90 %
// of a core to 144–148 % and its frame rate below 60
// (docs/performance.md); nothing much on a GPU.
func (p *Playfield) SetFullBackdropMaxPixels(maxPixels int) {
	maxPixels = max(maxPixels, 0)
	if maxPixels == p.fullMax {
		return
	}
	p.fullMax = maxPixels
	if p.rend != nil && p.rend.size.Width > 0 {
		p.rend.layoutBackdrop()
		p.rend.nudge()
	}
}

// FullBackdropShown says whether the whole backdrop is drawn at the
// field's present size (SetFullBackdropMaxPixels).
func (p *Playfield) FullBackdropShown() bool {
	return p.rend != nil && p.rend.sky.Visible()
}

// setLargeText is Screen.SetLargeText for the playfield.
func (p *Playfield) setLargeText(on bool) {
	p.large = on
	if r := p.rend; r != nil {
		r.applyInks()
		if r.size.Width > 0 {
			r.Layout(r.size)
		}
		r.nudge()
	}
}

// textScale is how much larger the playfield's texts are: LargeScale in
// the large-text mode.
func (p *Playfield) textScale() float32 {
	if p.large {
		return LargeScale * max(p.textBoost, 1)
	}
	return 1
}

// World is the wall shown.
func (p *Playfield) World() *breakout.World { return p.world }

// SetWords shows the playfield's words: the badge, the red brick's caption,
// the tip, the countdown and the notice.
func (p *Playfield) SetWords(w Words) {
	p.words = w
	if p.rend != nil {
		p.rend.applyLabels()
	}
}

// Event lets the playfield animate what happened at time now: a brick
// that falls fades its content in, the red brick flashes when hit. State the
// world holds (bricks, ball, paddle, effects, ghost) needs no event: Frame
// reads it.
func (p *Playfield) Event(e breakout.Event, now time.Time) {
	switch e.Kind {
	case breakout.BrickDestroyed:
		if e.Brick >= 0 && e.Brick < maxBricks {
			p.revealAt[e.Brick] = now
		}
	case breakout.RedBrickHit:
		p.redHitAt = now
	}
}

// Frame brings the drawing up to date with the world at time now (the
// animations' clock). It allocates nothing.
func (p *Playfield) Frame(now time.Time) { p.frameBetween(now, 1) }

// frameBetween draws the world at time now, with the ball and the paddle
// alpha (0 to 1) of the way from where they were before the last tick
// (beforeStep) to where they are. The engine ticks at 120 Hz and the screen
// draws at 60 Hz or so: a frame falls between ticks, and one that ran one
// tick after one that ran three would make the ball stutter. Drawing the
// ball where it was at the frame's time (one tick behind, 8 ms) keeps its
// motion even. A bounce, a launch or a loss is drawn as it is.
func (p *Playfield) frameBetween(now time.Time, alpha float32) {
	p.now = now
	p.alpha = alpha
	if p.rend != nil {
		p.rend.update()
	}
}

// beforeStep records the ball and the paddle before an engine tick, for
// frameBetween.
func (p *Playfield) beforeStep() {
	if p.world != nil {
		p.prevBall, p.prevPaddle, p.havePrev = p.world.Ball(), p.world.Paddle(), true
	}
}

// drawnPaddle and drawnBall are the paddle and the ball where a frame draws
// them (frameBetween).
func (p *Playfield) drawnPaddle(cur breakout.Paddle) breakout.Paddle {
	if p.havePrev && p.alpha < 1 {
		cur.X = lerpSub(p.prevPaddle.X, cur.X, p.alpha)
	}
	return cur
}

func (p *Playfield) drawnBall(cur breakout.Ball) breakout.Ball {
	if p.havePrev && p.alpha < 1 && p.prevBall.Phase == cur.Phase && cur.Phase != breakout.Lost {
		cur.X = lerpSub(p.prevBall.X, cur.X, p.alpha)
		cur.Y = lerpSub(p.prevBall.Y, cur.Y, p.alpha)
	}
	return cur
}

// lerpSub is a + (b-a)·t in sub-units.
func lerpSub(a, b int32, t float32) int32 {
	if t <= 0 {
		return a
	}
	return a + int32(float32(b-a)*t)
}

// Input returns what the player did since the last call, for one engine
// tick: the paddle's target while the player steers, a launch once, the
// wall handed to Auto once.
//
// The engine counts as activity only an input that changes something, and
// goes to Auto after its idle time without activity; the countdown before
// it says a touch keeps the game (Playfield's renderer). A touch at the
// very x the paddle heads for changes nothing, so it moves the target by
// one sub-unit (1/256 of a field unit, nothing to see): the touch is
// activity, recorded like any move, and a replay does the same.
func (p *Playfield) Input() breakout.Input {
	in := breakout.Input{Steer: p.steer, PaddleX: p.target, Launch: p.launch, Auto: p.finish}
	if w := p.world; p.touched && w != nil && !in.Launch && !in.Auto {
		if t := w.Paddle().Target; !in.Steer || clampField(in.PaddleX) == t {
			in.Steer, in.PaddleX = true, t+1
			if t >= breakout.FieldWidth {
				in.PaddleX = t - 1
			}
			p.steer, p.target = true, in.PaddleX
		}
	}
	p.launch, p.finish, p.touched = false, false, false
	return in
}

// clampField is x clamped to the field, as the engine takes a target.
func clampField(x int32) int32 {
	switch {
	case x < 0:
		return 0
	case x > breakout.FieldWidth:
		return breakout.FieldWidth
	}
	return x
}

// finishInAuto hands the wall to Auto at the next tick: the player's
// choice when the last bricks take long to hit (the outcome was fixed at
// the stake, Art. 4.1: Auto only saves the player's time).
func (p *Playfield) finishInAuto() {
	p.activity()
	p.finish = true
}

// setNotice shows or hides the notice that the game was resumed.
func (p *Playfield) setNotice(on bool) {
	if on == p.notice {
		return
	}
	p.notice = on
	if p.rend != nil {
		p.rend.update()
	}
}

// Tapped launches the ball when the tap is on it, else moves the paddle
// toward the tap (see Playfield).
func (p *Playfield) Tapped(e *fyne.PointEvent) {
	p.activity()
	if p.world == nil || p.rend == nil {
		return
	}
	if p.rend.onBall(e.Position) {
		p.launch = true
		return
	}
	p.steerTo(e.Position)
}

// Dragged moves the paddle toward the finger.
func (p *Playfield) Dragged(e *fyne.DragEvent) {
	p.activity()
	p.steerTo(e.Position)
}

// DragEnd ends a drag; the paddle stays where it was heading.
func (p *Playfield) DragEnd() {}

// MouseDown moves the paddle at the touch itself (a touchscreen reports a
// touch as a mouse press), before the finger moves or lifts.
func (p *Playfield) MouseDown(e *desktop.MouseEvent) {
	p.activity()
	if p.rend != nil && p.rend.onBall(e.Position) {
		return // a tap on the ball launches it: don't move the paddle under it
	}
	p.steerTo(e.Position)
}

// MouseUp is part of desktop.Mouseable; a tap is handled by Tapped.
func (p *Playfield) MouseUp(*desktop.MouseEvent) {}

// brickCentre is the centre of brick i in the playfield, if it is laid out.
func (p *Playfield) brickCentre(i int) (fyne.Position, bool) {
	if p.world == nil || p.rend == nil {
		return fyne.Position{}, false
	}
	b := p.world.Bricks()
	if i < 0 || i >= len(b) {
		return fyne.Position{}, false
	}
	rc := b[i].Rect
	return p.rend.geom.pos(rc.X+rc.W/2, rc.Y+rc.H/2), true
}

// PaddleStep is how far a key moves the paddle's target: a tenth of the
// field (StepPaddle).
const PaddleStep = breakout.FieldWidth / 10

// StepPaddle moves the paddle's target by dir (-1 left, +1 right) steps of
// PaddleStep from where it heads: the keypad's 4 and 6 in a Jouer wall
// (a key held repeats). Recorded as a touch's move is.
func (p *Playfield) StepPaddle(dir int) {
	p.activity()
	if p.world == nil {
		return
	}
	from := p.target
	if !p.steer {
		from = p.world.Paddle().Target
	}
	p.steer = true
	p.target = clampField(from + int32(dir)*PaddleStep)
}

// LaunchKey launches the ball waiting on the paddle, as a tap on it does
// (the keypad's 5 in a Jouer wall).
func (p *Playfield) LaunchKey() {
	p.activity()
	if p.world != nil {
		p.launch = true
	}
}

// Nudge is a touch that moves nothing: the player is there (a key of the
// keypad), and the wall does not go to Auto for want of a touch. Recorded
// as a touch is, so a replay does the same.
func (p *Playfield) Nudge() { p.activity() }

func (p *Playfield) activity() {
	p.touched = true
	if p.OnActivity != nil {
		p.OnActivity()
	}
}

func (p *Playfield) steerTo(pos fyne.Position) {
	if p.world == nil || p.rend == nil {
		return
	}
	p.steer = true
	p.target = p.rend.geom.toFieldX(pos.X)
}

func (p *Playfield) touchRadius() float32 {
	switch {
	case p.TouchRadius == 0:
		return 56
	case p.TouchRadius < 30:
		return 30
	}
	return p.TouchRadius
}

// CreateRenderer builds every canvas object of the playfield once.
func (p *Playfield) CreateRenderer() fyne.WidgetRenderer {
	r := newPlayfieldRenderer(p)
	p.rend = r
	return r
}

var (
	_ fyne.Tappable     = (*Playfield)(nil)
	_ fyne.Draggable    = (*Playfield)(nil)
	_ desktop.Mouseable = (*Playfield)(nil)
)
