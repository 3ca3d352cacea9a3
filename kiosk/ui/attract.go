package ui

import (
	"image"
	"math"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/play"
)

// attractWalls are the demonstration walls the attract loop breaks in turn:
// losing walls and small wins, never the big prizes, so the loop does not
// promise what a unit rarely holds. They are layouts without a ticket: no
// stake is taken and nothing is credited (play.DemoGame).
var attractWalls = [...]struct {
	stake game.Stake
	tier  game.Tier
}{
	{game.Stake100, game.TierLose},
	{game.Stake050, 8},
	{game.Stake200, game.TierLose},
	{game.Stake100, 6},
	{game.Stake050, game.TierLose},
	{game.Stake200, 7},
}

// attractPause is how long a cleared demonstration wall stays before the next.
const attractPause = 2 * time.Second

// attractPulseSteps is how many brightness steps the invitation's pulse
// has from dark to bright.
const attractPulseSteps = 8

// attractFrame is the attract loop's frame interval: 30 frames a second. An
// idle kiosk spends most of its day here; drawing the demonstration at half
// the game's rate halves what the screen redraws, and a demonstration does
// not need the game's 60 Hz.
const attractFrame = time.Second / 30

// attractLoop is the home screen's attract animation (Art. 4.1, "an attract
// animation when idle"): Auto breaking demonstration walls on a playfield,
// the symbols of the cartouche lighting in turn and an invitation to touch
// the screen. It runs while it is shown and only then.
type attractLoop struct {
	s      *Screens
	field  *play.Playfield
	pump   *play.Pump
	demo   *play.DemoGame
	next   int
	doneAt time.Time
	drawAt time.Time // the last frame drawn
	anim   *fyne.Animation
	meter  play.FrameMeter // the -fps log's frame statistics (Options.OnFrameStats)

	invite  *canvas.Text
	symbols [game.NumSymbols]*canvas.Image
	lit     int
}

// showAttract starts the attract loop.
func (s *Screens) showAttract() {
	// The next player finds the kiosk in its own language.
	if s.tr.Lang != s.opt.Lang {
		s.tr = Tr{Lang: s.opt.Lang}
		s.gs.SetWords(PlayWords(s.tr.Lang))
	}
	a := &attractLoop{s: s, field: play.NewPlayfield(), pump: play.NewPump(play.DefaultMaxCatchUp)}
	a.field.SetWords(PlayWords(s.tr.Lang))
	// The demonstration's field keeps the plain backdrop (the playfield's
	// default) whatever the game's: the loop runs all day (attractBackdrop).
	a.nextWall()
	s.attract = a
	s.setScreen(scrAttract, a.build)
	a.anim = &fyne.Animation{Duration: time.Second, RepeatCount: fyne.AnimationRepeatForever,
		Tick: func(float32) { a.frame(s.now()) }}
	a.anim.Start()
}

func (s *Screens) stopAttract() {
	if s.attract != nil {
		s.attract.anim.Stop()
		s.attract = nil
	}
}

// nextWall puts the next demonstration wall in play.
func (a *attractLoop) nextWall() {
	w := attractWalls[a.next%len(attractWalls)]
	seed := uint64(a.next)*0x9E3779B97F4A7C15 + 1
	a.next++
	walls, err := reveal.Layout(w.stake, w.tier, false, seed, reveal.Latest)
	if err == nil {
		a.demo, err = play.NewDemoGame(walls, breakout.Auto, breakout.DefaultSettings())
	}
	if err != nil {
		fyne.LogError("attract wall", err)
		a.demo = nil
		a.field.SetWorld(nil)
		return
	}
	a.field.SetWorld(a.demo.World())
	a.pump.Reset()
	a.doneAt = time.Time{}
}

