package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// derivedNow re-derives every meter from the ledger, the plays and the
// voucher steps, as VerifyMeters does.
func derivedNow(t *testing.T, s *Store) Meters {
	t.Helper()
	var m Meters
	require.NoError(t, s.read(context.Background(), func(tx *rtx) error {
		var err error
		m, err = deriveMeters(tx)
		return err
	}))
	return m
}

// A snapshot is the meters as the ledger derives them at that point: the
// one the SnapshotEveryPlays-th play writes in its own transaction, and
// one asked for after cash movements and vouchers.
func TestMeterSnapshotIsTheDerivation(t *testing.T) {
	ctx := context.Background()
	path := copyAnchoredTo(t, anchoredTemplateWith(t, block050), t.TempDir())
	s, err := Open(path, WithClock(newClock().now), WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()

	p := playUntil(t, s, func(p Play) bool { return p.ID == SnapshotEveryPlays })
	snaps, err := s.MeterSnapshots(ctx, 0)
	require.NoError(t, err)
	require.Empty(t, snaps, "no snapshot before the play finishes")
	_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
	require.NoError(t, err)
	snaps, err = s.MeterSnapshots(ctx, 0)
	require.NoError(t, err)
	require.Len(t, snaps, 1)
	assert.Equal(t, SnapshotPlays, snaps[0].Reason)
	assert.Equal(t, derivedNow(t, s), snaps[0].Meters, "the snapshot is the derivation at the play")
	assert.Equal(t, int64(SnapshotEveryPlays), snaps[0].Meters.Get(MeterPlays))

	in, err := s.RecordBillIntent(ctx, 20*game.Euro)
	require.NoError(t, err)
	_, err = s.CreditBillIntent(ctx, in.ID)
	require.NoError(t, err)
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: credit, Validation: val1, Expires: newClock().now().AddDate(1, 0, 0)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	_, err = s.PayVoucher(ctx, val1, "staff")
	require.NoError(t, err)
	snap, err := s.SnapshotMeters(ctx, SnapshotReport)
	require.NoError(t, err)
	want := derivedNow(t, s)
	assert.Equal(t, want, snap.Meters)
	assert.Positive(t, want.Get(MeterVouchersPaid))
	assert.Positive(t, snap.LedgerID)
	assert.Positive(t, snap.VoucherStepID)
	snaps, err = s.MeterSnapshots(ctx, 1)
	require.NoError(t, err)
	require.Len(t, snaps, 1)
	assert.Equal(t, snap, snaps[0], "read back as written")

	_, err = s.SnapshotMeters(ctx, "whenever")
	assert.ErrorIs(t, err, ErrBadRequest)
	require.NoError(t, s.Verify(ctx))
	require.NoError(t, s.VerifyFull(ctx))
	full, err := s.VerifyBoot(ctx)
	require.NoError(t, err)
	assert.False(t, full)
}

// Each snapshot's outbox record carries its row, whose hash RecordHash
// recomputes, and is followed by the anchor's record: the heads the
// transaction left, sealed with the kiosk's secret.
func TestSnapshotWritesTheAnchorRecord(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	anchoredHistory(t, dir)
	path := filepath.Join(dir, "pharaon.db")
	s, err := Open(path, WithClock(newClock().now), WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()
	snap, err := s.SnapshotMeters(ctx, SnapshotBoot)
	require.NoError(t, err)
	recs, err := s.Outbox(ctx, 0, 1_000_000)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(recs), 2)
	m, a := recs[len(recs)-2], recs[len(recs)-1]
	require.Equal(t, "meters", m.Kind)
	assert.Equal(t, snap.ID, m.RefID)
	stored, computed, err := RecordHash(m.Kind, m.Payload)
	require.NoError(t, err)
	assert.Equal(t, stored, computed)

	require.Equal(t, "anchor", a.Kind)
	var ar AnchorRecord
	require.NoError(t, json.Unmarshal(a.Payload, &ar))
	anc, err := s.Anchor()
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(anc.MAC), ar.MAC, "the seal the reports print")
	require.Len(t, ar.Heads, len(anc.Heads))
	for i, h := range anc.Heads {
		assert.Equal(t, h.Table, ar.Heads[i].Table)
		assert.Equal(t, ChainKinds[h.Table], ar.Heads[i].Kind)
		assert.Equal(t, h.ID, ar.Heads[i].ID, h.Table)
		if h.ID != 0 {
			assert.Equal(t, strings.ToUpper(hex.EncodeToString(h.Hash)), ar.Heads[i].Hash, h.Table)
		}
	}
	secret, err := trustSecret(DefaultAnchor(path))
	require.NoError(t, err)
	key := AnchorKey(secret)
	assert.Equal(t, anc.Counter, ar.Counter, "the record carries the trust root's counter")
	mac, err := AnchorRecordMAC(key, ar)
	require.NoError(t, err)
	assert.Equal(t, ar.MAC, hex.EncodeToString(mac), "whoever holds the secret recomputes the seal")
	ar.Heads[chLedger].ID--
	mac, err = AnchorRecordMAC(key, ar)
	require.NoError(t, err)
	assert.NotEqual(t, ar.MAC, hex.EncodeToString(mac))
	ar.Heads[chLedger].ID++
	ar.Counter--
	mac, err = AnchorRecordMAC(key, ar)
	require.NoError(t, err)
	assert.NotEqual(t, ar.MAC, hex.EncodeToString(mac), "the seal covers the counter")
	assert.Equal(t, "meter_snapshots", ar.Heads[chMeterSnapshots].Table)
	assert.Equal(t, snap.ID, ar.Heads[chMeterSnapshots].ID)

	// A store without an anchor has no seal: a snapshot, no anchor record.
	plain := openTest(t)
	_, err = plain.SnapshotMeters(ctx, SnapshotBoot)
	require.NoError(t, err)
	recs, err = plain.Outbox(ctx, 0, 10)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, "meters", recs[0].Kind)
}

