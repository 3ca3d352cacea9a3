package play

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
	"pharaon/kiosk/ui/art"
)

// Sizes of what the playfield draws beyond the engine's own geometry, in
// field units (the engine's lengths divided by breakout.Unit).
const (
	fieldW, fieldH = float32(breakout.FieldWidth / breakout.Unit), float32(breakout.FieldHeight / breakout.Unit)

	plaqueSide = 58 // the limestone roundel behind a revealed symbol
	symbolSide = 44 // a revealed symbol on its plaque
	stoneSide  = 50 // a revealed spell stone

	barGap    = 6 // between the paddle and its first stone timer bar
	barHeight = 6
	barPitch  = 10

	hudTop     = 66 // the status band, under the backdrop's frieze and above the wall (at 130)
	hudHeight  = 52
	hudMargin  = 24
	hudText    = 28 // text size of the status band
	hudGemSide = 50
	hudPitch   = 190 // from one stone timer to the next
	badgeW     = 170

	ghostHeight = 600 // the ghost mask (Art. 4.4)
	ghostCentre = 480

	// how long a fallen brick's content takes to appear, and the red
	// brick's flash when hit
	revealFade = 220 * time.Millisecond
	redFlash   = 320 * time.Millisecond
	// the period of the ring that invites the player to tap the ball
	hintPeriod = 1200 * time.Millisecond

	// What the playfield says to do (field units): the hint to tap the
	// ball, above the paddle; the countdown before Auto and the notice of
	// a resumed game, on plaques across the field (DESIGN.md §8). The
	// button that finishes the wall in Auto is the game screen's, beside
	// the field (gamescreen_finish.go): every point of the field steers
	// the paddle.
	tipY         = 800
	tipText      = 30
	countY       = 560
	countW       = 820
	countH       = 76
	noticeY      = 560
	noticeW      = 520
	noticeH      = 110
	noticeText   = 48
	countdownMax = 10 // the countdown shows the last seconds before Auto

	// how long the ghost mask takes to fade in and out, in engine ticks
	ghostFadeTicks = breakout.TicksPerSecond / 5
)

// fieldGeom maps the field onto the widget: S pixels per field unit, the
// field's top left at (X, Y).
type fieldGeom struct{ X, Y, S float32 }

func newFieldGeom(size fyne.Size) fieldGeom {
	s := size.Width / fieldW
	if h := size.Height / fieldH; h < s {
		s = h
	}
	if s <= 0 {
		s = 0
	}
	return fieldGeom{X: (size.Width - fieldW*s) / 2, Y: (size.Height - fieldH*s) / 2, S: s}
}

// pos is the pixel position of a point in sub-units.
func (g fieldGeom) pos(x, y int32) fyne.Position {
	return fyne.NewPos(g.X+float32(x)*g.S/breakout.Unit, g.Y+float32(y)*g.S/breakout.Unit)
}

// len is a length in sub-units, in pixels.
func (g fieldGeom) len(v int32) float32 { return float32(v) * g.S / breakout.Unit }

// unitPos and unitSize place things given in field units.
func (g fieldGeom) unitPos(x, y float32) fyne.Position {
	return fyne.NewPos(g.X+x*g.S, g.Y+y*g.S)
}
func (g fieldGeom) unitSize(w, h float32) fyne.Size { return fyne.NewSize(w*g.S, h*g.S) }

// rect places an engine rectangle.
func (g fieldGeom) rect(r breakout.Rect) (fyne.Position, fyne.Size) {
	return g.pos(r.X, r.Y), fyne.NewSize(g.len(r.W), g.len(r.H))
}

// centred places a square of side field units centred on the centre of r.
func (g fieldGeom) centred(r breakout.Rect, side float32) (fyne.Position, fyne.Size) {
	c := g.pos(r.X+r.W/2, r.Y+r.H/2)
	d := side * g.S
	return fyne.NewPos(c.X-d/2, c.Y-d/2), fyne.NewSize(d, d)
}

// toFieldX is the field x, in sub-units, under pixel x, clamped to the field.
func (g fieldGeom) toFieldX(px float32) int32 {
	if g.S <= 0 {
		return breakout.FieldWidth / 2
	}
	v := (px - g.X) / g.S * breakout.Unit
	switch {
	case v < 0:
		return 0
	case v > breakout.FieldWidth:
		return breakout.FieldWidth
	}
	return int32(v)
}

// slotKind is what a brick slot shows once its brick has fallen.
type slotKind uint8

const (
	slotUnused slotKind = iota // the wall has fewer bricks
	slotEmpty                  // nothing under the brick: a recess
	slotSymbol                 // a symbol on its plaque (Art. 4.2)
	slotStone                  // a spell stone (Art. 4.5)
	slotRed                    // the bonus wall's red brick (Art. 4.7)
)

// brickSlot is one brick of the wall and what lies under it.
type brickSlot struct {
	brick   *canvas.Image // the sandstone brick
	plaque  *canvas.Image // behind a symbol
	content *canvas.Image // the symbol, the stone or the recess
	kind    slotKind
	res     fyne.Resource // content's drawing
	hits    int           // the hits drawn; -1 when the slot must be drawn again
	fading  bool          // content fading in
}

// hudStone is the status band's timer of one spell stone.
type hudStone struct {
	gem       *canvas.Image
	secs      *canvas.Text
	shownSecs int // -1 hidden
}

