package play

import (
	"image/color"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"pharaon/game"
	"pharaon/kiosk/ui/art"
)

// Layout of the game screen.
const (
	// MinPanel is the narrowest the right panel gets (cartouche, stake,
	// credit); a screen narrower than 6:5 + this shrinks the playfield.
	MinPanel = 280
	// refHeight is the screen height the text sizes below are for.
	refHeight   = 800
	captionSize = 18
	sessionSize = 15
	valueSize   = 40
	// largePanel is the panel's least width at refHeight in the
	// large-text mode: its texts LargeScale times larger.
	largePanel = 340
	// arc is how high a flying symbol's path bows, as a share of its
	// length.
	arc = 0.18
)

type screenRenderer struct {
	g       *Screen
	objects []fyne.CanvasObject
	size    fyne.Size

	rule      *canvas.Rectangle // the gold line between playfield and panel
	panelBg   *canvas.Rectangle // the panel's opaque ground, in the large-text mode
	stakeCap  *canvas.Text
	stakeVal  *canvas.Text
	creditCap *canvas.Text
	creditVal *canvas.Text
	session   *canvas.Text  // the player's session: time and net (SetSession)
	session2  *canvas.Text  // its second line, in the large-text mode when it is too wide for one
	finish    *finishButton // finish the wall in Auto (gamescreen_finish.go)
	flyers    [game.NumSymbols][game.MaxPerSymbol]*canvas.Image
	flyerSize fyne.Size
	panelX    float32
	panelW    float32
}

func newScreenRenderer(g *Screen) *screenRenderer {
	r := &screenRenderer{g: g}
	r.rule = canvas.NewRectangle(art.GoldDark)
	r.stakeCap = canvas.NewText("", art.Sand)
	r.stakeVal = canvas.NewText("", art.GoldLight)
	r.stakeVal.TextStyle.Bold = true
	r.creditCap = canvas.NewText("", art.Sand)
	r.creditVal = canvas.NewText("", art.GoldLight)
	r.creditVal.TextStyle.Bold = true
	r.session = canvas.NewText("", art.Sand)
	r.session2 = canvas.NewText("", art.Sand)
	r.session2.Hide()
	for _, t := range []*canvas.Text{r.stakeCap, r.stakeVal, r.creditCap, r.creditVal, r.session, r.session2} {
		t.Alignment = fyne.TextAlignCenter
		art.Typeset(t)
	}
	r.panelBg = canvas.NewRectangle(art.Night)
	r.panelBg.Hide()
	r.finish = newFinishButton(g.finishInAuto)
	r.objects = append(r.objects, g.field, r.panelBg, r.rule, r.stakeCap, r.stakeVal, r.finish.b, g.cart, r.creditCap, r.creditVal, r.session, r.session2)
	for s := range r.flyers {
		for k := range r.flyers[s] {
			r.flyers[s][k] = newArtImage()
			r.objects = append(r.objects, r.flyers[s][k])
		}
	}
	r.applyInks()
	r.applyTexts()
	r.applyWords()
	return r
}

// applyInks colours the panel's texts for the mode: the palette's, or
// their high-contrast counterparts on the panel's opaque ground.
func (r *screenRenderer) applyInks() {
	ink := func(c color.Color) color.Color {
		if r.g.large {
			return art.HighContrast(c)
		}
		return c
	}
	r.stakeCap.Color, r.creditCap.Color = ink(art.Sand), ink(art.Sand)
	r.stakeVal.Color, r.creditVal.Color = ink(art.GoldLight), ink(art.GoldLight)
	r.session.Color, r.session2.Color = ink(art.Sand), ink(art.Sand)
	r.panelBg.Hidden = !r.g.large
	r.finish.b.HighContrast = r.g.large
	r.finish.b.WrapCaption = r.g.large
}

func (r *screenRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *screenRenderer) Destroy() {
	if r.g.rend == r {
		r.g.rend = nil
	}
}

func (r *screenRenderer) MinSize() fyne.Size {
	c := r.g.cart.MinSize()
	return fyne.NewSize(600+c.Width, 500)
}