// RecordHash recomputes every chained record's hash with the store's own
// functions; a record whose content was changed keeps its hash and is
// caught.
func TestRecordHash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	anchoredHistory(t, dir)
	path := filepath.Join(dir, "pharaon.db")
	s, err := Open(path, WithClock(newClock().now), WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Collect(ctx, "staff")
	require.NoError(t, err)
	_, err = s.SnapshotMeters(ctx, SnapshotReport)
	require.NoError(t, err)
	recs, err := s.Outbox(ctx, 0, 1_000_000)
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, r := range recs {
		stored, computed, err := RecordHash(r.Kind, r.Payload)
		if r.Kind == "play_state" || r.Kind == "voucher_state" || r.Kind == "anchor" {
			assert.ErrorIs(t, err, ErrBadRequest, r.Kind)
			continue
		}
		require.NoError(t, err, r.Kind)
		assert.Equal(t, stored, computed, "%s %d", r.Kind, r.RefID)
		kinds[r.Kind]++
	}
	for _, k := range ChainKinds {
		assert.Positive(t, kinds[k], k)
	}

	for _, r := range recs {
		if r.Kind != "ledger" {
			continue
		}
		var row map[string]any
		require.NoError(t, json.Unmarshal(r.Payload, &row))
		row["amount"] = row["amount"].(float64) + 1
		changed, err := json.Marshal(row)
		require.NoError(t, err)
		stored, computed, err := RecordHash(r.Kind, changed)
		require.NoError(t, err)
		assert.NotEqual(t, stored, computed, "an amount changed under the original hash")
		break
	}
}

// The outbox's sequence is never given twice: not even after every row
// before it was pruned and the store reopened.
func TestOutboxNumbersNeverGivenAgain(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	s, err := Open(path, WithClock(newClock().now))
	require.NoError(t, err)
	for range 4 {
		_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "tick"})
		require.NoError(t, err)
	}
	require.NoError(t, s.MarkPublished(ctx, 4))
	n, err := s.PruneOutbox(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, int64(3), n)
	require.NoError(t, s.Close())

	s, err = Open(path, WithClock(newClock().now))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Verify(ctx))
	o, err := s.OutboxState(ctx)
	require.NoError(t, err)
	assert.Equal(t, OutboxState{Last: 4, Published: 4}, o)
	recs, err := s.Outbox(ctx, 0, 10)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, int64(4), recs[0].Seq)
	_, err = s.SnapshotMeters(ctx, SnapshotBoot)
	require.NoError(t, err)
	recs, err = s.Outbox(ctx, 4, 10)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, int64(5), recs[0].Seq)
	assert.Equal(t, "meters", recs[0].Kind)
}

// TestAnchorRefusesOtherFormats: an anchor file of another format (the
// records of a development version, without the trust root's counter) is
// no anchor: the store is out of service, never reading it as it is.
func TestAnchorRefusesOtherFormats(t *testing.T) {
	dir := t.TempDir()
	anchoredHistoryWith(t, dir, nil) // the chains the first format lacks are empty
	path := filepath.Join(dir, "pharaon.db")
	a := DefaultAnchor(path)
	secret, err := trustSecret(a)
	require.NoError(t, err)
	key := AnchorKey(secret)
	s, err := Open(path, WithAnchor(a))
	require.NoError(t, err)
	h, err := s.Anchor()
	require.NoError(t, err)
	require.NoError(t, s.Close())

	for _, magic := range []string{"PHANCHR1", "PHANCHR2"} {
		t.Run(magic, func(t *testing.T) {
			// The record as that format wrote it, sealed with the right key:
			// its heads, no counter.
			b := []byte(magic)
			b = binary.BigEndian.AppendUint64(b, h.Seq+1)
			for _, x := range h.Heads {
				b = binary.BigEndian.AppendUint64(b, uint64(x.ID))
				b = append(b, x.Hash...)
			}
			b = append(b, 0)
			b = append(b, make([]byte, len(h.Heads)*headSize)...)
			m := hmac.New(sha256.New, key)
			m.Write(b)
			b = m.Sum(b)
			require.NoError(t, os.WriteFile(a.Path, append(b, make([]byte, 2*slotSize-len(b))...), 0o600))
			s, err := Open(path, WithAnchor(a))
			require.NoError(t, err)
			defer s.Close()
			err = s.AnchorErr()
			require.ErrorIs(t, err, ErrAnchor)
			assert.Contains(t, err.Error(), "no record signed")
		})
	}
}

