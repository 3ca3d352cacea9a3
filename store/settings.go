package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Settings (DESIGN.md §4) are a chain of changes: each row sets one key
// to a value, by a source, hash-chained and anchored like the ledger; a
// key's value is its newest row. The hand-pay lock, the limits and the
// kiosk id printed on the vouchers are settings: deleting or editing one
// on the disk is an anchor or integrity fault, never a silent change. A
// change costs one indexed row, written only when a value changes (a
// win's hand-pay lock is one such row in its finish's transaction).

const domainSetting = "pharaon/setting/v1"

type settingRow struct {
	id, at             int64
	key, value, source string
	prevHash, hash     []byte
}

func settingHash(prev []byte, r *settingRow) []byte {
	return newRowHash(domainSetting, prev).int(r.id).int(r.at).str(r.key).str(r.value).str(r.source).sum()
}

// settingQuery reads a key's value: its newest row.
const settingQuery = `SELECT value FROM settings WHERE key = ? ORDER BY id DESC LIMIT 1`

// Setting returns the value of a setting and whether it is set.
func (s *Store) Setting(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.read(ctx, func(tx *rtx) error {
		return tx.queryRow(settingQuery, key).Scan(&v)
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
		rows, err := tx.query(`SELECT key, value FROM settings s WHERE id = (SELECT max(id) FROM settings WHERE key = s.key)`)
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

// setSetting sets a setting in the transaction and logs the change
// (SetSetting). Setting a key to its current value writes nothing.
func (t *wtx) setSetting(source, key, value string) error {
	var old sql.NullString
	err := t.rowQ(settingQuery, key).Scan(&old)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if old.Valid && old.String == value {
		return nil
	}
	if _, err := t.setSettingRow(source, key, value); err != nil {
		return err
	}
	detail := fmt.Sprintf("%s = %q", key, value)
	if old.Valid {
		detail = fmt.Sprintf("%s: %q -> %q", key, old.String, value)
	}
	_, err = t.logEvent(LevelInfo, source, EventSettingChanged, detail)
	return err
}

// setSettingRow appends the key's new value to the settings' chain, with
// no event; a value equal to the current one writes nothing (false).
func (t *wtx) setSettingRow(source, key, value string) (bool, error) {
	var old sql.NullString
	err := t.rowQ(settingQuery, key).Scan(&old)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	if old.Valid && old.String == value {
		return false, nil
	}
	r := settingRow{at: t.now, key: key, value: value, source: source}
	if r.id, r.prevHash, err = t.chainTail(chSettings); err != nil {
		return false, err
	}
	r.id++
	r.hash = settingHash(r.prevHash, &r)
	if _, err := t.execQ(`INSERT INTO settings(id, at, key, value, source, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.id, r.at, r.key, r.value, r.source, r.prevHash, r.hash); err != nil {
		return false, err
	}
	t.heads.set(chSettings, r.id, r.hash)
	return true, nil
}

// verifySettings is Verify's walk of the settings' chain.
func verifySettings(tx *rtx) error {
	rows, err := tx.query(`SELECT id, at, key, value, source, prev_hash, hash FROM settings ORDER BY id`)
	if err != nil {
		return fmt.Errorf("verify settings: %w", err)
	}
	defer rows.Close()
	var id int64
	prev := genesis
	for rows.Next() {
		var r settingRow
		if err := rows.Scan(&r.id, &r.at, &r.key, &r.value, &r.source, &r.prevHash, &r.hash); err != nil {
			return fmt.Errorf("verify settings: %w", err)
		}
		switch {
		case r.id != id+1:
			return integrity("chain", "settings", r.id, "follows row %d", id)
		case string(r.prevHash) != string(prev) || string(settingHash(prev, &r)) != string(r.hash):
			return integrity("chain", "settings", r.id, "content or previous hash does not match its hash")
		}
		id, prev = r.id, r.hash
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify settings: %w", err)
	}
	return nil
}
