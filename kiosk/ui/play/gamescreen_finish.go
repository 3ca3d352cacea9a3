package play

import (
	"fmt"

	"fyne.io/fyne/v2"

	"pharaon/game/breakout"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/touch"
)

// The button that finishes a Jouer wall in Auto (Art. 4.1: "le système
// détruit automatiquement l'ensemble des briques du mur"; the outcome was
// fixed at the stake, so Auto only saves the player's time). It has its own
// place in the panel, under the stake, never on the playfield, whose every
// point steers the paddle: a tap there never moves the paddle, whether the
// button is offered or not. It is there from the start of a Jouer wall,
// greyed with when it will be offered, and becomes active in the same place.

// FinishBricks is how few bricks left in a Jouer main wall offer to finish
// it in Auto at once: the last bricks of a wall can take most of a game to
// hit. The bonus wall has only the time (finishAfter): its goal is the red
// brick (Art. 4.7), not the bricks left. Words.FinishWait names it.
const FinishBricks = 3

const (
	// finishAfter is how long a Jouer wall is played before the player
	// may finish it in Auto.
	finishAfter = 30 * breakout.TicksPerSecond
	finishSecs  = finishAfter / breakout.TicksPerSecond

	// The button's size and text at the screen's reference height
	// (refHeight): as tall as a finger needs with its caption under its
	// words, no wider than the cartouche's panel gives.
	finishW       = 300
	finishH       = 84
	finishText    = 26
	finishCaption = 17
)

// finishState is what the finish button shows for a wall.
type finishState struct {
	shown  bool // a Jouer wall in play
	active bool // offered: the time or the bricks left say so
	bonus  bool // the bonus wall: only the time offers it
	secs   int  // seconds before the time offers it, 1 to finishSecs
}

// finishStateOf is the finish button's state for w (nil: none).
func finishStateOf(w *breakout.World) finishState {
	if w == nil || w.Mode() != breakout.Play || w.Done() {
		return finishState{}
	}
	st := finishState{shown: true, bonus: w.IsBonus()}
	left := finishAfter - int(w.Tick())
	st.active = left <= 0 || (!st.bonus && w.Standing() <= FinishBricks)
	if !st.active {
		st.secs = min(max((left+breakout.TicksPerSecond-1)/breakout.TicksPerSecond, 1), finishSecs)
	}
	return st
}

// finishWords are the finish button's captions, made when the words
// change so that a frame formats nothing.
type finishWords struct {
	wait  [finishSecs + 1]string // [secs]: the time or the bricks
	bonus [finishSecs + 1]string // [secs]: the time alone
	does  string
}

func newFinishWords(w Words) finishWords {
	var f finishWords
	for n := 1; n <= finishSecs; n++ {
		if w.FinishWait != "" {
			f.wait[n] = fmt.Sprintf(w.FinishWait, n)
		}
		if w.FinishWaitBonus != "" {
			f.bonus[n] = fmt.Sprintf(w.FinishWaitBonus, n)
		}
	}
	f.does = w.FinishDoes
	return f
}

// caption is the caption of state st.
func (f *finishWords) caption(st finishState) string {
	switch {
	case st.active:
		return f.does
	case st.bonus:
		return f.bonus[st.secs]
	}
	return f.wait[st.secs]
}

// finishButton is the screen's finish button and what it shows.
type finishButton struct {
	b     *touch.Button
	words finishWords
	shown finishState
	known bool // shown is what the button shows
}

func newFinishButton(tapped func()) *finishButton {
	f := &finishButton{b: touch.NewButton("", touch.Secondary, finishText, tapped)}
	f.b.Hide()
	f.b.Disable()
	return f
}

// setWords takes the screen's words.
func (f *finishButton) setWords(w Words) {
	f.words = newFinishWords(w)
	f.b.Text = w.FinishAuto
	f.known = false
	f.fitCaption()
}

// layout places the button at (x, y), at most w wide, for the screen's
// scale k (its height over refHeight), and returns its height.
func (f *finishButton) layout(x, y, w, k float32) float32 {
	// At the kiosk's screens (768 px tall or more) it is over 60 px tall,
	// a finger's target (DESIGN.md §8); smaller, the screen is a replay
	// in the maintenance view, whose cartouche needs the room more.
	bw := min(w, finishW*k)
	bh := finishH * k
	f.b.TextSize = finishText * k
	f.b.Radius = 14 * k
	f.b.Move(fyne.NewPos(x+(w-bw)/2, y))
	f.b.Resize(fyne.NewSize(bw, bh))
	f.fitCaption()
	return bh
}

// fitCaption sizes the caption so that the longest of the button's
// captions fits its width: the caption changes with the seconds, its size
// never does.
func (f *finishButton) fitCaption() {
	room := f.b.Size().Width - f.b.TextSize*0.6
	size := finishCaption * f.b.TextSize / finishText
	if f.b.WrapCaption {
		// the large-text mode: the caption keeps its size on two lines
		f.b.CaptionSize = size
		f.known = false
		return
	}
	least := f.b.TextSize * 0.4
	for _, c := range [...]string{f.words.wait[finishSecs], f.words.bonus[finishSecs], f.words.does} {
		for size > least && art.MeasureText(c, size, fyne.TextStyle{}).Width > room {
			size -= 0.5
		}
	}
	f.b.CaptionSize = size
	f.known = false
}

// update shows st, touching the button only when what it shows changes
// (at most once a second while it waits).
func (f *finishButton) update(st finishState) {
	if f.known && st == f.shown {
		return
	}
	f.shown, f.known = st, true
	if !st.shown {
		f.b.Hide()
		return
	}
	f.b.Caption = f.words.caption(st)
	f.b.SetEnabled(st.active)
	f.b.Refresh()
	f.b.Show()
}

// finishInAuto hands a Jouer wall to Auto at the next tick when the button
// offers it; the button, greyed, ignores a tap before.
func (g *Screen) finishInAuto() {
	if g.stage != stagePlaying || !finishStateOf(g.field.World()).active {
		return
	}
	g.field.finishInAuto()
}

// updateFinish shows the finish button's state for the wall in play.
func (g *Screen) updateFinish() {
	if g.rend == nil {
		return
	}
	var w *breakout.World
	if g.stage == stagePlaying {
		w = g.field.World()
	}
	g.rend.finish.update(finishStateOf(w))
}
