package art

import (
	"errors"
	"image"
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRasterizeLooksLikeFyne: Rasterize and Fyne's own rendering of a drawing
// agree pixel for pixel, give or take anti-aliasing.
func TestRasterizeLooksLikeFyne(t *testing.T) {
	for _, r := range []fyne.Resource{HomeBackdropResource(), CongratulationFrameResource(), SymbolResource(0, true), GhostMaskResource(), BallResource()} {
		t.Run(r.Name(), func(t *testing.T) {
			size := displaySize(aspectOf(t, r), 120)
			w, h := int(size.Width), int(size.Height)
			fast, err := Rasterize(r, w, h, canvas.ImageFillStretch)
			require.NoError(t, err)
			require.Equal(t, image.Rect(0, 0, w, h), fast.Bounds())
			ref := render(t, r, size.Width, size.Height)
			var diff, n float64
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					a := color.NRGBAModel.Convert(fast.At(x, y)).(color.NRGBA)
					b := ref.NRGBAAt(x, y)
					diff += absDiff(a.R, b.R) + absDiff(a.G, b.G) + absDiff(a.B, b.B) + absDiff(a.A, b.A)
					n += 4
				}
			}
			assert.Less(t, diff/n, 3.0, "mean difference per channel, out of 255")
		})
	}
}

func absDiff(a, b uint8) float64 {
	if a > b {
		return float64(a - b)
	}
	return float64(b - a)
}

func TestRasterizeErrors(t *testing.T) {
	for _, s := range [][2]int{{0, 10}, {10, 0}, {-1, 5}, {maxRasterSide + 1, 10}} {
		_, err := Rasterize(BallResource(), s[0], s[1], canvas.ImageFillContain)
		assert.True(t, errors.Is(err, ErrBadSize), "%v: %v", s, err)
	}
	_, err := Rasterize(fyne.NewStaticResource("broken.svg", []byte(`<svg viewBox="0 0 10 10"><path d="M0 0 L5`)), 10, 10, canvas.ImageFillStretch)
	assert.Error(t, err)
}

// TestRasterizeFill: contain keeps the drawing whole inside the box, cover
// fills the box and crops evenly, both at the drawing's aspect.
func TestRasterizeFill(t *testing.T) {
	ball := BallResource() // a disc touching its square view box
	c, err := Rasterize(ball, 200, 100, canvas.ImageFillContain)
	require.NoError(t, err)
	assert.Zero(t, c.RGBAAt(20, 50).A, "contain leaves the sides empty")
	assert.NotZero(t, c.RGBAAt(100, 50).A)
	assert.NotZero(t, c.RGBAAt(100, 2).A, "the disc reaches the top")
	assert.Zero(t, c.RGBAAt(48, 50).A, "the disc is 100 wide, centred")
	assert.NotZero(t, c.RGBAAt(53, 50).A)

	// cover: the home backdrop (16:9) in a 4:3 box equals the middle of the
	// backdrop drawn at the box's height
	const h = 90
	full, err := Rasterize(HomeBackdropResource(), 160, h, canvas.ImageFillStretch)
	require.NoError(t, err)
	cov, err := Rasterize(HomeBackdropResource(), 120, h, canvas.ImageFillCover)
	require.NoError(t, err)
	var diff, n float64
	for y := 0; y < h; y++ {
		for x := 0; x < 120; x++ {
			a, b := cov.RGBAAt(x, y), full.RGBAAt(x+20, y)
			diff += absDiff(a.R, b.R) + absDiff(a.G, b.G) + absDiff(a.B, b.B)
			n += 3
		}
	}
	assert.Less(t, diff/n, 2.0, "cover crops the sides evenly")
	for _, fill := range []canvas.ImageFill{canvas.ImageFillStretch, canvas.ImageFillContain, canvas.ImageFillCover} {
		img, err := Rasterize(HomeBackdropResource(), 64, 64, fill)
		require.NoError(t, err)
		assert.Equal(t, image.Rect(0, 0, 64, 64), img.Bounds(), "fill %d", fill)
	}
}
