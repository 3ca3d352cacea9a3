package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
)

// The large-text, high-contrast mode: a player switches it on from the
// home screen (« Aa »); every text of the player's screens is then
// largeScale times its usual size, drawn in inks of at least 7:1 against
// opaque grounds (art.HighContrast), with no picture behind text. Like the
// voice, it is the player's: it ends with the session it was asked for
// (the credit back to zero once there was some) and at the attract loop.
//
// The screens get there three ways (DESIGN.md §8): home, the history,
// the prize table, the bilingual screens, the toast and the timeout's
// strip have a layout of their own for it; the cards (cash-out, the
// limit, the reality check, the rules) are drawn largeScale times larger
// as a whole (zoom), which their size leaves room for; the windows over
// the game lose their frame's picture for a plain panel, and are drawn
// larger as a whole too (window, zoomTo). The game screen scales its own
// texts (play.Screen.SetLargeText).

// largeScale is the large-text mode's text size against the usual one.
const largeScale = 1.5

// largeState is the mode on or off, and whether the session it is on for
// has had credit (its end is the credit back to zero).
type largeState struct {
	on, hadCredit bool
}

// ink is the colour a text of colour c is drawn in: its high-contrast
// counterpart in the large-text mode.
func (v view) ink(c color.Color) color.Color {
	if v.large {
		return art.HighContrast(c)
	}
	return c
}

// zoom is v largeScale times larger as a whole, about the centre of the
// design screen, in the large-text mode (v itself otherwise): a card of at
// most designW/largeScale × designH/largeScale units drawn with it keeps
// its layout and shows its text largeScale times larger.
func (v view) zoom() view {
	return v.zoomTo(0, 0, designW*(1-v.scale())/2, designH*(1-v.scale())/2)
}

// zoomTo is v largeScale times larger, the design point (x, y) drawn where
// v draws (tx, ty), in the large-text mode (v itself otherwise).
func (v view) zoomTo(x, y, tx, ty float32) view {
	if !v.large || v.zoomed {
		return v
	}
	z := v
	z.k = v.k * v.scale()
	z.ox = v.ox + tx*v.k - x*z.k
	z.oy = v.oy + ty*v.k - y*z.k
	z.zoomed = true
	return z
}

// scale is how much larger than usual v's text is drawn in the mode:
// largeScale, and more in a design field drawn smaller than usual.
func (v view) scale() float32 {
	return largeScale * max(v.boost, 1)
}

// setLarge switches the mode on or off and draws the screens again.
func (s *Screens) setLarge(on bool) {
	if s.large.on == on {
		return
	}
	s.large = largeState{on: on, hadCredit: on && s.snap.Credit > 0}
	s.drawLarge(on)
}

// drawLarge draws every screen in the mode, or not.
func (s *Screens) drawLarge(on bool) {
	s.v.large = on
	s.gs.SetLargeText(on)
	s.rebuild()
	s.warmWindows() // the windows' symbols at the mode's size
}

// toggleLarge is « Aa » on the home screen.
func (s *Screens) toggleLarge() {
	s.activity()
	s.setLarge(!s.large.on)
	if s.voice.on {
		key := msgSayLargeOff
		if s.large.on {
			key = msgSayLargeOn
		}
		s.say(s.tr.Spoken().T(key))
	}
}

// largeShown ends the mode at the attract loop and when the session it
// was on for is over, as voiceSessionEnd does the voice.
func (s *Screens) largeShown() {
	if !s.large.on {
		return
	}
	if s.screen == scrAttract {
		s.setLarge(false)
		return
	}
	if s.snap.Credit > 0 {
		s.large.hadCredit = true
		return
	}
	// Home with nothing left, after the voucher's card (read in the
	// mode too).
	if s.large.hadCredit && s.snap.State == kiosk.Home && s.screen == scrHome && s.overlay == ovNone {
		s.setLarge(false)
	}
}

