// Package game is the rulebook of Pharaon, as written in the regulation of
// 17 December 2008 (game/testdata/reglement-pharaon.txt): money, stakes, the
// prize table of each stake (Art. 3), the symbols and spell stones
// (Art. 4.2, 4.5) and the winning combinations (Art. 4.3).
//
// It is pure: no I/O, no clock, no randomness, no import of the rest of the
// project. Every total, count, ratio and odd is computed from the rows of the
// regulation's tables, never typed in.
package game
