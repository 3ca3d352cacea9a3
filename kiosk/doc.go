// Package kiosk is the appliance core of Pharaon (DESIGN.md §7): the session
// state machine of the player's kiosk, the play of one unit from the stake
// debit to the prize credit, the check of every reveal against its unit,
// recovery after a crash, and the faults that take the kiosk out of service.
//
// It composes the rulebook (game), the layouts (game/reveal), the engine
// (game/breakout) and the store; it imports no UI. The screens read a
// Snapshot, are told of changes through OnChange, and drive a Game one fixed
// step at a time.
//
// What it must never do: show or credit an amount other than the prize the
// unit carried when its stake was debited (Art. 4.8, invariants 3 and 4),
// credit a play twice, or leave a started play behind: a play interrupted by
// a crash is resumed at the next start, on the same walls, and finished.
// Time comes from the injected Clock.
package kiosk
