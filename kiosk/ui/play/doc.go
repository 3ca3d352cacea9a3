// Package play is the game widget of the Pharaon kiosk (DESIGN.md §8): the
// Screen of a game in play, made of the brick-breaker Playfield on the left
// and the Cartouche on the right (Art. 4.2), run by the frame Pump and
// measured by the FrameMeter; the raster cache its art (and the screens')
// is drawn from; and the DemoGame that plays walls without a stake for the
// attract loop, the scene bench and the tests.
//
// It plays a Source — the kiosk's game in play, a DemoGame, or a recorded
// game played back — and draws what the source's world says: it never
// decides what a wall reveals nor computes an amount (DESIGN.md invariant 3).
// Its words come from the screens' catalogue (Words, kiosk/ui PlayWords): it
// keeps none of its own. Its buttons are kiosk/ui/touch's.
//
// Like every Fyne object, everything here runs on the Fyne goroutine.
package play
