package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
)

// Player protection on the screens (kiosk/protection.go): the session's
// time and net position under the credit, on the home screen and in the
// game's panel; the reality check's card, which comes between two games
// and holds the next one until the player answers; the player's limit,
// chosen on a card from the home screen's credit panel.

// sessionLine is "Session : 32 min · bilan −4,50 €", or "" when no session
// is on or the operator does not show it.
func (s *Screens) sessionLine() string {
	p := s.snap.Protection
	if !p.Active || !p.Display {
		return ""
	}
	return s.tr.F(msgSessionLine, s.tr.Duration(p.Played), s.tr.Net(p.Net))
}

// Duration is a session's time as the language says it: "8 min", "1 h 05".
func (t Tr) Duration(d time.Duration) string {
	m := int(d / time.Minute)
	if t.spoken {
		return t.spokenDuration(m/60, m%60)
	}
	if m < 60 {
		return t.F(msgMinutes, m)
	}
	return t.F(msgHoursMinutes, m/60, m%60)
}

// spokenDuration says h hours and m minutes: "une heure et cinq minutes",
// "moins d’une minute" at the start of a session.
func (t Tr) spokenDuration(h, m int) string {
	var parts []string
	if h > 0 {
		parts = append(parts, t.spokenCount(h, msgSayHour, msgSayHours))
	}
	switch {
	case m > 0:
		parts = append(parts, t.spokenCount(m, msgSayMinute, msgSayMinutes))
	case h == 0:
		parts = append(parts, t.T(msgSayUnderMinute))
	}
	return t.list(parts, msgListAnd)
}

// spokenCount says n of a noun: one (the whole text for 1: "une heure")
// or the count and the plural noun ("2 heures").
func (t Tr) spokenCount(n int, one, many msg) string {
	if n == 1 {
		return t.T(one)
	}
	return fmt.Sprintf("%d %s", n, t.T(many))
}

// Net is a net position with its sign: "+2,50 €", "-4,50 €", "0 €" (the
// hyphen-minus: the screens' font has no U+2212).
func (t Tr) Net(n game.Money) string {
	switch {
	case t.spoken && n > 0:
		return t.F(msgSayNetUp, t.Money(n))
	case t.spoken && n < 0:
		return t.F(msgSayNetDown, t.Money(-n))
	case n > 0:
		return "+" + t.Money(n)
	case n < 0:
		return "-" + t.Money(-n)
	}
	return t.Money(0)
}

// realityApply shows the reality check's card when it waits and nothing
// else is in its way (a game playing, a cash-out, a window of the
// result), and takes it away once answered.
func (s *Screens) realityApply() {
	due := s.snap.Protection.RealityCheck
	switch {
	case !due && s.overlay == ovReality:
		s.clearOverlay()
	case due && s.overlay == ovNone && s.screen == scrHome:
		s.setOverlay(ovReality, s.buildReality)
	}
}

// continuePlaying is the reality check's "Continuer".
func (s *Screens) continuePlaying() {
	s.activity()
	s.m.DismissRealityCheck()
}

// realityCashOut is the reality check's "Encaisser": the cash-out's own
// confirmation, the check still waiting if the player cancels it.
func (s *Screens) realityCashOut() {
	s.activity()
	s.clearOverlay()
	s.askCashOut()
	if s.overlay == ovNone {
		s.realityApply() // no cash-out now (a printer down): the card again
	}
}

func (s *Screens) buildReality(v view) fyne.CanvasObject {
	v = v.zoom() // the large-text mode: the whole card larger (large.go)
	tr, p := s.tr, s.snap.Protection
	const h = 420
	objs, y := s.card(v, h, true, nil)
	x, w := float32(cashCardX), float32(cashCardW)
	objs = append(objs,
		v.textAt(tr.T(msgRealityTitle), sizeTitle, art.GoldLight, true, fyne.TextAlignCenter, x, y+30, w),
		v.textAt(tr.F(msgRealityPlayed, tr.Duration(p.Played)), sizeBody+4, art.Limestone, true, fyne.TextAlignCenter, x, y+100, w),
		v.textAt(tr.F(msgRealityNet, tr.Net(p.Net)), sizeBody+4, art.GoldLight, true, fyne.TextAlignCenter, x, y+142, w),
		v.textAt(tr.F(msgRealityDetail, tr.Money(p.MoneyIn), tr.Money(s.snap.Credit)), sizeBody, art.Sand, false, fyne.TextAlignCenter, x, y+184, w),
	)
	lines, _ := v.para(tr.T(msgRealityHelp), sizeSmall, art.Sand, false, fyne.TextAlignCenter, x+40, y+224, w-80)
	objs = append(objs, lines...)
	bw := float32(280)
	cash := v.button(tr.T(msgCashOut), buttonSecondary, sizeButton, s.realityCashOut, x+w/2-bw-16, y+h-76-30, bw, 76)
	if !s.snap.Cash.CanCashOut {
		cash.Disable()
	}
	objs = append(objs, cash,
		v.button(tr.T(msgRealityContinue), buttonPrimary, sizeButton, s.continuePlaying, x+w/2+16, y+h-76-30, bw, 76))
	return container.NewWithoutLayout(objs...)
}

