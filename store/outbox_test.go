package store

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// outboxKinds maps each chained table (one with a prev_hash column) to the
// outbox kind its inserts add. A chained table missing here fails
// TestOutboxHoldsEveryChainedRow: its rows would not reach the centre.
var outboxKinds = map[string]string{
	"plays":             "play",
	"play_steps":        "play_step",
	"ledger":            "ledger",
	"events":            "event",
	"vouchers":          "voucher",
	"voucher_steps":     "voucher_step",
	"bill_intents":      "bill_intent",
	"bill_intent_steps": "bill_intent_step",
	"meter_snapshots":   "meters",
	"credentials":       "credential",
	"pin_lock":          "pin_lock",
	"settings":          "setting",
	"collections":       "collection",
}

// chainedTables lists the tables of the file with a prev_hash column.
func chainedTables(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.r.Query(`SELECT m.name FROM sqlite_schema m, pragma_table_info(m.name) c
		WHERE m.type = 'table' AND c.name = 'prev_hash' ORDER BY m.name`)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		out = append(out, n)
	}
	require.NoError(t, rows.Err())
	return out
}

// Every row of every chained table, written by whichever path of the
// store, has exactly one outbox record carrying its hash; state changes
// of plays and vouchers have theirs; the sequence has no hole.
func TestOutboxHoldsEveryChainedRow(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	// Every write path that adds chained rows: plays (start, bonus, finish),
	// notes through their intents, adjustments, vouchers issued, confirmed,
	// reprinted, paid, voided, the event log.
	b := playUntil(t, s, func(p Play) bool { return p.ViaBonus })
	require.NoError(t, s.EnterBonus(ctx, b.ID, []byte("main")))
	_, err := s.FinishPlay(ctx, b.ID, FinishInfo{Revealed: revealOf(b), Shown: b.Prize})
	require.NoError(t, err)
	p := playUntil(t, s, func(p Play) bool { return true })
	require.NoError(t, s.SetPlayState(ctx, p.ID, PlayMainDone))
	_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
	require.NoError(t, err)
	in, err := s.RecordBillIntent(ctx, 20*game.Euro)
	require.NoError(t, err)
	_, err = s.CreditBillIntent(ctx, in.ID)
	require.NoError(t, err)
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: credit, Validation: val1, Expires: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	_, err = s.RecordReprint(ctx, v.ID)
	require.NoError(t, err)
	_, err = s.PayVoucher(ctx, val1, "staff")
	require.NoError(t, err)
	_, err = s.Adjust(ctx, 5*game.Euro, "", "test credit")
	require.NoError(t, err)
	v2, err := s.IssueVoucher(ctx, VoucherRequest{Amount: 5 * game.Euro, Validation: val2, Expires: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	_, err = s.VoidVoucher(ctx, v2.ID, "paper jam")
	require.NoError(t, err)
	_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "tick"})
	require.NoError(t, err)
	_, err = s.SnapshotMeters(ctx, SnapshotReport)
	require.NoError(t, err)
	writeAccess(t, s)
	writeSettings(t, s)
	_, err = s.Collect(ctx, "staff")
	require.NoError(t, err)

	tables := chainedTables(t, s)
	var known []string
	for k := range outboxKinds {
		known = append(known, k)
	}
	sort.Strings(known)
	require.Equal(t, known, tables, "a chained table without its outbox trigger (outbox_schema.go)")

	recs, err := s.Outbox(ctx, 0, 1_000_000)
	require.NoError(t, err)
	for i, r := range recs {
		require.Equal(t, int64(i+1), r.Seq, "the sequence has no hole")
	}
	type key struct {
		kind string
		id   int64
	}
	seen := map[key]int{}
	hashes := map[key]string{}
	states := map[string]int{}
	for _, r := range recs {
		seen[key{r.Kind, r.RefID}]++
		var pl struct {
			Hash  string `json:"hash"`
			State string `json:"state"`
		}
		require.NoError(t, json.Unmarshal(r.Payload, &pl))
		hashes[key{r.Kind, r.RefID}] = pl.Hash
		if strings.HasSuffix(r.Kind, "_state") {
			states[r.Kind+" "+pl.State]++
		}
	}
	for _, table := range tables {
		kind := outboxKinds[table]
		rows, err := s.r.Query(`SELECT id, hash FROM ` + table)
		require.NoError(t, err)
		n := 0
		for rows.Next() {
			var id int64
			var h []byte
			require.NoError(t, rows.Scan(&id, &h))
			k := key{kind, id}
			assert.Equal(t, 1, seen[k], "%s %d: one outbox record", table, id)
			assert.Equal(t, strings.ToUpper(hex.EncodeToString(h)), hashes[k], "%s %d: its hash travels", table, id)
			n++
		}
		require.NoError(t, rows.Err())
		rows.Close()
		assert.Positive(t, n, "the test writes rows of %s", table)
	}
	for _, st := range []string{"play_state main_done", "play_state bonus", "play_state finished",
		"voucher_state printed", "voucher_state paid", "voucher_state void"} {
		assert.Positive(t, states[st], st)
	}
}

// A write that fails leaves no outbox record: the record is in the
// transaction of the fact.
func TestOutboxRollsBackWithTheFact(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	p := playUntil(t, s, func(p Play) bool { return p.Prize > 0 && !p.ViaBonus })
	before, err := s.OutboxState(ctx)
	require.NoError(t, err)
	_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize + 1})
	require.ErrorIs(t, err, ErrPrizeMismatch)
	_, err = s.PayVoucher(ctx, val3, "staff")
	require.Error(t, err)
	after, err := s.OutboxState(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

func TestOutboxPublishedMark(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for i := range 5 {
		_, err := s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "tick", Detail: fmt.Sprint(i)})
		require.NoError(t, err)
	}
	o, err := s.OutboxState(ctx)
	require.NoError(t, err)
	assert.Equal(t, OutboxState{Last: 5}, o)
	assert.Equal(t, int64(5), o.Pending())

	require.NoError(t, s.MarkPublished(ctx, 3))
	require.NoError(t, s.MarkPublished(ctx, 2), "a late acknowledgement changes nothing")
	o, err = s.OutboxState(ctx)
	require.NoError(t, err)
	assert.Equal(t, OutboxState{Last: 5, Published: 3}, o)
	assert.ErrorIs(t, s.MarkPublished(ctx, 6), ErrBadRequest, "beyond the last record")

	recs, err := s.Outbox(ctx, 3, 10)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, int64(4), recs[0].Seq)
	assert.Equal(t, "event", recs[0].Kind)

	n, err := s.PruneOutbox(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, int64(2), n, "records 1 and 2 pruned, 3 kept")
	for q, want := range map[string]string{
		`DELETE FROM outbox WHERE seq = 4`:               "only published outbox rows are deleted",
		`UPDATE outbox SET kind = 'event' WHERE seq = 4`: "outbox rows never change",
	} {
		err := s.write(ctx, func(tx *wtx) error { _, err := tx.execQ(q); return err })
		assert.ErrorContains(t, err, want)
	}

	// Numbers are never given twice, even after a prune.
	_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "tick"})
	require.NoError(t, err)
	o, err = s.OutboxState(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(6), o.Last)
}