// The snapshots are chained: an edited snapshot is reported by the boot
// check and the full verification.
func TestSnapshotChainVerified(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for range 3 {
		_, err := s.SnapshotMeters(ctx, SnapshotReport)
		require.NoError(t, err)
	}
	require.NoError(t, s.Verify(ctx))
	err := s.write(ctx, func(tx *wtx) error {
		if _, err := tx.execQ(`DROP TRIGGER meter_snapshots_no_update`); err != nil {
			return err
		}
		_, err := tx.execQ(`UPDATE meter_snapshots SET meters = '{"plays":7}' WHERE id = 2`)
		return err
	})
	require.NoError(t, err)
	err = s.read(ctx, verifySnapshots)
	var ie *IntegrityError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "meter_snapshots", ie.Table)
	assert.Equal(t, int64(2), ie.ID)
}

// The published records older than the retention are pruned, oldest
// first; the younger ones and every record not published stay, however
// old.
func TestPruneOutboxBefore(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	s, err := Open(filepath.Join(t.TempDir(), "pharaon.db"), WithClock(clk.now))
	require.NoError(t, err)
	defer s.Close()
	var at []time.Time
	for range 6 {
		ev, err := s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "tick"})
		require.NoError(t, err)
		at = append(at, ev.At)
		clk.advance(24 * time.Hour)
	}
	require.NoError(t, s.MarkPublished(ctx, 4))

	n, err := s.PruneOutboxBefore(ctx, at[2])
	require.NoError(t, err)
	assert.Equal(t, int64(2), n, "records 1 and 2, written before record 3")
	n, err = s.PruneOutboxBefore(ctx, at[5].Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, int64(2), n, "records 3 and 4: 5 and 6 are not published")
	recs, err := s.Outbox(ctx, 0, 10)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, int64(5), recs[0].Seq)
	n, err = s.PruneOutboxBefore(ctx, at[5].Add(time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n)
}

// The fold of a kiosk's records gives, at each snapshot's record, the
// snapshot's meters: the fleet's centre can check them.
func TestMeterFoldMatchesEverySnapshot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	anchoredHistory(t, dir)
	path := filepath.Join(dir, "pharaon.db")
	s, err := Open(path, WithClock(newClock().now), WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()
	_, err = s.SnapshotMeters(ctx, SnapshotBoot)
	require.NoError(t, err)
	p := playUntil(t, s, func(p Play) bool { return p.ID >= 30 })
	_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
	require.NoError(t, err)
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: credit, Validation: val2, Expires: newClock().now().AddDate(1, 0, 0)})
	require.NoError(t, err)
	_, err = s.VoidVoucher(ctx, v.ID, "paper jam")
	require.NoError(t, err)
	_, err = s.SnapshotMeters(ctx, SnapshotReport)
	require.NoError(t, err)
	recs, err := s.Outbox(ctx, 0, 1_000_000)
	require.NoError(t, err)
	f := NewMeterFold()
	n := 0
	for _, r := range recs {
		require.NoError(t, f.Apply(r))
		if r.Kind != "meters" {
			continue
		}
		var p struct {
			Meters   string `json:"meters"`
			LedgerID int64  `json:"ledger_id"`
		}
		require.NoError(t, json.Unmarshal(r.Payload, &p))
		var m Meters
		require.NoError(t, json.Unmarshal([]byte(p.Meters), &m))
		assert.Empty(t, DiffMeters(m, f.Meters), "snapshot %d", r.RefID)
		assert.Equal(t, p.LedgerID, f.LedgerID)
		n++
	}
	assert.Equal(t, 2, n)
	assert.Empty(t, DiffMeters(derivedNow(t, s), f.Meters))
	assert.Positive(t, f.Meters.Get(MeterVouchersPaid))
	assert.Positive(t, f.Meters.Get(MeterVouchersVoidCount))
}

// A play finished an hour or more after the newest snapshot writes one,
// and so does the first play after the clock went back before it.
func TestPlaysSnapshotHourly(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	copyFile(t, templateWith(t, block050), path)
	s, err := Open(path, WithClock(clk.now))
	require.NoError(t, err)
	defer s.Close()
	count := func() int {
		snaps, err := s.MeterSnapshots(ctx, 0)
		require.NoError(t, err)
		return len(snaps)
	}
	finish := func() {
		p := playUntil(t, s, func(Play) bool { return true })
		_, err := s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
		require.NoError(t, err)
	}
	finish()
	assert.Equal(t, 0, count(), "the first hour counts from the first play")
	clk.advance(SnapshotEvery)
	finish()
	assert.Equal(t, 1, count())
	finish()
	assert.Equal(t, 1, count(), "not again within the hour")
	clk.advance(-2 * time.Hour)
	finish()
	assert.Equal(t, 2, count(), "the clock went back before the newest")
	snaps, err := s.MeterSnapshots(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, SnapshotPlays, snaps[1].Reason)
	assert.Equal(t, derivedNow(t, s), snaps[1].Meters)
}
