package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// anchoredHistory makes, in dir, an anchored database (pharaon.db with
// its anchor.key and pharaon.anchor) holding some of every chain: plays,
// ledger rows, events (a critical one last), a voucher paid, bill
// intents credited and void, credentials set and revoked, a PIN pad lock,
// settings changed.
func anchoredHistory(t *testing.T, dir string) {
	t.Helper()
	anchoredHistoryWith(t, dir, func(s *Store) {
		writeAccess(t, s)
		writeSettings(t, s)
	})
}

// anchoredHistoryWith is anchoredHistory with more written by more (if not
// nil) before the last event, in place of the credentials and settings.
func anchoredHistoryWith(t *testing.T, dir string, more func(*Store)) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, "pharaon.db")
	copyFile(t, templateWith(t, block050), path)
	clk := newClock()
	s, err := Open(path, WithClock(clk.now), WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()
	in, err := s.RecordBillIntent(ctx, 20*game.Euro)
	require.NoError(t, err)
	_, err = s.MarkBillIntentStacking(ctx, in.ID)
	require.NoError(t, err)
	_, err = s.CreditBillIntent(ctx, in.ID)
	require.NoError(t, err)
	in, err = s.RecordBillIntent(ctx, 5*game.Euro)
	require.NoError(t, err)
	_, err = s.VoidBillIntent(ctx, in.ID, "returned")
	require.NoError(t, err)
	playUntil(t, s, func(p Play) bool { return p.ID >= 3 })
	un, err := s.UnfinishedPlays(ctx)
	require.NoError(t, err)
	for _, p := range un {
		_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
		require.NoError(t, err)
	}
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: credit, Validation: "123456789012345678", Expires: clk.now().Add(24 * time.Hour)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	_, err = s.PayVoucher(ctx, v.Validation, "staff")
	require.NoError(t, err)
	if more != nil {
		more(s)
	}
	_, err = s.Log(ctx, Event{Level: LevelCritical, Source: "kiosk", Code: "door_open", Detail: "cash box door"})
	require.NoError(t, err)
	require.NoError(t, s.Verify(ctx))
}

// copyAnchored copies the anchored database of dir, its anchor and secret
// into a new directory and returns the database's path there.
func copyAnchored(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	for _, name := range []string{"pharaon.db", "anchor.key", "pharaon.anchor"} {
		copyFile(t, filepath.Join(dir, name), filepath.Join(to, name))
	}
	return filepath.Join(to, "pharaon.db")
}

// openAnchoredHistory opens, with its anchor, a copy of an anchored
// history (anchoredHistory) made in a directory of its own, and returns
// the store (closed at the test's end) and the database's path.
func openAnchoredHistory(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	anchoredHistory(t, dir)
	path := copyAnchored(t, dir)
	s, err := Open(path, WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, path
}

// tamper runs q on the database at path behind the store's back.
func tamper(t *testing.T, path, q string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=0")
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(q)
	require.NoError(t, err)
}

// TestAnchorDetectsTailCuts: cutting the newest rows of a chain, which
// leaves every chain whole, is found at the next start: the database is
// behind its anchor, Verify says so, and nothing can be written.
func TestAnchorDetectsTailCuts(t *testing.T) {
	dir := t.TempDir()
	anchoredHistory(t, dir)
	cases := []struct{ name, sql, table string }{
		{"a voucher's paid step", `DROP TRIGGER voucher_steps_no_delete; DROP TRIGGER vouchers_final; DROP TRIGGER vouchers_forward;
			DELETE FROM voucher_steps WHERE id = (SELECT max(id) FROM voucher_steps);
			UPDATE vouchers SET state = 'printed', paid_at = NULL`, "voucher_steps"},
		{"the newest critical event", `DROP TRIGGER events_rotation_only; DELETE FROM events WHERE id = (SELECT max(id) FROM events)`, "events"},
		{"the newest ledger row", `DROP TRIGGER ledger_no_delete; DELETE FROM ledger WHERE id = (SELECT max(id) FROM ledger)`, "ledger"},
		{"the newest play and its rows", `DROP TRIGGER plays_no_delete; DROP TRIGGER play_steps_no_delete;
			DELETE FROM play_steps WHERE play_id = (SELECT max(id) FROM plays); DELETE FROM plays WHERE id = (SELECT max(id) FROM plays)`, "plays"},
		{"the newest voucher", `DROP TRIGGER vouchers_no_delete; DROP TRIGGER voucher_steps_no_delete;
			DELETE FROM voucher_steps; DELETE FROM vouchers`, "vouchers"},
		{"the newest bill intent step", `DROP TRIGGER bill_intent_steps_no_delete; DELETE FROM bill_intent_steps WHERE id = (SELECT max(id) FROM bill_intent_steps)`, "bill_intent_steps"},
		{"the newest bill intent", `DROP TRIGGER bill_intents_no_delete; DROP TRIGGER bill_intent_steps_no_delete;
			DELETE FROM bill_intent_steps WHERE intent_id = (SELECT max(id) FROM bill_intents);
			DELETE FROM bill_intents WHERE id = (SELECT max(id) FROM bill_intents)`, "bill_intents"},
		{"a row appended with its chain hash recomputed", `INSERT INTO events(id, at, level, source, code, detail, prev_hash, hash)
			SELECT id + 1, at, level, source, code, detail, hash, hash FROM events ORDER BY id DESC LIMIT 1`, "events"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := copyAnchored(t, dir)
			tamper(t, path, c.sql)
			s, err := Open(path, WithAnchor(DefaultAnchor(path)))
			require.NoError(t, err, "the store opens to say what is wrong")
			defer s.Close()
			err = s.Verify(context.Background())
			require.ErrorIs(t, err, ErrAnchor)
			assert.Contains(t, err.Error(), c.table)
			_, err = s.Log(context.Background(), Event{Level: LevelInfo, Source: "test", Code: "x"})
			assert.ErrorIs(t, err, ErrAnchor, "no write on a database behind its anchor")
			_, err = s.Anchor()
			assert.ErrorIs(t, err, ErrAnchor)
		})
	}
	t.Run("untouched", func(t *testing.T) {
		path := copyAnchored(t, dir)
		s, err := Open(path, WithAnchor(DefaultAnchor(path)))
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, s.Verify(context.Background()))
	})
}

