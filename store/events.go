package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Level is an event's severity.
type Level string

const (
	LevelInfo     Level = "info"
	LevelWarning  Level = "warning"
	LevelError    Level = "error"
	LevelCritical Level = "critical" // the kiosk goes out of service
)

func (l Level) valid() bool {
	switch l {
	case LevelInfo, LevelWarning, LevelError, LevelCritical:
		return true
	}
	return false
}

// Event is one row of the event log. The log keeps the newest events (at
// least MinEventsKept) and is hash-chained.
type Event struct {
	ID     int64
	At     time.Time
	Level  Level
	Source string // the part of the kiosk: "store", "validator", "printer", "kiosk", …
	Code   string // a stable identifier: "block_opened", "jam", …
	Detail string // free text for the technician
}

// Codes of the events the store writes itself (source "store").
const (
	EventBlockImported  = "block_imported"
	EventBlockOpened    = "block_opened"
	EventBlockExhausted = "block_exhausted"
	EventBlockWithdrawn = "block_withdrawn"
	EventRevealMismatch = "reveal_mismatch"
	EventSettingChanged = "setting_changed"
	EventAnchorCreated  = "anchor_created" // the first anchor of the database (WithAnchor)
)

const sourceStore = "store"

// Log appends an event and returns it with its id and time. The oldest
// events beyond the number kept are deleted in the same transaction.
func (s *Store) Log(ctx context.Context, e Event) (Event, error) {
	if !e.Level.valid() || e.Source == "" || e.Code == "" {
		return Event{}, fmt.Errorf("log event %q/%q (level %q): %w", e.Source, e.Code, e.Level, ErrBadRequest)
	}
	var out Event
	err := s.write(ctx, func(t *wtx) error {
		row, err := t.logEvent(e.Level, e.Source, e.Code, e.Detail)
		out = row.event()
		return err
	})
	if err != nil {
		return Event{}, fmt.Errorf("log event %s/%s: %w", e.Source, e.Code, err)
	}
	return out, nil
}

func (t *wtx) logEvent(level Level, source, code, detail string) (eventRow, error) {
	var last int64
	prev := genesis
	err := t.row(stLastEvent).Scan(&last, &prev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return eventRow{}, err
	}
	e := eventRow{id: last + 1, at: t.now, level: string(level), source: source, code: code, detail: detail, prevHash: prev}
	e.hash = eventHash(prev, &e)
	if _, err := t.exec(stInsertEvent, e.id, e.at, e.level, e.source, e.code, e.detail, e.prevHash, e.hash); err != nil {
		return eventRow{}, fmt.Errorf("insert event: %w", err)
	}
	t.heads.set(chEvents, e.id, e.hash)
	if _, err := t.exec(stRotateEvents, e.id-int64(t.s.eventsKept)); err != nil {
		return eventRow{}, fmt.Errorf("rotate events: %w", err)
	}
	return e, nil
}

func (e eventRow) event() Event {
	return Event{ID: e.id, At: time.Unix(0, e.at).UTC(), Level: Level(e.level), Source: e.source, Code: e.code, Detail: e.detail}
}

const eventColumns = `id, at, level, source, code, detail, prev_hash, hash`

func scanEvent(sc interface{ Scan(...any) error }) (eventRow, error) {
	var e eventRow
	err := sc.Scan(&e.id, &e.at, &e.level, &e.source, &e.code, &e.detail, &e.prevHash, &e.hash)
	return e, err
}

// Events returns up to n events, newest first, older than beforeID (0:
// from the newest).
func (s *Store) Events(ctx context.Context, n int, beforeID int64) ([]Event, error) {
	if n <= 0 {
		return nil, nil
	}
	return s.EventsWhere(ctx, EventQuery{N: n, BeforeID: beforeID})
}

// verifyEvents checks the event chain from the oldest event kept, whose
// prev_hash (the hash of an event rotated away) anchors it.
func verifyEvents(tx *rtx) error {
	rows, err := tx.query(`SELECT ` + eventColumns + ` FROM events ORDER BY id`)
	if err != nil {
		return fmt.Errorf("verify events: %w", err)
	}
	defer rows.Close()
	var id int64
	var prev []byte
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return fmt.Errorf("verify events: %w", err)
		}
		if prev == nil {
			if e.id == 1 && string(e.prevHash) != string(genesis) {
				return integrity("chain", "events", e.id, "first event does not start the chain")
			}
			prev = e.prevHash
		} else if e.id != id+1 {
			return integrity("chain", "events", e.id, "follows event %d", id)
		}
		switch {
		case string(e.prevHash) != string(prev):
			return integrity("chain", "events", e.id, "previous hash does not match event %d", id)
		case string(eventHash(prev, &e)) != string(e.hash):
			return integrity("chain", "events", e.id, "content does not match its hash")
		}
		id, prev = e.id, e.hash
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify events: %w", err)
	}
	return nil
}
