package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/play"
)

// The windows over the game screen are drawn on the playfield only, so the
// cartouche beside it stays in view with its blinking combination (Art.
// 4.6). They are laid out on a design field of fieldDesignW × fieldDesignH
// units (the field's 6:5) fitted into the playfield.
const (
	fieldDesignW = 960
	fieldDesignH = 800

	frameW = 760
	frameH = frameW / art.FrameAspect
	frameX = (fieldDesignW - frameW) / 2
	frameY = 96

	riseDistance = 60 // design units the window rises by as it appears
)

// fieldView is the design field fitted into the game screen's playfield.
func (s *Screens) fieldView() view {
	pos, size := s.gs.Playfield().Position(), s.gs.Playfield().Size()
	if size.Width <= 0 || size.Height <= 0 {
		// not laid out yet: where the game screen will put it
		fw := min(s.v.size.Height*fieldDesignW/fieldDesignH, s.v.size.Width-play.MinPanel)
		pos, size = fyne.NewPos(0, (s.v.size.Height-fw*fieldDesignH/fieldDesignW)/2), fyne.NewSize(fw, fw*fieldDesignH/fieldDesignW)
	}
	k := min(size.Width/fieldDesignW, size.Height/fieldDesignH)
	v := view{k: k, ox: pos.X + (size.Width-fieldDesignW*k)/2, oy: pos.Y + (size.Height-fieldDesignH*k)/2, size: s.v.size, large: s.v.large}
	if v.large {
		// The mode's wider panel leaves a narrower field: its text is
		// largeScale times the usual field's all the same.
		if fw := play.FieldWidth(s.v.size, true); fw > 0 {
			v.boost = play.FieldWidth(s.v.size, false) / fw
		}
	}
	return v
}

// windowContent is the text area of the congratulation frame, in design
// units of the field.
func windowContent() (x, y, w, h float32) {
	b := art.FrameContent
	return frameX + b.X*frameW, frameY + b.Y*frameH, b.W * frameW, b.H * frameH
}

// window builds a congratulation window: the veil over the playfield, the
// frame and what fill lays out in its text area, and the buttons under it
// (nil: none). It rises into place after delay (the combination blinks
// alone first). In the large-text mode the frame's picture gives way to a
// plain panel, and the whole window is drawn largeScale times larger over
// the playfield.
func (s *Screens) window(v view, fill func(v view, x, y, w, h float32) []fyne.CanvasObject, buttons func(view) []fyne.CanvasObject) fyne.CanvasObject {
	veil := v.dim(0, 0, fieldDesignW, fieldDesignH)
	x, y, w, h := windowContent()
	var objs []fyne.CanvasObject
	if v.large {
		// the panel (largeWinX, largeWinY)–(+largeWinW, +largeWinH),
		// 1.5 times larger, centred on the field
		ph := winButtonsY(v) + 76 + 12 - largeWinY
		v = v.zoomTo(largeWinX, largeWinY, (fieldDesignW-largeWinW*v.scale())/2, (fieldDesignH-ph*v.scale())/2)
		p := v.panelAlpha(largeWinX, largeWinY, largeWinW, ph, 0xFF)
		p.StrokeColor, p.StrokeWidth = art.Gold, 3*v.k
		objs = append(objs, p)
		x, w = largeWinX+10, largeWinW-20
	} else {
		objs = append(objs, v.framed(art.CongratulationFrameResource(), frameX, frameY, frameW, frameH))
	}
	objs = append(objs, fill(v, x, y, w, h)...)
	if buttons != nil {
		objs = append(objs, buttons(v)...)
	}
	return container.NewWithoutLayout(veil, container.NewWithoutLayout(objs...))
}

// The panel of a window in the large-text mode, in design units of the
// field: the frame's text area and the buttons under it, narrower than
// the frame so that 1.5 times larger it still fits the field.
const (
	largeWinX = fieldDesignW/2 - largeWinW/2
	largeWinY = 200
	largeWinW = 580
)

// winButtonsY is the design y of a window's buttons: under the frame, or
// in the large-text mode right under the text area (no frame's foot
// between them).
func winButtonsY(v view) float32 {
	if v.large {
		_, y, _, h := windowContent()
		return y + h + 10
	}
	return frameY + frameH + 22
}

