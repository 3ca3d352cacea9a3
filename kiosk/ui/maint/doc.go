// Package maint is the maintenance screen of the kiosk (DESIGN.md §9): the
// back office that shop staff and technicians reach on the same touchscreen,
// behind a PIN. It shows what kiosk.Office returns and asks it to act; like
// the player's screens (package ui) it never computes an amount, and it
// never reaches the store itself: every action goes through the Office,
// which checks the session's role and writes the audit line.
//
// Its parts:
//   - shell.go: the PIN pad, the first start's setup, the menu of the views
//     the session's role may open, idle logout, and the way back to the
//     player's screens;
//   - one file per view, each registering itself (register) with the role
//     it needs and building its content from an Env.
//
// Every word goes through the catalogue of words.go, French first.
// Everything here runs on the Fyne goroutine; Office calls that may block
// (a print, a database read) run through Env.Go and come back through
// Env.Do.
package maint
