package play

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/kiosk/ui/art"
)

// Timing of the cartouche's motion.
const (
	// BlinkHalfPeriod is how long a winning combination stays lit, then
	// dim, as it blinks (Art. 4.6).
	BlinkHalfPeriod = 400 * time.Millisecond
	// cartLandPulse is the ring that grows around a symbol as it lands.
	cartLandPulse = 450 * time.Millisecond
	// cartBlinkDim is how faded a blinking combination is in its dim half.
	cartBlinkDim = 0.65
)

// Cartouche is the gold-rimmed tablet on the right of the game screen
// (Art. 4.2): the six symbols, black until found, then coloured, with one pip
// per symbol revealed (Art. 4.6). A winning combination blinks on it
// (Art. 4.6). Tapping it calls OnTapped: the screens show the prize table of
// the stake played (Art. 4.2).
//
// It shows the counts it is given (SetCounts, Land) and never computes a
// combination itself: the game screen tells it what to blink. Like every
// Fyne object it must be used from the Fyne goroutine only.
type Cartouche struct {
	widget.BaseWidget

	// OnTapped is called when the player taps the cartouche (Art. 4.2:
	// the prize table of the current stake). Optional.
	OnTapped func()

	counts   game.Counts
	now      time.Time
	landAt   [game.NumSymbols]time.Time
	blink    game.Combination
	blinking bool
	blinkAt  time.Time

	rend *cartoucheRenderer
}

// NewCartouche returns a cartouche with nothing revealed.
func NewCartouche() *Cartouche {
	c := &Cartouche{}
	c.ExtendBaseWidget(c)
	return c
}

// SetCounts shows counts at once, without motion (a new game, a recovered
// one, the end of a wall).
func (c *Cartouche) SetCounts(counts game.Counts) {
	c.counts = counts
	c.landAt = [game.NumSymbols]time.Time{}
	c.redraw()
}

// Counts is what the cartouche shows.
func (c *Cartouche) Counts() game.Counts { return c.counts }

// Land counts one more s at time now: the symbol takes its colour, one more
// pip fills and a ring pulses around it (Art. 4.6).
func (c *Cartouche) Land(s game.Symbol, now time.Time) {
	if !s.Valid() {
		return
	}
	c.counts[s]++
	c.landAt[s] = now
	c.redraw()
}

// Blink makes comb blink from time now (Art. 4.6: a winning combination, or
// the three snakes that open the bonus game), until StopBlink.
func (c *Cartouche) Blink(comb game.Combination, now time.Time) {
	c.blink, c.blinking, c.blinkAt = comb, true, now
	c.redraw()
}

// StopBlink stops the blinking.
func (c *Cartouche) StopBlink() {
	c.blinking = false
	c.redraw()
}

// Blinking returns the combination blinking, if any.
func (c *Cartouche) Blinking() (game.Combination, bool) { return c.blink, c.blinking }

// BlinkLit reports whether a blinking combination is in its lit half at the
// cartouche's time (false when nothing blinks).
func (c *Cartouche) BlinkLit() bool {
	if !c.blinking {
		return false
	}
	d := c.now.Sub(c.blinkAt)
	if d < 0 {
		return true
	}
	return (d/BlinkHalfPeriod)%2 == 0
}

// Frame advances the cartouche's motion to time now. It allocates nothing.
func (c *Cartouche) Frame(now time.Time) {
	c.now = now
	if c.rend != nil {
		c.rend.update()
	}
}

// SymbolBox is where symbol s is drawn, in the cartouche's coordinates (the
// game screen flies a revealed symbol there).
func (c *Cartouche) SymbolBox(s game.Symbol) (fyne.Position, fyne.Size) {
	if c.rend == nil || !s.Valid() {
		return fyne.Position{}, fyne.Size{}
	}
	return c.rend.symbolBox(int(s))
}

// Tapped calls OnTapped.
func (c *Cartouche) Tapped(*fyne.PointEvent) {
	if c.OnTapped != nil {
		c.OnTapped()
	}
}

// CreateRenderer builds the cartouche's canvas objects once.
func (c *Cartouche) CreateRenderer() fyne.WidgetRenderer {
	r := newCartoucheRenderer(c)
	c.rend = r
	return r
}

func (c *Cartouche) redraw() {
	if c.rend != nil {
		c.rend.force()
		c.rend.update()
	}
}

var _ fyne.Tappable = (*Cartouche)(nil)

