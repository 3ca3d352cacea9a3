package store

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeSettings changes a few settings: a limit twice, a hand-pay lock set
// then cleared.
func writeSettings(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	for _, kv := range [][2]string{{"payout.limit", "150000"}, {"kiosk.id", "PH-0042"}, {"payout.limit", "100000"},
		{SettingHandPayLock, HandPayLock{Ref: "win-1", Cause: HandPayWin, Amount: 375000}.Encode()}, {SettingHandPayLock, ""}} {
		require.NoError(t, s.SetSetting(ctx, "maintenance", kv[0], kv[1]))
	}
}

// Settings are a chain of changes: a key's value is its newest row, a
// value set again writes nothing, each change is an event and an outbox
// record whose hash the centre recomputes.
func TestSettingsAreAChain(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	writeSettings(t, s)
	require.NoError(t, s.SetSetting(ctx, "maintenance", "payout.limit", "100000"), "the same value again")
	all, err := s.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"payout.limit": "100000", "kiosk.id": "PH-0042", SettingHandPayLock: ""}, all)
	v, ok, err := s.Setting(ctx, "payout.limit")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "100000", v)
	_, ok, err = s.Setting(ctx, "venue")
	require.NoError(t, err)
	assert.False(t, ok)
	events, err := s.EventsWhere(ctx, EventQuery{N: 100, Source: "maintenance"})
	require.NoError(t, err)
	var changed []string
	for _, e := range events {
		if e.Code == EventSettingChanged {
			changed = append(changed, e.Detail)
		}
	}
	assert.Len(t, changed, 5, "one event per change, none for the same value")
	assert.Contains(t, changed, `payout.limit: "150000" -> "100000"`)

	recs, err := s.Outbox(ctx, 0, 1000)
	require.NoError(t, err)
	n := 0
	for _, r := range recs {
		if r.Kind != "setting" {
			continue
		}
		n++
		stored, computed, err := RecordHash(r.Kind, r.Payload)
		require.NoError(t, err)
		assert.Equal(t, stored, computed)
		var row map[string]any
		require.NoError(t, json.Unmarshal(r.Payload, &row))
		row["value"] = "999999"
		b, err := json.Marshal(row)
		require.NoError(t, err)
		stored, computed, err = RecordHash(r.Kind, b)
		require.NoError(t, err)
		assert.NotEqual(t, stored, computed, "a value changed under its hash")
	}
	assert.Equal(t, 5, n)
	require.NoError(t, s.Verify(ctx))
}

// The settings edited on the disk as whoever holds the file would (the
// triggers dropped, then put back with their own text): the newest row
// removed (a hand-pay lock's clearing undone, or a lock cleared) is an
// anchor fault at the next start; an older value rewritten, an integrity
// fault of the chain.
func TestSettingsEditedOnTheDiskAreAFault(t *testing.T) {
	dir := t.TempDir()
	anchoredHistory(t, dir)
	unlocked := func(q string) string {
		return `DROP TRIGGER settings_no_delete; DROP TRIGGER settings_no_update;` + q +
			strings.Join(schemaTriggers(t, "settings_no_delete", "settings_no_update"), ";\n") + ";"
	}
	for _, c := range []struct {
		name, sql string
		want      error
	}{
		{"the newest setting deleted", `DELETE FROM settings WHERE id = (SELECT max(id) FROM settings);`, ErrAnchor},
		{"every setting deleted", `DELETE FROM settings;`, ErrAnchor},
		{"a limit raised", `UPDATE settings SET value = '999999' WHERE key = 'payout.limit';`, ErrIntegrity},
		{"a limit raised, hashes recomputed by hand", `UPDATE settings SET value = '999999', hash = zeroblob(32) WHERE key = 'payout.limit';`, ErrIntegrity},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := copyAnchored(t, dir)
			tamper(t, path, unlocked(c.sql))
			s, err := Open(path, WithAnchor(DefaultAnchor(path)))
			require.NoError(t, err)
			defer s.Close()
			require.NoError(t, s.VerifySchema(context.Background()))
			err = s.Verify(context.Background())
			require.ErrorIs(t, err, c.want)
			assert.Contains(t, err.Error(), "settings")
			_, err = s.VerifyBoot(context.Background())
			require.ErrorIs(t, err, c.want)
		})
	}
}

// A setting row appended behind the store while it runs, chained as the
// store would: the next change of a setting (a hand-pay lock written in a
// win's finish, a limit) finds the chain past its anchor, is refused, and
// the store writes nothing more.
func TestSettingAppendedWhileRunning(t *testing.T) {
	ctx := context.Background()
	s, path := openAnchoredHistory(t)
	var r settingRow
	require.NoError(t, s.read(ctx, func(tx *rtx) error {
		return tx.queryRow(`SELECT id, hash FROM settings ORDER BY id DESC LIMIT 1`).Scan(&r.id, &r.prevHash)
	}))
	r = settingRow{id: r.id + 1, at: 1, key: "payout.limit", value: "999999", source: "maintenance", prevHash: r.prevHash}
	r.hash = settingHash(r.prevHash, &r)
	_, err := openRaw(t, path).Exec(`INSERT INTO settings(id, at, key, value, source, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.id, r.at, r.key, r.value, r.source, r.prevHash, r.hash)
	require.NoError(t, err)

	err = s.SetSetting(ctx, "maintenance", "kiosk.id", "PH-0043")
	require.ErrorIs(t, err, ErrAnchor)
	_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "x"})
	assert.ErrorIs(t, err, ErrAnchor, "nothing more is written")
}
