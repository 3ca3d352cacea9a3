package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// history makes a store with some of everything: blocks, plays in every
// state, cash movements, events.
func history(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	copyFile(t, templateWith(t, block050), path)
	s, err := Open(path, WithClock(newClock().now))
	require.NoError(t, err)
	defer s.Close()
	_, err = s.BillIn(ctx, 20*game.Euro, "seq-1")
	require.NoError(t, err)
	playUntil(t, s, func(p Play) bool { return p.ViaBonus && p.ID > 3 })
	un, err := s.UnfinishedPlays(ctx)
	require.NoError(t, err)
	p := un[0]
	require.NoError(t, s.SaveRecording(ctx, p.ID, []byte("rec")))
	require.NoError(t, s.SetPlayState(ctx, p.ID, PlayMainDone))
	require.NoError(t, s.SetPlayState(ctx, p.ID, PlayBonus))
	_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
	require.NoError(t, err)
	_, err = s.Log(ctx, Event{Level: LevelWarning, Source: "printer", Code: "paper_low", Detail: "near end"})
	require.NoError(t, err)
	_, err = s.VoucherOut(ctx, 1*game.Euro, "V1")
	require.NoError(t, err)
	require.NoError(t, s.Verify(ctx))
	require.NoError(t, s.VerifyBlocks(ctx, trusted()))
}

// TestVerifyDetectsTampering edits the database behind the store's back,
// as someone with the file would (dropping the triggers that refuse it),
// and checks that Verify names the row.
func TestVerifyDetectsTampering(t *testing.T) {
	dir := t.TempDir()
	template := filepath.Join(dir, "template.db")
	history(t, template)
	cases := []struct {
		name  string
		sql   string
		check string
		table string
	}{
		{"a stake debit lowered", `DROP TRIGGER ledger_no_update; UPDATE ledger SET amount = -1 WHERE id = 2`, "ledger", "ledger"},
		{"a stake debit lowered with its balance", `DROP TRIGGER ledger_no_update; UPDATE ledger SET amount = -1, balance_after = balance_after + 49 WHERE id = 2`, "chain", "ledger"},
		{"a ledger row rewritten consistently", `DROP TRIGGER ledger_no_update; UPDATE ledger SET note = 'x' WHERE id = 2`, "chain", "ledger"},
		{"a ledger row removed", `DROP TRIGGER ledger_no_delete; DELETE FROM ledger WHERE id = (SELECT max(id) FROM ledger)`, "meters", "meters"},
		{"a ledger row removed in the middle", `DROP TRIGGER ledger_no_delete; DELETE FROM ledger WHERE id = 2`, "ledger", "ledger"},
		{"a unit's prize changed in its play", `DROP TRIGGER plays_fixed; DROP TRIGGER plays_final; UPDATE plays SET tier = 1, prize = 375000 WHERE id = 2`, "chain", "plays"},
		{"a play's seed changed", `DROP TRIGGER plays_fixed; DROP TRIGGER plays_final; UPDATE plays SET seed = seed + 1 WHERE id = 1`, "chain", "plays"},
		{"a finished play's reveal changed", `DROP TRIGGER plays_final; UPDATE plays SET revealed = '3,0,0,0,0,0' WHERE id = 1`, "chain", "plays"},
		{"a recording replaced", `DROP TRIGGER plays_final; UPDATE plays SET recording = x'00' WHERE recording IS NOT NULL`, "chain", "plays"},
		{"an old play made unfinished", `DROP TRIGGER plays_final; UPDATE plays SET state = 'started', revealed = NULL WHERE id = 1`, "", "plays"},
		{"a play step changed", `DROP TRIGGER play_steps_no_update; UPDATE play_steps SET mismatch = 1 WHERE id = 1`, "chain", "play_steps"},
		{"an event's detail changed", `DROP TRIGGER events_no_update; UPDATE events SET detail = 'nothing' WHERE code = 'paper_low'`, "chain", "events"},
		{"an event removed", `DROP TRIGGER events_rotation_only; DELETE FROM events WHERE id = 2`, "chain", "events"},
		{"a meter raised", `UPDATE meters SET value = value + 50 WHERE name = 'won'`, "meters", "meters"},
		{"a unit sold again", `UPDATE blocks SET next_index = next_index + 1 WHERE state = 'open'`, "units", "blocks"},
		// The units are sealed (units_seal.go): whoever edits them cannot
		// read or choose a tier, only change the bytes.
		{"a sold unit's outcome changed", `DROP TRIGGER units_no_update; UPDATE units SET sealed = randomblob(16) WHERE block_id = 1 AND idx = 0`, "units", "blocks"},
		{"an unsold unit's bytes replaced", `DROP TRIGGER units_no_update; UPDATE units SET sealed = randomblob(16) WHERE block_id = 1 AND idx = 300000`, "units", "blocks"},
		{"two unsold units swapped", `DROP TRIGGER units_no_update;
			UPDATE units SET sealed = CASE idx WHEN 1000 THEN (SELECT sealed FROM units WHERE block_id = 1 AND idx = 1001)
				ELSE (SELECT sealed FROM units WHERE block_id = 1 AND idx = 1000) END WHERE block_id = 1 AND idx IN (1000, 1001)`, "units", "blocks"},
		{"an unsold unit removed", `DROP TRIGGER units_no_delete; DELETE FROM units WHERE block_id = 1 AND idx = 349999`, "units", "blocks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ie := verifyTampered(t, template, c.sql)
			if c.check != "" {
				assert.Equal(t, c.check, ie.Check, ie.Error())
			}
			if c.table != "" {
				assert.Equal(t, c.table, ie.Table, ie.Error())
			}
		})
	}
}

