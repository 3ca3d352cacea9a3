package ui

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/play"
	"pharaon/kiosk/ui/touch"
)

// The screens are drawn on a virtual landscape screen of designW × designH
// units, scaled uniformly into the window and centred (the backdrops cover
// the whole window). A 1280×800 touchscreen shows it one unit to the pixel;
// a 1920×1080 one at 1.35, so text, buttons and touch targets keep their
// proportions on both (DESIGN.md §8).
const (
	designW = 1280
	designH = 800
)

// Sizes of the screens' text at scale 1, in design units. The art package's
// sizes are for Fyne's widgets; these are the screens' own, a little larger
// where the player reads from a standing position.
const (
	sizeCaption  float32 = 16
	sizeSmall    float32 = 17
	sizeBody     float32 = 19
	sizeButton   float32 = 26
	sizeHeading  float32 = 30
	sizeTitle    float32 = 40
	sizeAmount   float32 = art.AmountSize
	minTouch     float32 = touch.MinTouch
	panelRadius  float32 = 14
	buttonRadius float32 = touch.DefaultRadius
)

// view maps design units onto the canvas: scale k, offset (ox, oy).
type view struct {
	k, ox, oy float32
	size      fyne.Size // the canvas size it was made for
	// large is the player's large text and high contrast (large.go):
	// every text largeScale times its size, in colours of at least 7:1
	// on opaque grounds. zoomed is a view largeScale times larger as a
	// whole (zoom): its text is as large by the scale itself.
	large, zoomed bool
	// boost makes up for a design field drawn smaller in the mode than
	// usual (fieldView): its text is largeScale times the usual field's.
	boost float32
}

// viewFor fits the design screen into size.
func viewFor(size fyne.Size) view {
	k := min(size.Width/designW, size.Height/designH)
	if k <= 0 {
		k = 1
	}
	return view{k: k, ox: (size.Width - designW*k) / 2, oy: (size.Height - designH*k) / 2, size: size}
}

func (v view) pos(x, y float32) fyne.Position { return fyne.NewPos(v.ox+x*v.k, v.oy+y*v.k) }
func (v view) sz(w, h float32) fyne.Size      { return fyne.NewSize(w*v.k, h*v.k) }

// place moves and sizes o to the design rectangle (x, y, w, h).
func (v view) place(o fyne.CanvasObject, x, y, w, h float32) fyne.CanvasObject {
	o.Move(v.pos(x, y))
	o.Resize(v.sz(w, h))
	return o
}

// full sizes o to the whole canvas (backdrops, dimmers).
func (v view) full(o fyne.CanvasObject) fyne.CanvasObject {
	o.Move(fyne.NewPos(0, 0))
	o.Resize(v.size)
	return o
}

// ts is the canvas size of text of design size: largeScale times larger
// in the large-text mode.
func (v view) ts(size float32) float32 {
	if v.large && !v.zoomed {
		return size * v.scale() * v.k
	}
	return size * v.k
}

// text is one line of text at design size, in colour c (its high-contrast
// counterpart in the large-text mode).
func (v view) text(s string, size float32, c color.Color, bold bool) *canvas.Text {
	t := canvas.NewText(s, v.ink(c))
	t.TextSize = v.ts(size)
	t.TextStyle.Bold = bold
	return art.Typeset(t)
}

// textAt places one line of text in the design box (x, y, w) with an
// alignment, its height the line's own.
func (v view) textAt(s string, size float32, c color.Color, bold bool, align fyne.TextAlign, x, y, w float32) *canvas.Text {
	t := v.text(s, size, c, bold)
	t.Alignment = align
	h := t.MinSize().Height / v.k
	v.place(t, x, y, w, h)
	return t
}

// lineHeight is the design height of a line of text at size.
func (v view) lineHeight(size float32, bold bool) float32 {
	return art.MeasureText("Ég", v.ts(size), fyne.TextStyle{Bold: bold}).Height / v.k
}

