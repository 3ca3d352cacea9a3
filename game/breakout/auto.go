package breakout

// Auto (Art. 4.1): the system plays. A deterministic controller with no
// randomness of its own: at each change of the ball's course it predicts,
// with the same collision code as the physics, where the ball will come
// down to the paddle, and picks among the paddle's angles the one whose
// next trip destroys the most per tick of game time; then it places the
// paddle so the ball hits it at that angle. The ball really moves (the UI
// shows it), at AutoSpeed, faster than in Jouer.

// autoState is the controller's memory; it is part of the world's state
// (and of its hash).
type autoState struct {
	dirty   bool  // the ball's course or the paddle changed since the last look
	planned bool  // target holds a plan
	target  int32 // where the paddle goes
	// The prediction the plan was made on: where and when the ball
	// reaches the paddle, and which bricks then stand.
	predX     int64
	predTick  uint32
	predAlive uint64
	predHW    int32 // the paddle's half width the plan was made for
}

const (
	// traceBudget bounds a prediction, in ticks.
	traceBudget = 480
	// maxTraceContacts bounds the contacts of a prediction.
	maxTraceContacts = 48
	// launchPositions is how many paddle positions Auto considers to
	// launch from.
	launchPositions = 16
	// planTolerance is how far (sub-units) the ball may come down from
	// where it was predicted before the plan is made again.
	planTolerance = Unit / 2
)

// traceResult is a predicted trip of the ball.
type traceResult struct {
	down      bool  // reached the paddle line going down
	cleared   bool  // the wall would be done on the way
	x         int64 // ball x at the paddle line
	ticks     int64 // Q16 ticks to the line (or to the clearing, or the budget)
	destroyed int   // bricks destroyed on the way
	worth     int64 // their weights (World.worth)
	redHits   int
	alive     uint64 // bricks standing at the end
	redLeft   int    // hits the red brick still needs at the end
}

// trace predicts the ball's course from (x, y) at (vx, vy) with the bricks
// of alive standing, until it comes down to the paddle line, the wall is
// done, or the budget runs out. It moves in long straight segments from
// contact to contact, so it may differ from the step-by-step motion by a
// few sub-units, far less than a paddle's angle step.
func (w *World) trace(x, y int64, vx, vy int32, alive uint64, redLeft int) traceResult {
	r := traceResult{alive: alive, redLeft: redLeft}
	total := int64(traceBudget) * tickQ
	remain := total
	for n := 0; n < maxTraceContacts && remain > 0; n++ {
		dx := int64(vx) * remain / tickQ
		dy := int64(vy) * remain / tickQ
		c := w.firstContact(x, y, dx, dy, r.alive, 0, 0, true)
		if !c.found {
			break
		}
		x, y = x+dx*c.t.n/c.t.d, y+dy*c.t.n/c.t.d
		if c.flipX {
			x, vx = c.snapX, -vx
		}
		if c.flipY {
			y, vy = c.snapY, -vy
		}
		remain -= remain * c.t.n / c.t.d
		for _, i := range c.bricks[:c.nb] {
			if int(i) == w.red {
				r.redHits++
				r.redLeft--
				if r.redLeft > 0 {
					continue
				}
				r.cleared = true
			} else {
				r.destroyed++
				r.worth += int64(w.worth[i])
			}
			r.alive &^= 1 << i
			if w.red < 0 && r.alive == 0 {
				r.cleared = true
			}
		}
		if r.cleared {
			break
		}
		if c.paddle {
			r.down, r.x = true, c.paddleX
			break
		}
	}
	r.ticks = total - remain
	return r
}

// better reports whether trip a (after a lead of la Q16 ticks) destroys
// more per tick than trip b (after lb).
func better(a traceResult, la int64, b traceResult, lb int64) bool {
	va, vb := tripValue(a), tripValue(b)
	ta, tb := max(la+a.ticks, 1), max(lb+b.ticks, 1)
	return va*tb > vb*ta
}

// tripValue weighs what a trip achieves: each brick by its worth, more
// for a hit on the red brick (the bonus wall needs only it), most for
// finishing the wall.
func tripValue(r traceResult) int64 {
	v := r.worth + int64(r.redHits)*64
	if r.cleared {
		v += 4096
	}
	return v
}

func (w *World) redLeft() int {
	if w.red < 0 {
		return 0
	}
	return w.bricks[w.red].Hits
}

