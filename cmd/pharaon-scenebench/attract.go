package main

import (
	"context"
	"time"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
)

// idleMachine is a kiosk at rest for the attract scene: home, no credit,
// every stake open, and nothing else. Like the kiosk it pushes its snapshot
// at every tick of its clock (the screens' idle timers run on it). It sells
// nothing (a touch that leaves the attract loop finds a kiosk that says it
// is busy).
type idleMachine struct{}

var _ ui.Machine = idleMachine{}

func (idleMachine) snapshot() kiosk.Snapshot {
	return kiosk.Snapshot{State: kiosk.Home, Available: map[game.Stake]bool{
		game.Stake050: true, game.Stake100: true, game.Stake200: true}}
}

// OnChange calls f with the snapshot every half second, from its own
// goroutine, for the life of the process.
func (m idleMachine) OnChange(f func(kiosk.Snapshot)) kiosk.Snapshot {
	go func() {
		for range time.Tick(500 * time.Millisecond) {
			f(m.snapshot())
		}
	}()
	return m.snapshot()
}
func (idleMachine) RequestPlay(_ game.Stake, _ breakout.Mode, done func(ui.Game, error)) {
	done(nil, kiosk.ErrBusy)
}
func (idleMachine) Current() ui.Game { return nil }
func (idleMachine) PlayerHistory(context.Context, int) (kiosk.PlayerHistory, error) {
	return kiosk.PlayerHistory{}, nil
}
func (idleMachine) Touch()     {}
func (idleMachine) EndResult() {}
func (idleMachine) CashOut(context.Context) (kiosk.VoucherInfo, error) {
	return kiosk.VoucherInfo{}, kiosk.ErrBusy
}
func (idleMachine) ResetValidator()                                  {}
func (idleMachine) CheckPrinter(context.Context)                     {}
func (idleMachine) SetPlayerLimit(context.Context, game.Money) error { return kiosk.ErrBusy }
func (idleMachine) DismissRealityCheck()                             {}