// rise makes a window appear after delay, rising into place.
func (s *Screens) rise(win fyne.CanvasObject, delay time.Duration) {
	c, ok := win.(*fyne.Container)
	if !ok || len(c.Objects) != 2 {
		return
	}
	body := c.Objects[1]
	k := s.fieldView().k
	total := delay + windowRise
	win.Hide()
	a := fyne.NewAnimation(total, func(t float32) {
		el := time.Duration(float32(total) * t)
		if el < delay {
			return
		}
		f := float32(el-delay) / float32(windowRise)
		if f > 1 {
			f = 1
		}
		f = 1 - (1-f)*(1-f) // ease out
		body.Move(fyne.NewPos(0, (1-f)*riseDistance*k))
		if !win.Visible() {
			// Container.Show does not mark the canvas for repainting, and
			// the canvas does not know the hidden window yet: refresh the
			// overlay it knows, or a still screen never draws the window.
			win.Show()
			s.ovBox.Refresh()
		}
	})
	a.Curve = fyne.AnimationLinear
	if s.riseAnim != nil {
		s.riseAnim.Stop()
	}
	s.riseAnim = a
	a.Start()
}

// showOverlayWindow shows a window built by build, rising after delay.
func (s *Screens) showOverlayWindow(ov overlay, delay time.Duration, build func(view) fyne.CanvasObject) {
	first := true
	s.setOverlay(ov, func(view) fyne.CanvasObject {
		win := build(s.fieldView())
		if first {
			// rise only the first time; a rebuild (a new size, a new
			// language) shows the window in place
			first = false
			s.rise(win, delay)
		}
		return win
	})
}

// againButtons are Rejouer (same stake, same mode) and Accueil, under the
// frame, always in their places: Rejouer the credit does not cover is shown
// unavailable, with why.
func (s *Screens) againButtons(v view) []fyne.CanvasObject {
	y := winButtonsY(v)
	x, aw, hw := float32(fieldDesignW/2-300), float32(340), float32(240)
	if v.large {
		x, aw, hw = largeWinX+15, 310, 220 // within the panel's 580
	}
	again := s.againButton(v, x, y, aw, 76)
	home := v.button(s.tr.T(msgHome), buttonSecondary, sizeButton, s.goHome, x+aw+20, y, hw, 76)
	return []fyne.CanvasObject{again, home}
}

// againButton is Rejouer at the stake just played: enabled when the credit
// covers it and it is available, else greyed with the reason as its
// caption (a win the staff pay by hand locks the kiosk first).
func (s *Screens) againButton(v view, x, y, w, h float32) *touchButton {
	st := s.stake
	if s.game != nil {
		st = s.game.Stake()
	}
	again := v.button(s.tr.F(msgAgain, s.tr.Stake(st)), buttonPrimary, sizeButton, s.playAgain, x, y, w, h)
	if !s.canPlayAgain() {
		why := msgAgainShort
		switch {
		case s.snap.HandPay.Pending():
			why = msgAgainHandPay
		case !s.snap.Available[st]:
			why = msgAgainOff
		}
		again.FitCaption(s.tr.T(why))
		again.Disable()
		return again
	}
	again.SetEnabled(!s.requesting) // one request, one unit
	return again
}

// The sides of the windows' symbols and the width of the bonus window's
// brick, in design units of the field (warmWindows rasterises them at
// these sizes).
const (
	winSymbolSide    = 54
	bonusSymbolSide  = 70
	resultSymbolSide = 52
	bonusBrickW      = 144
)