func (r *screenRenderer) Refresh() {
	r.applyTexts()
	r.applyWords()
	r.g.field.Refresh()
	r.g.cart.Refresh()
}

// Layout puts the playfield on the left at 6:5, as tall as the screen if
// the panel keeps MinPanel, and the panel on the right: stake, the button
// that finishes a Jouer wall in Auto, cartouche, credit (Art. 4.2,
// DESIGN.md §8). The button's room is kept in every game, so the cartouche
// never moves.
func (r *screenRenderer) Layout(size fyne.Size) {
	r.size = size
	k := size.Height / refHeight
	ts := float32(1)
	if r.g.large {
		ts = LargeScale
	}
	fw := FieldWidth(size, r.g.large)
	// The field's texts are LargeScale times those of the field the
	// usual panel leaves, not only of the narrower field.
	r.g.field.textBoost = 1
	if fw > 0 && r.g.large {
		r.g.field.textBoost = FieldWidth(size, false) / fw
	}
	fh := fw * fieldH / fieldW
	r.g.field.Move(fyne.NewPos(0, (size.Height-fh)/2))
	r.g.field.Resize(fyne.NewSize(fw, fh))

	r.panelX, r.panelW = fw, size.Width-fw
	r.panelBg.Move(fyne.NewPos(fw, 0))
	r.panelBg.Resize(fyne.NewSize(size.Width-fw, size.Height))
	rw := 3 * k
	r.rule.Move(fyne.NewPos(fw, 0))
	r.rule.Resize(fyne.NewSize(rw, size.Height))

	px, pw := fw+rw, size.Width-fw-rw
	m := 18 * k
	r.stakeCap.TextSize = captionSize * k * ts
	r.stakeVal.TextSize = valueSize * k * ts
	r.creditCap.TextSize = captionSize * k * ts
	r.creditVal.TextSize = valueSize * k * ts
	for _, t := range []*canvas.Text{r.stakeCap, r.stakeVal, r.creditCap, r.creditVal} {
		t.Refresh()
	}
	ch, vh := r.stakeCap.MinSize().Height, r.stakeVal.MinSize().Height
	block := ch + vh
	r.stakeCap.Move(fyne.NewPos(px, m))
	r.stakeCap.Resize(fyne.NewSize(pw, ch))
	r.stakeVal.Move(fyne.NewPos(px, m+ch))
	r.stakeVal.Resize(fyne.NewSize(pw, vh))
	r.creditCap.Move(fyne.NewPos(px, size.Height-m-block))
	r.creditCap.Resize(fyne.NewSize(pw, ch))
	r.creditVal.Move(fyne.NewPos(px, size.Height-m-vh))
	r.creditVal.Resize(fyne.NewSize(pw, vh))

	top := m + block + m/2
	bottom := size.Height - top
	// The session's line, above the credit: the cartouche gives it its
	// room only while there is one (a screen without stays as it was).
	r.session.TextSize = sessionSize * k * ts
	r.session2.TextSize = r.session.TextSize
	r.splitSession(pw - m)
	if w := r.session.MinSize().Width; w > pw-m && w > 0 && !r.g.large {
		// a long line (an hour's session, a net in thousands) on a
		// narrow panel: smaller, never past the panel's edge
		r.session.TextSize *= (pw - m) / w
	}
	r.session.Refresh()
	r.session2.Refresh()
	if r.g.session != "" {
		sh := r.session.MinSize().Height
		lines := sh
		if !r.session2.Hidden {
			lines += sh
		}
		bottom -= lines
		r.session.Move(fyne.NewPos(px, size.Height-m-block-lines-m/4))
		r.session.Resize(fyne.NewSize(pw, sh))
		r.session2.Move(fyne.NewPos(px, size.Height-m-block-lines-m/4+sh))
		r.session2.Resize(fyne.NewSize(pw, sh))
	}
	top += r.finish.layout(px+m/2, top, pw-m, k*ts) + m/2
	ctH := bottom - top
	r.g.cart.Move(fyne.NewPos(px+m/2, top))
	r.g.cart.Resize(fyne.NewSize(pw-m, ctH))

	// flying symbols end the size of the cartouche's symbols
	_, ss := r.g.cart.SymbolBox(game.Bird)
	r.flyerSize = ss
	sc := canvasScale(r.g)
	for s := range r.flyers {
		for k := range r.flyers[s] {
			setArt(r.flyers[s][k], art.SymbolResource(game.Symbol(s), true), ss, sc)
		}
	}
}

