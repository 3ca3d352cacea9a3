package play

import (
	"image"
	"slices"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"pharaon/kiosk/ui/art"
)

// The screens show their art as images rasterised once per size with
// art.Rasterize and handed to canvas.Image as pixels (Image, not Resource).
// Why: Fyne rasterises an SVG image again whenever it is refreshed, and it
// refreshes an image that comes back into view or whose caches expired (a
// minute); its SVG cache also holds one size per drawing, so a symbol shown
// at two sizes (the wall, the cartouche) would be rasterised again and
// again, and a full-screen backdrop takes a second or more each time (see
// art.Rasterize). pixels are never rasterised again: at worst Fyne uploads
// them to the GPU anew. So a frame never rasterises, and a layout only once
// per drawing and size.

// rasterKey names one rasterisation.
type rasterKey struct {
	name string
	w, h int
	fill canvas.ImageFill
}

// rasterCache holds the rasters of the screens' art, shared by every
// Screens, game screen, playfield and cartouche: a raster depends only on
// the drawing, the size and the fill. It is bounded in bytes: past the
// bound it lets go of the rasters used least recently (a size no longer
// shown, after a resize or a change of screen) until the new one fits. A
// kiosk shows a handful of sizes, some 7 MB of pixels at 1280×800 and about
// 2,5 times that at 1920×1080 (docs/performance.md), so the bound is only
// reached by sizes that are no longer shown; a raster let go of is made
// again at its next use, and the Go heap keeps it only while an image
// shows it.
type rasterCache struct {
	mu    sync.Mutex
	m     map[rasterKey]*rasterEntry
	bytes int
	max   int    // the bound in bytes
	tick  uint64 // counts the uses, for the least recent
}

// rasterEntry is a raster and when it was last used (rasterCache.tick).
// A raster no screen shows for a while (Rest) is kept packed instead.
type rasterEntry struct {
	img    *image.RGBA
	packed *packedRaster
	used   uint64
}

// size is what e holds, in bytes.
func (e *rasterEntry) size() int {
	if e.img != nil {
		return len(e.img.Pix)
	}
	return e.packed.size()
}

// rasterCacheBytes bounds the pixels the cache holds: twice and a half
// what a 1920×1080 kiosk shows.
const rasterCacheBytes = 64 << 20

var rasters = newRasterCache(rasterCacheBytes)

func newRasterCache(max int) *rasterCache {
	return &rasterCache{m: make(map[rasterKey]*rasterEntry), max: max}
}

// lookup returns the raster under k, marked as used now.
func (c *rasterCache) lookup(k rasterKey) (*image.RGBA, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		return nil, false
	}
	c.tick++
	e.used = c.tick
	if e.img == nil { // resting: unpacked for its use (a few ms)
		c.bytes -= e.size()
		e.img, e.packed = e.packed.unpack(), nil
		c.bytes += e.size()
	}
	return e.img, true
}

// rest packs the rasters of the drawing named name (Rest).
func (c *rasterCache) rest(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if k.name != name || e.img == nil {
			continue
		}
		c.bytes -= e.size()
		e.img, e.packed = nil, pack(e.img)
		c.bytes += e.size()
	}
}

// get returns res rasterised at w×h pixels, meeting them as fill says
// (art.Rasterize); nil if the drawing cannot be rasterised.
func (c *rasterCache) get(res fyne.Resource, w, h int, fill canvas.ImageFill) *image.RGBA {
	k := rasterKey{res.Name(), w, h, fill}
	if img, ok := c.lookup(k); ok {
		return img
	}
	ras, err := art.Rasterize(res, w, h, fill)
	if err != nil {
		fyne.LogError("rasterize "+res.Name(), err)
		return nil
	}
	c.put(k, ras)
	return ras
}

// warm rasterises res at size (canvas units; pixels are size × scale)
// ahead of its use, so that the frame that first shows it does not.
func (c *rasterCache) warm(res fyne.Resource, size fyne.Size, scale float32) {
	if w, h := Pixels(size, scale); w > 0 && h > 0 {
		c.get(res, w, h, canvas.ImageFillStretch)
	}
}

// bands returns the top and bottom bands, top and bottom pixels high, of res
// rasterised at w×h as fill says: the parts of a backdrop worth drawing
// (see Playfield). Each band is its own image (a sub-image would not do:
// Fyne uploads an RGBA image's pixels as if they were its whole width).
func (c *rasterCache) bands(res fyne.Resource, w, h, top, bottom int, fill canvas.ImageFill) (*image.RGBA, *image.RGBA) {
	if top < 1 || bottom < 1 || top+bottom > h {
		return nil, nil
	}
	kt := rasterKey{res.Name() + "#top", w, top, fill}
	kb := rasterKey{res.Name() + "#bottom", w, bottom, fill}
	t, okT := c.lookup(kt)
	b, okB := c.lookup(kb)
	if okT && okB {
		return t, b
	}
	full, err := art.Rasterize(res, w, h, fill)
	if err != nil {
		fyne.LogError("rasterize "+res.Name(), err)
		return nil, nil
	}
	crop := func(y0, y1 int) *image.RGBA {
		band := image.NewRGBA(image.Rect(0, 0, w, y1-y0))
		for y := y0; y < y1; y++ {
			copy(band.Pix[(y-y0)*band.Stride:(y-y0+1)*band.Stride], full.Pix[y*full.Stride:y*full.Stride+4*w])
		}
		return band
	}
	t, b = crop(0, top), crop(h-bottom, h)
	c.put(kt, t)
	c.put(kb, b)
	return t, b
}

