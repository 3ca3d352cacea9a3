package kiosk

import "errors"

// Errors of the machine. The store's own sentinels (store.ErrInsufficientCredit,
// store.ErrNoOpenBlock, …) are wrapped by these where the player needs to be
// told something.
var (
	// ErrInsufficientCredit: the credit does not cover the stake.
	ErrInsufficientCredit = errors.New("insufficient credit")
	// ErrUnavailable: the stake has no open block (DESIGN.md §5).
	ErrUnavailable = errors.New("stake unavailable")
	// ErrBusy: a game is already in progress.
	ErrBusy = errors.New("a game is in progress")
	// ErrOutOfService: the kiosk is out of service (Snapshot.Fault says why).
	ErrOutOfService = errors.New("kiosk out of service")
	// ErrMaintenance: staff or a technician are at the maintenance screen
	// (Machine.SetMaintenance): no play, no notes, no cash-out until they
	// leave it.
	ErrMaintenance = errors.New("kiosk in maintenance")
	// ErrBadStake: not a stake of the game.
	ErrBadStake = errors.New("not a stake of the game")
)
