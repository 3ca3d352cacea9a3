package play

import (
	"image"
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

// TestRasterCacheRest: a resting raster is kept packed, smaller, and its
// next use gives the same pixels back without rasterising the drawing
// again; the other drawings' rasters are left as they are.
func TestRasterCacheRest(t *testing.T) {
	home, ball := art.HomeBackdropResource(), art.BallResource()
	c := newRasterCache(64 << 20)
	full := c.get(home, 1280, 800, canvas.ImageFillCover)
	b := c.get(ball, 10, 10, canvas.ImageFillStretch)
	require.NotNil(t, full)
	require.NotNil(t, b)
	want := append([]byte(nil), full.Pix...)
	before := c.bytes

	c.rest(home.Name())
	assert.Less(t, c.bytes, before-len(full.Pix)*3/4, "packed, the backdrop takes less than a quarter")
	k := rasterKey{home.Name(), 1280, 800, canvas.ImageFillCover}
	assert.Nil(t, c.m[k].img)
	assert.Same(t, b, c.get(ball, 10, 10, canvas.ImageFillStretch), "another drawing's raster is not packed")

	got, ok := c.lookup(k) // unpacked from the cache, not rasterised
	require.True(t, ok)
	assert.Equal(t, want, got.Pix)
	assert.Equal(t, full.Rect, got.Rect)
	assert.Equal(t, before, c.bytes)
	assert.Same(t, got, c.get(home, 1280, 800, canvas.ImageFillCover))
}

// TestPackedRasterRoundTrip: packing keeps every pixel, runs split by a
// row's end or a colour change included.
func TestPackedRasterRoundTrip(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 7, 3))
	for i := range img.Pix {
		img.Pix[i] = byte(i / 12 % 3 * 60) // runs of three pixels
	}
	img.Pix[4*9+3] = 7 // one pixel differs in alpha only
	p := pack(img)
	assert.Less(t, len(p.runs), 7*3)
	assert.Equal(t, img.Pix, p.unpack().Pix)
}
