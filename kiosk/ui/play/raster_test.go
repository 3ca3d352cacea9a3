package play

import (
	"testing"

	"fyne.io/fyne/v2/canvas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/ui/art"
)

// TestRasterCacheEvictsLeastRecent: past its bound the cache lets go of the
// raster used least recently (a size no longer shown), keeps the others,
// and makes a raster let go of again at its next use.
func TestRasterCacheEvictsLeastRecent(t *testing.T) {
	ball := art.BallResource()
	c := newRasterCache(3 * 10 * 10 * 4) // three 10×10 rasters
	a := c.get(ball, 10, 10, canvas.ImageFillStretch)
	b := c.get(ball, 10, 10, canvas.ImageFillContain)
	d := c.get(ball, 10, 10, canvas.ImageFillCover)
	require.NotNil(t, a)
	require.NotNil(t, b)
	require.NotNil(t, d)
	assert.Equal(t, 3*400, c.bytes)

	assert.Same(t, a, c.get(ball, 10, 10, canvas.ImageFillStretch), "a kept raster is not made again")
	e := c.get(ball, 10, 20, canvas.ImageFillStretch) // 800 bytes: two must go
	require.NotNil(t, e)
	assert.Len(t, c.m, 2)
	assert.Equal(t, 400+800, c.bytes)
	_, hasB := c.m[rasterKey{ball.Name(), 10, 10, canvas.ImageFillContain}]
	_, hasD := c.m[rasterKey{ball.Name(), 10, 10, canvas.ImageFillCover}]
	assert.False(t, hasB || hasD, "the least recently used go first")
	assert.Same(t, a, c.get(ball, 10, 10, canvas.ImageFillStretch), "the raster used last stays")

	b2 := c.get(ball, 10, 10, canvas.ImageFillContain)
	require.NotNil(t, b2)
	assert.NotSame(t, b, b2, "made again")
	assert.Equal(t, b.Pix, b2.Pix)
	assert.LessOrEqual(t, c.bytes, c.max)
}

// TestRasterCacheBands: the backdrop's bands count in the bound and are
// let go of like any raster; a raster larger than the bound is kept alone.
func TestRasterCacheBands(t *testing.T) {
	bd := art.PlayfieldBackdropResource()
	c := newRasterCache(40 * 10 * 4)
	top, bottom := c.bands(bd, 40, 30, 6, 4, canvas.ImageFillCover)
	require.NotNil(t, top)
	require.NotNil(t, bottom)
	assert.Equal(t, (6+4)*40*4, c.bytes)
	t2, b2 := c.bands(bd, 40, 30, 6, 4, canvas.ImageFillCover)
	assert.Same(t, top, t2)
	assert.Same(t, bottom, b2)

	big := c.get(bd, 40, 30, canvas.ImageFillCover) // 4 800 bytes > 1 600
	require.NotNil(t, big)
	assert.Len(t, c.m, 1)
	assert.Equal(t, len(big.Pix), c.bytes)
}
