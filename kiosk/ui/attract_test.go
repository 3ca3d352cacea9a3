package ui

import (
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The attract loop draws the home backdrop's edges only: the frieze, the
// columns and the base band, a quarter of the window or so, never its
// middle, and nothing outside the window.
func TestAttractBandsEdgesOnly(t *testing.T) {
	for _, c := range []struct {
		sz    image.Point
		bands int
	}{
		{image.Pt(1280, 800), 4}, {image.Pt(1920, 1080), 4},
		{image.Pt(1024, 768), 2}, // 4:3: the cover crops the columns out, on the home screen too
	} {
		sz := c.sz
		win := image.Rect(0, 0, sz.X, sz.Y)
		rs := attractBands(sz.X, sz.Y)
		assert.Len(t, rs, c.bands, "%v: frieze, base, the columns", sz)
		area := 0
		for _, r := range rs {
			assert.True(t, r.In(win), "%v: %v inside the window", sz, r)
			assert.False(t, r.Empty())
			area += r.Dx() * r.Dy()
		}
		centre := image.Pt(sz.X/2, sz.Y/2)
		for _, r := range rs {
			assert.False(t, centre.In(r), "%v: the middle is the theme's lapis", sz)
		}
		assert.Less(t, area, sz.X*sz.Y*35/100, "%v: at most about a third of the window is drawn", sz)
		assert.True(t, image.Pt(0, 0).In(rs[0]) && image.Pt(sz.X-1, sz.Y-1).In(rs[1]), "%v: the corners are the backdrop's", sz)
	}
}
