// Package kiosk is the appliance core of Pharaon (DESIGN.md §7): the session
// state machine of the player's kiosk, the play of one unit from the stake
// debit to the prize credit, the check of every reveal against its unit,
// the money that comes in as bank notes and goes out as printed vouchers,
// recovery after a crash, and the faults that take the kiosk out of service.
//
// It composes the rulebook (game), the layouts (game/reveal), the engine
// (game/breakout), the store and the serial devices (hw); it imports no UI.
// The screens read a Snapshot, are told of changes through OnChange, and
// drive a Game one fixed step at a time. They never wait for the disk: a
// play's durable writes (its start, saves, bonus and finish) are made in
// order by the machine's play writer on its own goroutine (writer.go), and
// its answers come back through callbacks and the game's Settled.
//
// Money: a note is credited only once the validator reports it irrevocably
// accepted (ID-003 VEND VALID), after an intent recorded before the note was
// stacked, and the ACK goes out only after the credit is committed, so a
// crash between any two bytes neither loses nor doubles it. A cash-out
// records the voucher before printing it and debits the credit only once the
// printer confirmed the print; a voucher left unconfirmed by a crash is voided
// at the next start and the credit kept.
//
// What it must never do: show or credit an amount other than the prize the
// unit carried when its stake was debited (Art. 4.8, invariants 3 and 4),
// credit a play or a note twice, zero a credit without a confirmed voucher,
// or leave a started play behind: a play interrupted by a crash is resumed at
// the next start, on the same walls, and finished. Time comes from the
// injected Clock.
package kiosk