// largeButton is « Aa », the mode's switch, at the design box given.
func (s *Screens) largeButton(v view, x, y, w, h float32) fyne.CanvasObject {
	kind := buttonQuiet
	if s.large.on {
		kind = buttonChosen
	}
	return v.button(largeLabel, kind, 26, s.toggleLarge, x, y, w, h)
}

// largeLabel is what « Aa » shows; the voice says its name
// (Screens.buttonSpoken).
const largeLabel = "Aa"

// Layout of the home screen in the large-text mode, in design units: the
// winning combinations on the left, one per row, and the rules in a card
// of their own (« Règle du jeu »); the actions on the right, wider.
const (
	largeTopY     = 44
	largeTopH     = 72
	largeTop      = 140 // below the top row
	largeBottom   = 718 // above the notice
	largeNoticeY  = 726
	largeRulesX   = rulesX
	largeRulesW   = 420
	largeActionsX = 544
	largeActionsW = designW - 104 - largeActionsX
	largeCombRowH = 44
)

// buildHomeLarge is the home screen in the large-text mode.
func (s *Screens) buildHomeLarge(v view) fyne.CanvasObject {
	objs := []fyne.CanvasObject{
		s.cover(v, art.HomeBackdropResource()),
		v.image(art.WordmarkResource(), 580, largeTopY+4, 210, 210/art.WordmarkAspect),
	}
	objs = append(objs, s.langButtons(v, 1022, largeTopY, 74, largeTopH, 6)...)
	objs = append(objs, s.buildVoiceButtons(v)...)
	objs = append(objs, s.buildCombinationsLarge(v)...)
	objs = append(objs, s.buildNotice(v)...)
	s.homeLive = container.NewWithoutLayout(s.buildHomeLive(v)...)
	return container.NewWithoutLayout(append(objs, s.homeLive)...)
}

// buildCombinationsLarge is the left panel: the prizes at the stake chosen,
// one combination a row, and « Règle du jeu », which opens the rules.
func (s *Screens) buildCombinationsLarge(v view) []fyne.CanvasObject {
	tr := s.tr
	x, w := float32(largeRulesX+20), float32(largeRulesW-40)
	objs := []fyne.CanvasObject{v.panel(largeRulesX, largeTop, largeRulesW, largeBottom-largeTop)}
	lines, y := v.para(tr.F(msgLargeCombos, tr.Stake(s.stake)), sizeBody, art.GoldLight, true, fyne.TextAlignLeading, x, largeTop+10, w)
	objs = append(objs, lines...)
	y += 4
	objs = append(objs, v.rule(x, y, w))
	y += 6
	row := func(c game.Combination, amount string) {
		for i := 0; i < c.Count; i++ {
			objs = append(objs, v.image(art.SymbolResource(c.Symbol, true), x+float32(i)*40, y+3, 38, 38))
		}
		ty := y + (largeCombRowH-v.lineHeight(sizeBody+1, true))/2
		if s.tr.spoken {
			objs = append(objs, v.textAt(s.tr.Combination(c), sizeBody+1, art.GoldLight, false, fyne.TextAlignLeading, x, ty, 124))
		}
		objs = append(objs, v.textAt(amount, sizeBody+1, art.GoldLight, true, fyne.TextAlignTrailing, x+124, ty, w-124))
		y += largeCombRowH
	}
	for _, p := range game.Table(s.stake).Prizes {
		row(p.Combination, tr.Money(p.Amount))
	}
	row(game.BonusCombination(), tr.T(msgRulesBonusCell))
	objs = append(objs, v.button(tr.T(msgRulesTitle), buttonSecondary, sizeHeading, s.showRules,
		x, largeBottom-10-70, w, 70))
	return objs
}