// warmWindows rasterises, on its own goroutine, the drawings of the windows
// a game may end with (the frame, the symbols, the bonus brick) at the
// field's size, once per size: the frame that shows a window then only
// places them (rasterising them there cost that frame 50 to 124 ms at
// 1280×800). The home screen asks first, while the kiosk waits for a
// player; the game screen again, should its field have another size.
func (s *Screens) warmWindows() {
	v := s.fieldView()
	if v.large {
		v.k *= v.scale() // the windows' symbols drawn 1.5 times larger (window)
	}
	if v.k <= 0 || v.k == s.warmedK {
		return
	}
	s.warmedK = v.k
	type job struct {
		res  fyne.Resource
		w, h float32
		fill canvas.ImageFill
	}
	jobs := []job{{art.BonusBrickResource(true), bonusBrickW, bonusBrickW / art.BrickAspect, canvas.ImageFillContain}}
	if !v.large {
		jobs = append(jobs, job{art.CongratulationFrameResource(), frameW, frameH, canvas.ImageFillStretch})
	}
	for _, sym := range game.Symbols {
		jobs = append(jobs, job{art.SymbolResource(sym, true), winSymbolSide, winSymbolSide, canvas.ImageFillContain})
	}
	for _, side := range []float32{bonusSymbolSide, resultSymbolSide} {
		jobs = append(jobs, job{art.SymbolResource(game.Snake, true), side, side, canvas.ImageFillContain})
	}
	go func() {
		for _, j := range jobs {
			pw, ph := play.Pixels(v.sz(j.w, j.h), 1)
			play.Raster(j.res, pw, ph, j.fill)
		}
	}()
}

// symbols is n drawings of sym, centred in the design box.
func symbols(v view, sym game.Symbol, n int, cx, y, side float32) []fyne.CanvasObject {
	var objs []fyne.CanvasObject
	gap := side * 0.15
	x := cx - (float32(n)*side+float32(n-1)*gap)/2
	for i := 0; i < n; i++ {
		objs = append(objs, v.artImage(art.SymbolResource(sym, true), x+float32(i)*(side+gap), y, side, side))
	}
	return objs
}

// showWinWindow is the congratulation window of a direct win (Art. 4.6):
// the combination found and the amount won, which is the kiosk's
// credited prize (Art. 4.8: the unit ends here, so it is also the window of
// the total won).
func (s *Screens) showWinWindow(comb game.Combination, won game.Money) {
	s.showOverlayWindow(ovWin, s.opt.WindowDelay, func(v view) fyne.CanvasObject {
		return s.window(v, func(v view, x, y, w, h float32) []fyne.CanvasObject {
			tr := s.tr
			objs := []fyne.CanvasObject{
				v.textAt(tr.T(msgCongratsTitle), sizeTitle+4, art.GoldLight, true, fyne.TextAlignCenter, x, y+4, w),
				v.textAt(tr.F(msgCongratsFound, tr.Combination(comb)), sizeBody+3, art.Sand, false, fyne.TextAlignCenter, x, y+68, w),
			}
			objs = append(objs, symbols(v, comb.Symbol, comb.Count, x+w/2, y+104, winSymbolSide)...)
			objs = append(objs,
				v.textAt(tr.T(msgCongratsWin), sizeBody+1, art.Sand, false, fyne.TextAlignCenter, x, y+166, w),
				v.textAt(tr.Money(won), sizeAmount+8, art.GoldLight, true, fyne.TextAlignCenter, x, y+190, w),
				v.textAt(tr.T(s.creditedLine()), sizeSmall, art.Sand, false, fyne.TextAlignCenter, x, y+h-30, w),
			)
			return objs
		}, s.againButtons)
	})
}

// showBonusIntro announces the bonus game while the snakes blink (Art. 4.6,
// 4.7); the bonus wall replaces it.
func (s *Screens) showBonusIntro() {
	s.showOverlayWindow(ovBonusIntro, s.opt.WindowDelay/2, func(v view) fyne.CanvasObject {
		return s.window(v, func(v view, x, y, w, h float32) []fyne.CanvasObject {
			tr := s.tr
			objs := []fyne.CanvasObject{v.textAt(tr.T(msgBonusIntroTitle), sizeTitle+8, art.GoldLight, true, fyne.TextAlignCenter, x, y+6, w)}
			objs = append(objs, symbols(v, game.Snake, game.MaxPerSymbol, x+w/2, y+74, bonusSymbolSide)...)
			lines, _ := v.para(tr.T(msgBonusIntroText), sizeBody+3, art.Sand, false, fyne.TextAlignCenter, x+20, y+170, w-40)
			return append(objs, lines...)
		}, nil)
	})
}

