package ui

import (
	"image/color"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
)

// How long a note's toast stays once the note is settled. A note being
// read or taken keeps its toast until the next step (or toastStuck, if the
// validator never says more).
const (
	toastCredited = 4 * time.Second
	toastReturned = 7 * time.Second
	toastStuck    = 15 * time.Second
)

// toast is the feedback of the last thing a note did (Snapshot.Cash.CashIn):
// one per CashIn.Seq, wherever the credit is on screen (home, the result of
// a game).
type toast struct {
	seq   uint64            // the last CashIn.Seq seen
	ev    kiosk.CashInEvent // what is shown; Kind CashInNone: nothing
	until time.Time         // when it goes
	// shownCredit: the toast may say the credit after the note (not over
	// a game whose end is still on its way: the win must not show before
	// its window).
	shownCredit bool
}

// noteActivity follows what notes do: a new CashIn.Seq gets its toast.
func (s *Screens) noteActivity(snap kiosk.Snapshot) {
	ev := snap.Cash.CashIn
	if ev.Seq == s.toast.seq {
		return
	}
	s.toast.seq = ev.Seq
	if ev.Kind == kiosk.CashInNone {
		return
	}
	if s.screen == scrAttract || s.screen == scrHistory {
		// A note in the slot: a player is there, and wants to see it
		// counted (the history shows no credit).
		s.lastActivity = s.now()
		s.showHome()
	}
	s.lastActivity = s.now() // the player is at the kiosk: no attract loop, no timeout
	hold := toastStuck
	switch ev.Kind {
	case kiosk.NoteCredited:
		hold = toastCredited
	case kiosk.NoteReturned:
		hold = toastReturned
	}
	s.toast.ev, s.toast.until = ev, s.now().Add(hold)
	s.toast.shownCredit = s.screen != scrGame || s.gs.Over()
	s.showToast()
	s.voiceNote()
	if ev.Kind == kiosk.NoteCredited && s.opt.OnNoteShown != nil && s.toastVisible() {
		s.opt.OnNoteShown(ev)
	}
}

// toastVisible reports whether a screen that shows toasts is up.
func (s *Screens) toastVisible() bool {
	return s.toast.ev.Kind != kiosk.CashInNone && (s.screen == scrHome || s.screen == scrGame)
}

// expireToast takes the toast away once its time is up.
func (s *Screens) expireToast(now time.Time) {
	if s.toast.ev.Kind != kiosk.CashInNone && !now.Before(s.toast.until) {
		s.toast.ev = kiosk.CashInEvent{}
		s.showToast()
	}
}

// showToast draws the toast layer again.
func (s *Screens) showToast() {
	var objs []fyne.CanvasObject
	if s.sized() && s.toastVisible() {
		objs = []fyne.CanvasObject{s.buildToast()}
	}
	if len(objs) == 0 && len(s.toastBox.Objects) == 0 {
		return
	}
	s.toastBox.Objects = objs
	s.toastBox.Refresh()
}

// toastLines are the toast's headline and its second line, and whether the
// note was given back.
func (s *Screens) toastLines() (head, line string, returned bool) {
	tr, ev := s.tr, s.toast.ev
	switch ev.Kind {
	case kiosk.NoteReading:
		return tr.T(msgNoteReading), "", false
	case kiosk.NoteEscrow:
		return tr.F(msgNoteEscrow, tr.Money(ev.Amount)), "", false
	case kiosk.NoteCredited:
		if s.toast.shownCredit {
			line = tr.F(msgNoteCredit, tr.Money(ev.Credit))
		}
		return tr.F(msgNoteCredited, tr.Money(ev.Amount)), line, false
	case kiosk.NoteReturned:
		line = tr.Message(ev.Reason, s.snap.Cash.Notes.List()...)
		if line == tr.T(msgNoteReturned) {
			line = "" // the reason says nothing more than the headline
		}
		head = tr.T(msgNoteReturned)
		if ev.Amount > 0 {
			head = tr.F(msgNoteReturnedOf, tr.Money(ev.Amount))
		}
		return head, line, true
	}
	return "", "", false
}