type playfieldRenderer struct {
	p       *Playfield
	objects []fyne.CanvasObject
	geom    fieldGeom
	size    fyne.Size
	scale   float32 // canvas units to pixels, for the rasters

	sky      *canvas.Image     // the whole backdrop (Playfield.SetFullBackdropMaxPixels)
	frieze   *canvas.Image     // the backdrop's top band
	base     *canvas.Image     // the backdrop's bottom band
	marker   *canvas.Rectangle // moved to have the canvas drawn again
	slots    [maxBricks]brickSlot
	red      *canvas.Image // the red brick, intact and cracked
	cracked  *canvas.Image
	flash    *canvas.Rectangle
	redSlot  int
	bars     [game.NumStones]*canvas.Rectangle
	paddle   [3]*canvas.Image // left cap, middle, right cap
	paddleW  float32          // the paddle width laid out, in pixels
	ball     *canvas.Image
	hint     *canvas.Circle // pulses round a ball waiting for the player's tap
	stones   [game.NumStones]hudStone
	badge    *canvas.Rectangle
	badgeTxt *canvas.Text
	redCap   *canvas.Text
	redPips  [2][2]*canvas.Image // [hit][empty, full]
	redCount *canvas.Text
	ghost    *canvas.Image

	tip       *canvas.Text      // "tap the ball"
	tipBg     *canvas.Rectangle // its plate, in the large-text mode
	tipObjs   []fyne.CanvasObject
	hudBand   *canvas.Rectangle // the status band's ground, in the large-text mode
	countBg   *canvas.Rectangle // the countdown before Auto
	countTxt  *canvas.Text
	countTxt2 *canvas.Text             // its second line, in the large-text mode
	countText [countdownMax + 1]string // per second, made when the language changes
	countHead [countdownMax + 1]string // countText's first line, in the large-text mode
	countTail string                   // and its second
	countObjs []fyne.CanvasObject
	countSecs int               // the second shown, 0 none, -1 not known
	noticeBg  *canvas.Rectangle // "game resumed"
	noticeTxt *canvas.Text

	// what is drawn, to skip what did not change
	autoShown   shownState
	redHits     int
	bonus       shownState
	flashOn     shownState
	ghostOn     shownState
	ballShown   shownState
	hintShown   shownState
	paddleShown shownState
	tipShown    shownState
	noticeShown shownState
}

// newArtImage is an image that setArt will give its pixels.
func newArtImage() *canvas.Image {
	img := canvas.NewImageFromImage(nil)
	img.FillMode = canvas.ImageFillStretch
	img.Hide()
	return img
}

func newPlayfieldRenderer(p *Playfield) *playfieldRenderer {
	r := &playfieldRenderer{p: p, redSlot: -1, redHits: -1, scale: 1}
	add := func(o ...fyne.CanvasObject) { r.objects = append(r.objects, o...) }

	r.sky, r.frieze, r.base = newArtImage(), newArtImage(), newArtImage()
	r.marker = canvas.NewRectangle(color.Transparent)
	r.marker.Resize(fyne.NewSize(1, 1))
	// The frieze is added after the ball: the ball rises to the field's
	// top, which the frieze covers, and passes under it.
	add(r.sky, r.base, r.marker)

	for i := range r.slots {
		s := &r.slots[i]
		s.plaque = newArtImage()
		s.content = newArtImage()
		add(s.plaque, s.content)
	}
	for i := range r.slots {
		s := &r.slots[i]
		s.brick = newArtImage()
		add(s.brick)
	}
	r.red, r.cracked = newArtImage(), newArtImage()
	r.flash = canvas.NewRectangle(color.Transparent)
	r.flash.CornerRadius = 4
	r.flash.Hide()
	add(r.red, r.cracked, r.flash)

	for s := range r.bars {
		b := canvas.NewRectangle(art.StoneColor(game.Stone(s)))
		b.CornerRadius = 3
		b.Hide()
		r.bars[s] = b
		add(b)
	}
	for i := range r.paddle {
		r.paddle[i] = newArtImage()
	}
	add(r.paddle[1], r.paddle[0], r.paddle[2]) // the caps over the middle's ends
	r.ball = newArtImage()
	r.hint = canvas.NewCircle(color.Transparent)
	r.hint.StrokeWidth = 3
	r.hint.Hide()
	add(r.ball, r.hint, r.frieze)
	r.hudBand = canvas.NewRectangle(art.Night)
	r.hudBand.Hide()
	add(r.hudBand)

	for s := range r.stones {
		h := &r.stones[s]
		h.gem = newArtImage()
		h.secs = canvas.NewText("", art.GoldLight)
		h.secs.TextStyle.Bold = true
		art.Typeset(h.secs)
		h.shownSecs = -1
		h.secs.Hide()
		add(h.gem, h.secs)
	}
	r.badge = canvas.NewRectangle(art.Terracotta)
	r.badge.StrokeColor = art.GoldLight
	r.badge.StrokeWidth = 2
	r.badge.CornerRadius = 12
	r.badgeTxt = canvas.NewText("", art.Limestone)
	r.badgeTxt.TextStyle.Bold = true
	r.badgeTxt.Alignment = fyne.TextAlignCenter
	r.badge.Hide()
	r.badgeTxt.Hide()
	add(r.badge, r.badgeTxt)

	r.redCap = canvas.NewText("", art.Sand)
	r.redCap.TextStyle.Bold = true
	r.redCount = canvas.NewText("", art.GoldLight)
	r.redCount.TextStyle.Bold = true
	r.redCap.Hide()
	r.redCount.Hide()
	add(r.redCap)
	for i := range r.redPips {
		for f := range r.redPips[i] {
			r.redPips[i][f] = newArtImage()
			add(r.redPips[i][f])
		}
	}
	add(r.redCount)

	r.ghost = newArtImage()
	add(r.ghost)

	r.tip = canvas.NewText("", art.TurquoiseLight)
	r.tip.TextStyle.Bold = true
	r.tip.Alignment = fyne.TextAlignCenter
	r.tipBg = canvas.NewRectangle(art.Night)
	r.countTxt2 = canvas.NewText("", art.Limestone)
	r.countTxt2.TextStyle.Bold = true
	r.countTxt2.Alignment = fyne.TextAlignCenter
	r.countBg = canvas.NewRectangle(color.NRGBA{R: 0x0A, G: 0x12, B: 0x33, A: 0xD8})
	r.countBg.StrokeColor = art.Alert
	r.countBg.StrokeWidth = 2
	r.countTxt = canvas.NewText("", art.Limestone)
	r.countTxt.TextStyle.Bold = true
	r.countTxt.Alignment = fyne.TextAlignCenter
	r.noticeBg = canvas.NewRectangle(color.NRGBA{R: 0x0A, G: 0x12, B: 0x33, A: 0xE0})
	r.noticeBg.StrokeColor = art.GoldLight
	r.noticeBg.StrokeWidth = 3
	r.noticeTxt = canvas.NewText("", art.GoldLight)
	r.noticeTxt.TextStyle.Bold = true
	r.noticeTxt.Alignment = fyne.TextAlignCenter
	hideAll(r.tip, r.tipBg, r.countBg, r.countTxt, r.countTxt2, r.noticeBg, r.noticeTxt)
	r.countSecs = -1
	add(r.tipBg, r.tip, r.countBg, r.countTxt, r.countTxt2, r.noticeBg, r.noticeTxt)
	for _, t := range []*canvas.Text{r.badgeTxt, r.redCap, r.redCount, r.tip, r.countTxt, r.countTxt2, r.noticeTxt} {
		art.Typeset(t)
	}
	r.applyInks()

	r.applyLabels()
	r.setWorld()
	return r
}