// autoControl sets the paddle's target and says whether to launch.
func (w *World) autoControl() (launch bool) {
	a := &w.auto
	switch w.phase {
	case Lost:
		a.planned = false
		return false
	case OnPaddle:
		if w.stuck != 0 {
			// Caught by the magnet where the plan made the ball hit:
			// send it on at that angle straight away.
			a.planned = false
			return true
		}
		if !a.planned || a.dirty {
			w.planLaunch()
		}
		w.target = a.target
		hw := w.halfWidth()
		return w.px == clamp32(a.target, hw, FieldWidth-hw)
	}
	if !a.planned || a.dirty {
		w.planAim()
	}
	w.target = a.target
	return false
}

// planLaunch chooses where to launch the resting ball from: the paddle
// position whose launch, counting the time to get there, destroys the
// most per tick.
func (w *World) planLaunch() {
	a := &w.auto
	a.dirty = false
	hw := w.halfWidth()
	lo, hi := int64(hw), int64(FieldWidth-hw)
	var best traceResult
	var bestLead int64
	bestP, found := int64(w.px), false
	for j := 0; j <= launchPositions; j++ {
		p := lo + (hi-lo)*int64(j)/launchPositions
		if j == launchPositions {
			p = int64(w.px) // staying put is always a candidate
		}
		// Launching from p, the paddle last moved toward p.
		dir := side(p-int64(w.px), w.lastDir)
		bx := int64(clamp32(int32(p)+w.stuck, BallRadius, FieldWidth-BallRadius))
		off := bx - p
		vx, vy := velocity(AutoSpeed, angleIndex(off, int64(hw)), side(off, dir))
		r := w.trace(bx, paddleContactLine, vx, vy, w.alive, w.redLeft())
		lead := (abs64(p-int64(w.px))+PaddleSpeed-1)/PaddleSpeed*tickQ + tickQ
		if !found || better(r, lead, best, bestLead) {
			best, bestLead, bestP, found = r, lead, p, true
		}
	}
	a.target, a.planned = int32(bestP), true
}

// planAim predicts where the flying ball comes down and places the
// paddle to send it on its best next trip.
func (w *World) planAim() {
	a := &w.auto
	a.dirty = false
	p := w.trace(int64(w.bx), int64(w.by), w.vx, w.vy, w.alive, w.redLeft())
	if !p.down {
		// Gone past the paddle, or up for a long while: follow it.
		a.target, a.planned = w.bx, false
		return
	}
	arrive := w.tick + uint32(p.ticks/tickQ)
	if a.planned && arrive == a.predTick && abs64(p.x-a.predX) <= planTolerance &&
		p.alive == a.predAlive && w.halfWidth() == a.predHW {
		return // on course
	}
	a.predX, a.predTick, a.predAlive, a.predHW, a.planned = p.x, arrive, p.alive, w.halfWidth(), true

	hw := int64(w.halfWidth())
	moves := p.ticks / tickQ // paddle moves left before the ball is there
	var best traceResult
	bestP, found := p.x, false
	for k := 0; k < angleSteps; k++ {
		for _, s := range [2]int8{-1, 1} {
			target := p.x - offsetFor(k, s, hw)
			if target < hw || target > FieldWidth-hw || abs64(target-int64(w.px)) > moves*PaddleSpeed {
				continue
			}
			vx, vy := velocity(AutoSpeed, k, s)
			r := w.trace(p.x, paddleContactLine, vx, vy, p.alive, p.redLeft)
			if !found || better(r, 0, best, 0) {
				best, bestP, found = r, target, true
			}
		}
	}
	if !found {
		bestP = p.x // no angle within reach: at least catch it
	}
	a.target = int32(bestP)
}

// brickWorth is what destroying each brick is worth to Auto. On a main wall
// every brick must fall: all are worth the same. On a bonus wall only the
// red brick matters, and the bricks that shield it from below are worth
// clearing first.
func brickWorth(bricks []Brick, red int) []int8 {
	worth := make([]int8, len(bricks))
	for i, b := range bricks {
		worth[i] = 4
		if red < 0 {
			continue
		}
		r := bricks[red].Rect
		if b.Rect.Y > r.Y && abs64(int64(b.Rect.X)-int64(r.X)) < BrickWidth {
			worth[i] = 16
		} else {
			worth[i] = 1
		}
	}
	return worth
}