// buildToast is the toast: beside the credit on the home screen (over the
// top of the rules, so the credit stays in sight while a note is read,
// counted or given back), at the top of the playfield on a game's result.
func (s *Screens) buildToast() fyne.CanvasObject {
	v := s.v
	x, y, w, h, headY, lineY := float32(rulesX+10), float32(homeTop+8), float32(rulesW-20), float32(120), float32(14), float32(58)
	if s.screen == scrGame {
		v = s.fieldView()
		x, y, w, h, headY, lineY = 170, 4, 620, 88, 8, 46
	}
	head, line, returned := s.toastLines()
	if v.large {
		return s.buildToastLarge(v, head, line, returned)
	}
	bg, headColour := toastPanel(v, x, y, w, h, returned)
	objs := []fyne.CanvasObject{bg}
	if line == "" {
		lh := v.lineHeight(sizeHeading-2, true)
		objs = append(objs, v.textAt(head, sizeHeading-2, headColour, true, fyne.TextAlignCenter, x+12, y+(h-lh)/2, w-24))
		return container.NewWithoutLayout(objs...)
	}
	objs = append(objs, v.textAt(head, sizeHeading-4, headColour, true, fyne.TextAlignCenter, x+12, y+headY, w-24))
	size := float32(sizeHeading - 2)
	if returned {
		size = sizeBody + 1
	}
	lines, _ := v.para(line, size, art.Sand, !returned, fyne.TextAlignCenter, x+16, y+lineY, w-32)
	return container.NewWithoutLayout(append(objs, lines...)...)
}

// toastPanel is the toast's opaque panel at (x, y, w, h), its rim gold or,
// for a note given back, the alert's, and the colour of its first line.
func toastPanel(v view, x, y, w, h float32, returned bool) (*canvas.Rectangle, color.Color) {
	rim, headColour := color.Color(art.Gold), color.Color(art.GoldLight)
	if returned {
		rim, headColour = art.Alert, art.Alert
	}
	bg := v.panelAlpha(x, y, w, h, 0xFF)
	bg.StrokeColor = rim
	bg.StrokeWidth = 3 * v.k
	return bg, headColour
}

// buildToastLarge is the home screen's toast in the large-text mode: over
// the prizes' panel, the credit's panel beside it in sight, its lines
// broken to the panel's width.
func (s *Screens) buildToastLarge(v view, head, line string, returned bool) fyne.CanvasObject {
	x, y, w, h := float32(largeRulesX+8), float32(largeTop+8), float32(largeRulesW-16), float32(250)
	bg, headColour := toastPanel(v, x, y, w, h, returned)
	objs := []fyne.CanvasObject{bg}
	lines, ly := v.para(head, sizeHeading-4, headColour, true, fyne.TextAlignCenter, x+12, y+12, w-24)
	objs = append(objs, lines...)
	size := float32(sizeHeading - 2)
	if returned {
		size = sizeBody + 1
	}
	if line != "" {
		lines, _ = v.para(line, size, art.Sand, !returned, fyne.TextAlignCenter, x+12, ly+8, w-24)
		objs = append(objs, lines...)
	}
	return container.NewWithoutLayout(objs...)
}

// cashInLine is the home screen's line about notes when they are not taken
// now: the validator is faulty, no voucher can be printed, or the credit is
// at its maximum; "" when
// notes are taken (or the kiosk has no validator).
func (s *Screens) cashInLine() string {
	c := s.snap.Cash
	switch {
	case c.CanCashIn || c.CashingOut || c.NoteInPath || s.snap.State != kiosk.Home:
		return ""
	case !c.Validator.Configured:
		return "" // a kiosk without a validator: nothing to say to a player
	case !c.Validator.OK:
		return s.tr.F(msgNotesRefused, lowerFirst(s.tr.Message(c.Validator.Message)))
	case c.Printer.Configured && !c.Printer.OK && !c.CashInOff.IsZero():
		if s.snap.Credit > 0 {
			return "" // cashOutLine: the printer's fault, and the credit is kept
		}
		// No voucher could pay the note out: the kiosk says so before it
		// goes in, with the printer's condition.
		return s.tr.F(msgNotesNoVoucher, lowerFirst(s.tr.Message(c.Printer.Message)))
	}
	// The validator works and the kiosk is at home: only the maximum
	// credit keeps notes out, and the kiosk says so with the credit.
	return s.tr.Message(c.CashInOff, c.Notes.List()...)
}

// lowerFirst writes a device's message inside a sentence ("Plus de papier"
// → "plus de papier").
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}