func (r *playfieldRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *playfieldRenderer) Destroy() {
	if r.p.rend == r {
		r.p.rend = nil
	}
}

// MinSize lets the playfield be small; the game screen sizes it.
func (r *playfieldRenderer) MinSize() fyne.Size { return fyne.NewSize(120, 100) }

// Refresh draws everything again from the world (a theme change, a new
// wall); it rasterises nothing that keeps its size.
func (r *playfieldRenderer) Refresh() {
	r.applyLabels()
	r.forceAll()
	r.update()
	canvas.Refresh(r.marker)
}

// Layout places everything for a new size: the only time the art is
// rasterised (once per drawing and size, see setArt).
func (r *playfieldRenderer) Layout(size fyne.Size) {
	r.size = size
	r.geom = newFieldGeom(size)
	r.scale = canvasScale(r.p)
	g := r.geom

	r.layoutBackdrop()

	r.layoutSlots()

	ts := hudText * g.S * r.p.textScale()
	if r.p.large {
		r.hudBand.Move(g.unitPos(0, hudTop-4))
		r.hudBand.Resize(g.unitSize(fieldW, hudHeight+8))
	}
	for s := range r.stones {
		h := &r.stones[s]
		r.art(h.gem, art.StoneResource(game.Stone(s)), g.unitSize(hudGemSide, hudGemSide))
		h.secs.TextSize = ts
		h.secs.Refresh()
	}
	bw := float32(badgeW)
	if r.p.large {
		bw = badgeW * LargeScale
	}
	r.badge.Move(g.unitPos(fieldW-hudMargin-bw, hudTop))
	r.badge.Resize(g.unitSize(bw, hudHeight))
	r.badge.CornerRadius = 14 * g.S
	r.badgeTxt.TextSize = ts
	r.badgeTxt.Refresh()
	bt := r.badgeTxt.MinSize()
	r.badgeTxt.Move(fyne.NewPos(r.badge.Position().X, r.badge.Position().Y+(hudHeight*g.S-bt.Height)/2))
	r.badgeTxt.Resize(fyne.NewSize(bw*g.S, bt.Height))

	r.layoutRedHud()

	d := g.len(2 * breakout.BallRadius)
	r.art(r.ball, art.BallResource(), fyne.NewSize(d, d))

	gh := ghostHeight * g.S
	gw := gh * art.GhostMaskAspect
	r.art(r.ghost, art.GhostMaskResource(), fyne.NewSize(gw, gh))
	r.ghost.Move(fyne.NewPos(g.X+fieldW*g.S/2-gw/2, g.Y+ghostCentre*g.S-gh/2))

	r.layoutGuide()

	r.paddleW = -1
	r.warmPaddle()
	r.warmWall()
	r.forceAll()
	r.update()
}