// frame is one frame of the loop at time now; it draws nothing before
// attractFrame has passed since the last frame it drew.
func (a *attractLoop) frame(now time.Time) {
	if !a.drawAt.IsZero() && now.Sub(a.drawAt) < attractFrame-time.Millisecond {
		return
	}
	a.drawAt = now
	n := a.pump.Advance(now)
	if a.demo != nil && !a.demo.Done() {
		for i := 0; i < n; i++ {
			for _, e := range a.demo.Step(breakout.Input{}) {
				a.field.Event(e, now)
			}
			if a.demo.Done() {
				a.doneAt = now
				break
			}
		}
	} else if !a.doneAt.IsZero() && now.Sub(a.doneAt) >= attractPause {
		a.nextWall()
	}
	a.field.Frame(now)
	a.animateInvite(now)
	if f := a.s.opt.OnFrameStats; f != nil {
		if st, ok := a.meter.Frame(now, a.s.now(), n, a.pump.Dropped()); ok {
			f(st)
		}
	}
}

// animateInvite pulses the invitation and lights the symbols in turn.
func (a *attractLoop) animateInvite(now time.Time) {
	if a.invite == nil {
		return
	}
	ms := now.UnixMilli()
	alpha := 0.6 + 0.4*math.Sin(float64(ms%2000)/2000*2*math.Pi)
	// In attractPulseSteps steps: each colour is a text texture Fyne draws
	// again, and a few of them pulse as well as one a frame.
	alpha = math.Round(alpha*attractPulseSteps) / attractPulseSteps
	c := art.GoldLight
	c.A = uint8(255 * alpha)
	if a.invite.Color != c {
		a.invite.Color = c
		a.invite.Refresh()
	}
	lit := int(ms/700) % game.NumSymbols
	if lit != a.lit {
		a.symbols[a.lit].Resource = art.SymbolResource(game.Symbols[a.lit], false)
		a.symbols[a.lit].Refresh()
		a.symbols[lit].Resource = art.SymbolResource(game.Symbols[lit], true)
		a.symbols[lit].Refresh()
		a.lit = lit
	}
}

func (a *attractLoop) build(v view) fyne.CanvasObject {
	tr := a.s.tr
	fx, fy, fw := float32(104), float32(120), float32(640)
	fh := fw * 5 / 6
	v.place(a.field, fx, fy, fw, fh)
	demo := v.textAt(tr.T(msgAttractDemo), sizeCaption, art.Sand, true, fyne.TextAlignLeading, fx, fy+fh+10, fw)
	objs := attractBackdrop(v)
	objs = append(objs, attractRim(v, fx, fy, fw, fh, 4)...)
	objs = append(objs, a.field, demo,
		v.image(art.WordmarkResource(), 776, 150, 400, 400/art.WordmarkAspect),
		v.textAt(tr.T(msgTagline), sizeBody, art.Sand, false, fyne.TextAlignCenter, 760, 150+400/art.WordmarkAspect+10, 432),
	)
	a.invite = v.textAt(tr.T(msgAttractTouch), sizeHeading, art.GoldLight, true, fyne.TextAlignCenter, 760, 560, 432)
	objs = append(objs, a.invite)
	side, gap := float32(58), float32(12)
	x0 := 976 - (6*side+5*gap)/2
	for i, sym := range game.Symbols {
		a.symbols[i] = v.image(art.SymbolResource(sym, i == a.lit), x0+float32(i)*(side+gap), 440, side, side)
		objs = append(objs, a.symbols[i])
	}
	objs = append(objs, a.s.buildNotice(v)...)
	catcher := newTapCatcher(func() { a.s.activity(); a.s.showHome() })
	v.full(catcher)
	objs = append(objs, catcher)
	return container.NewWithoutLayout(objs...)
}

// attractBackdrop is the home screen's backdrop as the attract loop draws
// it: only its frieze, its two columns and its base band, from the home
// screen's own raster; between them the window's background, the theme's
// lapis (the night sky's faint glow and stars are left out). Why: the
// attract loop is what an idle kiosk shows all day, and under a software GL
// (the kiosk's llvmpipe) Fyne draws the whole window again at every frame,
// at a cost per textured pixel; the full backdrop alone was most of the
// loop's CPU (docs/performance.md). The home screen, which is still, keeps
// it whole.
func attractBackdrop(v view) []fyne.CanvasObject {
	w, h := play.Pixels(v.size, 1)
	full := play.Raster(art.HomeBackdropResource(), w, h, canvas.ImageFillCover)
	if full == nil || w < 1 || h < 1 {
		return nil
	}
	var objs []fyne.CanvasObject
	for _, r := range attractBands(w, h) {
		img := canvas.NewImageFromImage(attractCrop(full, r))
		img.FillMode = canvas.ImageFillStretch
		img.ScaleMode = canvas.ImageScalePixels
		img.Move(fyne.NewPos(float32(r.Min.X), float32(r.Min.Y)))
		img.Resize(fyne.NewSize(float32(r.Dx()), float32(r.Dy())))
		objs = append(objs, img)
	}
	return objs
}

