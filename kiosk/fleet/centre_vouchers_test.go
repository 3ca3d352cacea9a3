package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

// Kiosk A's credentials and voucher key (its disk holds both), used by
// hand to make up a voucher entry whole — a number of their choosing, an
// id and an amount of theirs — get nothing paid at the centre's counter:
// the centre pays a voucher only once its kiosk's own records hold it.
// Nor when the entry names A's records of another voucher, records A never
// published, or records published with A's credentials that are not rows
// of A's store (a row whose hash its content does not give).
func TestCentrePaysOnlyWhatItsKioskReported(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	a := newCounter(t, ns, "A", ns.url())
	genuine := a.voucher(5 * game.Euro)
	a.publish(ns.url())
	centre := ns.vouchers(t)

	att := attackAs(t, a.cfg)
	ab := NewBucket(att.js, VoucherBucket)
	keys := ns.keys(t, "A")
	real, err := centre.Find(ctx, genuine.Validation)
	require.NoError(t, err)
	require.NotZero(t, real.Record, "the publisher names the voucher's records")
	require.NotZero(t, real.StateRecord)
	require.NotZero(t, real.RecordAt, "and where the server said it stored them")
	require.NotZero(t, real.StateAt)
	// makeUp writes an entry of A's for number as A's credentials may,
	// and presents the number at the centre's counter.
	makeUp := func(number string, v VoucherEntry) error {
		t.Helper()
		v.Kiosk, v.State = "A", "printed"
		data, _ := json.Marshal(v)
		_, err := ab.create(ctx, keys.entryKey(number), data)
		require.NoError(t, err, "A may write its own entries")
		_, err = centre.Pay(ctx, number, "central", time.Now())
		e, ferr := centre.Find(ctx, number)
		require.NoError(t, ferr)
		assert.Equal(t, "printed", e.State, "not paid")
		return err
	}

	err = makeUp("444433332222111100", VoucherEntry{ID: genuine.ID + 1, Amount: 1500 * int64(game.Euro),
		ExpiresAt: time.Now().Add(time.Hour).UnixNano()})
	require.Error(t, err, "a voucher its kiosk never reported is paid")
	assert.ErrorIs(t, err, ErrVoucherUnreported)
	assert.ErrorContains(t, err, "not reported by its kiosk yet: pay it at the kiosk, or wait for its records")

	// An entry naming A's records of the genuine voucher.
	err = makeUp("444433332222111200", VoucherEntry{ID: real.ID, Amount: real.Amount, ExpiresAt: real.ExpiresAt,
		Record: real.Record, StateRecord: real.StateRecord})
	assert.ErrorIs(t, err, ErrVoucherUnreported)
	assert.ErrorContains(t, err, "is of another voucher")

	// Records published with A's credentials after A's own: the genuine
	// voucher's row and state with the chosen number sealed in them.
	const chosen = "444433332222111300"
	o, err := a.st.OutboxState(ctx)
	require.NoError(t, err)
	recs, err := a.st.Outbox(ctx, 0, 1000)
	require.NoError(t, err)
	seq := o.Last
	names := map[string]int64{}
	for _, r := range recs {
		if r.Kind != "voucher" && r.Kind != "voucher_state" || r.RefID != genuine.ID {
			continue
		}
		var p map[string]any
		require.NoError(t, json.Unmarshal(r.Payload, &p))
		p["validation"] = chosen
		r.Payload, _ = json.Marshal(p)
		seq++
		r.Seq = seq
		sealed, err := keys.sealRecord(r)
		require.NoError(t, err)
		data, _ := json.Marshal(sealed)
		m := nats.NewMsg(RecordsSubject + "A")
		m.Data = data
		m.Header.Set(HeaderSeq, fmt.Sprint(seq))
		_, err = att.js.PublishMsg(ctx, m, jetstream.WithMsgID(MsgID("A", seq)))
		require.NoError(t, err, "A may publish on its own subject")
		names[r.Kind] = seq
	}
	err = makeUp(chosen, VoucherEntry{ID: real.ID, Amount: real.Amount, ExpiresAt: real.ExpiresAt,
		Record: names["voucher"], StateRecord: names["voucher_state"]})
	assert.ErrorIs(t, err, ErrVoucherForged, "a row A's store never wrote")
	assert.ErrorContains(t, err, "its row does not give its hash")

	// An entry naming records A never published.
	err = makeUp("444433332222111400", VoucherEntry{ID: real.ID, Amount: real.Amount, ExpiresAt: real.ExpiresAt,
		Record: seq + 10, StateRecord: seq + 11})
	assert.ErrorIs(t, err, ErrVoucherUnreported)
	assert.ErrorContains(t, err, fmt.Sprintf("its kiosk published no record %d", seq+10))

	// Its kiosk's own voucher, reported: paid once.
	paid, err := centre.Pay(ctx, genuine.Validation, "central", time.Now())
	require.NoError(t, err, "its kiosk's own voucher, reported")
	assert.Equal(t, "paid", paid.State)
	_, err = centre.Pay(ctx, genuine.Validation, "central", time.Now())
	assert.ErrorIs(t, err, ErrVoucherNotPayable)
}

