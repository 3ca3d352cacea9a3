package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pharaon/game"
)

// Mode is how the player asked for the unit to be revealed (Art. 4.1).
type Mode string

const (
	ModeJouer Mode = "jouer" // the player breaks the wall (Art. 4.4)
	ModeAuto  Mode = "auto"  // the kiosk breaks it
)

// PlayState is where a play is between its stake debit and its prize
// credit. States only move forward: started → main_done → (bonus) →
// finished; FinishPlay may be called from any state before finished.
type PlayState string

const (
	PlayStarted  PlayState = "started"   // stake debited, unit drawn, wall being broken
	PlayMainDone PlayState = "main_done" // the main wall is cleared
	PlayBonus    PlayState = "bonus"     // the bonus wall is shown (via-bonus units only, Art. 4.7)
	PlayFinished PlayState = "finished"  // prize credited; the play never changes again
)

func (s PlayState) rank() int {
	switch s {
	case PlayStarted:
		return 1
	case PlayMainDone:
		return 2
	case PlayBonus:
		return 3
	case PlayFinished:
		return 4
	}
	return 0
}

// PlayRequest is what the player chose.
type PlayRequest struct {
	Stake         game.Stake
	Mode          Mode
	LayoutVersion int // version of the reveal layouts the kiosk will draw the wall with (>= 1)
}

// Play is one unit of play sold: the request, the unit drawn with its
// committed outcome, and how far its reveal went.
type Play struct {
	ID               int64
	At               time.Time // when the stake was debited
	Stake            game.Stake
	Mode             Mode
	LayoutVersion    int
	BlockID          int64
	Emission, Number uint32
	Unit             uint32     // index of the unit in its block
	Tier             game.Tier  // the unit's prize tier, 0 = losing
	ViaBonus         bool       // the prize is revealed through the bonus game
	Seed             uint64     // the unit's reveal seed
	Prize            game.Money // the unit's prize: game.Table(Stake).Amount(Tier)
	State            PlayState
	Updated          time.Time
	Revealed         game.Counts // symbols the walls revealed, once finished
	Mismatch         bool        // the reveal did not show the unit's outcome (the prize was paid anyway)
	// Balance is the credit after the play's last movement: after the
	// stake debit until the play is finished, after the prize credit then
	// (for a losing unit, after the stake debit).
	Balance game.Money
	// Recording is the engine's input recording, kept for replay; filled
	// by Play and UnfinishedPlays only.
	Recording []byte
	// HandPay is the hand-pay lock the play's finish wrote
	// (FinishInfo.HandPayLimit); filled by FinishPlay only.
	HandPay HandPayLock
}

// FinishInfo is what the kiosk reports at the end of a play.
type FinishInfo struct {
	// Revealed is what the walls showed (Art. 4.2's cartouche).
	Revealed game.Counts
	// Shown is the amount the congratulation window shows (0 for a losing
	// unit). It must equal the unit's prize: the store credits the prize
	// it committed at the stake debit, and refuses with ErrPrizeMismatch a
	// caller that would show another amount (Art. 4.8, invariant 3).
	Shown game.Money
	// Mismatch is set by the kiosk when its own check of the reveal
	// against the unit failed. The store also checks Revealed itself and
	// records a mismatch if either says so (and logs an error event).
	Mismatch bool
	// Recording, if not nil, is the final input recording (else the last
	// one saved is kept), kept whatever its length: it is the game's end.
	// Its SHA-256 is chained in the finish step.
	Recording []byte
	// HandPayLimit, when above 0, is the kiosk's hand-pay limit: a prize
	// above it locks the kiosk for a hand-pay in the same commit as the
	// prize's credit (SettingHandPayLock, reference WinHandPayRef), for
	// the whole credit after the prize, and the finished play's HandPay
	// says so. A lock already pending is replaced by this one, whose
	// amount (the whole credit) includes it.
	HandPayLimit game.Money
}