// showBonusWindow is the bonus game's own congratulation window (Art. 4.7)
// with its amount, then Continuer leads to the total won (Art. 4.8).
func (s *Screens) showBonusWindow(amount game.Money) {
	s.showOverlayWindow(ovBonusWin, s.opt.WindowDelay/2, func(v view) fyne.CanvasObject {
		cont := func(v view) []fyne.CanvasObject {
			return []fyne.CanvasObject{v.button(s.tr.T(msgContinue), buttonPrimary, sizeButton, s.showResultWindow, fieldDesignW/2-150, winButtonsY(v), 300, 76)}
		}
		return s.window(v, func(v view, x, y, w, h float32) []fyne.CanvasObject {
			tr := s.tr
			return []fyne.CanvasObject{
				v.textAt(tr.T(msgBonusWinTitle), sizeTitle, art.GoldLight, true, fyne.TextAlignCenter, x, y+6, w),
				v.textAt(tr.T(msgBonusWinText), sizeBody+3, art.Sand, false, fyne.TextAlignCenter, x, y+62, w),
				v.artImage(art.BonusBrickResource(true), x+w/2-bonusBrickW/2, y+98, bonusBrickW, bonusBrickW/art.BrickAspect),
				v.textAt(tr.T(msgBonusWinAmount), sizeBody+1, art.Sand, false, fyne.TextAlignCenter, x, y+166, w),
				v.textAt(tr.Money(amount), sizeAmount+8, art.GoldLight, true, fyne.TextAlignCenter, x, y+190, w),
			}
		}, cont)
	})
}

// showResultWindow is the window of the total won at the end of a unit won
// through the bonus game (Art. 4.8): the kiosk's credited prize.
func (s *Screens) showResultWindow() {
	s.activity()
	won := s.result.Won
	s.showOverlayWindow(ovResult, 0, func(v view) fyne.CanvasObject {
		return s.window(v, func(v view, x, y, w, h float32) []fyne.CanvasObject {
			tr := s.tr
			objs := []fyne.CanvasObject{
				v.textAt(tr.T(msgCongratsTitle), sizeTitle+4, art.GoldLight, true, fyne.TextAlignCenter, x, y+4, w),
			}
			objs = append(objs, symbols(v, game.Snake, game.MaxPerSymbol, x+w/2, y+66, resultSymbolSide)...)
			objs = append(objs,
				v.textAt(tr.T(msgResultTotal), sizeBody+3, art.Sand, false, fyne.TextAlignCenter, x, y+140, w),
				v.textAt(tr.Money(won), sizeAmount+8, art.GoldLight, true, fyne.TextAlignCenter, x, y+172, w),
				v.textAt(tr.T(s.creditedLine()), sizeSmall, art.Sand, false, fyne.TextAlignCenter, x, y+h-30, w),
			)
			return objs
		}, s.againButtons)
	})
}

// creditedLine is the foot of a win's window: the win goes to the credit,
// unless it locked the kiosk for a hand-pay, when the staff pay the whole
// credit, this win included.
func (s *Screens) creditedLine() msg {
	if s.snap.HandPay.Pending() && s.snap.HandPay.Cause == kiosk.HandPayWin {
		return msgResultHandPay
	}
	return msgResultCredited
}

// showLoseBanner ends a losing unit: no congratulation window (Art. 4.8),
// only a quiet line and the way on.
func (s *Screens) showLoseBanner() {
	s.setOverlay(ovLose, func(view) fyne.CanvasObject {
		v := s.fieldView()
		x, y, w, h := float32(150), float32(560), float32(660), float32(180)
		aw, hw, m := float32(340), float32(250), float32(24)
		if v.large {
			// 1.5 times larger, at the foot of the field
			x, w, aw, hw, m = 190, 580, 310, 220, 15
			v = v.zoomTo(x, y, (fieldDesignW-w*v.scale())/2, fieldDesignH-14-h*v.scale())
		}
		bg := v.panel(x, y, w, h)
		line := v.textAt(s.tr.T(msgLoseText), sizeHeading, art.Sand, false, fyne.TextAlignCenter, x, y+18, w)
		objs := []fyne.CanvasObject{bg, line}
		by := y + h - 96
		objs = append(objs, s.againButton(v, x+m, by, aw, 76),
			v.button(s.tr.T(msgHome), buttonSecondary, sizeButton, s.goHome, x+w-m-hw, by, hw, 76))
		return container.NewWithoutLayout(objs...)
	})
}
