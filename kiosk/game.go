package kiosk

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
	"pharaon/store"
)

// Stage is how far a game's reveal is.
type Stage uint8

const (
	StageMain  Stage = iota // breaking the main wall (Art. 4.1, 4.4)
	StageBonus              // breaking the bonus wall (Art. 4.7)
	StageDone               // finished: the prize, if any, is credited
)

func (s Stage) String() string {
	switch s {
	case StageMain:
		return "main"
	case StageBonus:
		return "bonus"
	case StageDone:
		return "done"
	}
	return fmt.Sprintf("stage(%d)", uint8(s))
}

// GameResult is how a game ended.
type GameResult struct {
	// Outcome is the unit's outcome as the regulation names it: Lose, Win
	// (Combination, Tier, Amount) or Bonus (three snakes; Tier and Amount
	// are the prize the bonus wall revealed).
	Outcome game.Outcome
	// Won is what was credited: always the prize the unit carried when its
	// stake was debited (Art. 4.8), 0 for a losing unit.
	Won game.Money
	// Mismatch is set when the walls did not reveal the unit's outcome.
	// The unit's prize was paid all the same and the kiosk is out of service.
	Mismatch bool
}

// GameSnapshot is what the screens show of a play: the one in progress, or
// the last one played since the machine started.
type GameSnapshot struct {
	ID    int64      // the play's id in the store; 0: no play since the start
	Stake game.Stake // the unit's stake
	Stage Stage      // how far its reveal is
	// Settled: no write the game waits for is under way (Game.Settled).
	Settled bool
	// Stopped: an error stopped the game (Game.Err); the kiosk is out of
	// service and resumes the play at its next start.
	Stopped bool
	// Result is how the game ended, valid once Stage is StageDone: what the
	// congratulation windows show, the amount the kiosk credited (Art.
	// 4.8, invariant 3).
	Result GameResult
	// BonusAmount is the prize the bonus wall reveals (reveal.Walls): the
	// bonus game's window (Art. 4.7).
	BonusAmount game.Money
}

func (m *Machine) gameSnapshotLocked() GameSnapshot {
	g := m.game
	if g == nil {
		return GameSnapshot{}
	}
	return GameSnapshot{ID: g.play.ID, Stake: g.play.Stake, Stage: g.stage, Settled: g.pending == 0,
		Stopped: g.err != nil, Result: g.result, BonusAmount: g.walls.BonusAmount}
}

// Game is the reveal of one unit: its main wall and, for a unit won through
// the bonus, its bonus wall. The UI's loop owns it and steps it; its
// durable writes go to the machine's play writer, whose answers change the
// game's stage, result and error under the machine's lock. Step, World and
// Revealed are for the goroutine that steps it; the other methods may be
// called from any goroutine.
type Game struct {
	m        *Machine
	play     store.Play // as the stake debit wrote it
	walls    reveal.Walls
	expected game.Outcome

	// Owned by the goroutine that steps the game.
	main, bonus *breakout.World
	mismatch    bool
	resumed     bool   // set once by resume, before the game is shown
	ending      bool   // the last wall is cleared: its finish is with the writer
	savedAt     uint32 // the world's tick at the last save
	dirty       bool   // inputs or events since the last save
	// rec is the last recording encoded; recMain and recBonus the walls'
	// own, which it holds. All three are reused by the next encoding.
	rec, recMain, recBonus []byte

	// Guarded by the machine's lock: the writer's goroutine changes them.
	stage   Stage
	result  GameResult
	err     error
	pending int           // writes the game waits for (bonus, finish)
	settled chan struct{} // closed when pending falls to 0
}

// expectedOutcome is what the unit's walls must reveal, from the outcome the
// block fixed: nothing for a loser, three snakes for a prize won through the
// bonus, the tier's combination otherwise.
func expectedOutcome(p store.Play) game.Outcome {
	switch {
	case !p.Tier.Wins():
		return game.Outcome{Kind: game.Lose}
	case p.ViaBonus:
		return game.Outcome{Kind: game.Bonus, Combination: game.BonusCombination(), Tier: p.Tier, Amount: p.Prize}
	}
	pr := game.Table(p.Stake).Prizes[p.Tier-1]
	return game.Outcome{Kind: game.Win, Combination: pr.Combination, Tier: p.Tier, Amount: pr.Amount}
}