// StartPlay is the play transaction (Art. 4.1, invariant 4): in one
// durable commit it checks the credit covers the stake, draws the next unit
// of the stake's open block, writes the play, the stake's ledger row and
// the meters, and moves the block on (exhausted at its last unit, then the
// next queued block of the stake opens). Errors: ErrInsufficientCredit,
// ErrNoOpenBlock, ErrPlayInProgress (the previous play is not finished),
// ErrBadRequest; any error writes nothing.
func (s *Store) StartPlay(ctx context.Context, req PlayRequest) (Play, error) {
	if err := req.check(); err != nil {
		return Play{}, fmt.Errorf("start play: %w", err)
	}
	var p Play
	err := s.write(ctx, func(t *wtx) error {
		var err error
		p, err = t.startPlay(req)
		return err
	})
	if err != nil {
		return Play{}, fmt.Errorf("start play at %s: %w", req.Stake, err)
	}
	return p, nil
}

func (r PlayRequest) check() error {
	switch {
	case !r.Stake.Valid():
		return fmt.Errorf("stake of %d cents: %w", int64(r.Stake), game.ErrBadStake)
	case r.Mode != ModeJouer && r.Mode != ModeAuto:
		return fmt.Errorf("mode %q: %w", r.Mode, ErrBadRequest)
	case r.LayoutVersion < 1:
		return fmt.Errorf("layout version %d: %w", r.LayoutVersion, ErrBadRequest)
	}
	return nil
}

// lastPlay reads the id, hash and state of the last play (0, genesis and
// finished when there is none).
func (t *wtx) lastPlay() (id int64, hash []byte, state PlayState, err error) {
	var st string
	err = t.row(stLastPlay).Scan(&id, &hash, &st)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, genesis, PlayFinished, nil
	}
	return id, hash, PlayState(st), err
}

// noUnfinishedPlay refuses while a play is unfinished. Plays are started
// only when the last one is finished, so only the last one can be.
func (t *wtx) noUnfinishedPlay() error {
	id, _, state, err := t.lastPlay()
	if err != nil {
		return err
	}
	if state != PlayFinished {
		return fmt.Errorf("play %d: %w", id, ErrPlayInProgress)
	}
	return nil
}

