package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// OutboxRecord is one row of the fleet's outbox (outbox_schema.go): a fact
// the kiosk wrote, numbered by its own sequence, as the centre receives it.
type OutboxRecord struct {
	Seq     int64           `json:"seq"`
	At      time.Time       `json:"at"`
	Kind    string          `json:"kind"` // play, play_state, play_step, ledger, event, voucher, voucher_state, voucher_step
	RefID   int64           `json:"ref_id"`
	Payload json.RawMessage `json:"payload"` // the row as written, hashes in hexadecimal
}

// Outbox returns up to limit records with a sequence above after, in
// order.
func (s *Store) Outbox(ctx context.Context, after int64, limit int) ([]OutboxRecord, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("outbox: limit %d: %w", limit, ErrBadRequest)
	}
	var out []OutboxRecord
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT seq, at, kind, ref_id, payload FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?`, after, int64(limit))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r OutboxRecord
			var at int64
			var payload string
			if err := rows.Scan(&r.Seq, &at, &r.Kind, &r.RefID, &payload); err != nil {
				return err
			}
			r.At = time.Unix(0, at).UTC()
			r.Payload = json.RawMessage(payload)
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	return out, nil
}

// OutboxState is where the outbox stands: the last sequence written and the
// last one the centre acknowledged.
type OutboxState struct {
	Last, Published int64
}

// Pending is the number of records written and not yet acknowledged.
func (o OutboxState) Pending() int64 { return o.Last - o.Published }

// OutboxState reads the last sequence written and the published mark.
func (s *Store) OutboxState(ctx context.Context) (OutboxState, error) {
	var o OutboxState
	err := s.read(ctx, func(tx *rtx) error {
		return tx.queryRow(`SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'outbox'), 0),
			(SELECT value FROM meta WHERE key = 'outbox_published')`).Scan(&o.Last, &o.Published)
	})
	if err != nil {
		return OutboxState{}, fmt.Errorf("outbox state: %w", err)
	}
	return o, nil
}

// MarkPublished records that the centre acknowledged every record up to
// seq. The mark only moves forward: a seq at or below it changes nothing;
// a seq beyond the last record written is refused.
func (s *Store) MarkPublished(ctx context.Context, seq int64) error {
	err := s.write(ctx, func(t *wtx) error {
		_, err := t.execQ(`UPDATE meta SET value = ? WHERE key = 'outbox_published' AND value < ?`, seq, seq)
		return err
	})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, ErrClosed) {
			return fmt.Errorf("mark published %d: %w", seq, err)
		}
		return fmt.Errorf("mark published %d: %w: %w", seq, ErrBadRequest, err)
	}
	return nil
}

// PruneOutbox deletes the published records older than the newest keep
// ones published, and returns how many it deleted.
func (s *Store) PruneOutbox(ctx context.Context, keep int64) (int64, error) {
	var n int64
	err := s.write(ctx, func(t *wtx) error {
		res, err := t.execQ(`DELETE FROM outbox WHERE seq <= (SELECT value FROM meta WHERE key = 'outbox_published') - ?`, keep)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune outbox: %w", err)
	}
	return n, nil
}

// OutboxRetention is how long the published records stay in the outbox
// (PruneOutboxBefore): long enough to be read again at the kiosk (the
// maintenance screen, a technician's copy) after the centre holds them.
// The records that were not published stay, however old.
const OutboxRetention = 30 * 24 * time.Hour

// PruneOutboxBefore deletes the published records written before before,
// oldest first, and returns how many it deleted. It stops at the first
// record written at or after before (a clock set back keeps the records
// after it a little longer rather than leaving holes), and never deletes
// one beyond the published mark (the outbox_prune trigger refuses it
// too). Its cost is the number of records it deletes.
func (s *Store) PruneOutboxBefore(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.write(ctx, func(t *wtx) error {
		var published, first int64
		if err := t.rowQ(`SELECT value FROM meta WHERE key = 'outbox_published'`).Scan(&published); err != nil {
			return err
		}
		// Rows in seq order from the oldest: SQLite stops at the first one
		// young enough, having read only those to delete.
		err := t.rowQ(`SELECT seq FROM outbox WHERE seq <= ? AND at >= ? ORDER BY seq LIMIT 1`, published, before.UnixNano()).Scan(&first)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			first = published + 1
		case err != nil:
			return err
		}
		res, err := t.execQ(`DELETE FROM outbox WHERE seq < ?`, first)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune outbox: %w", err)
	}
	return n, nil
}