// FieldWidth is the playfield's width on a game screen of size: as tall
// as the screen at 6:5 if the panel keeps its least width (MinPanel, or
// largePanel in the large-text mode), narrower otherwise.
func FieldWidth(size fyne.Size, large bool) float32 {
	minPanel := float32(MinPanel)
	if large {
		minPanel = max(minPanel, largePanel*size.Height/refHeight)
	}
	fw := size.Height * fieldW / fieldH
	if fw > size.Width-minPanel {
		fw = size.Width - minPanel
	}
	return max(fw, 0)
}

// applyTexts writes the stake, the credit and the captions.
func (r *screenRenderer) applyTexts() {
	w := r.g.words
	r.stakeCap.Text = w.Stake
	r.creditCap.Text = w.Credit
	r.stakeVal.Text = ""
	if r.g.stake.Valid() {
		r.stakeVal.Text = w.money(r.g.stake.Money())
	}
	r.creditVal.Text = w.money(r.g.credit)
	r.session.Text = r.g.session
	if r.size.Width > 0 {
		r.splitSession(r.panelW - 18*r.size.Height/refHeight)
	}
	for _, t := range []*canvas.Text{r.stakeCap, r.stakeVal, r.creditCap, r.creditVal, r.session, r.session2} {
		t.Refresh()
	}
}

// splitSession puts the session's line on two, at its " · ", in the
// large-text mode when it is wider than room; one line otherwise.
func (r *screenRenderer) splitSession(room float32) {
	r.session.Text, r.session2.Text = r.g.session, ""
	r.session2.Hidden = true
	if !r.g.large || r.session.MinSize().Width <= room {
		return
	}
	if i := strings.Index(r.g.session, " · "); i > 0 {
		r.session.Text, r.session2.Text = r.g.session[:i], r.g.session[i+len(" · "):]
		r.session2.Hidden = false
	}
}

// applyWords gives the finish button its words (made once per language:
// a frame formats nothing).
func (r *screenRenderer) applyWords() {
	r.finish.setWords(r.g.words)
	r.g.updateFinish()
}

// placeFlight draws flight k of symbol s at t (0 to 1) of its way from its
// brick to the cartouche: an eased path that bows upward.
func (r *screenRenderer) placeFlight(s, k, brick int, t float32) {
	im := r.flyers[s][k]
	from, ok := r.g.field.brickCentre(brick)
	if !ok {
		return
	}
	fp := r.g.field.Position()
	from = from.Add(fp)
	cp, cs := r.g.cart.SymbolBox(game.Symbol(s))
	to := r.g.cart.Position().Add(cp).Add(fyne.NewPos(cs.Width/2, cs.Height/2))
	e := easeInOut(t)
	dx, dy := to.X-from.X, to.Y-from.Y
	bow := arc * float32(math.Sqrt(float64(dx*dx+dy*dy))) * float32(math.Sin(math.Pi*float64(t)))
	x := from.X + dx*e
	y := from.Y + dy*e - bow
	sz := r.flyerSize
	im.Move(fyne.NewPos(x-sz.Width/2, y-sz.Height/2))
	if !im.Visible() {
		im.Show()
	}
}

func (r *screenRenderer) flightDone(s, k int) { r.flyers[s][k].Hide() }

func (r *screenRenderer) hideFlights() {
	for s := range r.flyers {
		for k := range r.flyers[s] {
			r.flyers[s][k].Hide()
		}
	}
}

// easeInOut is a cubic ease: slow away, quick across, slow in.
func easeInOut(t float32) float32 {
	if t < 0.5 {
		return 4 * t * t * t
	}
	u := -2*t + 2
	return 1 - u*u*u/2
}