// layoutBackdrop draws the playfield backdrop's frieze above the field and
// its base band below it; between them the field is the window's own
// background, the theme's lapis. Why not the whole backdrop: under a
// software GL (the kiosk's llvmpipe) a textured quad costs per pixel drawn,
// and a full-field one was half the CPU of every frame, for a night sky
// that differs from plain lapis only by a faint glow and faint stars
// (measured with cmd/pharaon-scenebench: 15 ms of CPU a frame with it, 7
// without). A kiosk with a GPU can have it all: SetFullBackdropMaxPixels.
func (r *playfieldRenderer) layoutBackdrop() {
	g := r.geom
	size := g.unitSize(fieldW, fieldH)
	w, h := Pixels(size, r.scale)
	// The backdrop covers the 6:5 field by its height (it is 4:3), so
	// its bands keep their share of the height (art.PlayfieldInner).
	in := art.PlayfieldInner
	top := int(in.Y*float32(h) + 0.5)
	if w*h <= r.p.fullMax {
		// The whole backdrop, as its frieze and the rest under it: the
		// frieze is drawn over the ball (newPlayfieldRenderer), the rest
		// under everything; together the same pixels as one image.
		r.base.Hide()
		t, rest := rasters.bands(art.PlayfieldBackdropResource(), w, h, top, h-top, canvas.ImageFillCover)
		if t == nil || rest == nil {
			r.frieze.Hide()
			r.sky.Move(fyne.NewPos(g.X, g.Y))
			setArtFill(r.sky, art.PlayfieldBackdropResource(), size, r.scale, canvas.ImageFillCover)
			r.sky.Show()
			return
		}
		th := float32(top) / r.scale
		r.frieze.Move(fyne.NewPos(g.X, g.Y))
		setPixels(r.frieze, t, fyne.NewSize(size.Width, th))
		r.sky.Move(fyne.NewPos(g.X, g.Y+th))
		setPixels(r.sky, rest, fyne.NewSize(size.Width, size.Height-th))
		r.frieze.Show()
		r.sky.Show()
		return
	}
	r.sky.Hide()
	bottom := h - int((in.Y+in.H)*float32(h)+0.5)
	t, b := rasters.bands(art.PlayfieldBackdropResource(), w, h, top, bottom, canvas.ImageFillCover)
	if t == nil || b == nil || w < 1 || h < 1 {
		r.frieze.Hide()
		r.base.Hide()
		return
	}
	th, bh := float32(top)/r.scale, float32(bottom)/r.scale
	r.frieze.Move(fyne.NewPos(g.X, g.Y))
	setPixels(r.frieze, t, fyne.NewSize(size.Width, th))
	r.base.Move(fyne.NewPos(g.X, g.Y+size.Height-bh))
	setPixels(r.base, b, fyne.NewSize(size.Width, bh))
	r.frieze.Show()
	r.base.Show()
}

// art shows res on img at size, rasterised once (setArt).
func (r *playfieldRenderer) art(img *canvas.Image, res fyne.Resource, size fyne.Size) {
	setArt(img, res, size, r.scale)
}

// layoutSlots sizes and places every brick slot for the wall and the size.
func (r *playfieldRenderer) layoutSlots() {
	if r.size.Width <= 0 {
		return
	}
	g := r.geom
	var bricks []breakout.Brick
	if w := r.p.world; w != nil {
		bricks = w.Bricks()
	}
	for i := range r.slots {
		s := &r.slots[i]
		if i >= len(bricks) || s.kind == slotUnused {
			continue
		}
		rc := bricks[i].Rect
		pos, size := g.rect(rc)
		if s.kind == slotRed {
			r.red.Move(pos)
			r.art(r.red, art.BonusBrickResource(false), size)
			r.cracked.Move(pos)
			r.art(r.cracked, art.BonusBrickResource(true), size)
			r.flash.Move(pos)
			r.flash.Resize(size)
		} else {
			s.brick.Move(pos)
			r.art(s.brick, art.BrickResource(i), size)
		}
		switch s.kind {
		case slotSymbol:
			pp, ps := g.centred(rc, plaqueSide)
			s.plaque.Move(pp)
			r.art(s.plaque, art.SymbolPlaqueResource(), ps)
			pos, size = g.centred(rc, symbolSide)
		case slotStone:
			pos, size = g.centred(rc, stoneSide)
		}
		s.content.Move(pos)
		r.art(s.content, s.res, size)
	}
}

// layoutRedHud lays out the bonus wall's count: caption, two pips, "n/2",
// centred in the status band.
func (r *playfieldRenderer) layoutRedHud() {
	g := r.geom
	ts := hudText * g.S * r.p.textScale()
	r.redCap.TextSize = ts
	r.redCap.Refresh()
	r.redCount.TextSize = ts
	r.redCount.Text = redHitsText[2] // measure the widest
	r.redCount.Refresh()
	cs, ns := r.redCap.MinSize(), r.redCount.MinSize()
	pip := 46 * g.S
	gap := 14 * g.S
	total := cs.Width + gap + 2*pip + gap/2 + gap + ns.Width
	x := g.X + fieldW*g.S/2 - total/2
	mid := g.Y + (hudTop+hudHeight/2)*g.S
	r.redCap.Move(fyne.NewPos(x, mid-cs.Height/2))
	r.redCap.Resize(cs)
	x += cs.Width + gap
	for i := range r.redPips {
		for f := range r.redPips[i] {
			r.art(r.redPips[i][f], art.CountPipResource(f == 1), fyne.NewSize(pip, pip))
			r.redPips[i][f].Move(fyne.NewPos(x, mid-pip/2))
		}
		x += pip + gap/2
	}
	x += gap / 2
	r.redCount.Move(fyne.NewPos(x, mid-ns.Height/2))
	r.redCount.Resize(ns)
	r.redHits = -1
}

// applyLabels takes the playfield's words.
func (r *playfieldRenderer) applyLabels() {
	w := r.p.words
	r.badgeTxt.Text = w.Auto
	r.badgeTxt.Refresh()
	r.redCap.Text = w.RedBrick
	r.redCap.Refresh()
	r.tip.Text = w.TapBall
	r.tip.Refresh()
	r.countTail = ""
	for n := 1; n < len(r.countText); n++ {
		r.countText[n], r.countHead[n] = "", ""
		if w.AutoIn != "" {
			r.countText[n] = fmt.Sprintf(w.AutoIn, n)
			r.countHead[n] = r.countText[n]
			if i := strings.Index(r.countText[n], " — "); i > 0 {
				r.countHead[n], r.countTail = r.countText[n][:i], r.countText[n][i+len(" — "):]
			}
		}
	}
	r.countTxt2.Text = r.countTail
	r.countTxt2.Refresh()
	r.countSecs = -1
	r.noticeTxt.Text = w.Resumed
	r.noticeTxt.Refresh()
	if r.size.Width > 0 {
		r.layoutRedHud()
	}
}

