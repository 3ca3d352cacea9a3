package breakout

import "pharaon/game/reveal"

// Unit is the number of sub-units in a field unit. Every length of the API
// is in sub-units.
const Unit = 256

// The field, in sub-units.
const (
	FieldWidth  = 1200 * Unit
	FieldHeight = 1000 * Unit
)

// Geometry of the wall, paddle and ball, in sub-units.
const (
	BrickWidth  = 140 * Unit
	BrickHeight = 48 * Unit
	brickPitchX = 150 * Unit // 10 units between bricks: narrower than the ball
	brickPitchY = 60 * Unit  // 12 units between courses: narrower than the ball
	wallTop     = 130 * Unit // room above the wall for the ball to get behind it

	BallRadius = 12 * Unit

	// PaddleTop is the y of the paddle's top face; PaddleHeight its
	// drawn thickness (only the top face bounces the ball).
	PaddleTop    = 920 * Unit
	PaddleHeight = 20 * Unit

	// Paddle widths: normal, widened by the pink stone, narrowed by the
	// green one (Art. 4.5).
	PaddleWidth       = 200 * Unit
	PaddleWidthPink   = 300 * Unit
	PaddleWidthGreen  = 120 * Unit
	paddleContactLine = PaddleTop - BallRadius // ball centre y when it touches the paddle

	// lostLine is where a ball that fell past the paddle is gone: wholly
	// below the field.
	lostLine = FieldHeight + BallRadius
)

// Speeds in sub-units per tick.
const (
	// PlaySpeed is the ball's speed in Jouer: 6 units a tick, 720 a
	// second, about 0,7 s from the paddle to the wall.
	PlaySpeed = 6 * Unit
	// AutoSpeed is the ball's speed in Auto: 20 units a tick, 2 400 a
	// second, fast enough that every wall falls well within the bound
	// (AutoBoundTicks), slow enough that the ball is seen doing it.
	AutoSpeed = 20 * Unit
	// PaddleSpeed is how far the paddle moves toward its target in a
	// tick: 48 units, the whole field in a quarter of a second, so it
	// follows a finger's drag without lag.
	PaddleSpeed = 48 * Unit
)

// Rect is an axis-aligned rectangle in sub-units, X and Y its top left.
type Rect struct{ X, Y, W, H int32 }

// box is a brick's rectangle expanded by the ball's radius: the region the
// ball's centre may not enter.
type box struct{ x0, y0, x1, y1 int64 }

// brickRects lays a wall's courses out in the field: each row centred, top
// row at wallTop.
func brickRects(rows []int, dst []Rect) []Rect {
	for r, n := range rows {
		x0 := (FieldWidth - (int32(n)*brickPitchX - (brickPitchX - BrickWidth))) / 2
		y := wallTop + int32(r)*brickPitchY
		for k := 0; k < n; k++ {
			dst = append(dst, Rect{X: x0 + int32(k)*brickPitchX, Y: y, W: BrickWidth, H: BrickHeight})
		}
	}
	return dst
}

func expand(r Rect) box {
	return box{
		x0: int64(r.X) - BallRadius, y0: int64(r.Y) - BallRadius,
		x1: int64(r.X+r.W) + BallRadius, y1: int64(r.Y+r.H) + BallRadius,
	}
}

// Compile-time check that the widest wall fits the field with room for the
// ball to pass at its sides.
const _ = uint(FieldWidth - (reveal.MaxPerRow*brickPitchX - (brickPitchX - BrickWidth)) - 4*BallRadius)
