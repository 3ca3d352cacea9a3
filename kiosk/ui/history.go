package ui

import (
	"context"
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
)

// Layout of the history screen, in design units.
const (
	histX      = 104
	histW      = 1072
	histTop    = 56
	histRowsY  = 194
	histRowH   = 50
	histBackY  = 668
	histBottom = 744
)

// histColumns are the x and width of the columns: date, stake, mode,
// result, amount won.
var histColumns = [5][2]float32{{136, 250}, {400, 90}, {494, 180}, {684, 300}, {990, 160}}

// In the large-text mode a game takes two lines: date, stake and mode
// over result and amount won (histLine says which line a column is on).
var (
	histColumnsLarge = [5][2]float32{{136, 440}, {590, 170}, {770, 250}, {136, 700}, {850, 300}}
	histLine         = [5]float32{0, 0, 0, 1, 1}
)

const (
	histRowsYLarge = 276
	histRowHLarge  = 96
	histLineLarge  = 44
)

// histLayout is the columns, the rows' top and height, and the gap
// between a row's two lines, in the mode v is in.
func histLayout(v view) (cols [5][2]float32, rowsY, rowH, line float32) {
	if v.large {
		return histColumnsLarge, histRowsYLarge, histRowHLarge, histLineLarge
	}
	return histColumns, histRowsY, histRowH, 0
}

// showHistory shows the player's own games, newest first: those since the
// credit was last zero (Art. 4.1: a player who missed the end of a game
// reads its result there; the previous player's games are not theirs).
func (s *Screens) showHistory() {
	s.activity()
	s.message = nil
	h, err := s.m.PlayerHistory(context.Background(), s.opt.HistorySize)
	if err != nil {
		fyne.LogError("history", err)
	}
	s.setScreen(scrHistory, func(v view) fyne.CanvasObject { return s.buildHistory(v, h, err) })
}

// historyTitle is "Vos parties depuis 14:32" (or the date and time, from
// another day), "Vos parties" when the credit is zero.
func (s *Screens) historyTitle(since time.Time) string {
	tr := s.tr
	if since.IsZero() {
		return tr.T(msgHistoryTitle)
	}
	now := s.now().In(since.Location())
	if y, m, d := since.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return tr.F(msgHistorySince, since.Format("15:04"))
	}
	return tr.F(msgHistorySince, tr.Date(since))
}

func (s *Screens) buildHistory(v view, h kiosk.PlayerHistory, readErr error) fyne.CanvasObject {
	tr := s.tr
	entries := h.Games
	objs := []fyne.CanvasObject{
		s.cover(v, art.HomeBackdropResource()),
		v.panel(histX, histTop, histW, histBottom-histTop),
	}
	titleY, subY := float32(histTop+14), float32(histTop+68)
	if v.large {
		titleY, subY = histTop+4, histTop+84
	}
	objs = append(objs,
		v.textAt(s.historyTitle(h.Since), sizeTitle-4, art.GoldLight, true, fyne.TextAlignCenter, histX, titleY, histW),
		v.textAt(tr.T(msgHistorySub), sizeBody, art.Sand, false, fyne.TextAlignCenter, histX, subY, histW))
	cols, rowsY, _, line := histLayout(v)
	headY := rowsY - 36
	if v.large {
		headY = rowsY - 46 - line
	}
	heads := []msg{msgHistoryDate, msgHistoryStake, msgHistoryMode, msgHistoryOutcome, msgHistoryWon}
	for i, h := range heads {
		align := fyne.TextAlignLeading
		if i == len(heads)-1 {
			align = fyne.TextAlignTrailing
		}
		objs = append(objs, v.textAt(tr.T(h), sizeBody, art.Gold, true, align, cols[i][0], headY+histLine[i]*line, cols[i][1]))
	}
	objs = append(objs, v.rule(histX+24, rowsY-6, histW-48))
	switch {
	case readErr != nil:
		objs = append(objs, v.textAt(tr.T(msgHistoryError), sizeBody, art.Alert, true, fyne.TextAlignCenter, histX, rowsY+40, histW))
	case len(entries) == 0:
		objs = append(objs, v.textAt(tr.T(msgHistoryEmpty), sizeBody, art.Sand, false, fyne.TextAlignCenter, histX, rowsY+40, histW))
	default:
		rows := s.historyRows(entries)
		scroll := container.NewVScroll(rows)
		v.place(scroll, histX+8, rowsY, histW-16, histBackY-rowsY-14)
		objs = append(objs, scroll)
	}
	back := v.button(tr.T(msgBack), buttonSecondary, sizeButton, s.showHome, 640-130, histBackY, 260, 64)
	return container.NewWithoutLayout(append(objs, back)...)
}