// TestAnchorFilesMissing: once anchored, a database whose secret or
// anchor is gone (a copy of the database alone, an anchor deleted to start
// over) is out of service; another kiosk's anchor does not fit either.
func TestAnchorFilesMissing(t *testing.T) {
	dir := t.TempDir()
	anchoredHistory(t, dir)
	for _, name := range []string{"anchor.key", "pharaon.anchor"} {
		t.Run(name, func(t *testing.T) {
			path := copyAnchored(t, dir)
			require.NoError(t, os.Remove(filepath.Join(filepath.Dir(path), name)))
			s, err := Open(path, WithAnchor(DefaultAnchor(path)))
			require.NoError(t, err)
			defer s.Close()
			err = s.Verify(context.Background())
			require.ErrorIs(t, err, ErrAnchor)
			assert.Contains(t, err.Error(), "missing")
		})
	}
	t.Run("both, the database alone", func(t *testing.T) {
		path := copyAnchored(t, dir)
		require.NoError(t, os.Remove(filepath.Join(filepath.Dir(path), "anchor.key")))
		require.NoError(t, os.Remove(filepath.Join(filepath.Dir(path), "pharaon.anchor")))
		s, err := Open(path, WithAnchor(DefaultAnchor(path)))
		require.NoError(t, err)
		defer s.Close()
		require.ErrorIs(t, s.Verify(context.Background()), ErrAnchor, "the database says it was anchored")
	})
	t.Run("another kiosk's secret", func(t *testing.T) {
		path := copyAnchored(t, dir)
		require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(path), "anchor.key"), make([]byte, keySize), 0o600))
		s, err := Open(path, WithAnchor(DefaultAnchor(path)))
		require.NoError(t, err)
		defer s.Close()
		err = s.Verify(context.Background())
		require.ErrorIs(t, err, ErrAnchor)
		assert.Contains(t, err.Error(), "secret")
	})
}

// TestAnchorCreatedOnce: the first anchoring makes the secret and the
// anchor, mode 0600, and logs it; reopening finds them.
func TestAnchorCreatedOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	a := DefaultAnchor(path)
	s, err := Open(path, WithAnchor(a))
	require.NoError(t, err)
	for _, p := range []string{a.Key, a.Path} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), p)
	}
	codes := eventCodes(t, s)
	assert.Equal(t, []string{EventAnchorCreated}, codes)
	h1, err := s.Anchor()
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s, err = Open(path, WithAnchor(a))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Verify(ctx))
	h2, err := s.Anchor()
	require.NoError(t, err)
	assert.Equal(t, h1, h2)
	assert.Equal(t, []string{EventAnchorCreated}, eventCodes(t, s), "created once")
	assert.Regexp(t, `^[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}$`, h2.Short())
	require.Len(t, h2.Heads, int(numChains))
	assert.Equal(t, "events", h2.Heads[chEvents].Table)
	assert.Equal(t, int64(1), h2.Heads[chEvents].ID)
}

