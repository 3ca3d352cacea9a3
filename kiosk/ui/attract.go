package ui

import (
	"math"
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

	invite  *canvas.Text
	symbols [game.NumSymbols]*canvas.Image
	lit     int
}

// showAttract starts the attract loop.
func (s *Screens) showAttract() {
	// The next player finds the kiosk in its own language.
	if s.tr.Lang != s.opt.Lang {
		s.tr = Tr{s.opt.Lang}
		s.gs.SetWords(PlayWords(s.tr.Lang))
	}
	a := &attractLoop{s: s, field: play.NewPlayfield(), pump: play.NewPump(play.DefaultMaxCatchUp)}
	a.field.SetWords(PlayWords(s.tr.Lang))
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
}

// animateInvite pulses the invitation and lights the symbols in turn.
func (a *attractLoop) animateInvite(now time.Time) {
	if a.invite == nil {
		return
	}
	ms := now.UnixMilli()
	alpha := 0.6 + 0.4*math.Sin(float64(ms%2000)/2000*2*math.Pi)
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
	rim := canvas.NewRectangle(art.GoldDark)
	rim.CornerRadius = 6 * v.k
	v.place(rim, fx-4, fy-4, fw+8, fh+8)
	v.place(a.field, fx, fy, fw, fh)
	demo := v.textAt(tr.T(msgAttractDemo), sizeCaption, art.Sand, true, fyne.TextAlignLeading, fx, fy+fh+10, fw)
	objs := []fyne.CanvasObject{
		v.cover(art.HomeBackdropResource()),
		rim, a.field, demo,
		v.image(art.WordmarkResource(), 776, 150, 400, 400/art.WordmarkAspect),
		v.textAt(tr.T(msgTagline), sizeBody, art.Sand, false, fyne.TextAlignCenter, 760, 150+400/art.WordmarkAspect+10, 432),
	}
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
