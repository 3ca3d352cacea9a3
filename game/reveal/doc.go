// Package reveal turns a unit's outcome into the wall the player breaks: the
// content of every brick of the main wall (a symbol, a spell stone or
// nothing) and, for a unit won through the bonus game, the bonus wall with
// its red brick and the amount it reveals (Art. 4.1, 4.3, 4.5, 4.7, 4.8).
//
// The outcome is an input, never an output: the issuer fixed it in the
// ticket block and the stake debit drew it. This package only dresses it,
// and a dressed wall evaluates (game.Evaluate) to exactly that outcome:
// a winner shows exactly its combination, a unit won through the bonus shows
// exactly three snakes and no other combination, a loser shows none
// (DESIGN.md invariant 2). Near misses (two heads, two eyes, two snakes)
// appear as the natural result of drawing the other symbols at random under
// those caps; nothing steers toward them.
//
// Layouts are versioned and a version is frozen once released: the same
// (stake, tier, via-bonus, seed, version) gives the same layout on every
// machine, forever, so a past game can be recalled and replayed. The
// generator is a SplitMix64 stream written out in this package (rng.go)
// with exact integer bounded draws; it never uses math/rand, the clock or
// any global state. Version 1's golden layouts are committed in testdata:
// a change that alters one of them is a new version, never an edit of V1.
//
// It is pure: no I/O, no clock, no global randomness, no import of the
// project other than package game.
package reveal
