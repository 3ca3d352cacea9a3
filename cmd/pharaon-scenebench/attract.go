package main

import (
	"context"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
)

// idleMachine is a kiosk at rest for the attract scene: home, no credit,
// every stake open, and nothing else. It sells nothing (a touch that leaves
// the attract loop finds a kiosk that says it is busy).
type idleMachine struct{}

var _ ui.Machine = idleMachine{}

func (idleMachine) Snapshot() kiosk.Snapshot {
	return kiosk.Snapshot{State: kiosk.Home, Available: map[game.Stake]bool{
		game.Stake050: true, game.Stake100: true, game.Stake200: true}}
}
func (idleMachine) OnChange(func(kiosk.Snapshot)) {}
func (idleMachine) RequestPlay(_ game.Stake, _ breakout.Mode, done func(*kiosk.Game, error)) {
	done(nil, kiosk.ErrBusy)
}
func (idleMachine) Current() *kiosk.Game { return nil }
func (idleMachine) History(context.Context, int) ([]kiosk.HistoryEntry, error) {
	return nil, nil
}
func (idleMachine) Touch()     {}
func (idleMachine) EndResult() {}
func (idleMachine) CashOut(context.Context) (kiosk.VoucherInfo, error) {
	return kiosk.VoucherInfo{}, kiosk.ErrBusy
}
func (idleMachine) ResetValidator()              {}
func (idleMachine) CheckPrinter(context.Context) {}