// centreLine sizes t to size (field units) and centres its line on the
// field's width at height y.
func centreLine(t *canvas.Text, g fieldGeom, size, y float32) {
	t.TextSize = size * g.S
	t.Refresh()
	h := t.MinSize().Height
	t.Move(fyne.NewPos(g.X, g.Y+y*g.S-h/2))
	t.Resize(fyne.NewSize(fieldW*g.S, h))
}

// layoutGuide places what the playfield says to do (see tipY).
func (r *playfieldRenderer) layoutGuide() {
	g := r.geom
	mid := fieldW / 2
	k := r.p.textScale()
	centreLine(r.tip, g, tipText*k, tipY)
	tw := r.tip.MinSize().Width/g.S + 40
	r.tipBg.Move(g.unitPos(mid-tw/2, tipY-tipText*k*0.8))
	r.tipBg.Resize(g.unitSize(tw, tipText*k*1.6))
	r.tipBg.CornerRadius = 12 * g.S

	cw, ch, nw := float32(countW), float32(countH), float32(noticeW)
	if r.p.large {
		// two lines: the seconds, and what to do
		cw, ch, nw = fieldW-40, countH*2.4, noticeW*LargeScale
		centreLine(r.countTxt, g, tipText*k, countY-ch/4)
		centreLine(r.countTxt2, g, tipText*k, countY+ch/4)
	} else {
		centreLine(r.countTxt, g, tipText, countY)
	}
	r.countBg.Move(g.unitPos(mid-cw/2, countY-ch/2))
	r.countBg.Resize(g.unitSize(cw, ch))
	r.countBg.CornerRadius = 16 * g.S

	r.noticeBg.Move(g.unitPos(mid-nw/2, noticeY-noticeH*k/2))
	r.noticeBg.Resize(g.unitSize(nw, noticeH*k))
	r.noticeBg.CornerRadius = 20 * g.S
	centreLine(r.noticeTxt, g, noticeText*k, noticeY)
}

// setWorld dresses the slots for the playfield's wall: which drawing lies
// under each brick. A new wall changes drawings, so it may rasterise those
// not yet rasterised at their size; frames never do.
func (r *playfieldRenderer) setWorld() {
	var bricks []breakout.Brick
	if w := r.p.world; w != nil {
		bricks = w.Bricks()
	}
	r.redSlot = -1
	for i := range r.slots {
		s := &r.slots[i]
		s.kind = slotUnused
		if i < len(bricks) {
			s.kind = slotKindOf(bricks[i].Content)
			s.res = slotResource(s.kind, bricks, i)
		}
		if s.kind == slotRed {
			r.redSlot = i
		}
	}
	r.layoutSlots()
	r.forceAll()
	r.update()
	canvas.Refresh(r.marker)
}

func slotKindOf(c reveal.Content) slotKind {
	if c.IsRed() {
		return slotRed
	}
	if _, ok := c.Symbol(); ok {
		return slotSymbol
	}
	if _, ok := c.Stone(); ok {
		return slotStone
	}
	return slotEmpty
}

func slotResource(k slotKind, bricks []breakout.Brick, i int) fyne.Resource {
	switch k {
	case slotSymbol:
		s, _ := bricks[i].Content.Symbol()
		return art.SymbolResource(s, true)
	case slotStone:
		s, _ := bricks[i].Content.Stone()
		return art.StoneResource(s)
	case slotEmpty, slotRed:
		return art.SlotResource()
	}
	return nil
}

// applyInks colours the playfield's texts and their grounds for the mode:
// the palette's, or in the large-text mode the high-contrast inks on
// opaque plates (the tip's, the status band's), and says which objects
// the tip and the countdown show.
func (r *playfieldRenderer) applyInks() {
	large := r.p.large
	ink := func(c color.Color) color.Color {
		if large {
			return art.HighContrast(c)
		}
		return c
	}
	r.tip.Color = ink(art.TurquoiseLight)
	r.countTxt.Color, r.countTxt2.Color = ink(art.Limestone), ink(art.Limestone)
	r.noticeTxt.Color = ink(art.GoldLight)
	r.badgeTxt.Color, r.redCap.Color, r.redCount.Color = ink(art.Limestone), ink(art.Sand), ink(art.GoldLight)
	for s := range r.stones {
		r.stones[s].secs.Color = ink(art.GoldLight)
	}
	r.badge.FillColor = art.Terracotta
	r.countBg.FillColor = color.NRGBA{R: 0x0A, G: 0x12, B: 0x33, A: 0xD8}
	r.noticeBg.FillColor = color.NRGBA{R: 0x0A, G: 0x12, B: 0x33, A: 0xE0}
	r.tipObjs = []fyne.CanvasObject{r.tip}
	r.countObjs = []fyne.CanvasObject{r.countBg, r.countTxt}
	if large {
		r.badge.FillColor = art.TerracottaDark
		r.countBg.FillColor, r.noticeBg.FillColor = art.Night, art.Night
		r.tipObjs = []fyne.CanvasObject{r.tipBg, r.tip}
		r.countObjs = []fyne.CanvasObject{r.countBg, r.countTxt, r.countTxt2}
	}
	r.hudBand.Hidden = !large
	hideAll(r.tipBg, r.countTxt2) // shown again by the next update
	r.forceAll()
}

