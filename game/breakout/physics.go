package breakout

import (
	"math/bits"

	"pharaon/game"
)

// Swept collision of the ball against the field, the bricks and the paddle,
// in integer fixed point (see the package doc).

const (
	// tickQ is one tick in the Q16 fractions of a step the ball's motion
	// is split into.
	tickQ = 1 << 16
	// maxContacts bounds the contacts resolved in one step; beyond it the
	// ball stops for the rest of the step, where it is (a position that
	// is always valid). Never reached in practice: a step moves the ball
	// less than a brick's height.
	maxContacts = 8
	// inf is a time of impact larger than any real one (which are ≤ 1).
	inf = int64(1) << 36
	// maxTied is how many bricks one contact can hit at once.
	maxTied = 8
)

// frac is a time of impact n/d, d > 0.
type frac struct{ n, d int64 }

func (a frac) less(b frac) bool { return a.n*b.d < b.n*a.d }

// contact is the earliest collision of a sweep, with everything that
// happens at that instant.
type contact struct {
	t            frac
	found        bool
	flipX, flipY bool
	snapX, snapY int64 // the ball's exact coordinate on the flipped axis
	wall         bool  // a side or the top of the field
	paddle       bool  // the paddle's top face (world) or the paddle line (trace)
	paddleX      int64 // ball x at the paddle
	nb           int
	bricks       [maxTied]int8
}

// consider makes t the contact's time if it is the earliest so far and
// reports whether t is (tied for) the earliest, so the caller adds itself.
func (c *contact) consider(t frac) bool {
	if !c.found || t.less(c.t) {
		*c = contact{t: t, found: true}
		return true
	}
	return !c.t.less(t)
}

func (c *contact) addFlipX(x int64) {
	if !c.flipX {
		c.flipX, c.snapX = true, x
	}
}

func (c *contact) addFlipY(y int64) {
	if !c.flipY {
		c.flipY, c.snapY = true, y
	}
}

// slab is the interval of times during which a point at p moving by d
// lies strictly between lo and hi; ok is false if never.
func slab(p, d, lo, hi int64) (enter, exit frac, ok bool) {
	switch {
	case d > 0:
		return frac{lo - p, d}, frac{hi - p, d}, true
	case d < 0:
		return frac{p - hi, -d}, frac{p - lo, -d}, true
	}
	if p > lo && p < hi {
		return frac{-inf, 1}, frac{inf, 1}, true
	}
	return frac{}, frac{}, false
}

// firstContact finds the earliest collision of the ball at (x, y) moving
// by (dx, dy) during the rest of a step, against the field's sides and
// top, the standing bricks of alive, and either the paddle (centre px,
// half width hw) or, when line is set, the whole paddle line (the
// prediction of where the ball comes down, auto.go).
func (w *World) firstContact(x, y, dx, dy int64, alive uint64, px, hw int64, line bool) contact {
	var c contact
	if dx < 0 && x+dx < BallRadius {
		if c.consider(frac{max(x-BallRadius, 0), -dx}) {
			c.addFlipX(BallRadius)
			c.wall = true
		}
	} else if dx > 0 && x+dx > FieldWidth-BallRadius {
		if c.consider(frac{max(FieldWidth-BallRadius-x, 0), dx}) {
			c.addFlipX(FieldWidth - BallRadius)
			c.wall = true
		}
	}
	if dy < 0 && y+dy < BallRadius {
		if c.consider(frac{max(y-BallRadius, 0), -dy}) {
			c.addFlipY(BallRadius)
			c.wall = true
		}
	}
	if dy > 0 && y <= paddleContactLine && y+dy >= paddleContactLine {
		t := frac{paddleContactLine - y, dy}
		xc := x + dx*t.n/t.d
		if (line || abs64(xc-px) <= hw+BallRadius/2) && c.consider(t) {
			c.addFlipY(paddleContactLine)
			c.paddle, c.paddleX = true, xc
		}
	}
	// The sweep's bounding box, to skip far bricks cheaply.
	sx0, sx1 := min(x, x+dx), max(x, x+dx)
	sy0, sy1 := min(y, y+dy), max(y, y+dy)
	for m := alive; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		b := &w.boxes[i]
		if sx1 < b.x0 || sx0 > b.x1 || sy1 < b.y0 || sy0 > b.y1 {
			continue
		}
		enx, exx, ok := slab(x, dx, b.x0, b.x1)
		if !ok {
			continue
		}
		eny, exy, ok := slab(y, dy, b.y0, b.y1)
		if !ok {
			continue
		}
		enter, onX, onY := enx, true, false
		if enx.less(eny) {
			enter, onX, onY = eny, false, true
		} else if !eny.less(enx) {
			onY = true // a corner: both axes at once
		}
		exit := exx
		if exy.less(exx) {
			exit = exy
		}
		// Enters during this step (0 ≤ t ≤ 1), not already inside or
		// moving away (enter before exit).
		if enter.n < 0 || enter.n > enter.d || !enter.less(exit) {
			continue
		}
		if !c.consider(enter) {
			continue
		}
		if onX {
			if dx > 0 {
				c.addFlipX(b.x0)
			} else {
				c.addFlipX(b.x1)
			}
		}
		if onY {
			if dy > 0 {
				c.addFlipY(b.y0)
			} else {
				c.addFlipY(b.y1)
			}
		}
		if c.nb < maxTied {
			c.bricks[c.nb] = int8(i)
			c.nb++
		}
	}
	return c
}

