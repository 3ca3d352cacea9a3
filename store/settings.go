package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Setting returns the value of a setting and whether it is set.
func (s *Store) Setting(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.read(ctx, func(tx *rtx) error {
		return tx.queryRow(`SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("setting %q: %w", key, err)
	}
	return v, true, nil
}

// Settings returns every setting.
func (s *Store) Settings(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT key, value FROM settings`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			out[k] = v
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	return out, nil
}

// SetSetting sets a setting and logs the change in the event log (who
// changed what is the caller's to say in source: "maintenance", …).
// Setting a key to its current value writes nothing.
func (s *Store) SetSetting(ctx context.Context, source, key, value string) error {
	if key == "" || source == "" {
		return fmt.Errorf("set setting %q from %q: %w", key, source, ErrBadRequest)
	}
	err := s.write(ctx, func(t *wtx) error { return t.setSetting(source, key, value) })
	if err != nil {
		return fmt.Errorf("set setting %q: %w", key, err)
	}
	return nil
}