// TestAnchorAcceptsACrashBeforeOrAfterCommit: the record is written
// before the COMMIT; a database left at the heads before it (the COMMIT
// never happened) or after it is accepted.
func TestAnchorAcceptsACrashBeforeOrAfterCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "pharaon.db")
	s, err := Open(path, WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "one"})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	before := t.TempDir()
	for _, name := range []string{"pharaon.db", "anchor.key"} {
		copyFile(t, filepath.Join(dir, name), filepath.Join(before, name))
	}

	s, err = Open(path, WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "two"})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	// A power cut after the second event's announcement, before its
	// confirmation reached the disk: the newest slot torn.
	tearNewest(t, DefaultAnchor(path))
	// The database of before the second event, the anchor of after it.
	copyFile(t, filepath.Join(dir, "pharaon.anchor"), filepath.Join(before, "pharaon.anchor"))
	old := filepath.Join(before, "pharaon.db")
	s, err = Open(old, WithAnchor(DefaultAnchor(old)))
	require.NoError(t, err)
	require.NoError(t, s.Verify(ctx), "the last record's COMMIT did not happen")
	_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "two again"})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s, err = Open(path, WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Verify(ctx), "the last record's COMMIT happened")
}

// tearNewest zeroes the anchor's newest record, as a power cut in its
// write would leave it.
func tearNewest(t *testing.T, a AnchorConfig) {
	t.Helper()
	key, err := os.ReadFile(a.Key)
	require.NoError(t, err)
	b, err := os.ReadFile(a.Path)
	require.NoError(t, err)
	r0, ok0 := decodeRecord(key, b[:slotSize])
	r1, ok1 := decodeRecord(key, b[slotSize:])
	require.True(t, ok0 && ok1)
	slot := 0
	if r1.seq > r0.seq {
		slot = 1
	}
	clear(b[slot*slotSize : slot*slotSize+recordSize/2])
	require.NoError(t, os.WriteFile(a.Path, b, 0o600))
}

// TestPayVoucherChecksTheAnchor: a voucher's paid step cut while the kiosk
// runs (by another process holding the file) is not paid a second time.
func TestPayVoucherChecksTheAnchor(t *testing.T) {
	ctx := context.Background()
	s, path := openAnchoredHistory(t)
	_, err := s.PayVoucher(ctx, "123456789012345678", "staff")
	require.ErrorIs(t, err, ErrVoucherPaid)

	tamper(t, path, `DROP TRIGGER voucher_steps_no_delete; DROP TRIGGER vouchers_final; DROP TRIGGER vouchers_forward;
		DELETE FROM voucher_steps WHERE id = (SELECT max(id) FROM voucher_steps);
		UPDATE vouchers SET state = 'printed', paid_at = NULL`)
	_, err = s.PayVoucher(ctx, "123456789012345678", "staff")
	require.ErrorIs(t, err, ErrAnchor, "paid twice")
	assert.Contains(t, err.Error(), "voucher_steps")
	_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "x"})
	assert.ErrorIs(t, err, ErrAnchor, "and nothing else is written")
}

// TestPayVoucherChecksItsSteps: without an anchor too, a voucher whose
// paid step was removed from the middle of the chain is not paid again.
func TestPayVoucherChecksItsSteps(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	anchoredHistory(t, dir)
	path := copyAnchored(t, dir)
	// A later voucher step, then the paid one cut from the middle.
	clk := newClock()
	clk.advance(time.Hour)
	s, err := Open(path, WithClock(clk.now))
	require.NoError(t, err)
	_, err = s.BillIn(ctx, 5*game.Euro, "later")
	require.NoError(t, err)
	v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: 5 * game.Euro, Validation: "223456789012345678", Expires: clk.now().Add(24 * time.Hour)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	tamper(t, path, `DROP TRIGGER voucher_steps_no_delete; DROP TRIGGER vouchers_final; DROP TRIGGER vouchers_forward;
		DELETE FROM voucher_steps WHERE state = 'paid';
		UPDATE vouchers SET state = 'printed', paid_at = NULL WHERE id = 1`)
	s, err = Open(path)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.PayVoucher(ctx, "123456789012345678", "staff")
	require.ErrorIs(t, err, ErrIntegrity, "paid twice")
}

