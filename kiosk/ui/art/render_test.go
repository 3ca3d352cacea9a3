package art

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/software"
	"fyne.io/fyne/v2/test"
)

func TestMain(m *testing.M) {
	a := test.NewApp()
	a.Settings().SetTheme(Theme())
	code := m.Run()
	a.Quit()
	os.Exit(code)
}

// render draws res through Fyne's own software painter (the test driver's,
// no display) on a transparent canvas of w×h, the drawing contained and
// centred as the screens show it.
func render(t testing.TB, res fyne.Resource, w, h float32) *image.NRGBA {
	t.Helper()
	c := software.NewTransparentCanvas()
	c.SetPadded(false)
	img := canvas.NewImageFromResource(res)
	img.FillMode = canvas.ImageFillContain
	c.SetContent(img)
	c.Resize(fyne.NewSize(w, h))
	return toNRGBA(c.Capture())
}

func toNRGBA(src image.Image) *image.NRGBA {
	if n, ok := src.(*image.NRGBA); ok {
		return n
	}
	dst := image.NewNRGBA(src.Bounds())
	draw.Draw(dst, dst.Bounds(), src, src.Bounds().Min, draw.Src)
	return dst
}

// pixelStats summarises the opaque part of a rendering.
type pixelStats struct {
	total, opaque int     // all pixels, pixels with alpha > 50%
	dark          float64 // share of opaque pixels darker than 12% luminance
	coloured      float64 // share of opaque pixels both saturated and not dark
	meanAlpha     float64 // mean alpha (0-1) of the pixels that are not fully transparent
	meanLuma      float64 // mean luminance (0-1) of the opaque pixels
	mean          color.NRGBA
}

func statsOf(img *image.NRGBA) pixelStats {
	var s pixelStats
	var dark, col, vis int
	var alphaSum, lumaSum, r, g, b float64
	bnd := img.Bounds()
	s.total = bnd.Dx() * bnd.Dy()
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			p := img.NRGBAAt(x, y)
			if p.A > 0 {
				vis++
				alphaSum += float64(p.A) / 255
			}
			if p.A <= 128 {
				continue
			}
			s.opaque++
			l := luma(p)
			lumaSum += l
			r += float64(p.R)
			g += float64(p.G)
			b += float64(p.B)
			if l < 0.12 {
				dark++
			} else if saturation(p) > 0.25 {
				col++
			}
		}
	}
	if vis > 0 {
		s.meanAlpha = alphaSum / float64(vis)
	}
	if s.opaque > 0 {
		n := float64(s.opaque)
		s.dark = float64(dark) / n
		s.coloured = float64(col) / n
		s.meanLuma = lumaSum / n
		s.mean = color.NRGBA{R: uint8(r / n), G: uint8(g / n), B: uint8(b / n), A: 0xFF}
	}
	return s
}

// luma is the Rec. 709 luminance of a colour's (gamma-encoded) channels.
func luma(c color.NRGBA) float64 {
	return (0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)) / 255
}

func saturation(c color.NRGBA) float64 {
	mx := math.Max(float64(c.R), math.Max(float64(c.G), float64(c.B)))
	mn := math.Min(float64(c.R), math.Min(float64(c.G), float64(c.B)))
	if mx == 0 {
		return 0
	}
	return (mx - mn) / mx
}

// hue in degrees, 0-360.
func hue(c color.NRGBA) float64 {
	r, g, b := float64(c.R)/255, float64(c.G)/255, float64(c.B)/255
	mx := math.Max(r, math.Max(g, b))
	mn := math.Min(r, math.Min(g, b))
	d := mx - mn
	if d == 0 {
		return 0
	}
	var h float64
	switch mx {
	case r:
		h = math.Mod((g-b)/d, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h
}

// hueDistance is the angle between two hues, 0-180.
func hueDistance(a, b float64) float64 {
	d := math.Abs(a - b)
	if d > 180 {
		d = 360 - d
	}
	return d
}

// contrast is the WCAG 2 contrast ratio of two opaque colours (1 to 21).
func contrast(a, b color.NRGBA) float64 {
	la, lb := relLuminance(a), relLuminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func relLuminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}