// limitButton is the credit panel's "Ma limite" button: the limit set, or
// nothing to choose when the operator turned limits off or no lower one
// is left.
func (s *Screens) limitButton(v view, x, y, w, h float32) *touchButton {
	p := s.snap.Protection
	label := s.tr.T(msgLimitButton)
	if p.PlayerLimit > 0 {
		label = s.tr.F(msgLimitSet, s.tr.Money(p.PlayerLimit))
	}
	b := v.button(label, buttonQuiet, sizeCaption, s.askLimit, x, y, w, h)
	if len(p.Limits) == 0 && p.PlayerLimit == 0 {
		return nil
	}
	if len(p.Limits) == 0 {
		b.Disable()
	}
	return b
}

// askLimit opens the limit's card.
func (s *Screens) askLimit() {
	s.activity()
	s.message = nil
	if s.overlay != ovNone {
		return
	}
	s.setOverlay(ovLimit, s.buildLimit)
}

func (s *Screens) closeLimit() {
	s.activity()
	if s.overlay == ovLimit {
		s.clearOverlay()
		s.realityApply()
	}
}

// chooseLimit sets the limit chosen, off the screens' goroutine (it is a
// durable write); a refusal (raised during a session, which the card does
// not offer) says why on the card.
func (s *Screens) chooseLimit(l game.Money) {
	s.activity()
	go func() {
		err := s.m.SetPlayerLimit(context.Background(), l)
		s.do(func() { s.limitChosen(err) })
	}()
}

func (s *Screens) limitChosen(err error) {
	switch {
	case err == nil:
		s.limitErr = nil
		s.closeLimit()
		return
	case errors.Is(err, kiosk.ErrLimitRaise):
		s.limitErr = func(tr Tr) string { return tr.T(msgLimitRaise) }
	default:
		fyne.LogError("player limit", err)
		s.limitErr = func(tr Tr) string { return tr.T(msgLimitFailed) }
	}
	s.rebuild()
}

func (s *Screens) buildLimit(v view) fyne.CanvasObject {
	v = v.zoom() // the large-text mode: the whole card larger (large.go)
	tr, p := s.tr, s.snap.Protection
	const h = 470
	objs, y := s.card(v, h, true, s.closeLimit)
	x, w := float32(cashCardX), float32(cashCardW)
	objs = append(objs, v.textAt(tr.T(msgLimitTitle), sizeTitle-2, art.GoldLight, true, fyne.TextAlignCenter, x, y+28, w))
	text := tr.T(msgLimitText)
	if p.Active {
		text = tr.F(msgLimitTextSession, tr.Money(p.MoneyIn))
	}
	lines, ly := v.para(text, sizeBody, art.Sand, false, fyne.TextAlignCenter, x+40, y+88, w-80)
	objs = append(objs, lines...)
	if p.PlayerLimit > 0 {
		objs = append(objs, v.textAt(tr.F(msgLimitNow, tr.Money(p.PlayerLimit)), sizeBody+2, art.GoldLight, true, fyne.TextAlignCenter, x, ly+6, w))
	}
	choices := append([]game.Money(nil), p.Limits...)
	n := len(choices)
	if !p.Active && p.PlayerLimit > 0 {
		n++ // "Aucune": no limit, before the session only
	}
	const gap, bh = float32(14), float32(76)
	if n > 0 {
		bw := (w - 80 - gap*float32(n-1)) / float32(n)
		for i, l := range choices {
			objs = append(objs, v.button(tr.Money(l), buttonChoice, sizeButton, func() { s.chooseLimit(l) },
				x+40+float32(i)*(bw+gap), y+270, bw, bh))
		}
		if n > len(choices) {
			objs = append(objs, v.button(tr.T(msgLimitNone), buttonChoice, sizeButton-4, func() { s.chooseLimit(0) },
				x+40+float32(len(choices))*(bw+gap), y+270, bw, bh))
		}
	}
	if s.limitErr != nil {
		objs = append(objs, v.textAt(s.limitErr(tr), sizeSmall, art.Alert, true, fyne.TextAlignCenter, x, y+270+bh+8, w))
	}
	objs = append(objs, v.button(tr.T(msgClose), buttonSecondary, sizeButton, s.closeLimit, x+w/2-130, y+h-76-24, 260, 76))
	return container.NewWithoutLayout(objs...)
}

// protShown is what the home screen shows of the protection: the played
// time in minutes (a tick within the minute changes nothing), the limits
// chosen apart (a slice).
type protShown struct {
	active, display, reality bool
	minutes                  time.Duration
	net, in, limit, ceiling  game.Money
	reached                  string
}

func protectionShown(p kiosk.ProtectionSnapshot) protShown {
	return protShown{p.Active, p.Display, p.RealityCheck, p.Played.Truncate(time.Minute), p.Net, p.MoneyIn,
		p.PlayerLimit, p.Ceiling, p.Reached}
}