// forceAll makes the next update apply every object's state.
func (r *playfieldRenderer) forceAll() {
	for i := range r.slots {
		r.slots[i].hits = -1
	}
	r.redHits = -1
	for s := range r.stones {
		r.stones[s].shownSecs = -2
	}
	r.autoShown, r.bonus, r.flashOn, r.ghostOn, r.ballShown, r.hintShown, r.paddleShown = 0, 0, 0, 0, 0, 0, 0
	r.tipShown, r.noticeShown, r.countSecs = 0, 0, -1
}

// nudge has the canvas drawn again after a change that does not ask for it
// by itself (Show, a colour, a translucency): moving an object does, and
// costs neither an allocation nor a texture.
func (r *playfieldRenderer) nudge() {
	p := r.marker.Position()
	if p.X == 0 {
		p.X = 1
	} else {
		p.X = 0
	}
	r.marker.Move(p)
}

// update brings every object up to date with the world at the playfield's
// time. It runs every frame and allocates nothing.
func (r *playfieldRenderer) update() {
	w := r.p.world
	if w == nil || r.size.Width <= 0 {
		r.hideDynamic()
		return
	}
	changed := false
	now := r.p.now
	bricks := w.Bricks()
	for i := range r.slots {
		s := &r.slots[i]
		if s.kind == slotUnused {
			if s.hits != 0 {
				s.brick.Hide()
				s.plaque.Hide()
				s.content.Hide()
				s.hits, s.fading = 0, false
			}
			continue
		}
		hits := bricks[i].Hits
		if hits != s.hits {
			s.hits = hits
			changed = true
			standing := hits > 0
			if s.kind == slotRed {
				s.brick.Hide()
				r.updateRed(hits)
			} else if standing {
				s.brick.Show()
			} else {
				s.brick.Hide()
			}
			if standing {
				s.plaque.Hide()
				s.content.Hide()
				s.fading = false
			} else {
				s.fading = !r.p.revealAt[i].IsZero() && now.Sub(r.p.revealAt[i]) < revealFade
				if s.kind == slotSymbol {
					s.plaque.Show()
				}
				s.content.Show()
				if !s.fading {
					s.plaque.Translucency, s.content.Translucency = 0, 0
				}
			}
		}
		if s.fading {
			t := float64(now.Sub(r.p.revealAt[i])) / float64(revealFade)
			if t >= 1 || t < 0 {
				t, s.fading = 1, false
			}
			s.content.Translucency = 1 - t
			s.plaque.Translucency = 1 - t
			changed = true
		}
	}
	if r.redSlot >= 0 {
		changed = r.updateFlash(now) || changed
	}

	pd := r.p.drawnPaddle(w.Paddle())
	r.placePaddle(pd)
	changed = r.paddleShown.set(true, r.paddle[0], r.paddle[1], r.paddle[2]) || changed

	b := r.p.drawnBall(w.Ball())
	if b.Phase != breakout.Lost {
		d := r.geom.len(2 * b.Radius)
		r.ball.Resize(fyne.NewSize(d, d))
		r.ball.Move(r.geom.pos(b.X-b.Radius, b.Y-b.Radius))
	}
	changed = r.ballShown.set(b.Phase != breakout.Lost, r.ball) || changed
	changed = r.updateHint(w, b, now) || changed
	changed = r.updateGhost(w, b) || changed
	changed = r.updateStones(w, pd) || changed
	changed = r.updateHud(w) || changed
	changed = r.updateGuide(w, b) || changed
	if changed {
		r.nudge()
	}
}

// placePaddle draws the paddle in three slices, so a paddle widened or
// narrowed by a stone (Art. 4.5) keeps the shape of its ends: each cap as
// wide as the paddle is high, the middle stretched between them, running a
// pixel under each cap so that no seam shows.
func (r *playfieldRenderer) placePaddle(pd breakout.Paddle) {
	pos := r.geom.pos(pd.X-pd.Width/2, pd.Y)
	w, h := r.geom.len(pd.Width), r.geom.len(pd.Height)
	capW, mid := paddleSlices(w, h)
	if w != r.paddleW {
		// a new width (a stone, a new layout): its rasters are ready
		// (warmPaddle), so this changes pixels, it does not rasterise
		r.paddleW = w
		l, m, rc := art.PaddleSliceResources()
		r.art(r.paddle[0], l, fyne.NewSize(capW, h))
		r.art(r.paddle[1], m, fyne.NewSize(mid+2, h))
		r.art(r.paddle[2], rc, fyne.NewSize(capW, h))
	}
	r.paddle[0].Move(pos)
	r.paddle[1].Move(fyne.NewPos(pos.X+capW-1, pos.Y))
	r.paddle[2].Move(fyne.NewPos(pos.X+capW+mid, pos.Y))
}

// paddleSlices is the width of each cap and of the middle of a paddle w×h.
func paddleSlices(w, h float32) (capW, mid float32) {
	capW = h * art.PaddleCapAspect
	if 2*capW > w {
		capW = w / 2
	}
	return capW, w - 2*capW
}