// The home backdrop's parts the attract loop draws, in the drawing's units
// (backdrop-home.svg, 1920 × 1080): the frieze and the columns' capitals
// above attractTopY, the base band below attractBottomY, the columns
// within attractSideW of each side.
const (
	attractSvgW, attractSvgH = 1920, 1080
	attractTopY              = 100
	attractBottomY           = 1010
	attractSideW             = 190
)

// attractBands are the rectangles of the attract loop's backdrop in a
// w × h pixel window the backdrop covers (centred, cropped): top, bottom,
// left, right, none of them empty.
func attractBands(w, h int) []image.Rectangle {
	s := max(float64(w)/attractSvgW, float64(h)/attractSvgH)
	cx, cy := (attractSvgW*s-float64(w))/2, (attractSvgH*s-float64(h))/2
	clampTo := func(x float64, hi int) int { return min(max(int(math.Ceil(x)), 0), hi) }
	top := clampTo(attractTopY*s-cy, h)
	bottom := clampTo(attractBottomY*s-cy, h)
	side := clampTo(attractSideW*s-cx, w/2)
	var rs []image.Rectangle
	for _, r := range []image.Rectangle{
		image.Rect(0, 0, w, top),
		image.Rect(0, bottom, w, h),
		image.Rect(0, top, side, bottom),
		image.Rect(w-side, top, w, bottom),
	} {
		if !r.Empty() {
			rs = append(rs, r)
		}
	}
	return rs
}

// attractCrop is the part r of img, as an image of its own (Fyne uploads an
// RGBA image's pixels as if they were its whole width, so a sub-image would
// not do). Crops are kept (attractCrops): the loop is built again at each
// idle spell, and the image a canvas object shows being the same one keeps
// its texture.
func attractCrop(img *image.RGBA, r image.Rectangle) *image.RGBA {
	k := attractCropKey{img, r}
	attractCrops.mu.Lock()
	defer attractCrops.mu.Unlock()
	if c, ok := attractCrops.m[k]; ok {
		return c
	}
	c := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		o := img.PixOffset(r.Min.X, y)
		copy(c.Pix[(y-r.Min.Y)*c.Stride:(y-r.Min.Y+1)*c.Stride], img.Pix[o:o+4*r.Dx()])
	}
	if len(attractCrops.m) >= 16 { // a few window sizes at most
		clear(attractCrops.m)
	}
	attractCrops.m[k] = c
	return c
}

type attractCropKey struct {
	src *image.RGBA
	r   image.Rectangle
}

var attractCrops = struct {
	mu sync.Mutex
	m  map[attractCropKey]*image.RGBA
}{m: map[attractCropKey]*image.RGBA{}}

// attractRim is the gold rim around the demonstration's playfield, in
// design units: four thin bars, t thick, outside the field's rectangle.
// Inside it the field shows over the window's lapis as it does in a game
// (a filled rectangle behind the field showed through it as a gold field,
// and cost a field's worth of pixels at every frame).
func attractRim(v view, x, y, w, h, t float32) []fyne.CanvasObject {
	bar := func(bx, by, bw, bh float32) fyne.CanvasObject {
		r := canvas.NewRectangle(art.GoldDark)
		return v.place(r, bx, by, bw, bh)
	}
	return []fyne.CanvasObject{
		bar(x-t, y-t, w+2*t, t),
		bar(x-t, y+h, w+2*t, t),
		bar(x-t, y, t, h),
		bar(x+w, y, t, h),
	}
}