func (m *Machine) layout(p store.Play) (reveal.Walls, error) {
	if m.layoutHook != nil {
		return m.layoutHook(p)
	}
	w, err := reveal.Layout(p.Stake, p.Tier, p.ViaBonus, p.Seed, reveal.Version(p.LayoutVersion))
	if err != nil {
		return w, fmt.Errorf("layout of play %d: %w", p.ID, err)
	}
	return w, nil
}

// newGame lays out a freshly started play.
func (m *Machine) newGame(p store.Play, mode breakout.Mode) (*Game, error) {
	walls, err := m.layout(p)
	if err != nil {
		return nil, err
	}
	w, err := breakout.New(walls.Main, mode, m.cfg.Engine)
	if err != nil {
		return nil, fmt.Errorf("main wall of play %d: %w", p.ID, err)
	}
	return &Game{m: m, play: p, walls: walls, expected: expectedOutcome(p), main: w}, nil
}

// ID is the play's id in the store.
func (g *Game) ID() int64 { return g.play.ID }

// Stake is the unit's stake.
func (g *Game) Stake() game.Stake { return g.play.Stake }

// Play is the play record as the stake debit wrote it.
func (g *Game) Play() store.Play { return g.play }

// Resumed reports whether the game was interrupted by a restart and resumed
// (Machine.recover): the screens say so before it goes on.
func (g *Game) Resumed() bool { return g.resumed }

// Walls is the unit's layout.
func (g *Game) Walls() reveal.Walls { return g.walls }

// Stage is how far the reveal is. The stage changes under the machine's
// lock: the machine's other goroutines read it there (gameOnLocked).
func (g *Game) Stage() Stage {
	g.m.mu.Lock()
	defer g.m.mu.Unlock()
	return g.stage
}

// World is the wall in play: the main wall, then the bonus wall.
func (g *Game) World() *breakout.World {
	if g.bonus != nil {
		return g.bonus
	}
	return g.main
}

// Revealed is what the main wall has uncovered so far (the cartouche, Art. 4.6).
func (g *Game) Revealed() game.Counts { return g.main.Revealed() }

// Result is how the game ended; valid once Stage is StageDone.
func (g *Game) Result() GameResult {
	g.m.mu.Lock()
	defer g.m.mu.Unlock()
	return g.result
}

// Err is the error that stopped the game, if any (the kiosk is then out of
// service; the play is resumed at the next start).
func (g *Game) Err() error {
	g.m.mu.Lock()
	defer g.m.mu.Unlock()
	return g.err
}

// Settled reports whether no write the game waits for is under way: the
// bonus transition once the main wall is cleared, the finish once the last
// wall is. The screens show the bonus wall, and the result, only once the
// game is settled: a result shows what was credited (Art. 4.8, invariant 3).
// It never waits.
func (g *Game) Settled() bool {
	g.m.mu.Lock()
	defer g.m.mu.Unlock()
	return g.pending == 0
}

// Wait waits until the game is settled. Never call it from the screens'
// goroutine: it waits for a commit.
func (g *Game) Wait() {
	g.m.mu.Lock()
	ch := g.settled
	n := g.pending
	g.m.mu.Unlock()
	if n > 0 {
		<-ch
	}
}

// write hands a write of the game to the machine's writer: do runs on the
// writer's goroutine (tried again while the database is busy), then after
// runs there with its error, under the machine's lock, before the game is
// settled and the listeners told. A write that fails stops the game and
// takes the kiosk out of service; the play is resumed at the next start.
func (g *Game) write(what string, do func(ctx context.Context, st playStore, attempt int) error, after func()) {
	g.m.mu.Lock()
	if g.pending == 0 {
		g.settled = make(chan struct{})
	}
	g.pending++
	g.m.mu.Unlock()
	g.m.w.submit(do, func(err error) {
		if err != nil {
			err = fmt.Errorf("play %d: %s: %w", g.play.ID, what, err)
		}
		closed := errors.Is(err, errWriterClosed)
		if err != nil && !closed {
			g.m.logf(store.LevelCritical, FaultStore, "%v", err)
		}
		g.m.update(func() {
			switch {
			case err == nil:
				after()
			case g.err == nil:
				g.err = err
				if !closed {
					g.m.setFaultLocked(Fault{FaultStore, err.Error()})
				}
			}
			g.pending--
			if g.pending == 0 {
				close(g.settled)
			}
		})
	})
}