// warmPaddle rasterises the paddle's slices at its three widths (normal,
// pink, green) when the layout changes, so a stone never rasterises during
// play.
func (r *playfieldRenderer) warmPaddle() {
	h := r.geom.len(breakout.PaddleHeight)
	l, m, rc := art.PaddleSliceResources()
	for _, pw := range [...]int32{breakout.PaddleWidth, breakout.PaddleWidthPink, breakout.PaddleWidthGreen} {
		capW, mid := paddleSlices(r.geom.len(pw), h)
		rasters.warm(l, fyne.NewSize(capW, h), r.scale)
		rasters.warm(m, fyne.NewSize(mid+2, h), r.scale)
		rasters.warm(rc, fyne.NewSize(capW, h), r.scale)
	}
}

// updateHint pulses a ring round the ball while it waits on the paddle for
// the player to tap it (Jouer, Art. 4.4): the touch target, made visible.
func (r *playfieldRenderer) updateHint(w *breakout.World, b breakout.Ball, now time.Time) bool {
	on := w.Mode() == breakout.Play && b.Phase == breakout.OnPaddle && !w.Done()
	if !on {
		return r.hintShown.set(false, r.hint)
	}
	t := float32(now.Sub(time.Time{})%hintPeriod) / float32(hintPeriod)
	d := r.geom.len(2*b.Radius) * (1.6 + 1.2*t)
	c := r.geom.pos(b.X, b.Y)
	r.hint.Resize(fyne.NewSize(d, d))
	r.hint.Move(fyne.NewPos(c.X-d/2, c.Y-d/2))
	r.hint.StrokeColor = fadeOf(hintFade[:], 1-t)
	r.hint.StrokeWidth = 3 * r.geom.S
	r.hintShown.set(true, r.hint)
	return true
}

// updateGuide shows what the player is to do in Jouer (Art. 4.4): tap the
// ball while it waits on the paddle; touch the field before the idle time
// hands the game to Auto, counting down its last seconds. And, whatever the
// mode, that the game was resumed after a restart.
func (r *playfieldRenderer) updateGuide(w *breakout.World, b breakout.Ball) bool {
	play := w.Mode() == breakout.Play && !w.Done()
	changed := r.tipShown.set(play && b.Phase == breakout.OnPaddle, r.tipObjs...)

	secs := 0
	if left := w.Settings().IdleTicks - w.Idle(); play && left <= countdownMax*breakout.TicksPerSecond {
		secs = (left + breakout.TicksPerSecond - 1) / breakout.TicksPerSecond
		secs = max(1, min(secs, countdownMax))
	}
	if secs != r.countSecs {
		if secs > 0 {
			r.countTxt.Text = r.countText[secs]
			if r.p.large {
				r.countTxt.Text = r.countHead[secs]
			}
			r.countTxt.Refresh()
		}
		showAll(secs > 0, r.countObjs...)
		if secs > 0 && r.countSecs == 0 && r.p.OnCountdown != nil {
			r.p.OnCountdown(secs)
		}
		r.countSecs = secs
		changed = true
	}

	changed = r.noticeShown.set(r.p.notice, r.noticeBg, r.noticeTxt) || changed
	return changed
}

// warmWall rasterises, when the layout changes, every drawing a wall can
// put in a brick slot at its size, so that neither a new wall nor the bonus
// wall rasterises anything while the game runs.
func (r *playfieldRenderer) warmWall() {
	g := r.geom
	warm := func(res fyne.Resource, w, h float32) { rasters.warm(res, fyne.NewSize(w, h), r.scale) }
	bw, bh := g.len(breakout.BrickWidth), g.len(breakout.BrickHeight)
	for v := 0; v < art.NumBrickVariants; v++ {
		warm(art.BrickResource(v), bw, bh)
	}
	warm(art.BonusBrickResource(false), bw, bh)
	warm(art.BonusBrickResource(true), bw, bh)
	warm(art.SlotResource(), bw, bh)
	warm(art.SymbolPlaqueResource(), plaqueSide*g.S, plaqueSide*g.S)
	for _, s := range game.Symbols {
		warm(art.SymbolResource(s, true), symbolSide*g.S, symbolSide*g.S)
	}
	for _, s := range game.Stones {
		warm(art.StoneResource(s), stoneSide*g.S, stoneSide*g.S)
	}
}

// updateRed draws the red brick at its hits: intact (2), cracked (1), gone.
func (r *playfieldRenderer) updateRed(hits int) {
	switch hits {
	case 2:
		r.red.Show()
		r.cracked.Hide()
	case 1:
		r.red.Hide()
		r.cracked.Show()
	default:
		r.red.Hide()
		r.cracked.Hide()
	}
}

// updateFlash fades the red brick's flash after a hit.
func (r *playfieldRenderer) updateFlash(now time.Time) bool {
	at := r.p.redHitAt
	on := !at.IsZero() && now.Sub(at) >= 0 && now.Sub(at) < redFlash
	if !on {
		return r.flashOn.set(false, r.flash)
	}
	t := float32(now.Sub(at)) / float32(redFlash)
	r.flash.FillColor = fadeOf(flashFade[:], 1-t)
	r.flashOn.set(true, r.flash)
	return true
}

// updateGhost shows the pharaoh's ghost mask while the ball is lost
// (Art. 4.4), fading in and out with the ticks it lasts.
func (r *playfieldRenderer) updateGhost(w *breakout.World, b breakout.Ball) bool {
	if b.Phase != breakout.Lost {
		return r.ghostOn.set(false, r.ghost)
	}
	total := w.Settings().GhostTicks
	in := total - b.Ghost // ticks since the loss
	a := float64(1)
	if in < ghostFadeTicks {
		a = float64(in) / ghostFadeTicks
	}
	if b.Ghost < ghostFadeTicks {
		if o := float64(b.Ghost) / ghostFadeTicks; o < a {
			a = o
		}
	}
	if a < 0 {
		a = 0
	}
	r.ghost.Translucency = 1 - a
	r.ghostOn.set(true, r.ghost)
	return true
}