// verifyTampered runs q on a copy of the database at template behind the
// store's back (foreign keys off, the triggers q drops, as someone with the
// file would), opens the copy and returns what the store's checks report:
// Verify's *IntegrityError, or VerifyBlocks' if Verify passed. Nothing
// found fails the test.
func verifyTampered(t *testing.T, template, q string) *IntegrityError {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	copyFile(t, template, path)
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=0")
	require.NoError(t, err)
	_, err = db.Exec(q)
	require.NoError(t, err)
	// Whoever edits the file puts back the triggers dropped for it (a
	// missing one is the schema check's, TestSchemaCheck): what is left to
	// find is the edit.
	want, err := expectedSchema(context.Background(), migrations)
	require.NoError(t, err)
	for _, o := range want {
		if o.kind == "trigger" {
			_, err := db.Exec(o.sql)
			if err != nil {
				require.ErrorContains(t, err, "already exists")
			}
		}
	}
	require.NoError(t, db.Close())

	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	err = s.Verify(context.Background())
	if err == nil {
		err = s.VerifyBlocks(context.Background(), trusted())
	}
	require.ErrorIs(t, err, ErrIntegrity)
	var ie *IntegrityError
	require.ErrorAs(t, err, &ie)
	return ie
}

// TestSchemaRefusesEdits: the triggers and constraints refuse what the
// store never does, even through plain SQL.
func TestSchemaRefusesEdits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pharaon.db")
	history(t, path)
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=1")
	require.NoError(t, err)
	defer db.Close()
	for _, c := range []struct{ sql, refusal string }{
		{`UPDATE ledger SET amount = 0 WHERE id = 1`, "append-only"},
		{`DELETE FROM ledger WHERE id = 1`, "append-only"},
		{`INSERT INTO ledger(id, at, kind, amount, balance_after, ref, prev_hash, hash)
			VALUES (1000, 0, 'bill_in', 500, 500, 'z', zeroblob(32), zeroblob(32))`, "follows the previous one"},
		{`INSERT INTO ledger(id, at, kind, amount, balance_after, ref, prev_hash, hash)
			SELECT max(id) + 1, 0, 'voucher_out', -100000, -1, 'z', zeroblob(32), zeroblob(32) FROM ledger`, "follows the previous one"},
		{`INSERT INTO ledger(id, at, kind, amount, balance_after, ref, prev_hash, hash)
			SELECT max(id) + 1, 0, 'bill_in', 500, (SELECT balance_after FROM ledger ORDER BY id DESC LIMIT 1) + 500, 'seq-1',
			zeroblob(32), zeroblob(32) FROM ledger`, "UNIQUE constraint failed: ledger.kind, ledger.ref"},
		// A second credit, or a debit of another amount, for a play.
		{`INSERT INTO ledger(id, at, kind, amount, balance_after, play_id, prev_hash, hash)
			SELECT (SELECT max(id) FROM ledger) + 1, 0, 'win', p.prize,
			(SELECT balance_after FROM ledger ORDER BY id DESC LIMIT 1) + p.prize, p.id, zeroblob(32), zeroblob(32)
			FROM plays p WHERE p.win_entry IS NOT NULL LIMIT 1`, "the ones it names"},
		{`INSERT INTO ledger(id, at, kind, amount, balance_after, play_id, prev_hash, hash)
			SELECT max(id) + 1, 0, 'stake', -1, (SELECT balance_after FROM ledger ORDER BY id DESC LIMIT 1) - 1, 1,
			zeroblob(32), zeroblob(32) FROM ledger`, "the ones it names"},
		{`UPDATE plays SET win_entry = 1 WHERE id = 1`, "a finished play never changes"},
		{`DELETE FROM plays WHERE id = 1`, "never deleted"},
		{`UPDATE plays SET prize = 1 WHERE id = 1`, "never changes"},
		{`UPDATE plays SET state = 'started' WHERE id = 1`, "never changes"},
		{`UPDATE units SET sealed = zeroblob(16)`, "units never change"},
		{`DELETE FROM units`, "never deleted"},
		{`DELETE FROM blocks`, "never deleted"},
		{`UPDATE blocks SET next_index = 0`, "one at a time"},
		{`UPDATE blocks SET state = 'exhausted'`, "CHECK constraint failed"},
		{`UPDATE meters SET value = value - 1 WHERE name = 'plays'`, "only count up"},
		{`DELETE FROM events`, "only events older than the newest kept"},
		{`UPDATE play_steps SET state = 'bonus'`, "never change"},
	} {
		_, err := db.Exec(c.sql)
		assert.ErrorContains(t, err, c.refusal, c.sql)
	}
	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Verify(context.Background()))
}
