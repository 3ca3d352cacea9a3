package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// EventQuery filters the event log as the maintenance screen does: by
// lowest level, by source, by date; N newest first older than BeforeID.
type EventQuery struct {
	N        int    // how many at most (50 if 0)
	BeforeID int64  // older than this id (0: from the newest)
	MinLevel Level  // this level and the graver ones ("" : every level)
	Source   string // "" : every source
	From, To time.Time
}

// levelRank orders the levels, the gravest last.
var levelRank = map[Level]int{LevelInfo: 0, LevelWarning: 1, LevelError: 2, LevelCritical: 3}

// EventsWhere returns the events q selects, newest first.
func (s *Store) EventsWhere(ctx context.Context, q EventQuery) ([]Event, error) {
	if q.N == 0 {
		q.N = 50
	}
	if q.N < 0 || (q.MinLevel != "" && !q.MinLevel.valid()) || (!q.To.IsZero() && !q.From.Before(q.To)) {
		return nil, fmt.Errorf("events %+v: %w", q, ErrBadRequest)
	}
	before := q.BeforeID
	if before <= 0 {
		before = 1<<63 - 1
	}
	conds, args := []string{"id < ?"}, []any{before}
	if q.MinLevel != "" {
		var levels []string
		for l, r := range levelRank {
			if r >= levelRank[q.MinLevel] {
				levels = append(levels, "'"+string(l)+"'")
			}
		}
		conds = append(conds, "level IN ("+strings.Join(levels, ", ")+")")
	}
	if q.Source != "" {
		conds = append(conds, "source = ?")
		args = append(args, q.Source)
	}
	if !q.To.IsZero() {
		conds = append(conds, "at >= ? AND at < ?")
		args = append(args, q.From.UnixNano(), q.To.UnixNano())
	}
	var out []Event
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT `+eventColumns+` FROM events WHERE `+strings.Join(conds, " AND ")+` ORDER BY id DESC LIMIT ?`, append(args, q.N)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e, err := scanEvent(rows)
			if err != nil {
				return err
			}
			out = append(out, e.event())
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	return out, nil
}

// EventSources lists the sources the log holds, for the screen's filter.
func (s *Store) EventSources(ctx context.Context) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT DISTINCT source FROM events ORDER BY source`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var src string
			if err := rows.Scan(&src); err != nil {
				return err
			}
			out = append(out, src)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("event sources: %w", err)
	}
	return out, nil
}