// cartoucheRow is one symbol's row of the tablet.
type cartoucheRow struct {
	sym    game.Symbol
	glow   *canvas.Rectangle // lit behind a blinking combination
	black  *canvas.Image     // the silhouette (Art. 4.2)
	colour *canvas.Image     // the revealed symbol (Art. 4.6)
	pips   [game.MaxPerSymbol][2]*canvas.Image
	ring   *canvas.Circle

	// what is drawn
	count  int
	lit    int8 // 1 lit, 0 dim, -1 not blinking
	ringOn bool
}

type cartoucheRenderer struct {
	c       *Cartouche
	objects []fyne.CanvasObject
	size    fyne.Size
	tabPos  fyne.Position
	tabSize fyne.Size

	tablet *canvas.Image
	marker *canvas.Rectangle
	rows   [game.NumSymbols]cartoucheRow
}

func newCartoucheRenderer(c *Cartouche) *cartoucheRenderer {
	r := &cartoucheRenderer{c: c}
	r.tablet = newArtImage()
	r.marker = canvas.NewRectangle(color.Transparent)
	r.marker.Resize(fyne.NewSize(1, 1))
	r.objects = append(r.objects, r.tablet, r.marker)
	for i := range r.rows {
		row := &r.rows[i]
		sym := game.Symbols[i]
		row.glow = canvas.NewRectangle(color.NRGBA{R: art.TurquoiseLight.R, G: art.TurquoiseLight.G, B: art.TurquoiseLight.B, A: 0x90})
		row.glow.StrokeColor = art.Turquoise
		row.glow.Hide()
		row.sym = sym
		row.black = newArtImage()
		row.colour = newArtImage()
		row.ring = canvas.NewCircle(color.Transparent)
		row.ring.StrokeColor = art.GoldLight
		row.ring.Hide()
		r.objects = append(r.objects, row.glow, row.black, row.colour)
		for k := range row.pips {
			for f := range row.pips[k] {
				row.pips[k][f] = newArtImage()
				r.objects = append(r.objects, row.pips[k][f])
			}
		}
		r.objects = append(r.objects, row.ring)
		row.count, row.lit = -1, -2
	}
	return r
}

func (r *cartoucheRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *cartoucheRenderer) Destroy() {
	if r.c.rend == r {
		r.c.rend = nil
	}
}

// MinSize keeps the tablet readable: symbols of about 60 px.
func (r *cartoucheRenderer) MinSize() fyne.Size {
	return fyne.NewSize(160, 160/art.CartoucheAspect)
}

func (r *cartoucheRenderer) Refresh() {
	r.force()
	r.update()
	canvas.Refresh(r.marker)
}

// Layout fits the tablet in the size at its aspect, centred, and places the
// rows on it (art.CartoucheSymbolBox, art.CartoucheCountBox).
func (r *cartoucheRenderer) Layout(size fyne.Size) {
	r.size = size
	th := size.Height
	if w := th * art.CartoucheAspect; w > size.Width {
		th = size.Width / art.CartoucheAspect
	}
	tw := th * art.CartoucheAspect
	r.tabPos = fyne.NewPos((size.Width-tw)/2, (size.Height-th)/2)
	r.tabSize = fyne.NewSize(tw, th)
	sc := canvasScale(r.c)
	r.tablet.Move(r.tabPos)
	setArt(r.tablet, art.CartoucheResource(), r.tabSize, sc)
	r.tablet.Show()
	for i := range r.rows {
		row := &r.rows[i]
		sp, ss := r.symbolBox(i)
		row.black.Move(sp)
		setArt(row.black, art.SymbolResource(row.sym, false), ss, sc)
		row.colour.Move(sp)
		setArt(row.colour, art.SymbolResource(row.sym, true), ss, sc)
		cp, cs := art.CartoucheCountBox(i).In(r.tabPos, r.tabSize)
		// the glow covers the symbol and its pips
		pad := ss.Height * 0.06
		row.glow.Move(fyne.NewPos(sp.X-pad, sp.Y-pad))
		row.glow.Resize(fyne.NewSize(cp.X+cs.Width-sp.X+2*pad, ss.Height+2*pad))
		row.glow.CornerRadius = ss.Height * 0.3
		row.glow.StrokeWidth = ss.Height * 0.04
		pip := cs.Width / float32(game.MaxPerSymbol)
		if pip > cs.Height {
			pip = cs.Height
		}
		side := pip * 0.86
		for k := range row.pips {
			x := cp.X + float32(k)*pip + (pip-side)/2
			y := cp.Y + (cs.Height-side)/2
			for f := range row.pips[k] {
				row.pips[k][f].Move(fyne.NewPos(x, y))
				setArt(row.pips[k][f], art.CountPipResource(f == 1), fyne.NewSize(side, side), sc)
			}
		}
		row.ring.StrokeWidth = ss.Height * 0.05
	}
	r.force()
	r.update()
}