// Step advances the wall in play by one tick (1/120 s) and returns what
// happened; the slice is reused by the next step. When the main wall is
// cleared, a unit won through the bonus moves to its bonus wall and any other
// unit is finished; when the bonus wall's red brick falls, the unit is
// finished. Finishing credits the unit's prize in one durable commit, which
// the machine's writer makes while the screens go on: the game is Settled,
// and its Stage StageDone, once it is made.
func (g *Game) Step(in breakout.Input) []breakout.Event {
	if g.ending {
		return nil
	}
	g.m.mu.Lock()
	stopped := g.err != nil
	g.m.mu.Unlock()
	if stopped {
		return nil
	}
	w := g.World()
	ev := w.Step(in)
	if len(ev) > 0 || in != (breakout.Input{}) {
		g.dirty = true
	}
	for _, e := range ev {
		if e.Kind == breakout.WallCleared {
			g.cleared()
			return ev
		}
	}
	if g.dirty && int(w.Tick()-g.savedAt) >= g.m.cfg.SaveTicks {
		g.save()
	}
	return ev
}

// save hands the recording so far to the writer, which writes it without
// holding up the frame loop.
func (g *Game) save() {
	g.m.w.save(g.play.ID, g.recording())
	g.savedAt = g.World().Tick()
	g.dirty = false
}

// recording encodes the walls' recordings so far, as the store keeps them,
// in the game's reused buffers: valid until the next call.
func (g *Game) recording() []byte {
	g.recMain = g.main.AppendRecording(g.recMain[:0])
	var bonus []byte
	if g.bonus != nil {
		g.recBonus = g.bonus.AppendRecording(g.recBonus[:0])
		bonus = g.recBonus
	}
	g.rec = encodeRecordings(g.rec[:0], g.recMain, bonus)
	return g.rec
}

// cleared handles the end of a wall.
func (g *Game) cleared() {
	if g.bonus == nil {
		g.checkMain()
		if g.play.ViaBonus && g.walls.Bonus.Len() == 0 {
			g.mismatchf("the unit is won through the bonus, its layout has no bonus wall")
		}
		if g.play.ViaBonus && !g.mismatch {
			// Three snakes: the bonus game, a further stage of the same
			// unit (Art. 4.6, 4.7).
			g.startBonus(nil, false)
			return
		}
		g.finish()
		return
	}
	g.checkBonus()
	g.finish()
}

// startBonus puts the bonus wall in play, replaying rec if the bonus was
// under way before a restart. A bonus not yet entered in the store is
// entered with the main wall's whole recording and the bonus wall's first
// (the store then refuses any save older than it).
func (g *Game) startBonus(rec []byte, entered bool) {
	var (
		w   *breakout.World
		err error
	)
	if len(rec) > 0 {
		w, err = breakout.Replay(g.walls.Bonus, rec, nil)
	}
	if w == nil {
		if err != nil {
			g.logf(store.LevelWarning, "recording_unusable", "play %d: bonus wall starts again in Auto: %v", g.play.ID, err)
		}
		mode := g.main.Mode()
		if err != nil {
			mode = breakout.Auto
		}
		w, err = breakout.New(g.walls.Bonus, mode, g.main.Settings())
		if err != nil {
			g.fail(fmt.Errorf("play %d: bonus wall: %w", g.play.ID, err))
			return
		}
	}
	g.bonus = w
	g.m.update(func() {
		g.stage = StageBonus
		g.m.state = Bonus
	})
	if !entered {
		id, kept := g.play.ID, bytes.Clone(g.recording())
		g.write("enter bonus", func(ctx context.Context, st playStore, _ int) error {
			return st.EnterBonus(ctx, id, kept)
		}, func() {})
	}
	if w.Done() {
		g.cleared()
	}
}