// buildActionsLarge is buildActions in the large-text mode: the same
// buttons and lines, on a wider column.
func (s *Screens) buildActionsLarge(v view, credit game.Money, available map[game.Stake]bool) []fyne.CanvasObject {
	tr := s.tr
	x, w := float32(largeActionsX), float32(largeActionsW)
	const creditH = 122
	objs := []fyne.CanvasObject{
		v.panel(x, largeTop, w, creditH),
		v.textAt(tr.T(msgCredit), sizeBody, art.Sand, true, fyne.TextAlignLeading, x+24, largeTop+(creditH-v.lineHeight(sizeBody, true))/2, w/2),
		v.textAt(tr.Money(credit), sizeAmount, art.GoldLight, true, fyne.TextAlignTrailing, x+w/3, largeTop+(creditH-v.lineHeight(sizeAmount, true))/2, w*2/3-24),
	}
	notes, max := s.notesLines()
	if line := s.sessionLine(); line != "" {
		max = line
		if notes == "" {
			notes, max = line, ""
		}
	}
	y := float32(largeTop + creditH + 4)
	for _, l := range []string{notes, max} {
		if l != "" {
			objs = append(objs, v.textAt(l, sizeCaption-1, art.Sand, false, fyne.TextAlignCenter, x, y, w))
		}
		y += v.lineHeight(sizeCaption-1, false)
	}
	if b := s.limitButton(v, 800, largeTopY, 216, largeTopH); b != nil {
		objs = append(objs, b)
	}
	objs = append(objs, v.textAt(tr.T(msgChooseStake), sizeHeading-4, art.Sand, true, fyne.TextAlignCenter, x, 334, w))
	const gap = float32(12)
	bw := (w - gap) / 2 // Historique and Encaisser, under Jouer and Auto
	objs, canPlay, cashBusy := s.playButtons(v, objs, credit, available, x, w, 388, 84, 482, 88)
	if text, colour := s.homeMessage(credit, available, canPlay, cashBusy); text != "" {
		lines, _ := v.para(text, sizeSmall, colour, true, fyne.TextAlignCenter, x, 576, w)
		objs = append(objs, lines...)
	}
	hist := v.button(tr.T(msgHistory), buttonSecondary, sizeButton-2, s.showHistory, x, 650, bw, 70)
	cash := v.button(tr.T(msgCashOut), buttonSecondary, sizeButton-2, s.askCashOut, x+bw+gap, 650, bw, 70)
	if !s.snap.Cash.CanCashOut || credit <= 0 {
		cash.Disable()
	}
	if why := s.cashOutCaption(); why != "" {
		cash.FitCaption(why)
	}
	return append(objs, hist, cash)
}

// showRules opens the rules' card (the large-text mode's home shows only
// the prizes).
func (s *Screens) showRules() {
	s.activity()
	if s.overlay != ovNone {
		return
	}
	s.setOverlay(ovRules, s.buildRulesCard)
}

// buildRulesCard is the rules of the game (buildRules' paragraphs) on a
// card drawn largeScale times larger.
func (s *Screens) buildRulesCard(v view) fyne.CanvasObject {
	tr := s.tr
	const h = 470
	v = v.zoom()
	objs, y := s.card(v, h, true, s.closeRules)
	x, w := float32(cashCardX+24), float32(cashCardW-48)
	objs = append(objs, v.textAt(tr.T(msgRulesTitle), sizeHeading, art.GoldLight, true, fyne.TextAlignCenter, x, y+12, w))
	y += 12 + 42
	for i, m := range []msg{msgRulesIntro, msgRulesBonus} {
		if i > 0 {
			y += 6
		}
		var lines []fyne.CanvasObject
		lines, y = v.para(tr.T(m), sizeSmall, art.Sand, false, fyne.TextAlignLeading, x, y, w)
		objs = append(objs, lines...)
	}
	y += 6
	objs = append(objs, s.rulesStonesAndModes(v, x, y, w)...)
	top := float32(designH-h) / 2
	objs = append(objs, v.button(tr.T(msgClose), buttonSecondary, sizeButton-4, s.closeRules, designW/2-110, top+h-16-56, 220, 56))
	return container.NewWithoutLayout(objs...)
}

// closeRules closes the rules' card.
func (s *Screens) closeRules() {
	s.activity()
	if s.overlay == ovRules {
		s.clearOverlay()
	}
}
