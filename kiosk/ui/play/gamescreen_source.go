package play

import (
	"fmt"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
)

// Source is the game the game screen plays and draws. In the kiosk it is
// the *kiosk.Game of the play in progress, which steps the wall in play (the
// main wall, then the bonus wall of Art. 4.7) and records the inputs; in the
// scene bench, the attract loop and the tests it is a DemoGame.
//
// The screen only reads the source's state and events: it never decides what
// a wall reveals, and the amount a congratulation window shows comes from the
// kiosk's result, not from the screen (DESIGN.md invariant 3).
type Source interface {
	// Step runs one 1/120 s tick of the wall in play and returns what
	// happened (the slice is reused by the next Step).
	Step(breakout.Input) []breakout.Event
	// World is the wall in play: the main wall, then, once it is cleared
	// and if the unit is won through the bonus game, the bonus wall.
	World() *breakout.World
	// Revealed is what the main wall has uncovered so far: the cartouche
	// (Art. 4.6).
	Revealed() game.Counts
	// Stake is the unit's stake: the cartouche's prize table (Art. 4.2).
	Stake() game.Stake
	// Settled reports whether what a cleared wall asked of the kiosk is
	// done: the bonus transition, or the finish that credits the prize.
	// The screen goes on to the bonus wall, or ends the game, only then,
	// so the result it shows is what the kiosk credited. It never waits.
	Settled() bool
}

// resumable is a Source that may be a game resumed after a restart
// (*kiosk.Game): the game screen says so before it goes on.
type resumable interface {
	Resumed() bool
}

// DemoGame is a Source that plays the walls of a unit without a stake, a
// ticket or a record: the main wall, then the bonus wall if the layout has
// one, as *kiosk.Game does. It serves the scene bench, an attract loop and
// the tests; it must never stand for a paid play.
type DemoGame struct {
	walls    reveal.Walls
	settings breakout.Settings
	world    *breakout.World
	onBonus  bool
	main     game.Counts // the main wall's reveal, kept once the bonus wall is in play
}

// NewDemoGame starts a demo of walls in mode with settings s.
func NewDemoGame(walls reveal.Walls, mode breakout.Mode, s breakout.Settings) (*DemoGame, error) {
	w, err := breakout.New(walls.Main, mode, s)
	if err != nil {
		return nil, fmt.Errorf("demo game: %w", err)
	}
	return &DemoGame{walls: walls, settings: s, world: w}, nil
}

// Step runs one tick of the wall in play. When the main wall is cleared and
// the layout has a bonus wall, the bonus wall is in play from the next Step,
// in the mode the main wall ended in, as the kiosk does.
func (d *DemoGame) Step(in breakout.Input) []breakout.Event {
	ev := d.world.Step(in)
	if !d.onBonus && d.world.Done() && d.walls.ViaBonus {
		bonus, err := breakout.New(d.walls.Bonus, d.world.Mode(), d.settings)
		if err != nil {
			// The walls came from reveal.Layout and the settings were
			// accepted for the main wall: a bad bonus wall is a bug.
			panic(fmt.Sprintf("demo game: bonus wall: %v", err))
		}
		d.main = d.world.Revealed()
		d.world, d.onBonus = bonus, true
	}
	return ev
}

// World is the wall in play.
func (d *DemoGame) World() *breakout.World { return d.world }

// Revealed is what the main wall has uncovered.
func (d *DemoGame) Revealed() game.Counts {
	if d.onBonus {
		return d.main
	}
	return d.world.Revealed()
}

// Stake is the layout's stake.
func (d *DemoGame) Stake() game.Stake { return d.walls.Stake }

// Settled is always true: a demo writes nothing.
func (d *DemoGame) Settled() bool { return true }

// Walls is the layout the demo plays.
func (d *DemoGame) Walls() reveal.Walls { return d.walls }

// Done reports whether the demo is over: its last wall is cleared.
func (d *DemoGame) Done() bool { return d.world.Done() && (d.onBonus || !d.walls.ViaBonus) }