// checkMain compares what the main wall revealed with the unit's outcome
// (invariant 2). A difference is a fault of the kiosk, never of the player:
// it is logged as critical, the unit's prize is paid all the same, and the
// kiosk goes out of service after the game.
func (g *Game) checkMain() {
	revealed := g.main.Revealed()
	out, err := game.Evaluate(revealed, g.play.Stake)
	switch {
	case err != nil:
		g.mismatchf("main wall revealed %v: %v", revealed, err)
	case revealed != g.walls.Main.Counts():
		g.mismatchf("main wall revealed %v, its layout holds %v", revealed, g.walls.Main.Counts())
	case out.Kind != g.expected.Kind || (out.Kind == game.Win && out.Tier != g.expected.Tier):
		g.mismatchf("main wall revealed %s %s, the unit is %s tier %d", out.Kind, out.Combination, g.expected.Kind, g.expected.Tier)
	}
}

func (g *Game) checkBonus() {
	if g.bonus.RedHits() != 2 || g.walls.BonusAmount != g.play.Prize {
		g.mismatchf("bonus wall: red brick hit %d times, reveals %s, the unit's prize is %s",
			g.bonus.RedHits(), g.walls.BonusAmount, g.play.Prize)
	}
}

func (g *Game) mismatchf(format string, args ...any) {
	g.mismatch = true
	g.logf(store.LevelCritical, FaultMismatch, "play %d: "+format, append([]any{g.play.ID}, args...)...)
}

// logf writes an event of the game through the writer, after the writes
// asked for before it.
func (g *Game) logf(level store.Level, code, format string, args ...any) {
	e := store.Event{Level: level, Source: "kiosk", Code: code, Detail: fmt.Sprintf(format, args...)}
	g.m.w.submit(func(ctx context.Context, st playStore, _ int) error {
		_, err := st.Log(ctx, e)
		return err
	}, func(error) {
		// A failure to log is not a reason to fail what is being logged
		// (Machine.logf).
	})
}

// finish hands the finish to the writer: the unit's prize credited and the
// play finished in one durable commit (Art. 4.8). The game is StageDone,
// with its result, once the commit is made; the screens land the symbols
// meanwhile.
func (g *Game) finish() {
	g.ending = true
	id, mismatch := g.play.ID, g.mismatch
	info := store.FinishInfo{
		Revealed:  g.main.Revealed(),
		Shown:     g.play.Prize, // the congratulations show the unit's prize, nothing else
		Mismatch:  mismatch,
		Recording: bytes.Clone(g.recording()),
		// A prize above the hand-pay limit locks the kiosk for staff in
		// the same commit (handpay.go).
		HandPayLimit: g.m.finishHandPayLimit(),
	}
	var p store.Play
	g.write("finish", func(ctx context.Context, st playStore, attempt int) error {
		g.m.ledgerMu.Lock()
		defer g.m.ledgerMu.Unlock()
		var err error
		p, err = st.FinishPlay(ctx, id, info)
		if attempt > 0 && errors.Is(err, store.ErrPlayFinished) {
			// An attempt the store reported failed committed all the
			// same: the play is finished once, as it says, and its lock,
			// if any, was committed with it.
			if p, err = st.Play(ctx, id); err == nil {
				p.HandPay, err = st.HandPayLock(ctx)
				if p.HandPay.PlayID != id {
					p.HandPay = HandPay{}
				}
			}
		}
		switch {
		case err == nil && p.Prize > 0:
			g.m.showBalance(p.Balance)
		case err == nil:
			// A losing unit moves nothing: its Balance is the one its
			// stake left, older than a note credited during the game.
			// Its end may end the player's session all the same (a
			// stake that took the credit to nothing).
			g.m.loadSessionLocked(ctx)
		}
		return err
	}, func() {
		if p.HandPay.Pending() {
			g.m.hp.pending = p.HandPay
		}
		g.stage = StageDone
		g.result = GameResult{Outcome: g.expected, Won: p.Prize, Mismatch: mismatch}
		g.m.lastTouch = g.m.clk.Now()
		if mismatch {
			g.m.setFaultLocked(Fault{FaultMismatch, fmt.Sprintf("play %d", id)})
			return
		}
		g.m.state = Result
	})
}

