// Package ui is the player's side of the Pharaon kiosk (DESIGN.md §8), and
// the only package of the kiosk that imports Fyne apart from cmd/pharaon,
// which creates the app: fullscreen, landscape, touch first, French by
// default with English a touch away.
//
// Screens is the whole of it: the home screen with the rules, the stakes,
// Jouer and Auto, the credit, the history and the age and responsible-play
// notice (Art. 4.1); the game widget (kiosk/ui/play: the brick-breaker
// Playfield on the left, the Cartouche on the right, the frame Pump) with
// the prize table of the stake over it (Art. 4.2), the congratulation
// windows of a win, of the bonus game and of the total won (Art.
// 4.6–4.8), or a quiet line for a loss; the history of the last games,
// newest first; the out-of-service screen; the
// attract loop of an idle kiosk; the money flow's feedback (a toast per note
// read, credited or given back, notes refused while the validator is faulty
// or the credit at its maximum) and the cash-out (a confirmation, the
// voucher printing, the voucher card or why no voucher came, the credit
// kept); and, in a development build only, the panel that inserts notes and
// causes device faults through the simulators (DevDevices). Every text goes
// through the catalogue (Tr), every amount through game.Money, every prize
// through game.Table.
//
// What it must never do: decide or compute an amount the player is paid.
// The screens follow the snapshots the kiosk pushes (Machine) and show the
// prize the kiosk credited (kiosk.Snapshot.Game: its Result.Won and
// BonusAmount), never one derived from what they drew (invariant 3); a
// losing unit gets no congratulation window (Art. 4.8). Nor show the full
// validation number of a voucher (the next player at the kiosk could read
// it and be paid): the
// voucher card shows it masked but for its last four digits. Like every Fyne
// object, everything here runs on the Fyne goroutine; the kiosk's change
// notices, and the outcome of a cash-out (which blocks for its print, so it
// runs on a goroutine of its own), arrive through fyne.Do.
package ui
