package kiosk

import (
	"fmt"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
	"pharaon/store"
)

// Game recall (DESIGN.md §7, the staff's "what happened to my game?"): a
// recorded play shown again on the game widget, its walls stepped with the
// inputs the play recorded, tick for tick, so that it ends on the state the
// original ended on and reveals the same symbols and amount. A Replay has
// no machine and no store: it never moves credit, ledger or meters, and
// the screen's own touches are ignored.

// Replay is one recorded play played again. It is the game widget's source
// (ui/play.Source): Step, World, Revealed, Stake, Settled.
type Replay struct {
	play  store.Play
	walls reveal.Walls

	world    *breakout.World // the wall in play
	rec      breakout.Recording
	next     int // the next recorded input of the wall in play
	onBonus  bool
	main     game.Counts // the main wall's reveal, kept once the bonus wall is in play
	bonus    breakout.Recording
	hasBonus bool
}

// NewReplay prepares the replay of p (a play with its recording, as
// Office.Recall gives it).
func NewReplay(p store.Play) (*Replay, error) {
	walls, err := reveal.Layout(p.Stake, p.Tier, p.ViaBonus, p.Seed, reveal.Version(p.LayoutVersion))
	if err != nil {
		return nil, fmt.Errorf("replay play %d: %w", p.ID, err)
	}
	mainRec, bonusRec, err := decodeRecordings(p.Recording)
	if err != nil {
		return nil, fmt.Errorf("replay play %d: %w", p.ID, err)
	}
	if len(mainRec) == 0 {
		return nil, fmt.Errorf("replay play %d: no recording kept: %w", p.ID, ErrBadRecordings)
	}
	r := &Replay{play: p, walls: walls}
	if r.rec, err = breakout.DecodeRecording(mainRec); err != nil {
		return nil, fmt.Errorf("replay play %d: main wall: %w", p.ID, err)
	}
	if r.rec.Wall != breakout.WallDigest(walls.Main) {
		return nil, fmt.Errorf("replay play %d: main wall: %w", p.ID, breakout.ErrWrongWall)
	}
	if len(bonusRec) > 0 {
		if r.bonus, err = breakout.DecodeRecording(bonusRec); err != nil {
			return nil, fmt.Errorf("replay play %d: bonus wall: %w", p.ID, err)
		}
		if r.bonus.Wall != breakout.WallDigest(walls.Bonus) {
			return nil, fmt.Errorf("replay play %d: bonus wall: %w", p.ID, breakout.ErrWrongWall)
		}
		r.hasBonus = true
	}
	if r.world, err = breakout.New(walls.Main, r.rec.Mode, r.rec.Settings); err != nil {
		return nil, fmt.Errorf("replay play %d: %w", p.ID, err)
	}
	return r, nil
}

// Play is the play replayed.
func (r *Replay) Play() store.Play { return r.play }

// Walls is its layout.
func (r *Replay) Walls() reveal.Walls { return r.walls }

// Step runs one tick of the wall in play with the input recorded for that
// tick; in, the screen's own, is ignored. When the main wall is cleared and
// the play went on to its bonus wall, the bonus wall is in play from the
// next Step, as the kiosk's game does. Past the recording's end it does
// nothing.
func (r *Replay) Step(breakout.Input) []breakout.Event {
	if r.Done() {
		return nil
	}
	var in breakout.Input
	if r.next < len(r.rec.Inputs) && r.rec.Inputs[r.next].Tick == r.world.Tick()+1 {
		in = r.rec.Inputs[r.next].Input
		r.next++
	}
	ev := r.world.Step(in)
	if !r.onBonus && r.world.Done() && r.hasBonus {
		bonus, err := breakout.New(r.walls.Bonus, r.bonus.Mode, r.bonus.Settings)
		if err == nil {
			r.main = r.world.Revealed()
			r.world, r.rec, r.next, r.onBonus = bonus, r.bonus, 0, true
		}
	}
	return ev
}

// World is the wall in play.
func (r *Replay) World() *breakout.World { return r.world }

// Revealed is what the main wall has uncovered.
func (r *Replay) Revealed() game.Counts {
	if r.onBonus {
		return r.main
	}
	return r.world.Revealed()
}

// Stake is the play's stake.
func (r *Replay) Stake() game.Stake { return r.play.Stake }

// Settled is always true: a replay writes nothing.
func (r *Replay) Settled() bool { return true }

// Done reports whether the replay reached the end of what was recorded:
// the last wall cleared, or the tick the recording stops at (a play still
// unfinished when it was recalled).
func (r *Replay) Done() bool {
	if r.world.Done() {
		return !r.hasBonus || r.onBonus
	}
	return r.world.Tick() >= r.rec.End
}

// Result is what the replayed walls show: the outcome the main wall's
// symbols make, and the amount they (or the bonus wall) reveal. It is
// computed from the replay alone, to compare with the play as stored.
func (r *Replay) Result() GameResult {
	out, err := game.Evaluate(r.Revealed(), r.play.Stake)
	if err != nil {
		return GameResult{Mismatch: true}
	}
	res := GameResult{Outcome: out}
	switch out.Kind {
	case game.Win:
		res.Won = out.Amount
	case game.Bonus:
		if r.onBonus && r.world.Done() && r.world.RedHits() == 2 {
			res.Won = r.walls.BonusAmount
			res.Outcome.Amount, res.Outcome.Tier = r.walls.BonusAmount, r.play.Tier
		}
	}
	res.Mismatch = r.play.State == store.PlayFinished && (res.Won != r.play.Prize || r.Revealed() != r.play.Revealed)
	return res
}

// Run plays the replay to its end without a screen (a day of ticks at
// most: breakout.MaxTicks).
func (r *Replay) Run() {
	for i := 0; !r.Done() && i < 2*breakout.MaxTicks; i++ {
		r.Step(breakout.Input{})
	}
}