// historyRows lays the entries out as rows, in canvas pixels of the current
// view, inside a container the scroll can measure.
func (s *Screens) historyRows(entries []kiosk.HistoryEntry) fyne.CanvasObject {
	tr := s.tr
	// The rows are drawn in a view whose origin is the scroll's: design x
	// from histX+8, y from 0.
	v := view{k: s.v.k, ox: -(histX + 8) * s.v.k, size: s.v.size, large: s.v.large}
	cols, _, rowH, line := histLayout(v)
	var objs []fyne.CanvasObject
	for i, e := range entries {
		y := float32(i) * rowH
		if i == 0 {
			band := canvas.NewRectangle(color.NRGBA{R: art.LapisGlow.R, G: art.LapisGlow.G, B: art.LapisGlow.B, A: 0x50})
			band.CornerRadius = 8 * v.k
			v.place(band, histX+16, y+2, histW-32, rowH-4)
			objs = append(objs, band)
		} else {
			objs = append(objs, v.rule(histX+24, y, histW-48))
		}
		ty := y + (rowH-line-v.lineHeight(sizeBody, false))/2
		date := tr.Date(e.Time) // in the kiosk's zone (kiosk.HistoryEntry)
		objs = append(objs, v.textAt(date, sizeBody, art.Sand, false, fyne.TextAlignLeading, cols[0][0], ty, cols[0][1]))
		if i == 0 {
			tag := v.textAt(tr.T(msgHistoryLast), sizeCaption, art.TurquoiseLight, true, fyne.TextAlignLeading,
				cols[0][0]+art.MeasureText(date, v.ts(sizeBody), fyne.TextStyle{}).Width/v.k+12, ty+2, 100*v.ts(1)/v.k)
			objs = append(objs, tag)
		}
		objs = append(objs,
			v.textAt(tr.Stake(e.Stake), sizeBody, art.Sand, true, fyne.TextAlignLeading, cols[1][0], ty, cols[1][1]),
			v.textAt(tr.PlayedMode(e), sizeBody, art.Sand, false, fyne.TextAlignLeading, cols[2][0], ty, cols[2][1]),
		)
		objs = append(objs, s.historyOutcome(v, e, ty+line)...)
		won, colour := "—", color.Color(art.Sand)
		if e.Finished && e.Won > 0 {
			won, colour = tr.Money(e.Won), art.GoldLight
		}
		objs = append(objs, v.textAt(won, sizeBody+2, colour, true, fyne.TextAlignTrailing, cols[4][0], ty+line-1, cols[4][1]))
	}
	h := float32(len(entries)) * rowH * v.k
	return container.New(&fixedLayout{size: fyne.NewSize((histW-16)*v.k, h)}, objs...)
}

// historyOutcome is the result column of an entry: the combination with its
// symbols, the bonus game, a loss, or a game still in progress.
func (s *Screens) historyOutcome(v view, e kiosk.HistoryEntry, ty float32) []fyne.CanvasObject {
	tr := s.tr
	cols, _, _, _ := histLayout(v)
	x, w := cols[3][0], cols[3][1]
	if !e.Finished {
		return []fyne.CanvasObject{v.textAt(tr.T(msgHistoryPending), sizeBody, art.TurquoiseLight, false, fyne.TextAlignLeading, x, ty, w)}
	}
	var comb game.Combination
	var label string
	switch e.Outcome.Kind {
	case game.Win:
		comb, label = e.Outcome.Combination, tr.Combination(e.Outcome.Combination)
	case game.Bonus:
		comb, label = game.BonusCombination(), tr.T(msgHistoryBonus)
	default:
		return []fyne.CanvasObject{v.textAt(tr.T(msgHistoryLost), sizeBody, art.Sand, false, fyne.TextAlignLeading, x, ty, w)}
	}
	var objs []fyne.CanvasObject
	side := float32(26) // the symbols as tall as the text
	if v.large {
		side = 38
	}
	for i := 0; i < comb.Count; i++ {
		objs = append(objs, v.image(art.SymbolResource(comb.Symbol, true), x+float32(i)*(side-1), ty-2, side, side))
	}
	ix := x + float32(game.MaxPerSymbol)*(side-1) + 8
	return append(objs, v.textAt(label, sizeBody, art.GoldLight, true, fyne.TextAlignLeading, ix, ty, w-(ix-x)))
}

// fixedLayout leaves its objects where they are and claims a fixed size (the
// content of a scroll).
type fixedLayout struct{ size fyne.Size }

func (l *fixedLayout) Layout([]fyne.CanvasObject, fyne.Size) {}
func (l *fixedLayout) MinSize([]fyne.CanvasObject) fyne.Size { return l.size }