// updateStones draws the spell stones in effect (Art. 4.5): a bar under the
// paddle that shrinks with the time left, and the gem with its seconds in the
// status band.
func (r *playfieldRenderer) updateStones(w *breakout.World, pd breakout.Paddle) bool {
	g := r.geom
	changed := false
	total := w.Settings().StoneTicks
	slot := 0
	for s := range r.stones {
		left := w.Effect(game.Stone(s))
		h := &r.stones[s]
		bar := r.bars[s]
		if left <= 0 || total <= 0 {
			if h.shownSecs != -1 {
				h.gem.Hide()
				h.secs.Hide()
				bar.Hide()
				h.shownSecs = -1
				changed = true
			}
			continue
		}
		// the bar: one row per stone in effect, the first under the paddle
		row := float32(slot)
		bw := g.len(pd.Width) * float32(left) / float32(total)
		bx := g.pos(pd.X, 0).X - bw/2
		by := g.pos(0, pd.Y+pd.Height).Y + (barGap+row*barPitch)*g.S
		bar.Resize(fyne.NewSize(bw, barHeight*g.S))
		bar.Move(fyne.NewPos(bx, by))

		// the status band: one timer after the other from the left
		gp := g.unitPos(hudMargin+float32(slot)*hudPitch, hudTop+(hudHeight-hudGemSide)/2)
		h.gem.Move(gp)
		secs := (left + breakout.TicksPerSecond - 1) / breakout.TicksPerSecond
		if secs >= len(stoneSeconds) {
			secs = len(stoneSeconds) - 1
		}
		if secs != h.shownSecs {
			if h.shownSecs < 0 {
				h.gem.Show()
				h.secs.Show()
				bar.Show()
			}
			h.shownSecs = secs
			h.secs.Text = stoneSeconds[secs]
			h.secs.Refresh()
			changed = true
		}
		th := h.secs.TextSize * 1.2
		h.secs.Move(fyne.NewPos(gp.X+(hudGemSide+10)*g.S, g.Y+(hudTop+hudHeight/2)*g.S-th/2))
		slot++
	}
	return changed
}

// updateHud shows the AUTO badge (Art. 4.1) and, on the bonus wall, the red
// brick's hits (Art. 4.7).
func (r *playfieldRenderer) updateHud(w *breakout.World) bool {
	changed := false
	changed = r.autoShown.set(w.Mode() == breakout.Auto, r.badge, r.badgeTxt)
	bonus := w.IsBonus()
	if r.bonus.set(bonus, r.redCap, r.redCount) {
		r.redHits = -1
		changed = true
	}
	if bonus {
		n := w.RedHits()
		if n > 2 {
			n = 2
		}
		if n != r.redHits {
			r.redHits = n
			r.redCount.Text = redHitsText[n]
			r.redCount.Refresh()
			for i := range r.redPips {
				full := i < n
				showAll(!full, r.redPips[i][0])
				showAll(full, r.redPips[i][1])
			}
			changed = true
		}
	} else if r.redHits != -2 {
		r.redHits = -2
		for i := range r.redPips {
			r.redPips[i][0].Hide()
			r.redPips[i][1].Hide()
		}
		changed = true
	}
	return changed
}

// hideDynamic hides what needs a world.
func (r *playfieldRenderer) hideDynamic() {
	for i := range r.slots {
		s := &r.slots[i]
		s.brick.Hide()
		s.plaque.Hide()
		s.content.Hide()
		s.hits = -1
	}
	hideAll(r.red, r.cracked, r.flash, r.ball, r.hint, r.ghost, r.badge, r.badgeTxt, r.redCap, r.redCount)
	hideAll(r.tip, r.tipBg, r.countBg, r.countTxt, r.countTxt2, r.noticeBg, r.noticeTxt)
	hideAll(r.paddle[0], r.paddle[1], r.paddle[2])
	for s := range r.stones {
		hideAll(r.stones[s].gem, r.stones[s].secs, r.bars[s])
	}
	for i := range r.redPips {
		hideAll(r.redPips[i][0], r.redPips[i][1])
	}
	r.forceAll()
}

// onBall reports whether pos (in the playfield) is within the touch radius
// of the ball's centre.
func (r *playfieldRenderer) onBall(pos fyne.Position) bool {
	w := r.p.world
	if w == nil {
		return false
	}
	b := w.Ball()
	if b.Phase == breakout.Lost {
		return false
	}
	c := r.geom.pos(b.X, b.Y)
	dx, dy := pos.X-c.X, pos.Y-c.Y
	rad := r.p.touchRadius()
	return dx*dx+dy*dy <= rad*rad
}

// shownState remembers whether objects are drawn, so a frame shows or hides
// them only when that changes. The zero value is "not known yet".
type shownState int8

const (
	shownHidden  shownState = 1
	shownVisible shownState = 2
)

// set shows or hides objs if they are not already so, and reports whether
// it did.
func (s *shownState) set(on bool, objs ...fyne.CanvasObject) bool {
	want := shownHidden
	if on {
		want = shownVisible
	}
	if *s == want {
		return false
	}
	*s = want
	showAll(on, objs...)
	return true
}

func showAll(on bool, objs ...fyne.CanvasObject) {
	for _, o := range objs {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
}

func hideAll(objs ...fyne.CanvasObject) {
	for _, o := range objs {
		o.Hide()
	}
}