// moveBall moves the flying ball through one step, resolving every
// contact on its way.
func (w *World) moveBall() {
	x, y := int64(w.bx), int64(w.by)
	px, hw := int64(w.px), int64(w.halfWidth())
	remain := int64(tickQ)
	for n := 0; n < maxContacts && remain > 0 && w.phase == Flying && !w.done; n++ {
		dx := int64(w.vx) * remain / tickQ
		dy := int64(w.vy) * remain / tickQ
		if dx == 0 && dy == 0 {
			break
		}
		c := w.firstContact(x, y, dx, dy, w.alive, px, hw, false)
		if !c.found {
			w.segment(x, y, x+dx, y+dy)
			x, y = x+dx, y+dy
			break
		}
		nx, ny := x+dx*c.t.n/c.t.d, y+dy*c.t.n/c.t.d
		if c.flipX {
			nx = c.snapX
		}
		if c.flipY {
			ny = c.snapY
		}
		w.segment(x, y, nx, ny)
		x, y = nx, ny
		if c.flipX {
			w.vx = -w.vx
		}
		if c.flipY {
			w.vy = -w.vy
		}
		remain -= remain * c.t.n / c.t.d
		w.auto.dirty = true
		if c.wall {
			w.emit(Event{Kind: WallBounce, Brick: -1})
		}
		for _, i := range c.bricks[:c.nb] {
			w.hitBrick(int(i))
		}
		if c.paddle && !w.done {
			w.bx, w.by = int32(x), int32(y)
			w.paddleBounce(c.paddleX - px)
		}
	}
	if w.phase != Flying {
		return
	}
	w.bx, w.by = int32(x), int32(y)
	if w.by > lostLine && !w.done {
		w.phase, w.vx, w.vy = Lost, 0, 0
		w.ghost = int32(w.settings.GhostTicks)
		w.auto.dirty = true
		w.emit(Event{Kind: BallLost, Brick: -1, Ticks: w.settings.GhostTicks})
	}
}

// paddleBounce sends the ball off the paddle at the angle of where it hit
// (off from the centre), or, under the blue stone's magnet, keeps it there
// until launched (Art. 4.5).
func (w *World) paddleBounce(off int64) {
	hw := int64(w.halfWidth())
	if w.effects[game.Blue] > 0 {
		w.phase = OnPaddle
		w.stuck = int32(max(-hw, min(off, hw)))
		w.followPaddle()
		w.emit(Event{Kind: BallOnPaddle, Brick: -1})
		return
	}
	// Dead centre: the ball keeps its horizontal direction.
	w.vx, w.vy = velocity(w.speed(), angleIndex(off, hw), side(off, side(int64(w.vx), w.lastDir)))
	w.emit(Event{Kind: PaddleHit, Brick: -1})
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// segment reports a straight piece of the ball's path to the tests, which
// check that it crosses no standing brick.
func (w *World) segment(x0, y0, x1, y1 int64) {
	if w.onSegment != nil {
		w.onSegment(x0, y0, x1, y1)
	}
}
