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
// pharaon.anchor and the trust root's files in trust/, DefaultAnchor)
// holding some of every chain: plays,
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
	path := copyAnchoredTo(t, anchoredTemplateWith(t, block050), dir)
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

// copyAnchored copies the anchored database of dir, its anchor and its
// trust root (the whole disk of a kiosk without a TPM) into a new
// directory and returns the database's path there.
func copyAnchored(t *testing.T, dir string) string {
	t.Helper()
	return copyAnchoredTo(t, dir, t.TempDir())
}

// trustCounter is the files trust root's counter of the database at path.
func trustCounter(t *testing.T, path string) uint64 {
	t.Helper()
	tr, err := OpenFileTrust(DefaultAnchor(path).TrustDir)
	require.NoError(t, err)
	c, err := tr.Counter()
	require.NoError(t, err)
	return c
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

// TestAnchorFilesMissing: once anchored, a database whose anchor or
// trust root is gone (a copy of the database alone, an anchor deleted to
// start over) is out of service; another kiosk's trust root does not fit
// either. Nothing is anchored afresh.
func TestAnchorFilesMissing(t *testing.T) {
	dir := t.TempDir()
	anchoredHistory(t, dir)
	for _, c := range []struct {
		name, want string
		remove     []string
	}{
		{"the anchor", "missing", []string{"pharaon.anchor"}},
		{"the trust root's secret", "a counter without its secret", []string{"trust.secret"}},
		{"the trust root's counter", "the database holds history, but the trust root", []string{"trust.counter"}},
		{"the anchor and the trust root: the database alone", "the database holds history, but the trust root",
			[]string{"pharaon.anchor", "trust.secret", "trust.counter"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := copyAnchored(t, dir)
			for _, name := range c.remove {
				require.NoError(t, os.Remove(filepath.Join(filepath.Dir(path), name)))
			}
			anchorBefore, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "pharaon.anchor"))
			s, err := Open(path, WithAnchor(DefaultAnchor(path)))
			require.NoError(t, err)
			defer s.Close()
			err = s.Verify(context.Background())
			require.ErrorIs(t, err, ErrAnchor)
			assert.Contains(t, err.Error(), c.want)
			_, err = s.Log(context.Background(), Event{Level: LevelInfo, Source: "test", Code: "x"})
			assert.ErrorIs(t, err, ErrAnchor, "nothing written")
			anchorAfter, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "pharaon.anchor"))
			assert.Equal(t, anchorBefore, anchorAfter, "no anchor made anew")
		})
	}
	t.Run("another kiosk's trust root", func(t *testing.T) {
		path := copyAnchored(t, dir)
		other := t.TempDir()
		tr, err := OpenFileTrust(other)
		require.NoError(t, err)
		for range trustCounter(t, path) {
			_, err := tr.Increment()
			require.NoError(t, err)
		}
		for _, name := range []string{"trust.secret", "trust.counter"} {
			copyFile(t, filepath.Join(other, name), filepath.Join(filepath.Dir(path), name))
		}
		s, err := Open(path, WithAnchor(DefaultAnchor(path)))
		require.NoError(t, err)
		defer s.Close()
		err = s.Verify(context.Background())
		require.ErrorIs(t, err, ErrAnchor)
		assert.Contains(t, err.Error(), "no record signed with this kiosk's secret")
	})
}

// TestAnchorCreatedOnce: the first anchoring makes the trust root and the
// anchor, mode 0600, and logs it; reopening finds them, and counts the
// start.
func TestAnchorCreatedOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	a := DefaultAnchor(path)
	s, err := Open(path, WithAnchor(a))
	require.NoError(t, err)
	for _, p := range []string{filepath.Join(a.TrustDir, "trust.secret"), filepath.Join(a.TrustDir, "trust.counter"), a.Path} {
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
	assert.Equal(t, h1.Heads, h2.Heads)
	assert.Equal(t, h1.Counter+1, h2.Counter, "every start counts")
	assert.Equal(t, h2.Counter, trustCounter(t, path))
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
	// scenario leaves in a new directory the database of after one event
	// and, when before is set, of before a second one, with the anchor of
	// after the second, its newest record torn (a power cut after the
	// second event's announcement, before its confirmation reached the
	// disk); the trust root is the kiosk's, as it stands.
	scenario := func(t *testing.T, before bool) string {
		dir := t.TempDir()
		path := filepath.Join(dir, "pharaon.db")
		s, err := Open(path, WithAnchor(DefaultAnchor(path)))
		require.NoError(t, err)
		_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "one"})
		require.NoError(t, err)
		require.NoError(t, s.Close())
		old := filepath.Join(t.TempDir(), "pharaon.db")
		copyFile(t, path, old)
		s, err = Open(path, WithAnchor(DefaultAnchor(path)))
		require.NoError(t, err)
		_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "two"})
		require.NoError(t, err)
		require.NoError(t, s.Close())
		tearNewest(t, DefaultAnchor(path))
		if before {
			copyFile(t, old, path)
		}
		return path
	}
	t.Run("the COMMIT did not happen", func(t *testing.T) {
		path := scenario(t, true)
		s, err := Open(path, WithAnchor(DefaultAnchor(path)))
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, s.Verify(ctx))
		_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "two again"})
		require.NoError(t, err)
	})
	t.Run("the COMMIT happened", func(t *testing.T) {
		path := scenario(t, false)
		s, err := Open(path, WithAnchor(DefaultAnchor(path)))
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, s.Verify(ctx))
	})
}

