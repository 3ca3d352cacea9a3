package ui

import (
	"image/color"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/kiosk/ui/art"
)

// Layout of the prize table, in design units of the field.
const (
	ptX     = 36
	ptY     = 28
	ptW     = fieldDesignW - 2*ptX
	ptH     = fieldDesignH - 2*ptY
	ptRowsY = ptY + 118
	ptRowH  = 50
)

// showPrizeTable shows the prize table of stake over the playfield (Art.
// 4.2: tapping the cartouche). The game waits while it is open; it closes
// on a tap, or by itself after Options.OverlayTimeout.
func (s *Screens) showPrizeTable(stake game.Stake) {
	s.activity()
	if s.screen != scrGame || s.overlay != ovNone || !stake.Valid() {
		return
	}
	s.gs.Stop()
	s.setOverlay(ovPrizeTable, func(view) fyne.CanvasObject { return s.buildPrizeTable(s.fieldView(), stake) })
}

// closePrizeTable closes the prize table; the game goes on where it was.
func (s *Screens) closePrizeTable() {
	if s.overlay != ovPrizeTable {
		return
	}
	s.clearOverlay()
	if s.screen == scrGame && s.gameRunning() {
		s.gs.Start()
	}
}

// buildPrizeTable lays out the combinations of Art. 4.3 with the prize of
// each at stake and the lots of Art. 3 per block, from game.Table: nothing
// typed in.
func (s *Screens) buildPrizeTable(v view, stake game.Stake) fyne.CanvasObject {
	tr := s.tr
	catcher := newTapCatcher(func() { s.activity(); s.closePrizeTable() })
	v.place(catcher, 0, 0, fieldDesignW, fieldDesignH)
	objs := []fyne.CanvasObject{
		v.dim(0, 0, fieldDesignW, fieldDesignH),
		catcher,
		v.panelAlpha(ptX, ptY, ptW, ptH, 0xF6),
		v.textAt(tr.F(msgPrizeTitle, tr.Stake(stake)), sizeTitle-6, art.GoldLight, true, fyne.TextAlignCenter, ptX, ptY+16, ptW),
	}
	cols := [3][2]float32{{ptX + 40, 380}, {ptX + 430, 200}, {ptX + 650, 200}}
	// The large-text mode: taller rows, and no footer (the lots per block
	// stay in their column).
	rowsY, rowH, side, headY := float32(ptRowsY), float32(ptRowH), float32(40), float32(ptRowsY-38)
	if v.large {
		rowsY, rowH, side = ptY+16+74+44, 56, 40
		headY = rowsY - 46
		cols = [3][2]float32{{ptX + 20, 340}, {ptX + 365, 235}, {ptX + 605, 262}}
	}
	heads := [3]msg{msgPrizeCombo, msgPrizeAmount, msgPrizeLots}
	for i, h := range heads {
		align := fyne.TextAlignTrailing
		if i == 0 {
			align = fyne.TextAlignLeading
		}
		objs = append(objs, v.textAt(tr.T(h), sizeBody, art.Gold, true, align, cols[i][0], headY, cols[i][1]))
	}
	objs = append(objs, v.rule(ptX+30, rowsY-6, ptW-60))
	row := func(i int, c game.Combination, amount, lots string) {
		y := rowsY + float32(i)*rowH
		if i%2 == 1 {
			band := canvas.NewRectangle(color.NRGBA{R: art.LapisLight.R, G: art.LapisLight.G, B: art.LapisLight.B, A: 0x50})
			if v.large {
				band.FillColor = art.Lapis // opaque: the text's ground is known
			}
			v.place(band, ptX+20, y, ptW-40, rowH)
			objs = append(objs, band)
		}
		for k := 0; k < c.Count; k++ {
			objs = append(objs, v.image(art.SymbolResource(c.Symbol, true), cols[0][0]+float32(k)*(side+2), y+(rowH-side)/2, side, side))
		}
		ty := y + (rowH-v.lineHeight(sizeBody+2, true))/2
		lx := cols[0][0] + 3*(side+2) + 14
		objs = append(objs,
			v.textAt(tr.Combination(c), sizeBody+2, art.Sand, false, fyne.TextAlignLeading, lx, ty, cols[0][0]+cols[0][1]-lx),
			v.textAt(amount, sizeBody+4, art.GoldLight, true, fyne.TextAlignTrailing, cols[1][0], ty-1, cols[1][1]),
			v.textAt(lots, sizeBody, art.Sand, false, fyne.TextAlignTrailing, cols[2][0], ty, cols[2][1]),
		)
	}
	tab := game.Table(stake)
	for i, p := range tab.Prizes {
		row(i, p.Combination, tr.Money(p.Amount), s.count(p.Lots))
	}
	row(len(tab.Prizes), game.BonusCombination(), tr.T(msgRulesBonusCell), "—")
	if !v.large {
		fy := rowsY + float32(len(tab.Prizes)+1)*rowH + 10
		lines, _ := v.para(tr.F(msgPrizeFooter, s.count(game.UnitsPerBlock)), sizeSmall, art.Sand, false, fyne.TextAlignCenter, ptX+40, fy, ptW-80)
		objs = append(objs, lines...)
	}
	objs = append(objs, v.button(tr.T(msgClose), buttonSecondary, sizeButton, func() { s.activity(); s.closePrizeTable() },
		fieldDesignW/2-120, ptY+ptH-84, 240, 70))
	return container.NewWithoutLayout(objs...)
}

// count writes a whole number grouped by thousands as the language does
// ("350 000", "350,000").
func (s *Screens) count(n int) string {
	digits := strconv.Itoa(n)
	sep := "\u00a0"
	if s.tr.Lang == English {
		sep = ","
	}
	out := ""
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			out += sep
		}
		out += string(r)
	}
	return out
}

// tapCatcher is an invisible surface that takes a tap (closing an overlay
// by tapping beside it) and stops touches reaching what is under it.
type tapCatcher struct {
	widget.BaseWidget
	onTap func()
}

func newTapCatcher(f func()) *tapCatcher {
	c := &tapCatcher{onTap: f}
	c.ExtendBaseWidget(c)
	return c
}

func (c *tapCatcher) Tapped(*fyne.PointEvent) {
	if c.onTap != nil {
		c.onTap()
	}
}

// MouseDown and MouseUp swallow the presses the playfield would take for a
// touch moving the paddle.
func (c *tapCatcher) MouseDown(*desktop.MouseEvent) {}
func (c *tapCatcher) MouseUp(*desktop.MouseEvent)   {}

// Dragged and DragEnd swallow drags for the same reason.
func (c *tapCatcher) Dragged(*fyne.DragEvent) {}
func (c *tapCatcher) DragEnd()                {}

func (c *tapCatcher) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(color.Transparent))
}