// TestSchemaCheck: a trigger dropped, a table, index or trigger added is
// found by Verify.
func TestSchemaCheck(t *testing.T) {
	dir := t.TempDir()
	anchoredHistory(t, dir)
	for _, c := range []struct{ name, sql, want string }{
		{"a trigger dropped", `DROP TRIGGER ledger_no_update`, "trigger ledger_no_update is missing"},
		{"every trigger dropped", `DROP TRIGGER ledger_no_update; DROP TRIGGER ledger_no_delete; DROP TRIGGER plays_no_delete`, "trigger plays_no_delete is missing"},
		{"a table added", `CREATE TABLE shadow (x)`, "table shadow is not in the schema shipped"},
		{"an index added", `CREATE INDEX ledger_kind ON ledger(kind)`, "index ledger_kind is not in the schema shipped"},
		{"a trigger replaced", `DROP TRIGGER meters_forward; CREATE TRIGGER meters_forward BEFORE UPDATE ON meters WHEN 0 BEGIN SELECT 1; END`,
			"trigger meters_forward is not the one shipped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := copyAnchored(t, dir)
			tamper(t, path, c.sql)
			s, err := Open(path, WithAnchor(DefaultAnchor(path)))
			require.NoError(t, err)
			defer s.Close()
			err = s.Verify(context.Background())
			require.ErrorIs(t, err, ErrIntegrity)
			var ie *IntegrityError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, "schema", ie.Check)
			assert.Contains(t, ie.Reason, c.want)
		})
	}
}

// TestTailCutUnseenWithoutAnchor is what the anchor closes: the newest
// critical event cut (the trigger put back) leaves every chain whole, and
// the checks inside the file alone find nothing.
func TestTailCutUnseenWithoutAnchor(t *testing.T) {
	dir := t.TempDir()
	anchoredHistory(t, dir)
	path := copyAnchored(t, dir)
	tamper(t, path, `DROP TRIGGER events_rotation_only; DELETE FROM events WHERE id = (SELECT max(id) FROM events); `+triggersBack(t))
	s, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Verify(context.Background()), "unseen without the anchor")
	require.NoError(t, s.Close())
	s, err = Open(path, WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()
	assert.ErrorIs(t, s.Verify(context.Background()), ErrAnchor, "seen with it")
}

// TestAnchorFirstCreationInterrupted: a power cut during the first
// anchoring (the secret written, the anchor not yet, the database not yet
// marked) does not leave a new kiosk out of service: the anchoring starts
// again. Once the files are there the database is marked anchored, so
// that files removed later are refused, not replaced.
func TestAnchorFirstCreationInterrupted(t *testing.T) {
	ctx := context.Background()
	for name, key := range map[string][]byte{"a whole secret": make([]byte, keySize), "a torn secret": {1, 2, 3}, "an empty secret": {}} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pharaon.db")
			s, err := Open(path)
			require.NoError(t, err)
			require.NoError(t, s.Close())
			a := DefaultAnchor(path)
			require.NoError(t, os.WriteFile(a.Key, key, 0o600), "the cut left the secret alone")
			s, err = Open(path, WithAnchor(a))
			require.NoError(t, err)
			require.NoError(t, s.Verify(ctx), "the anchoring begun by the cut start is done again")
			require.NoError(t, s.Close())
			s, err = Open(path, WithAnchor(a))
			require.NoError(t, err)
			require.NoError(t, s.Verify(ctx))
			require.NoError(t, s.Close())
		})
	}
	for name, anchorFile := range map[string][]byte{"an empty anchor": {}, "a torn anchor": {1, 2, 3, 4}, "an anchor of zeros": make([]byte, 2*slotSize)} {
		t.Run("a whole secret and "+name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pharaon.db")
			s, err := Open(path)
			require.NoError(t, err)
			require.NoError(t, s.Close())
			a := DefaultAnchor(path)
			require.NoError(t, os.WriteFile(a.Key, make([]byte, keySize), 0o600))
			require.NoError(t, os.WriteFile(a.Path, anchorFile, 0o600), "the cut came before the first record's sync")
			s, err = Open(path, WithAnchor(a))
			require.NoError(t, err)
			require.NoError(t, s.Verify(ctx), "the anchoring begun by the cut start is done again")
			require.NoError(t, s.Close())
			s, err = Open(path, WithAnchor(a))
			require.NoError(t, err)
			require.NoError(t, s.Verify(ctx))
			require.NoError(t, s.Close())
		})
	}
	t.Run("the files written, the database not marked", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "pharaon.db")
		a := DefaultAnchor(path)
		s, err := Open(path, WithAnchor(a))
		require.NoError(t, err)
		require.NoError(t, s.Close())
		tamper(t, path, `DELETE FROM meta WHERE key = 'anchored'`) // the cut came before the mark
		s, err = Open(path, WithAnchor(a))
		require.NoError(t, err)
		require.NoError(t, s.Verify(ctx))
		require.NoError(t, s.Close())
		require.NoError(t, os.Remove(a.Key))
		require.NoError(t, os.Remove(a.Path))
		s, err = Open(path, WithAnchor(a))
		require.NoError(t, err)
		defer s.Close()
		require.ErrorIs(t, s.Verify(ctx), ErrAnchor, "the open that found the files marked the database anchored")
	})
}