// tearNewest zeroes the anchor's newest record, as a power cut in its
// write would leave it.
func tearNewest(t *testing.T, a AnchorConfig) {
	t.Helper()
	secret, err := trustSecret(a)
	require.NoError(t, err)
	key := deriveKey(secret, domainAnchorKey)
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
	require.NoError(t, s.VerifyChains(context.Background()), "unseen without the anchor")
	require.NoError(t, s.Close())
	s, err = Open(path, WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()
	assert.ErrorIs(t, s.Verify(context.Background()), ErrAnchor, "seen with it")
}

// TestAnchorFirstCreationInterrupted: a power cut during a new kiosk's
// first anchoring does not leave it out of service: the trust root made,
// the anchor not yet (or torn), or the anchor's first record written and
// the trust root counted once before the record of that count: the
// anchoring is done again, or taken up. Never for a database with history.
func TestAnchorFirstCreationInterrupted(t *testing.T) {
	ctx := context.Background()
	for name, anchorFile := range map[string][]byte{"no anchor": nil, "an empty anchor": {}, "a torn anchor": {1, 2, 3, 4},
		"an anchor of zeros": make([]byte, 2*slotSize)} {
		t.Run("the trust root made and "+name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pharaon.db")
			a := DefaultAnchor(path)
			_, err := OpenFileTrust(a.TrustDir)
			require.NoError(t, err)
			if anchorFile != nil {
				require.NoError(t, os.WriteFile(a.Path, anchorFile, 0o600), "the cut came before the first record's sync")
			}
			s, err := Open(path, WithAnchor(a))
			require.NoError(t, err)
			require.NoError(t, s.Verify(ctx), "the anchoring begun by the cut start is done again")
			require.NoError(t, s.Close())
			s, err = Open(path, WithAnchor(a))
			require.NoError(t, err)
			require.NoError(t, s.Verify(ctx))
			require.NoError(t, s.Close())
		})
	}
	t.Run("the first record written, the trust root counted, its record not", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "pharaon.db")
		a := DefaultAnchor(path)
		tr, err := OpenFileTrust(a.TrustDir)
		require.NoError(t, err)
		s, err := Open(path)
		require.NoError(t, err)
		require.NoError(t, s.Close())
		first := record{seq: 1}
		key := deriveKey(tr.Secret(), domainAnchorKey)
		require.NoError(t, os.WriteFile(a.Path, append(first.encode(key, nil), make([]byte, slotSize)...), 0o600))
		_, err = tr.Increment()
		require.NoError(t, err)
		s, err = Open(path, WithAnchor(a))
		require.NoError(t, err)
		require.NoError(t, s.Verify(ctx))
		require.NoError(t, s.Close())
	})
	t.Run("a database with history is not anchored afresh", func(t *testing.T) {
		dir := t.TempDir()
		anchoredHistory(t, dir)
		path := filepath.Join(dir, "pharaon.db")
		a := DefaultAnchor(path)
		// The insider's way: the anchor and the trust root removed, so that
		// the database looks never anchored.
		for _, f := range []string{a.Path, filepath.Join(a.TrustDir, "trust.secret"), filepath.Join(a.TrustDir, "trust.counter")} {
			require.NoError(t, os.Remove(f))
		}
		s, err := Open(path, WithAnchor(a))
		require.NoError(t, err)
		defer s.Close()
		err = s.Verify(ctx)
		require.ErrorIs(t, err, ErrAnchor)
		assert.Contains(t, err.Error(), "holds history")
		_, err = os.Stat(a.Path)
		assert.ErrorIs(t, err, os.ErrNotExist, "no anchor made")
	})
}