func (t *wtx) startPlay(req PlayRequest) (Play, error) {
	lastPlay, prevPlay, lastState, err := t.lastPlay()
	if err != nil {
		return Play{}, err
	}
	if lastState != PlayFinished {
		return Play{}, fmt.Errorf("play %d: %w", lastPlay, ErrPlayInProgress)
	}
	stake := int64(req.Stake)
	lastEntry, balance, prevEntry, err := t.lastEntry()
	if err != nil {
		return Play{}, fmt.Errorf("read credit: %w", err)
	}
	if balance < stake {
		return Play{}, fmt.Errorf("credit %s: %w", game.Money(balance), ErrInsufficientCredit)
	}
	var blockID, next, units int64
	var emission, number uint32
	err = t.row(stOpenBlock, stake).Scan(&blockID, &emission, &number, &next, &units)
	if errors.Is(err, sql.ErrNoRows) {
		return Play{}, ErrNoOpenBlock
	}
	if err != nil {
		return Play{}, fmt.Errorf("open block: %w", err)
	}
	p := playRow{at: t.now, stake: stake, mode: string(req.Mode), layout: int64(req.LayoutVersion), blockID: blockID, unit: next}
	var sealed []byte
	if err := t.row(stUnit, blockID, next).Scan(&sealed); err != nil {
		return Play{}, fmt.Errorf("unit %d of block %d/%d: %w", next, emission, number, err)
	}
	u, err := openUnit(t.s.units.block(emission, number), blockID, uint32(next), sealed)
	if err != nil {
		return Play{}, err
	}
	p.tier, p.viaBonus, p.seed = int64(u.tier), u.viaBonus, int64(u.seed)
	p.prize = int64(game.Table(req.Stake).Amount(game.Tier(p.tier)))
	p.id, p.prevHash = lastPlay+1, prevPlay
	p.hash = playHash(p.prevHash, &p)
	e := entryRow{id: lastEntry + 1, at: t.now, kind: string(KindStake), amount: -stake, balance: balance - stake,
		playID: p.id, prevHash: prevEntry}
	if _, err := t.exec(stInsertPlay, p.id, p.at, p.stake, p.mode, p.layout, p.blockID, p.unit, p.tier, p.viaBonus,
		p.seed, p.prize, e.id, p.prevHash, p.hash, p.at); err != nil {
		return Play{}, fmt.Errorf("insert play: %w", err)
	}
	t.heads.set(chPlays, p.id, p.hash)
	if err := t.insertEntry(&e); err != nil {
		return Play{}, err
	}
	res, err := t.exec(stAdvanceBlock, blockID, next)
	if err != nil {
		return Play{}, fmt.Errorf("advance block: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return Play{}, fmt.Errorf("advance block %d/%d from unit %d: %d rows (%v)", emission, number, next, n, err)
	}
	if next+1 == units {
		if _, err := t.execQ(`UPDATE blocks SET state = 'exhausted', closed_at = ? WHERE id = ?`, t.now, blockID); err != nil {
			return Play{}, fmt.Errorf("close block: %w", err)
		}
		if _, err := t.logEvent(LevelInfo, sourceStore, EventBlockExhausted, fmt.Sprintf("block %d/%d at %s: id %d, %d units sold",
			emission, number, req.Stake, blockID, units)); err != nil {
			return Play{}, err
		}
		if err := t.openNext(req.Stake); err != nil {
			return Play{}, err
		}
	}
	if err := t.meters(MeterPlays, 1, ByStake(MeterPlays, req.Stake), 1, MeterStaked, stake, ByStake(MeterStaked, req.Stake), stake); err != nil {
		return Play{}, err
	}
	out := p.play()
	out.Emission, out.Number, out.Balance = emission, number, game.Money(e.balance)
	return out, nil
}

// insertEntry writes a ledger row whose id, balance and prev_hash the
// caller read from the last row in this transaction.
func (t *wtx) insertEntry(e *entryRow) error {
	e.hash = entryHash(e.prevHash, e)
	if _, err := t.exec(stInsertEntry, e.id, e.at, e.kind, e.amount, e.balance, nullID(e.playID), nullText(e.ref),
		e.note, e.prevHash, e.hash); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	t.heads.set(chLedger, e.id, e.hash)
	return nil
}

func (p *playRow) play() Play {
	return Play{ID: p.id, At: time.Unix(0, p.at).UTC(), Stake: game.Stake(p.stake), Mode: Mode(p.mode),
		LayoutVersion: int(p.layout), BlockID: p.blockID, Unit: uint32(p.unit), Tier: game.Tier(p.tier),
		ViaBonus: p.viaBonus, Seed: uint64(p.seed), Prize: game.Money(p.prize), State: PlayStarted,
		Updated: time.Unix(0, p.at).UTC()}
}

// playForUpdate is what a state change needs of a play.
type playForUpdate struct {
	stake, tier int64
	viaBonus    bool
	prize       int64
	state       PlayState
	recording   []byte
}

func (t *wtx) playForUpdate(id int64) (playForUpdate, error) {
	var p playForUpdate
	var state string
	err := t.row(stPlayForUpdate, id).Scan(&p.stake, &p.tier, &p.viaBonus, &p.prize, &state, &p.recording)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("play %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return p, err
	}
	p.state = PlayState(state)
	if p.state == PlayFinished {
		return p, fmt.Errorf("play %d: %w", id, ErrPlayFinished)
	}
	return p, nil
}

// step appends a row to the chained history of play state changes.
func (t *wtx) step(playID int64, state PlayState, revealed string, mismatch bool, recDigest []byte) error {
	s := stepRow{playID: playID, at: t.now, state: string(state), revealed: revealed, mismatch: mismatch, recDigest: recDigest}
	var last int64
	s.prevHash = genesis
	if err := t.row(stLastStep).Scan(&last, &s.prevHash); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	s.id = last + 1
	s.hash = stepHash(s.prevHash, &s)
	if _, err := t.exec(stInsertStep, s.id, s.playID, s.at, s.state, nullText(revealed), mismatch, recDigest, s.prevHash, s.hash); err != nil {
		return fmt.Errorf("insert play step: %w", err)
	}
	t.heads.set(chPlaySteps, s.id, s.hash)
	return nil
}

// SetPlayState records that the reveal reached state: PlayMainDone or
// PlayBonus (the latter only for a via-bonus unit). States move forward
// only (ErrPlayState); asking for the state the play is already in is a
// no-op, so a kiosk resuming after a crash may repeat itself. A finished
// play is ErrPlayFinished.
func (s *Store) SetPlayState(ctx context.Context, id int64, state PlayState) error {
	if state != PlayMainDone && state != PlayBonus {
		return fmt.Errorf("play %d: set state %q (use FinishPlay to finish): %w", id, state, ErrBadRequest)
	}
	err := s.write(ctx, func(t *wtx) error { return t.setPlayState(id, state) })
	if err != nil {
		return fmt.Errorf("play %d to %s: %w", id, state, err)
	}
	return nil
}

func (t *wtx) setPlayState(id int64, state PlayState) error {
	p, err := t.playForUpdate(id)
	if err != nil {
		return err
	}
	switch {
	case p.state == state:
		return nil
	case state.rank() < p.state.rank():
		return fmt.Errorf("play is %s: %w", p.state, ErrPlayState)
	case state == PlayBonus && !p.viaBonus:
		return fmt.Errorf("the unit has no bonus game: %w", ErrPlayState)
	}
	if err := t.step(id, state, "", false, nil); err != nil {
		return err
	}
	_, err = t.exec(stSetState, string(state), t.now, nil, false, nil, id)
	return err
}

// SaveRecording stores the engine's input recording of an unfinished play
// (replacing the previous one), so a reveal interrupted by a crash resumes
// by replaying it. A finished play's recording never changes.
//
// A recording only grows as its game goes on, so a recording shorter than
// the one held is older than it and is refused (ErrStaleRecording, nothing
// written): a save that arrives late never takes a resumed game back, nor
// undoes the recording EnterBonus kept with the bonus.
func (s *Store) SaveRecording(ctx context.Context, id int64, rec []byte) error {
	err := s.write(ctx, func(t *wtx) error {
		p, err := t.playForUpdate(id)
		if err != nil {
			return err
		}
		if len(rec) < len(p.recording) {
			return fmt.Errorf("%d bytes, %d held: %w", len(rec), len(p.recording), ErrStaleRecording)
		}
		_, err = t.exec(stSetRecording, rec, t.now, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("play %d: save recording: %w", id, err)
	}
	return nil
}

// EnterBonus records, in one durable commit, that a via-bonus unit's main
// wall is cleared and its bonus wall shown (PlayBonus, Art. 4.7), with the
// recording that shows it: the main wall's whole recording. The play step
// chains the recording's SHA-256. As for SaveRecording, a recording shorter
// than the one held is ErrStaleRecording; entering the bonus again with the
// same recording is a no-op, so a kiosk resuming after a crash may repeat
// itself. Other errors are those of SetPlayState.
func (s *Store) EnterBonus(ctx context.Context, id int64, rec []byte) error {
	err := s.write(ctx, func(t *wtx) error {
		p, err := t.playForUpdate(id)
		if err != nil {
			return err
		}
		switch {
		case p.state == PlayBonus && bytes.Equal(rec, p.recording):
			return nil
		case p.state == PlayBonus:
			return fmt.Errorf("play is %s: %w", p.state, ErrPlayState)
		case !p.viaBonus:
			return fmt.Errorf("the unit has no bonus game: %w", ErrPlayState)
		case len(rec) < len(p.recording):
			return fmt.Errorf("%d bytes, %d held: %w", len(rec), len(p.recording), ErrStaleRecording)
		}
		sum := sha256.Sum256(rec)
		if err := t.step(id, PlayBonus, "", false, sum[:]); err != nil {
			return err
		}
		if _, err := t.exec(stSetState, string(PlayBonus), t.now, nil, false, nil, id); err != nil {
			return err
		}
		_, err = t.exec(stSetRecording, rec, t.now, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("play %d: enter bonus: %w", id, err)
	}
	return nil
}

// FinishPlay ends a play in one durable commit: the unit's prize (never
// an amount from the caller) credited as a win row of the ledger, the
// meters, the play finished with what its walls revealed, and the
// hand-pay lock of a prize above f.HandPayLimit. f.Shown must
// be the unit's prize (ErrPrizeMismatch otherwise, nothing written). A
// play already finished is ErrPlayFinished: a prize is never credited
// twice. It returns the finished play.
func (s *Store) FinishPlay(ctx context.Context, id int64, f FinishInfo) (Play, error) {
	for sym, n := range f.Revealed {
		if n < 0 {
			return Play{}, fmt.Errorf("finish play %d: %d×%s revealed: %w", id, n, game.Symbol(sym), ErrBadRequest)
		}
	}
	var out Play
	err := s.write(ctx, func(t *wtx) error {
		var err error
		out, err = t.finishPlay(id, f)
		return err
	})
	if err != nil {
		return Play{}, fmt.Errorf("finish play %d: %w", id, err)
	}
	return out, nil
}

func (t *wtx) finishPlay(id int64, f FinishInfo) (Play, error) {
	p, err := t.play(id)
	if errors.Is(err, sql.ErrNoRows) {
		return Play{}, fmt.Errorf("play %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Play{}, err
	}
	if p.State == PlayFinished {
		return Play{}, fmt.Errorf("play %d: %w", id, ErrPlayFinished)
	}
	if f.Shown != p.Prize {
		return Play{}, fmt.Errorf("shown %s, the unit's prize is %s: %w", f.Shown, p.Prize, ErrPrizeMismatch)
	}
	mismatch := f.Mismatch || !revealMatches(f.Revealed, p.Stake, p.Tier, p.ViaBonus)
	if f.Recording != nil {
		p.Recording = f.Recording
		if _, err := t.exec(stSetRecording, p.Recording, t.now, id); err != nil {
			return Play{}, err
		}
	}
	var recDigest []byte
	if p.Recording != nil {
		sum := sha256.Sum256(p.Recording)
		recDigest = sum[:]
	}
	revealed := formatCounts(f.Revealed)
	if err := t.step(id, PlayFinished, revealed, mismatch, recDigest); err != nil {
		return Play{}, err
	}
	// The play names its win row before the row is written: the schema
	// accepts a play's ledger row only if the play names it.
	var win *entryRow
	var winID any
	if p.Prize > 0 {
		last, balance, prev, err := t.lastEntry()
		if err != nil {
			return Play{}, fmt.Errorf("read credit: %w", err)
		}
		win = &entryRow{id: last + 1, at: t.now, kind: string(KindWin), amount: int64(p.Prize),
			balance: balance + int64(p.Prize), playID: id, prevHash: prev}
		winID = win.id
	}
	if _, err := t.exec(stSetState, string(PlayFinished), t.now, revealed, mismatch, winID, id); err != nil {
		return Play{}, err
	}
	if win != nil {
		if err := t.insertEntry(win); err != nil {
			return Play{}, err
		}
		prize := int64(p.Prize)
		if err := t.meters(MeterWins, 1, ByStake(MeterWins, p.Stake), 1, MeterWon, prize, ByStake(MeterWon, p.Stake), prize); err != nil {
			return Play{}, err
		}
		p.Balance = game.Money(win.balance)
		if f.HandPayLimit > 0 && p.Prize > f.HandPayLimit {
			if p.HandPay, err = t.lockWin(&p, f.HandPayLimit); err != nil {
				return Play{}, err
			}
		}
	}
	if mismatch {
		if _, err := t.logEvent(LevelError, sourceStore, EventRevealMismatch, fmt.Sprintf(
			"play %d at %s: unit tier %d (via bonus %v), revealed %s (kiosk flag %v); paid the unit's prize %s",
			id, p.Stake, p.Tier, p.ViaBonus, revealed, f.Mismatch, p.Prize)); err != nil {
			return Play{}, err
		}
	}
	// Every SnapshotEveryPlays-th play, and one an hour, reports the
	// meters (snapshot.go).
	if due, err := t.snapshotDue(id); err != nil {
		return Play{}, err
	} else if due {
		if _, err := t.snapshotMeters(SnapshotPlays); err != nil {
			return Play{}, err
		}
	}
	p.State, p.Updated, p.Revealed, p.Mismatch = PlayFinished, time.Unix(0, t.now).UTC(), f.Revealed, mismatch
	return p, nil
}

// revealMatches says whether the revealed symbols show the unit's outcome
// (invariant 2): its combination for a direct win, three snakes for a
// via-bonus win, no combination for a losing unit.
func revealMatches(c game.Counts, stake game.Stake, tier game.Tier, viaBonus bool) bool {
	out, err := game.Evaluate(c, stake)
	if err != nil {
		return false
	}
	switch {
	case viaBonus:
		return out.Kind == game.Bonus
	case tier == game.TierLose:
		return out.Kind == game.Lose
	default:
		return out.Kind == game.Win && out.Tier == tier
	}
}

// formatCounts writes revealed counts in the cartouche's order: "0,2,0,1,0,3".
func formatCounts(c game.Counts) string {
	parts := make([]string, len(c))
	for i, n := range c {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func parseCounts(s string) (game.Counts, error) {
	var c game.Counts
	if s == "" {
		return c, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != len(c) {
		return c, fmt.Errorf("revealed %q: %d counts", s, len(parts))
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return c, fmt.Errorf("revealed %q: %w", s, err)
		}
		c[i] = n
	}
	return c, nil
}

// playColumns are a play's columns. The block's emission and number and
// the balances come from scalar subqueries, not joins: go-sqlite3 (with
// SQLite 3.54) recompiles a join bound to a parameter at every run, which
// made reading a play twenty times slower than its lookups.
const playColumns = `p.id, p.at, p.stake, p.mode, p.layout_version, p.block_id,
	(SELECT emission FROM blocks WHERE id = p.block_id), (SELECT number FROM blocks WHERE id = p.block_id), p.unit_idx,
	p.tier, p.via_bonus, p.seed, p.prize, p.state, p.updated_at, coalesce(p.revealed, ''), p.mismatch,
	coalesce((SELECT balance_after FROM ledger WHERE id = p.win_entry),
	         (SELECT balance_after FROM ledger WHERE id = p.stake_entry), 0)`

const playFrom = ` FROM plays p `

func scanPlay(sc interface{ Scan(...any) error }, withRecording bool) (Play, error) {
	var p Play
	var at, stake, updated, seed, prize, balance int64
	var tier int
	var mode, state, revealed string
	dst := []any{&p.ID, &at, &stake, &mode, &p.LayoutVersion, &p.BlockID, &p.Emission, &p.Number, &p.Unit,
		&tier, &p.ViaBonus, &seed, &prize, &state, &updated, &revealed, &p.Mismatch, &balance}
	if withRecording {
		dst = append(dst, &p.Recording)
	}
	if err := sc.Scan(dst...); err != nil {
		return Play{}, err
	}
	p.At, p.Updated = time.Unix(0, at).UTC(), time.Unix(0, updated).UTC()
	p.Stake, p.Mode, p.Tier, p.Seed, p.Prize = game.Stake(stake), Mode(mode), game.Tier(tier), uint64(seed), game.Money(prize)
	p.State, p.Balance = PlayState(state), game.Money(balance)
	var err error
	p.Revealed, err = parseCounts(revealed)
	return p, err
}

func (t *wtx) play(id int64) (Play, error) {
	return scanPlay(t.row(stPlayByID, id), true)
}

// Play returns one play by id with its recording (game recall); ErrNotFound
// if there is none.
func (s *Store) Play(ctx context.Context, id int64) (Play, error) {
	var p Play
	err := s.read(ctx, func(tx *rtx) error {
		var err error
		p, err = scanPlay(tx.queryRow(`SELECT `+playColumns+`, p.recording`+playFrom+`WHERE p.id = ?`, id), true)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("play %d: %w", id, ErrNotFound)
		}
		return err
	})
	if err != nil {
		return Play{}, fmt.Errorf("play: %w", err)
	}
	return p, nil
}

// LastPlays returns up to n plays, newest first (the history of Art. 4.1:
// the last unit first), older than beforeID (0: from the newest), without
// their recordings.
func (s *Store) LastPlays(ctx context.Context, n int, beforeID int64) ([]Play, error) {
	if beforeID <= 0 {
		beforeID = 1<<63 - 1
	}
	out, err := s.plays(ctx, false, `WHERE p.id < ? ORDER BY p.id DESC LIMIT ?`, beforeID, n)
	if err != nil {
		return nil, fmt.Errorf("last plays: %w", err)
	}
	return out, nil
}

// UnfinishedPlays returns the play started and not finished, if any, with
// its recording: after a restart the kiosk resumes it (DESIGN.md §7).
// The store starts a play only once the last is finished, so only the
// last play can be unfinished (Verify reports any other).
func (s *Store) UnfinishedPlays(ctx context.Context) ([]Play, error) {
	out, err := s.plays(ctx, true, `WHERE p.id = (SELECT max(id) FROM plays) AND p.state <> 'finished'`)
	if err != nil {
		return nil, fmt.Errorf("unfinished plays: %w", err)
	}
	return out, nil
}

func (s *Store) plays(ctx context.Context, withRecording bool, where string, args ...any) ([]Play, error) {
	cols := playColumns
	if withRecording {
		cols += `, p.recording`
	}
	var out []Play
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT `+cols+playFrom+where, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			p, err := scanPlay(rows, withRecording)
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return rows.Err()
	})
	return out, err
}