// para lays a paragraph out in the design box starting at (x, y), w wide,
// breaking lines between words, and returns its lines and the design y
// below the last one.
func (v view) para(s string, size float32, c color.Color, bold bool, align fyne.TextAlign, x, y, w float32) ([]fyne.CanvasObject, float32) {
	style := fyne.TextStyle{Bold: bold}
	lh := v.lineHeight(size, bold)
	var out []fyne.CanvasObject
	for _, line := range wrap(s, w*v.k, v.ts(size), style) {
		t := v.text(line, size, c, bold)
		t.Alignment = align
		v.place(t, x, y, w, lh)
		out = append(out, t)
		y += lh
	}
	return out, y
}

// wrap breaks s into lines no wider than width (canvas pixels) at text size,
// at ordinary spaces only: a no-break space (in "3 750 €") holds. A word
// wider than the line stands alone on its line.
func wrap(s string, width, size float32, style fyne.TextStyle) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		words := strings.FieldsFunc(para, func(r rune) bool { return r == ' ' || r == '\t' })
		line := ""
		for _, w := range words {
			try := w
			if line != "" {
				try = line + " " + w
			}
			if line != "" && art.MeasureText(try, size, style).Width > width {
				lines = append(lines, line)
				line = w
				continue
			}
			line = try
		}
		lines = append(lines, line)
	}
	return lines
}

// panel is the rounded night-blue tablet with a gold rim that holds the
// rules, the stakes, the history.
func (v view) panel(x, y, w, h float32) *canvas.Rectangle {
	return v.panelAlpha(x, y, w, h, 0xD8)
}

// panelAlpha is a panel of the given opacity.
func (v view) panelAlpha(x, y, w, h float32, alpha uint8) *canvas.Rectangle {
	if v.large {
		alpha = 0xFF // text on it is read against its colour alone
	}
	r := canvas.NewRectangle(color.NRGBA{R: art.Night.R, G: art.Night.G, B: art.Night.B, A: alpha})
	r.StrokeColor = art.GoldDark
	r.StrokeWidth = 2 * v.k
	r.CornerRadius = panelRadius * v.k
	v.place(r, x, y, w, h)
	return r
}

// rule is a thin gold line.
func (v view) rule(x, y, w float32) *canvas.Rectangle {
	r := canvas.NewRectangle(art.GoldDark)
	v.place(r, x, y, w, max(1/v.k, 2))
	return r
}

// image shows a drawing contained in the design box.
func (v view) image(res fyne.Resource, x, y, w, h float32) *canvas.Image {
	im := canvas.NewImageFromResource(res)
	im.FillMode = canvas.ImageFillContain
	v.place(im, x, y, w, h)
	return im
}

// artImage is a drawing placed in the design box, contained in it, drawn
// from the raster cache: a window's symbols are rasterised once (or ahead,
// warmWindows), not by Fyne in the frame that first shows them.
func (v view) artImage(res fyne.Resource, x, y, w, h float32) *canvas.Image {
	return v.rastered(res, canvas.ImageFillContain, x, y, w, h)
}

// rastered is a drawing meeting the design box (x, y, w, h) as fill says,
// drawn from the raster cache at the box's pixel size; the Fyne way if the
// drawing cannot be rasterised.
func (v view) rastered(res fyne.Resource, fill canvas.ImageFill, x, y, w, h float32) *canvas.Image {
	pw, ph := play.Pixels(v.sz(w, h), 1)
	var o *canvas.Image
	if ras := play.Raster(res, pw, ph, fill); ras != nil {
		o = canvas.NewImageFromImage(ras)
		o.FillMode = canvas.ImageFillStretch
	} else {
		o = canvas.NewImageFromResource(res)
		o.FillMode = fill
	}
	v.place(o, x, y, w, h)
	return o
}

