package ui

import (
	"context"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/ui/play"
)

// Machine is what the screens need of the kiosk, in small parts: Kiosk
// makes one of a *kiosk.Machine; the screens' tests use a fake one, with
// no store and no device.
type Machine interface {
	Follower
	Seller
	Cashier
	Records
	Protector
}

// Protector is what the player's protection asks of the kiosk
// (kiosk/protection.go).
type Protector interface {
	// SetPlayerLimit sets the player's limit on the session's notes.
	SetPlayerLimit(ctx context.Context, limit game.Money) error
	// DismissRealityCheck is the player's "go on" to the reality check.
	DismissRealityCheck()
}

// Follower is how the screens follow the kiosk: OnChange returns the
// snapshot as it is now and pushes every change after it, and a snapshot at
// every tick of the kiosk's clock, which the screens' timers run on (Poll).
// The screens never ask for a snapshot: what they show comes from the push,
// the last game's result included (kiosk.Snapshot.Game).
type Follower interface {
	OnChange(func(kiosk.Snapshot)) kiosk.Snapshot
}

// Seller sells the games and keeps the result on screen.
type Seller interface {
	// RequestPlay sells a unit without waiting for its commit: done comes
	// later from another goroutine (the screens hand it over with s.do).
	RequestPlay(s game.Stake, mode breakout.Mode, done func(Game, error))
	// Current is the game in progress, one resumed after a restart
	// included, or nil.
	Current() Game
	// Touch tells the kiosk the player is there (its result timeout).
	Touch()
	// EndResult leaves the result for the home screen.
	EndResult()
}

// Cashier pays the credit out and drives the cash devices.
type Cashier interface {
	// CashOut prints the whole credit on a voucher; it blocks during the
	// print (up to about 15 s), so the screens call it off their goroutine.
	CashOut(ctx context.Context) (kiosk.VoucherInfo, error)
	// ResetValidator asks the bill validator for a reset once its fault is
	// cleared (the development panel's Réparer).
	ResetValidator()
	// CheckPrinter reads the printer's status now (it blocks for the read,
	// so the screens call it off their goroutine): the development panel's
	// faults show at once, not at the kiosk's next routine read.
	CheckPrinter(ctx context.Context)
}

// Records are the player's games, for the history screen: those since the
// credit was last zero (the whole kiosk's history is the staff's recall).
type Records interface {
	PlayerHistory(ctx context.Context, n int) (kiosk.PlayerHistory, error)
}

// Game is a game in play as the screens see it: what the game widget plays
// and draws (play.Source), and its play's id, which names it in the
// snapshot (kiosk.GameSnapshot.ID). *kiosk.Game is one. Its end and its
// result come in the snapshot, never from the game.
type Game interface {
	play.Source
	ID() int64
}

var (
	_ Game = (*kiosk.Game)(nil)
	// The game screen says a game resumed after a restart is resumed
	// (kiosk/ui/play asks its source for Resumed).
	_ interface{ Resumed() bool } = (*kiosk.Game)(nil)
)

// Kiosk is machine m as the screens use it.
func Kiosk(m *kiosk.Machine) Machine { return kioskMachine{m} }

// kioskMachine is a *kiosk.Machine whose games are Games.
type kioskMachine struct{ m *kiosk.Machine }

func (k kioskMachine) OnChange(f func(kiosk.Snapshot)) kiosk.Snapshot { return k.m.OnChange(f) }

func (k kioskMachine) RequestPlay(s game.Stake, mode breakout.Mode, done func(Game, error)) {
	k.m.RequestPlay(s, mode, func(g *kiosk.Game, err error) {
		if g == nil {
			done(nil, err) // a nil Game, not a Game holding a nil *kiosk.Game
			return
		}
		done(g, err)
	})
}

func (k kioskMachine) Current() Game {
	if g := k.m.Current(); g != nil {
		return g
	}
	return nil
}

func (k kioskMachine) Touch()     { k.m.Touch() }
func (k kioskMachine) EndResult() { k.m.EndResult() }
func (k kioskMachine) CashOut(ctx context.Context) (kiosk.VoucherInfo, error) {
	return k.m.CashOut(ctx)
}
func (k kioskMachine) ResetValidator() { k.m.ResetValidator() }
func (k kioskMachine) SetPlayerLimit(ctx context.Context, l game.Money) error {
	return k.m.SetPlayerLimit(ctx, l)
}
func (k kioskMachine) DismissRealityCheck()             { k.m.DismissRealityCheck() }
func (k kioskMachine) CheckPrinter(ctx context.Context) { k.m.CheckPrinter(ctx) }
func (k kioskMachine) PlayerHistory(ctx context.Context, n int) (kiosk.PlayerHistory, error) {
	return k.m.PlayerHistory(ctx, n)
}
