// Package breakout is the brick-breaker of Pharaon (Art. 4.1, 4.4, 4.5,
// 4.7): a headless world stepped at a fixed 1/120 s, which reveals a wall
// laid out by package reveal. The player moves the paddle and launches the
// ball (Jouer), or the system plays on its own (Auto); either way every
// brick falls and the wall reveals exactly what reveal put under it.
//
// What it must never do: decide or alter the outcome (it only uncovers
// bricks whose content is fixed before the first step); read a clock, a
// random source or anything else than its inputs (the same wall and the
// same inputs replay the same game, bit for bit, for game recall and crash
// recovery); draw, allocate per step, or do I/O. The UI reads its state and
// its events; the kiosk checks Revealed against the layout at the end.
//
// # Determinism
//
// All state is integer fixed point: lengths in sub-units of 1/256 of a
// field unit (int32), velocities in sub-units per tick, times of impact as
// exact integer fractions compared by cross-multiplication in int64, paddle
// angles from a committed table of integer sines and cosines (angles.go).
// No float64 is ever computed on the way to a state value, so there is no
// rounding mode, no libm difference and no fused multiply-add (which arm64
// compilers may use for x*y+z) to make amd64 and arm64 differ. The golden
// replays of testdata pin the behaviour: a change that alters them is a new
// EngineVersion, because past plays must replay as they were played.
//
// # Field
//
// The field is FieldWidth × FieldHeight, 1200 × 1000 field units (6:5, to
// sit in the left part of a landscape screen beside the cartouche), y
// growing downward: the wall near the top, the paddle near the bottom,
// walls on the left, top and right, and nothing below the paddle but the
// pharaoh's ghost. Every length the API returns is in sub-units; divide
// by Unit for field units and scale to pixels uniformly.
//
// # Physics
//
// The ball is a circle; bricks are boxes expanded by the ball's radius
// (square corners, a slight and harmless approximation). Each step moves
// the ball along its velocity, finds the earliest time of impact against
// the field walls, every standing brick and the paddle's top face, moves
// to it, reflects, and continues with the rest of the step (swept
// collision: no speed tunnels through a brick). Bricks hit at the same
// instant all take the hit. The paddle sends the ball at an angle from
// 10° to 60° off vertical given by where it hits (the centre sends it
// nearly straight up, the ends at 60°), never straight up, so the vertical
// speed is always at least half the speed and the ball can neither loop
// horizontally nor bounce straight up and down forever.
//
// # Jouer, Auto and idle
//
// In Jouer the player drags the paddle (Input.PaddleX, its target) and taps
// the ball (Input.Launch); a lost ball shows the ghost mask for GhostTicks,
// then rests on the paddle again, launches unlimited (Art. 4.4). An input
// is activity when it moves the paddle's target, taps, or asks for Auto;
// after IdleTicks without activity the game continues in Auto
// (AutoEngaged), for good. In Auto (Art. 4.1) the ball moves at AutoSpeed
// and a deterministic controller (auto.go) plays: the tests hold it to
// AutoBoundTicks (12 s of game time) for every v1 wall, main or bonus, from
// the start, and from wherever a player left the game.
//
// # Recording
//
// Only activity is recorded, tick-stamped, as varints (record.go). The
// recording, with the wall and the settings it names, replays the game bit
// for bit (Replay): game recall, and resuming the very game after a
// restart.
package breakout