// dim is a veil over the canvas region (x, y, w, h) behind a window.
func (v view) dim(x, y, w, h float32) *canvas.Rectangle {
	alpha := uint8(0xB0)
	if v.large {
		alpha = 0xF0
	}
	r := canvas.NewRectangle(color.NRGBA{R: art.Night.R, G: art.Night.G, B: art.Night.B, A: alpha})
	v.place(r, x, y, w, h)
	return r
}

// cover is a drawing covering the whole canvas at its aspect (cropped),
// drawn from the raster cache. The screens that show it (home, history,
// out of service) share one image per drawing: a screen is built again at
// every change of what it shows, and under Fyne each new image is a new
// texture of the window's size, kept a minute after it was last drawn (at
// 1280×800, 4 MB of llvmpipe's memory each).
func (s *Screens) cover(v view, res fyne.Resource) fyne.CanvasObject {
	if v.large {
		// The large-text mode's plain ground: no picture behind text.
		return v.full(canvas.NewRectangle(art.Night))
	}
	w, h := play.Pixels(v.size, 1)
	img := play.Raster(res, w, h, canvas.ImageFillCover)
	if img == nil {
		o := canvas.NewImageFromResource(res)
		o.FillMode = canvas.ImageFillCover
		return v.full(o)
	}
	if s.covers == nil {
		s.covers = map[string]cover{}
	}
	o := s.covers[res.Name()].img
	switch {
	case o == nil:
		o = canvas.NewImageFromImage(img)
		o.FillMode = canvas.ImageFillStretch
		s.covers[res.Name()] = cover{res, o}
	case o.Image != img:
		o.Image = img
		o.Refresh()
	}
	return v.full(o)
}

// restCovers lets go of the covers' pixels while a screen without them
// shows (the game): their images show nothing until a screen shows them
// again, the refresh has Fyne free their textures now rather than a
// minute after they were last drawn, and the raster cache keeps the
// pixels packed (play.Rest).
func (s *Screens) restCovers() {
	for _, c := range s.covers {
		if c.img.Image == nil {
			continue
		}
		c.img.Image = nil
		c.img.Refresh()
		play.Rest(c.res)
	}
}

// cover is a drawing and the image that shows it (Screens.cover).
type cover struct {
	res fyne.Resource
	img *canvas.Image
}

// framed is a drawing at pixel size fitting the design box (x, y, w, h),
// drawn from the raster cache.
func (v view) framed(res fyne.Resource, x, y, w, h float32) fyne.CanvasObject {
	return v.rastered(res, canvas.ImageFillStretch, x, y, w, h)
}

// button is a touch button placed in the design box, its text at design size.
func (v view) button(label string, kind buttonKind, size float32, tapped func(), x, y, w, h float32) *touchButton {
	b := newTouchButton(label, kind, v.ts(size), tapped)
	b.Radius = buttonRadius * v.k
	b.HighContrast = v.large
	v.place(b, x, y, w, h)
	return b
}

// DefaultFullBackdropMaxPixels is the largest playfield, in pixels, the
// kiosk draws the whole backdrop behind (Options.FullBackdropMaxPixels).
// Under a software GL each frame draws the sky again, at a cost per pixel:
// the field of a 1280×800 screen (960 × 800, 768 000 pixels) draws it and
// the game screen still costs less CPU than the bare peer scene; the field
// of a 1920×1080 screen (1 296 × 1 080, 1 399 680 pixels) drawing it cost
// 144–148 % of a core against 84–90 % without, and its frame rate fell
// below 60 (docs/performance.md).
const DefaultFullBackdropMaxPixels = 1_000_000

// fullBackdropMaxPixels is the game's playfield's
// SetFullBackdropMaxPixels for opt.
func fullBackdropMaxPixels(opt Options) int {
	switch {
	case opt.PlainPlayfield:
		return 0
	case opt.FullBackdropMaxPixels < 0:
		return play.FullBackdropAlways
	case opt.FullBackdropMaxPixels == 0:
		return DefaultFullBackdropMaxPixels
	}
	return opt.FullBackdropMaxPixels
}