func (r *cartoucheRenderer) symbolBox(i int) (fyne.Position, fyne.Size) {
	return art.CartoucheSymbolBox(i).In(r.tabPos, r.tabSize)
}

func (r *cartoucheRenderer) force() {
	for i := range r.rows {
		r.rows[i].count, r.rows[i].lit = -1, -2
		r.rows[i].ringOn = true
	}
}

func (r *cartoucheRenderer) nudge() {
	p := r.marker.Position()
	if p.X == 0 {
		p.X = 1
	} else {
		p.X = 0
	}
	r.marker.Move(p)
}

// update draws the counts, the blinking and the landing rings at the
// cartouche's time. It allocates nothing.
func (r *cartoucheRenderer) update() {
	if r.size.Width <= 0 {
		return
	}
	c := r.c
	changed := false
	lit := c.BlinkLit()
	for i := range r.rows {
		row := &r.rows[i]
		n := c.counts[i]
		if n != row.count {
			row.count = n
			showAll(n == 0, row.black)
			showAll(n > 0, row.colour)
			for k := range row.pips {
				showAll(k >= n, row.pips[k][0])
				showAll(k < n, row.pips[k][1])
			}
			changed = true
		}
		want := int8(-1)
		if c.blinking && int(c.blink.Symbol) == i {
			want = 0
			if lit {
				want = 1
			}
		}
		if want != row.lit {
			row.lit = want
			showAll(want == 1, row.glow)
			var tr float64
			if want == 0 {
				tr = cartBlinkDim
			}
			row.colour.Translucency, row.black.Translucency = tr, tr
			for k := range row.pips {
				row.pips[k][0].Translucency, row.pips[k][1].Translucency = tr, tr
			}
			changed = true
		}
		changed = r.updateRing(row, i) || changed
	}
	if changed {
		r.nudge()
	}
}

// updateRing grows and fades the ring around a symbol that just landed.
func (r *cartoucheRenderer) updateRing(row *cartoucheRow, i int) bool {
	at := r.c.landAt[i]
	d := r.c.now.Sub(at)
	if at.IsZero() || d < 0 || d >= cartLandPulse {
		if row.ringOn {
			row.ring.Hide()
			row.ringOn = false
			return true
		}
		return false
	}
	t := float32(d) / float32(cartLandPulse)
	sp, ss := r.symbolBox(i)
	grow := ss.Width * (0.9 + 0.5*t)
	cx, cy := sp.X+ss.Width/2, sp.Y+ss.Height/2
	row.ring.Move(fyne.NewPos(cx-grow/2, cy-grow/2))
	row.ring.Resize(fyne.NewSize(grow, grow))
	row.ring.StrokeColor = fadeOf(ringFade[:], 1-t)
	if !row.ringOn {
		row.ring.Show()
		row.ringOn = true
	}
	return true
}

// fadeSteps is how many levels of opacity a fading colour goes through: a
// frame picks one of these colours made in advance, so it allocates nothing
// (a color.NRGBA stored in a color.Color field would).
const fadeSteps = 32

var (
	ringFade  = fadeRamp(art.GoldLight, 255)
	flashFade = fadeRamp(art.GhostWhite, 200)
	hintFade  = fadeRamp(art.TurquoiseLight, 230)
)

// fadeRamp is c at fadeSteps+1 opacities from 0 to top.
func fadeRamp(c color.NRGBA, top uint8) [fadeSteps + 1]color.Color {
	var out [fadeSteps + 1]color.Color
	for i := range out {
		c.A = uint8(int(top) * i / fadeSteps)
		out[i] = c
	}
	return out
}

// fadeOf picks the colour of ramp at opacity a (0 to 1).
func fadeOf(ramp []color.Color, a float32) color.Color {
	i := int(a*fadeSteps + 0.5)
	if i < 0 {
		i = 0
	} else if i > fadeSteps {
		i = fadeSteps
	}
	return ramp[i]
}
