package breakout

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The committed table is what its comment says: the integer sine and
// cosine of 10° + 50°·k/31, within rounding. The physics never calls
// math.Sin; this test may.
func TestAngleTable(t *testing.T) {
	for k, sc := range angles {
		a := (10 + 50*float64(k)/31) * math.Pi / 180
		assert.InDelta(t, 16384*math.Sin(a), float64(sc[0]), 0.5+1e-9, "sin step %d", k)
		assert.InDelta(t, 16384*math.Cos(a), float64(sc[1]), 0.5+1e-9, "cos step %d", k)
		if k > 0 {
			assert.Greater(t, sc[0], angles[k-1][0], "angles grow")
		}
	}
}

// Every bounce or launch keeps at least half the speed vertical (60° off
// vertical at most) and some of it horizontal (10° at least): no endless
// horizontal or vertical loop.
func TestVelocityBounds(t *testing.T) {
	for _, speed := range []int32{PlaySpeed, AutoSpeed} {
		for k := 0; k < angleSteps; k++ {
			for _, s := range []int8{-1, 1} {
				vx, vy := velocity(speed, k, s)
				assert.Less(t, vy, int32(0), "always upward")
				assert.GreaterOrEqual(t, -vy, speed/2, "vertical speed, step %d", k)
				assert.GreaterOrEqual(t, int32(s)*vx, speed/6, "horizontal speed, step %d", k)
				n := math.Hypot(float64(vx), float64(vy))
				assert.InDelta(t, float64(speed), n, 2, "speed kept, step %d", k)
			}
		}
	}
}

// Auto aims at the middle of an angle step: that offset maps back to it,
// for every paddle width.
func TestOffsetForMapsBackToItsStep(t *testing.T) {
	for _, hw := range []int64{PaddleWidth / 2, PaddleWidthPink / 2, PaddleWidthGreen / 2} {
		for k := 0; k < angleSteps; k++ {
			for _, s := range []int8{-1, 1} {
				off := offsetFor(k, s, hw)
				assert.Equal(t, k, angleIndex(off, hw), "hw %d step %d", hw, k)
				assert.Equal(t, s, side(off, -s))
				assert.LessOrEqual(t, abs64(off), hw)
			}
		}
		assert.Equal(t, angleSteps-1, angleIndex(2*hw, hw), "beyond the end: the widest angle")
	}
}