// The centre's counter finds a voucher's records among a busy kiosk's
// history and another kiosk's: where its publisher was told the server
// stored them, else by a binary search; either way a payment reads a few
// messages, not the kiosk's history. The test logs the time of a payment
// on a server just started (its caches cold), of the search, and for
// comparison of a read of the kiosk's whole history; PHARAON_FLEET_FIGURES=1
// runs it with 100 000 records of the kiosk (docs/fleet.md), else 4 000.
func TestCentrePaysABusyKiosksVoucher(t *testing.T) {
	n := 4000
	if os.Getenv("PHARAON_FLEET_FIGURES") != "" {
		n = 100_000
	}
	ns := startNATS(t)
	ctx := context.Background()
	js := ns.js(t)
	keys := ns.keys(t, "A")
	ns.kiosk(t, "A")
	ns.kiosk(t, "B")

	// The voucher's records as A's store wrote them, placed in the middle
	// of A's history.
	st := openStore(t)
	_, err := st.BillIn(ctx, 20*game.Euro, "note-1")
	require.NoError(t, err)
	const val = "900100000000000009"
	v, err := st.IssueVoucher(ctx, store.VoucherRequest{Amount: 20 * game.Euro, Validation: val, Expires: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, _, err = st.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	all, err := st.Outbox(ctx, 0, 100)
	require.NoError(t, err)
	var voucher []store.OutboxRecord
	for _, r := range all {
		if r.Kind == "voucher" || r.Kind == "voucher_state" {
			voucher = append(voucher, r)
		}
	}
	require.Len(t, voucher, 2)
	at := int64(n / 2)
	message := func(kiosk string, r store.OutboxRecord) *nats.Msg {
		data, _ := json.Marshal(r)
		m := nats.NewMsg(RecordsSubject + kiosk)
		m.Data = data
		m.Header.Set(HeaderSeq, fmt.Sprint(r.Seq))
		m.Header.Set(jetstream.MsgIDHeader, MsgID(kiosk, r.Seq))
		return m
	}
	filler := func(kiosk string, seq int64) *nats.Msg {
		return message(kiosk, store.OutboxRecord{Seq: seq, At: time.Now(), Kind: "event", RefID: seq,
			Payload: json.RawMessage(`{"id":` + fmt.Sprint(seq) + `,"level":"info","source":"test","code":"tick"}`)})
	}
	bucket := NewBucket(js, VoucherBucket)
	t0 := time.Now()
	var futures []jetstream.PubAckFuture
	for seq := int64(1); seq <= int64(n); seq++ {
		if i := seq - at; i >= 0 && i < int64(len(voucher)) {
			// As the publisher does: the record, then its entry with
			// where the server stored it.
			<-js.PublishAsyncComplete()
			r := voucher[i]
			r.Seq = seq
			sealed, err := keys.sealRecord(r)
			require.NoError(t, err)
			ack, err := js.PublishMsg(ctx, message("A", sealed))
			require.NoError(t, err)
			require.NoError(t, applyVoucherRecordAt(ctx, bucket, keys, r, ack.Sequence))
		} else {
			f, err := js.PublishMsgAsync(filler("A", seq))
			require.NoError(t, err)
			futures = append(futures, f)
		}
		f, err := js.PublishMsgAsync(filler("B", seq))
		require.NoError(t, err)
		futures = append(futures, f)
		if len(futures) >= 2048 {
			<-js.PublishAsyncComplete()
			futures = futures[:0]
		}
	}
	<-js.PublishAsyncComplete()
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			t.Fatal(err)
		}
	}
	t.Logf("%d records of kiosk A and as many of kiosk B published in %v", n, time.Since(t0))

	// On a server just started.
	restart := func() *Vouchers {
		ns.stop()
		ns.start()
		return ns.vouchers(t)
	}
	centre := restart()
	t0 = time.Now()
	e, err := centre.Pay(ctx, val, "central", time.Now())
	payTime := time.Since(t0)
	require.NoError(t, err)
	assert.Equal(t, "paid", e.State)
	assert.Equal(t, at, e.Record)
	require.NotZero(t, e.RecordAt)

	// The same records without their stream sequences: the search.
	centre = restart()
	search := func() time.Duration {
		t0 := time.Now()
		for _, seq := range []int64{e.Record, e.StateRecord} {
			_, r, err := kioskRecord(ctx, centre.records, "A", seq, 0)
			require.NoError(t, err)
			require.Equal(t, seq, r.Seq)
		}
		return time.Since(t0)
	}
	cold := search()
	warm := search()
	_, r, err := kioskRecord(ctx, centre.records, "A", e.Record, e.StateAt)
	require.NoError(t, err)
	assert.Equal(t, e.Record, r.Seq, "a stream sequence that is another record's: searched for")

	t0 = time.Now()
	read := 0
	require.NoError(t, ReadRecords(ctx, ns.js(t), "A", func(Record) error { read++; return nil }))
	assert.Equal(t, n, read)
	t.Logf("pay: %v; its two records searched for: %v, again %v; a read of kiosk A's %d records, for comparison: %v",
		payTime, cold, warm, read, time.Since(t0))
}
