package art

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/fyne-io/oksvg"
	"github.com/srwiley/rasterx"
)

// ErrBadSize is returned by Rasterize for a size that is not positive or
// absurdly large.
var ErrBadSize = errors.New("size out of range")

// maxRasterSide bounds Rasterize: a 4K screen's width, twice.
const maxRasterSide = 8192

// Rasterize draws an SVG resource into a w×h image with the same SVG reader
// and rasteriser as Fyne (oksvg over rasterx), so it looks the same. fill
// says how the drawing meets the box, as for a canvas.Image:
// canvas.ImageFillStretch fills it exactly, canvas.ImageFillContain fits the
// drawing inside at its aspect (centred, transparent margins) and
// canvas.ImageFillCover covers the box at its aspect, cropping the overflow
// evenly (the backdrops).
//
// Why: Fyne rasterises an SVG into an NRGBA image, for which the vector
// rasteriser has no fast path, and it sweeps the whole image once per SVG
// element; a full-screen backdrop then takes a second or more the first time
// it is shown, and again whenever its cached raster has expired (after a
// minute off screen) and the image is refreshed. Drawing into an RGBA image
// takes the rasteriser's fast path for flat fills: several times quicker
// (BenchmarkRasterise against BenchmarkRasterizeFyne). A screen can rasterise
// its backdrops once, off the UI goroutine, and show them with
// canvas.NewImageFromImage, which Fyne never re-rasterises.
func Rasterize(res fyne.Resource, w, h int, fill canvas.ImageFill) (img *image.RGBA, err error) {
	if w <= 0 || h <= 0 || w > maxRasterSide || h > maxRasterSide {
		return nil, fmt.Errorf("rasterize %s at %d×%d: %w", res.Name(), w, h, ErrBadSize)
	}
	icon, err := oksvg.ReadIconStream(bytes.NewReader(res.Content()))
	if err != nil {
		return nil, fmt.Errorf("rasterize %s: read svg: %w", res.Name(), err)
	}
	x, y, tw, th := float64(0), float64(0), float64(w), float64(h)
	if vw, vh := icon.ViewBox.W, icon.ViewBox.H; vw > 0 && vh > 0 && fill != canvas.ImageFillStretch {
		scale := math.Min(tw/vw, th/vh)
		if fill == canvas.ImageFillCover {
			scale = math.Max(tw/vw, th/vh)
		}
		tw, th = vw*scale, vh*scale
		x, y = (float64(w)-tw)/2, (float64(h)-th)/2
	}
	icon.SetTarget(x, y, tw, th)
	img = image.NewRGBA(image.Rect(0, 0, w, h))
	scanner := rasterx.NewScannerGV(w, h, img, img.Bounds())
	defer func() {
		// rasterx panics on some malformed paths; Fyne recovers the same way
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("rasterize %s: %v", res.Name(), r)
		}
	}()
	icon.Draw(rasterx.NewDasher(w, h, scanner), 1)
	return img, nil
}
