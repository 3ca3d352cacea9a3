package ui

import (
	"fyne.io/fyne/v2"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
)

// showGame shows g on the game screen: a game just sold, or one resumed
// after a restart, where it is.
func (s *Screens) showGame(g Game) {
	if s.screen == scrGame && s.game == g {
		return
	}
	s.game = g
	s.awaitEnd = false
	s.result = kiosk.GameResult{}
	s.gs.SetWords(PlayWords(s.tr.Lang))
	s.gs.SetCredit(s.snap.Credit)
	s.setScreen(scrGame, func(view) fyne.CanvasObject { return s.gs })
	s.gs.Play(g)
	s.warmWindows()
}

// onCombination: the main wall is cleared and shows a combination, which
// blinks in the cartouche from now on (Art. 4.6). Three snakes announce the
// bonus game; a winning combination's window comes with the game's end,
// with the amount the kiosk credited.
func (s *Screens) onCombination(o game.Outcome) {
	if o.Kind == game.Bonus {
		s.showBonusIntro()
	}
}

// onBonusWall: the bonus wall is in play (Art. 4.7).
func (s *Screens) onBonusWall() {
	if s.overlay == ovBonusIntro {
		s.clearOverlay()
	}
}

// onGameEnd: the last wall is cleared and its symbols have landed. Its
// end shows once the kiosk's snapshot has it (showEnd).
func (s *Screens) onGameEnd() {
	if s.game == nil {
		return
	}
	s.awaitEnd = true
	s.showEnd()
}

// showEnd shows the end of the game once both are there: the game screen's
// (onGameEnd: the symbols landed) and the kiosk's (the snapshot it pushed
// with the play done, whichever comes last). The kiosk has credited the
// unit's prize; the windows show that, from the snapshot, and only that
// (Art. 4.8, DESIGN.md invariant 3).
func (s *Screens) showEnd() {
	snap := s.snap
	if !s.awaitEnd || s.game == nil {
		return
	}
	if snap.State == kiosk.OutOfService {
		// The game stopped on an error of the store (the kiosk resumes the
		// play at the next start), or its walls did not reveal its unit.
		s.awaitEnd = false
		s.gs.SetCredit(snap.Credit)
		s.showOutOfService()
		return
	}
	p := snap.Game
	if p.ID != s.game.ID() || p.Stage != kiosk.StageDone {
		return // the kiosk's push of the end is on its way
	}
	s.awaitEnd = false
	s.gs.SetCredit(snap.Credit)
	s.result = p.Result
	if s.result.Mismatch {
		s.showOutOfService()
		return
	}
	switch s.result.Outcome.Kind {
	case game.Win:
		s.showWinWindow(s.result.Outcome.Combination, s.result.Won)
	case game.Bonus:
		s.showBonusWindow(p.BonusAmount)
	default:
		// Art. 4.8: no congratulation window for a losing unit.
		s.showLoseBanner()
	}
}

// canPlayAgain reports whether the stake of the game just played can be
// played again now: not while the kiosk is locked for a hand-pay.
func (s *Screens) canPlayAgain() bool {
	if s.game == nil || s.snap.HandPay.Pending() {
		return false
	}
	st := s.game.Stake()
	return s.snap.Available[st] && s.snap.Credit >= st.Money()
}

// playAgain sells another unit at the same stake, in the same mode.
func (s *Screens) playAgain() {
	s.activity()
	if s.game == nil {
		s.showHome()
		return
	}
	s.stake = s.game.Stake()
	s.requestPlay(s.stake, s.mode)
}

// requestPlay asks the kiosk for a unit at stake st in mode. The stake
// debit is a durable commit: the kiosk makes it on its own goroutine and
// answers through s.do, so no frame waits for the disk. Until it answers,
// Jouer, Auto and Rejouer are disabled and a second tap does nothing: one
// request, one unit.
func (s *Screens) requestPlay(st game.Stake, mode breakout.Mode) {
	if s.requesting {
		return
	}
	s.requesting = true
	s.mode = mode
	if s.screen == scrHome {
		s.refreshHomeLive() // Jouer and Auto show they wait
	} else {
		s.rebuild() // Rejouer shows it waits
	}
	s.m.RequestPlay(st, mode, func(g Game, err error) {
		s.do(func() { s.playAnswered(st, g, err) })
	})
}

// playAnswered shows the game the kiosk sold, or why it sold none.
// The kiosk pushed the game's start (the stake debited) before it answered.
func (s *Screens) playAnswered(st game.Stake, g Game, err error) {
	s.requesting = false
	if !s.started {
		return
	}
	if err != nil {
		s.playError(st, err)
		return
	}
	s.showGame(g)
}

// goHome leaves the result for the home screen.
func (s *Screens) goHome() {
	s.activity()
	s.m.EndResult() // its push follows
	if s.snap.State == kiosk.OutOfService {
		s.showOutOfService()
		return
	}
	s.showHome()
}