// fail stops the game on an error that is not the store's: the play stays
// unfinished and the next start resumes it.
func (g *Game) fail(err error) {
	g.m.mu.Lock()
	if g.err == nil {
		g.err = err
	}
	g.m.mu.Unlock()
	g.logf(store.LevelCritical, FaultStore, "%v", err)
	g.m.outOfService(Fault{FaultStore, err.Error()})
}

// recover resumes the play a crash interrupted (DESIGN.md §7): same layout,
// same outcome, the walls replayed from their last saved recording, so the
// player finds the game as it was (or a little earlier) and finishes it:
// the game says it is resumed (Game.Resumed), a Jouer wall waits with its
// ball on the paddle (restForPlayer), and a Jouer game nobody plays
// continues in Auto after the idle time.
func (m *Machine) recover(ctx context.Context) error {
	plays, err := m.st.UnfinishedPlays(ctx)
	if err != nil {
		return fmt.Errorf("read unfinished plays: %w", err)
	}
	for _, p := range plays {
		g, err := m.resume(p)
		if err != nil {
			return err
		}
		g.Wait() // the bonus or the finish a cleared wall asked for
		stage, gerr := g.Stage(), g.Err()
		m.logf(store.LevelWarning, "play_resumed", "play %d resumed in state %s at stage %s", p.ID, p.State, stage)
		if gerr != nil {
			return gerr
		}
		if stage != StageDone {
			m.update(func() {
				m.game = g
				if stage == StageBonus {
					m.state = Bonus
				} else {
					m.state = Playing
				}
			})
			return nil // at most one play is unfinished: the store sells one at a time
		}
		m.update(func() { m.game = g })
	}
	return nil
}

func (m *Machine) resume(p store.Play) (*Game, error) {
	walls, err := m.layout(p)
	if err != nil {
		return nil, err
	}
	mainRec, bonusRec, recErr := decodeRecordings(p.Recording)
	g := &Game{m: m, play: p, walls: walls, expected: expectedOutcome(p)}
	mode := breakout.Play
	if p.Mode == store.ModeAuto {
		mode = breakout.Auto
	}
	if recErr == nil && len(mainRec) > 0 {
		g.main, recErr = breakout.Replay(walls.Main, mainRec, nil)
	}
	if g.main == nil {
		if recErr != nil {
			// The saved inputs are unusable: the same wall starts again,
			// in Auto, and reveals the same outcome.
			m.logf(store.LevelWarning, "recording_unusable", "play %d: main wall starts again in Auto: %v", p.ID, recErr)
			mode = breakout.Auto
		}
		if g.main, err = breakout.New(walls.Main, mode, m.cfg.Engine); err != nil {
			return nil, fmt.Errorf("resume play %d: %w", p.ID, err)
		}
	}
	g.savedAt = g.main.Tick()
	switch {
	case p.State == store.PlayBonus:
		if !g.main.Done() {
			// EnterBonus keeps the main wall's whole recording with the
			// bonus state, and the store refuses any shorter one after it.
			return nil, fmt.Errorf("resume play %d: in its bonus, the main wall's recording stops at tick %d, short of its end", p.ID, g.main.Tick())
		}
		g.checkMain()
		g.startBonus(bonusRec, true)
	case g.main.Done() || p.State == store.PlayMainDone:
		if !g.main.Done() {
			// The state says the wall was cleared but the saved recording
			// stops short of it: let Auto finish the wall first.
			break
		}
		g.cleared()
	}
	g.resumed = true
	if !g.ending && p.State != store.PlayMainDone {
		g.restForPlayer()
	}
	return g, nil
}

// restForPlayer puts the ball of a resumed Jouer wall back on the paddle,
// where it waits for the player's launch (Art. 4.4): the replay leaves the
// ball where it was at the last save, often in flight, and a player who
// comes back to the kiosk after a restart would see it fall before knowing
// the game goes on. The rest is an input of the engine, recorded like a
// launch, so the play's recording still replays the whole game to the
// state it ends in. An Auto wall goes on as it was.
func (g *Game) restForPlayer() {
	w := g.World()
	if w.Done() || w.Mode() != breakout.Play || w.Ball().Phase == breakout.OnPaddle {
		return
	}
	g.Step(breakout.Input{Rest: true})
}
