package store

import (
	"context"
	"fmt"
	"time"

	"pharaon/game"
)

// Game recall (DESIGN.md §1, the staff's "what happened to my game?"): the
// last plays, or those of a date or of a unit, each with the credit before
// and after it and what its replay needs (the seed and layout version every
// play carries, and the recording).

// RecallQuery selects the plays recalled: the newest N (10 if 0: the
// regulators' minimum) older than BeforeID (0: from the newest), narrowed
// to those started in [From, To) when To is set.
type RecallQuery struct {
	N        int
	BeforeID int64
	From, To time.Time
}

// Recalled is a play as the recall shows it.
type Recalled struct {
	Play
	// CreditBefore is the credit just before the stake was debited;
	// CreditAfter the credit right after the play's last movement (the
	// prize credit, or the stake debit of a losing unit).
	CreditBefore, CreditAfter game.Money
}

// Recall returns the plays q selects, newest first, with their recordings.
func (s *Store) Recall(ctx context.Context, q RecallQuery) ([]Recalled, error) {
	if q.N == 0 {
		q.N = 10
	}
	if q.N < 0 || (!q.To.IsZero() && !q.From.Before(q.To)) {
		return nil, fmt.Errorf("recall %+v: %w", q, ErrBadRequest)
	}
	before := q.BeforeID
	if before <= 0 {
		before = 1<<63 - 1
	}
	where, args := `WHERE p.id < ?`, []any{before}
	if !q.To.IsZero() {
		where += ` AND p.at >= ? AND p.at < ?`
		args = append(args, q.From.UnixNano(), q.To.UnixNano())
	}
	plays, err := s.plays(ctx, true, where+` ORDER BY p.id DESC LIMIT ?`, append(args, q.N)...)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	return s.recalled(ctx, plays)
}

// RecallUnit returns the play that sold a unit, named as its ticket is
// (emission, block number, index in the block); ErrNotFound when the unit
// was not sold here.
func (s *Store) RecallUnit(ctx context.Context, emission, number, unit uint32) (Recalled, error) {
	plays, err := s.plays(ctx, true, `WHERE p.block_id = (SELECT id FROM blocks WHERE emission = ? AND number = ?) AND p.unit_idx = ?`,
		emission, number, unit)
	if err == nil && len(plays) == 0 {
		err = ErrNotFound
	}
	var out []Recalled
	if err == nil {
		out, err = s.recalled(ctx, plays)
	}
	if err != nil {
		return Recalled{}, fmt.Errorf("recall unit %d/%d/%d: %w", emission, number, unit, err)
	}
	return out[0], nil
}

// recalled adds to each play the credit around it, from its own ledger rows.
func (s *Store) recalled(ctx context.Context, plays []Play) ([]Recalled, error) {
	out := make([]Recalled, len(plays))
	err := s.read(ctx, func(tx *rtx) error {
		for i, p := range plays {
			var afterStake int64
			err := tx.queryRow(`SELECT balance_after FROM ledger WHERE id = (SELECT stake_entry FROM plays WHERE id = ?)`, p.ID).Scan(&afterStake)
			if err != nil {
				return fmt.Errorf("stake of play %d: %w", p.ID, err)
			}
			r := Recalled{Play: p, CreditBefore: game.Money(afterStake) + p.Stake.Money(), CreditAfter: game.Money(afterStake)}
			if p.State == PlayFinished {
				r.CreditAfter = p.Balance
			}
			out[i] = r
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	return out, nil
}