// put keeps img under k, letting go of the rasters used least recently
// until it fits the bound (a raster larger than the bound is kept alone).
func (c *rasterCache) put(k rasterKey, img *image.RGBA) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[k]; ok {
		c.bytes -= old.size()
		delete(c.m, k)
	}
	for c.bytes+len(img.Pix) > c.max && len(c.m) > 0 {
		var oldest rasterKey
		first := true
		for key, e := range c.m {
			if first || e.used < c.m[oldest].used {
				oldest, first = key, false
			}
		}
		c.bytes -= c.m[oldest].size()
		delete(c.m, oldest)
	}
	c.tick++
	c.m[k] = &rasterEntry{img: img, used: c.tick}
	c.bytes += len(img.Pix)
}

// Rest packs the rasters of res until their next use (Raster): for a
// drawing no screen shows for a while, such as the home screen's backdrop
// during a game. Its pixels are then kept as runs of equal pixels, about a
// fifth of their size for the kiosk's flat-coloured drawings, and unpacked
// in a few milliseconds when a screen shows it again, instead of a second
// of rasterising. The caller lets go of the raster (an image showing it
// would keep it).
func Rest(res fyne.Resource) { rasters.rest(res.Name()) }

// packedRaster is a raster as runs of equal pixels, row after row.
type packedRaster struct {
	rect image.Rectangle
	runs []uint32 // how many pixels of each run
	px   []uint32 // the pixel of each run, its four bytes R, G, B, A
}

func pack(img *image.RGBA) *packedRaster {
	p := &packedRaster{rect: img.Rect}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for i := 0; i < len(row); i += 4 {
			v := uint32(row[i]) | uint32(row[i+1])<<8 | uint32(row[i+2])<<16 | uint32(row[i+3])<<24
			if n := len(p.px); n > 0 && p.px[n-1] == v {
				p.runs[n-1]++
				continue
			}
			p.px = append(p.px, v)
			p.runs = append(p.runs, 1)
		}
	}
	p.runs, p.px = slices.Clip(p.runs), slices.Clip(p.px)
	return p
}

func (p *packedRaster) unpack() *image.RGBA {
	img := image.NewRGBA(p.rect)
	i := 0
	for r, n := range p.runs {
		v := p.px[r]
		b0, b1, b2, b3 := byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		for end := i + 4*int(n); i < end; i += 4 {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = b0, b1, b2, b3
		}
	}
	return img
}

func (p *packedRaster) size() int { return 4 * (cap(p.runs) + cap(p.px)) }

// Raster is res rasterised at w×h pixels from the cache the game widget
// shares with the screens, meeting them as fill says (art.Rasterize); nil if
// the drawing cannot be rasterised.
func Raster(res fyne.Resource, w, h int, fill canvas.ImageFill) *image.RGBA {
	return rasters.get(res, w, h, fill)
}

// Cached reports whether the raster cache holds res at w×h as fill says,
// without making it.
func Cached(res fyne.Resource, w, h int, fill canvas.ImageFill) bool {
	rasters.mu.Lock()
	defer rasters.mu.Unlock()
	_, ok := rasters.m[rasterKey{res.Name(), w, h, fill}]
	return ok
}

// Pixels is size in pixels at scale, rounded.
func Pixels(size fyne.Size, scale float32) (w, h int) {
	return int(size.Width*scale + 0.5), int(size.Height*scale + 0.5)
}

// setPixels shows ras, a raster of the object's own pixel size, on img at
// size: nearest sampling copies it as it is (linear sampling would only
// blur it at a sub-pixel position) and costs a software GL (the kiosk's
// llvmpipe) a quarter of the texture reads.
func setPixels(img *canvas.Image, ras *image.RGBA, size fyne.Size) {
	showRaster(img, ras, size, canvas.ImageScalePixels)
}

// showRaster shows ras on img at size, stretched and sampled as mode,
// refreshing img only when its pixels change (the rasters of the cache).
func showRaster(img *canvas.Image, ras *image.RGBA, size fyne.Size, mode canvas.ImageScale) {
	if ras == nil {
		return
	}
	if img.Image != ras || img.Resource != nil {
		img.Resource, img.File = nil, ""
		img.Image = ras
		img.FillMode = canvas.ImageFillStretch
		img.ScaleMode = mode
		img.Refresh()
	}
	img.Resize(size)
}

// setArt shows res on img at size (in canvas units; pixels are size ×
// scale), stretched to it: the raster is made once, and img is refreshed
// only when its pixels or its size change. If the drawing cannot be
// rasterised, img shows the resource the Fyne way.
func setArt(img *canvas.Image, res fyne.Resource, size fyne.Size, scale float32) {
	setArtFill(img, res, size, scale, canvas.ImageFillStretch)
}

// setArtFill is setArt with the drawing meeting the size as fill says
// (canvas.ImageFillCover for a backdrop).
func setArtFill(img *canvas.Image, res fyne.Resource, size fyne.Size, scale float32, fill canvas.ImageFill) {
	if res == nil {
		return
	}
	w, h := Pixels(size, scale)
	if w < 1 || h < 1 {
		return
	}
	ras := rasters.get(res, w, h, fill)
	if ras == nil {
		if img.Resource != res {
			img.Image, img.Resource = nil, res
			img.FillMode = canvas.ImageFillContain
			img.Refresh()
		}
		img.Resize(size)
		return
	}
	setPixels(img, ras, size)
}

// canvasScale is the scale of the canvas o is drawn on (1 before it is on
// one): canvas units to pixels.
func canvasScale(o fyne.CanvasObject) float32 {
	if a := fyne.CurrentApp(); a != nil {
		if c := a.Driver().CanvasForObject(o); c != nil && c.Scale() > 0 {
			return c.Scale()
		}
	}
	return 1
}
