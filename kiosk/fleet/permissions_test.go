package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

// attacker is whoever holds one kiosk's credentials (its .creds file and
// its configuration) and uses them with a NATS client of their own,
// outside the kiosk's code.
type attacker struct {
	t    *testing.T
	nc   *nats.Conn
	js   jetstream.JetStream
	errs chan error
}

func attackAs(t *testing.T, c Config) *attacker {
	t.Helper()
	a := &attacker{t: t, errs: make(chan error, 256)}
	c.OnAsyncError = func(err error) {
		select {
		case a.errs <- err:
		default:
		}
	}
	nc, err := c.connect()
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	a.nc = nc
	a.js, err = jetstream.New(nc)
	require.NoError(t, err)
	return a
}

// ctx bounds an attempt: a refused request gets no answer (and an
// allowed one that times out is not taken as refused: refused waits for
// the server's word).
func (a *attacker) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	a.t.Cleanup(cancel)
	return ctx
}

// refused waits for the server's refusal of subject (a permissions
// violation, for a publish or a subscription).
func (a *attacker) refused(subject, what string) {
	a.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case err := <-a.errs:
			if errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), `"`+subject+`"`) {
				return
			}
		case <-deadline:
			a.t.Errorf("%s: the server did not refuse %s", what, subject)
			return
		}
	}
}

// request sends a JetStream API request as the attacker and waits for its
// refusal: no answer, the violation reported.
func (a *attacker) request(subject string, body any, what string) {
	a.t.Helper()
	data, _ := json.Marshal(body)
	_, err := a.nc.RequestWithContext(a.ctx(), subject, data)
	assert.Error(a.t, err, "%s: answered", what)
	a.refused(subject, what)
}

// Kiosk A's credentials, used by hand, against kiosk B's data and the
// fleet's administration: every attempt is refused by the server, and
// nothing of B's changes. The same credentials do what A's kiosk does.
func TestKioskCredentialsRefusedOutsideTheirOwn(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	js := ns.js(t)
	cfgA, cfgB := ns.kiosk(t, "A", "nord"), ns.kiosk(t, "B", "sud")

	// B's data: a record, a voucher entry, a delivery and its file.
	sb := openStore(t)
	logN(t, sb, 3)
	ackB := newAcks()
	stop := run(newTestPublisher(t, cfgB, sb, ackB))
	ackB.wait(t, 3)
	stop()
	bKeys := ns.keys(t, "B")
	bBucket := NewBucket(kioskJS(t, cfgB), VoucherBucket)
	const val = "555500001111222233"
	bKey := bKeys.entryKey(val)
	rec := store.OutboxRecord{Seq: 1, Kind: "voucher_state", Payload: []byte(`{"id":7,"validation":"` + val +
		`","amount":2500,"expires_at":4102444800000000000,"state":"printed"}`)}
	require.NoError(t, applyVoucherRecord(ctx, bBucket, bKeys, rec))
	before, err := LookupVoucher(ctx, bBucket, bKey)
	require.NoError(t, err)
	d, err := SendBlock(ctx, js, signedBlock(t, 1), ToKiosk("B"), time.Now())
	require.NoError(t, err)
	_, err = SendBlock(ctx, js, signedBlock(t, 2), ToGroup("sud"), time.Now())
	require.NoError(t, err)

	a := attackAs(t, cfgA)

	// B's records: A cannot publish as B, nor read B's.
	_, err = a.js.Publish(a.ctx(), RecordsSubject+"B", []byte(`{"seq":4,"kind":"event","payload":{}}`))
	assert.Error(t, err)
	a.refused(RecordsSubject+"B", "publish a record as B")
	assert.Equal(t, seqs(1, 3), stored(t, js, "B"), "B's records unchanged")
	a.request(directGetSubject(RecordsStream, RecordsSubject+"B"), nil, "read B's last record")
	a.request("$JS.API.STREAM.MSG.GET."+RecordsStream, map[string]any{"seq": 1}, "read any record by sequence")
	a.request("$JS.API.DIRECT.GET."+RecordsStream, map[string]any{"seq": 1}, "direct get of any record by sequence")

	// B's replies, subjects and everything: no subscription.
	for _, subj := range []string{InboxPrefix("B") + ".>", "_INBOX.>", RecordsSubject + ">", ">", "$KV.vouchers.>"} {
		_, err := a.nc.SubscribeSync(subj)
		require.NoError(t, err)
		a.refused(subj, "subscribe to "+subj)
	}

	// B's deliveries and files.
	a.request("$JS.API.CONSUMER.INFO."+BlocksStream+"."+BlocksConsumer("B"), nil, "read B's consumer")
	a.request("$JS.API.CONSUMER.MSG.NEXT."+BlocksStream+"."+BlocksConsumer("B"), map[string]any{"batch": 1}, "fetch B's deliveries")
	a.request("$JS.API.CONSUMER.CREATE."+BlocksStream+".spy."+ToKiosk("B").Subject(),
		map[string]any{"stream_name": BlocksStream, "config": map[string]any{"name": "spy", "filter_subject": ToKiosk("B").Subject()}},
		"a consumer of B's deliveries")
	a.request("$JS.API.CONSUMER.CREATE."+BlocksStream, map[string]any{"stream_name": BlocksStream}, "an ephemeral consumer of every delivery")
	require.NoError(t, a.nc.Publish("$JS.ACK."+BlocksStream+"."+BlocksConsumer("B")+".1.1.1.0.0", []byte("+ACK")))
	a.refused("$JS.ACK."+BlocksStream+"."+BlocksConsumer("B")+".1.1.1.0.0", "acknowledge B's delivery")
	for _, store := range []string{BlockObjectsFor(ToKiosk("B")), BlockObjectsFor(ToGroup("sud"))} {
		_, err := a.js.ObjectStore(a.ctx(), store)
		assert.Error(t, err)
		a.refused("$JS.API.STREAM.INFO.OBJ_"+store, "open "+store)
		a.request("$JS.API.CONSUMER.CREATE.OBJ_"+store, map[string]any{"stream_name": "OBJ_" + store}, "read the files of "+store)
	}
	info, err := js.Consumer(ctx, BlocksStream, BlocksConsumer("B"))
	require.NoError(t, err)
	assert.Equal(t, uint64(2), info.CachedInfo().NumPending, "B's deliveries untouched: %d", d.Seq)

	// Listing: no stream, bucket or key listing, no account information.
	_, err = a.js.AccountInfo(a.ctx())
	assert.Error(t, err)
	a.refused("$JS.API.INFO", "account information")
	for _, subj := range []string{"$JS.API.STREAM.NAMES", "$JS.API.STREAM.LIST", "$JS.API.CONSUMER.NAMES." + BlocksStream,
		"$JS.API.CONSUMER.LIST." + BlocksStream} {
		a.request(subj, map[string]any{}, "list: "+subj)
	}
	names := a.js.KeyValueStoreNames(a.ctx())
	for range names.Name() {
		t.Error("a bucket listed")
	}
	a.refused("$JS.API.STREAM.NAMES", "list the buckets")
	for _, b := range []string{VoucherBucket, ClaimsBucket, BlockResults} {
		_, err := a.js.KeyValue(a.ctx(), b)
		assert.Error(t, err, "open %s as a bucket (its keys listed)", b)
		a.refused("$JS.API.STREAM.INFO.KV_"+b, "the information of "+b)
	}
	a.request("$JS.API.STREAM.INFO.KV_"+VoucherBucket, map[string]any{"subjects_filter": ">"}, "the voucher keys")
	a.request("$JS.API.CONSUMER.CREATE.KV_"+VoucherBucket, map[string]any{"stream_name": "KV_" + VoucherBucket,
		"config": map[string]any{"deliver_subject": InboxPrefix("A") + ".keys", "headers_only": true}}, "watch every voucher key")
	a.request(directGetSubject("KV_"+VoucherBucket, "$KV."+VoucherBucket+".>"), nil, "the last voucher entry of any kiosk")
	a.request(directGetSubject("KV_"+VoucherBucket, "$KV."+VoucherBucket+".*."+strings.TrimPrefix(bKey, "B.")), nil,
		"B's entry through a wildcard")

	// Administration: no stream, bucket or consumer created, changed,
	// purged or deleted.
	_, err = a.js.CreateStream(a.ctx(), jetstream.StreamConfig{Name: "SPY", Subjects: []string{RecordsSubject + "B"}})
	assert.Error(t, err)
	a.refused("$JS.API.STREAM.CREATE.SPY", "create a stream")
	_, err = a.js.CreateKeyValue(a.ctx(), jetstream.KeyValueConfig{Bucket: "spy"})
	assert.Error(t, err, "create a bucket")
	a.request("$JS.API.STREAM.CREATE.KV_spy", map[string]any{"name": "KV_spy", "subjects": []string{"$KV.spy.>"}}, "create a bucket")
	cfgRecords := map[string]any{"name": RecordsStream, "subjects": []string{"pharaon.>"}}
	for _, c := range []struct {
		subject string
		body    any
	}{
		{"$JS.API.STREAM.UPDATE." + RecordsStream, cfgRecords},
		{"$JS.API.STREAM.DELETE." + RecordsStream, nil},
		{"$JS.API.STREAM.PURGE." + RecordsStream, map[string]any{"filter": RecordsSubject + "B"}},
		{"$JS.API.STREAM.MSG.DELETE." + RecordsStream, map[string]any{"seq": 1}},
		{"$JS.API.STREAM.DELETE.KV_" + VoucherBucket, nil},
		{"$JS.API.STREAM.PURGE.KV_" + VoucherBucket, map[string]any{}},
		{"$JS.API.STREAM.UPDATE.KV_" + VoucherBucket, map[string]any{"name": "KV_" + VoucherBucket}},
		{"$JS.API.CONSUMER.DELETE." + BlocksStream + "." + BlocksConsumer("B"), nil},
		{"$JS.API.CONSUMER.DELETE." + BlocksStream + "." + BlocksConsumer("A"), nil},
		{"$JS.API.CONSUMER.CREATE." + BlocksStream + "." + BlocksConsumer("A"), map[string]any{"stream_name": BlocksStream,
			"config": map[string]any{"durable_name": BlocksConsumer("A"), "filter_subjects": []string{BlocksSubject + ">"}}}},
	} {
		a.request(c.subject, c.body, "administration: "+c.subject)
	}
	s, err := js.Stream(ctx, RecordsStream)
	require.NoError(t, err)
	assert.Equal(t, []string{RecordsSubject + ">"}, s.CachedInfo().Config.Subjects)
	cons, err := js.Consumer(ctx, BlocksStream, BlocksConsumer("A"))
	require.NoError(t, err)
	assert.Equal(t, []string{ToKiosk("A").Subject(), ToGroup("nord").Subject()}, cons.CachedInfo().Config.FilterSubjects,
		"A's consumer is the centre's")

	// B's voucher entry: not written, not read, not rolled up.
	forged, _ := json.Marshal(VoucherEntry{Kiosk: "A", ID: 7, Amount: 9_999_00, ExpiresAt: before.ExpiresAt, State: "printed"})
	_, err = a.js.PublishMsg(a.ctx(), &nats.Msg{Subject: "$KV." + VoucherBucket + "." + bKey, Data: forged})
	assert.Error(t, err)
	a.refused("$KV."+VoucherBucket+"."+bKey, "write B's voucher entry")
	a.request(directGetSubject("KV_"+VoucherBucket, "$KV."+VoucherBucket+"."+bKey), nil, "read B's voucher entry")
	// A roll-up on A's own key would purge every key of the bucket: the
	// bucket takes none.
	roll := nats.NewMsg("$KV." + VoucherBucket + ".A.0")
	roll.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupAll)
	_, err = a.js.PublishMsg(a.ctx(), roll)
	assert.Error(t, err, "a roll-up of the voucher bucket")
	after, err := LookupVoucher(ctx, bBucket, bKey)
	require.NoError(t, err)
	assert.Equal(t, before, after, "B's voucher entry unchanged")
	_, err = a.js.Publish(a.ctx(), "$KV."+BlockResults+".B.1", []byte(`{"kiosk":"B","outcome":"imported"}`))
	assert.Error(t, err)
	a.refused("$KV."+BlockResults+".B.1", "write B's block result")

	// What A's kiosk does, A's credentials still do.
	_, err = a.js.Publish(a.ctx(), RecordsSubject+"A", []byte(`{"seq":1,"kind":"event","payload":{}}`))
	require.NoError(t, err, "its own records")
	_, _, err = directGet(a.ctx(), a.nc, RecordsStream, RecordsSubject+"A")
	require.NoError(t, err, "its own last record")
	aBucket := NewBucket(a.js, VoucherBucket)
	_, err = aBucket.create(a.ctx(), ns.keys(t, "A").entryKey(val), []byte(`{"kiosk":"A","id":1,"state":"printed"}`))
	require.NoError(t, err, "its own voucher entry")
	_, err = a.js.Consumer(a.ctx(), BlocksStream, BlocksConsumer("A"))
	require.NoError(t, err, "its own consumer")
	_, err = a.js.ObjectStore(a.ctx(), BlockObjectsFor(ToGroup("nord")))
	assert.ErrorIs(t, err, jetstream.ErrBucketNotFound, "its group's files: nothing sent there yet, but not refused")
}

// A record published by A that says it is B's (its header, its
// de-duplication id, its payload) is A's: the centre credits it to A,
// reports the claim as A's problem, and B's status does not change.
func TestRecordClaimingAnotherKioskIsTheSenders(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	js := ns.js(t)
	cfgA, cfgB := ns.kiosk(t, "A"), ns.kiosk(t, "B")
	sb := openStore(t)
	logN(t, sb, 2)
	ackB := newAcks()
	stop := run(newTestPublisher(t, cfgB, sb, ackB))
	ackB.wait(t, 2)
	stop()

	// A's own first record, then one dressed as B's third.
	sa := openStore(t)
	logN(t, sa, 1)
	ackA := newAcks()
	stop = run(newTestPublisher(t, cfgA, sa, ackA))
	ackA.wait(t, 1)
	stop()
	recs, err := sb.Outbox(ctx, 0, 10)
	require.NoError(t, err)
	forged := recs[1]
	forged.Seq = 3
	var body map[string]any
	data, _ := json.Marshal(forged)
	require.NoError(t, json.Unmarshal(data, &body))
	body["kiosk"] = "B"
	data, _ = json.Marshal(body)
	m := nats.NewMsg(RecordsSubject + "A")
	m.Data = data
	m.Header.Set(HeaderKiosk, "B")
	m.Header.Set(HeaderSeq, "3")
	a := attackAs(t, cfgA)
	_, err = a.js.PublishMsg(ctx, m, jetstream.WithMsgID(MsgID("B", 3)))
	require.NoError(t, err, "A may publish on its own subject")

	f := NewFleet()
	f.VoucherMaster = ns.master
	require.NoError(t, ReadRecords(ctx, js, "", func(r Record) error {
		f.Add(r)
		return nil
	}))
	kb := f.Kiosks["B"]
	require.NotNil(t, kb)
	assert.Equal(t, int64(2), kb.Records, "nothing credited to B")
	assert.Equal(t, int64(2), kb.LastSeq)
	assert.Empty(t, kb.Problems)
	ka := f.Kiosks["A"]
	require.NotNil(t, ka)
	assert.Equal(t, int64(2), ka.Records, "credited to A, whose subject it came on")
	for _, part := range []string{`names kiosk "B" in its header`, `de-duplication id "B-3"`, `names kiosk "B" in its message`,
		"sequence 3 after 1"} {
		assert.True(t, hasProblem(ka, part), "%q: %q", part, ka.Problems)
	}
}

// An anchor record whose trust-root counter is below one the kiosk sent
// before is a kiosk put back to an earlier copy: rolled back, a problem;
// so are heads that went back. Records without a counter (written before
// the store carried it) are not, until a record carried one.
func TestCentreReportsARolledBackKiosk(t *testing.T) {
	anchor := func(seq int64, counter string, ledger int64) store.OutboxRecord {
		c := ""
		if counter != "" {
			c = `,"counter":` + counter
		}
		return store.OutboxRecord{Seq: seq, Kind: "anchor", Payload: []byte(`{"heads":[{"table":"ledger","kind":"ledger","id":` +
			strconv.FormatInt(ledger, 10) + `,"hash":""}],"mac":"00"` + c + `}`)}
	}
	f := NewFleet()
	f.Apply("k1", anchor(1, "", 0), time.Now())
	f.Apply("k1", anchor(2, "7", 0), time.Now())
	f.Apply("k1", anchor(3, "9", 0), time.Now())
	f.Apply("k1", anchor(4, "9", 0), time.Now())
	k := f.Kiosks["k1"]
	assert.Empty(t, k.Problems)
	assert.Equal(t, uint64(9), k.Counter)
	assert.False(t, k.RolledBack)

	f.Apply("k1", anchor(5, "8", 0), time.Now())
	assert.True(t, k.RolledBack)
	assert.True(t, hasProblem(k, "rolled back: anchor record 5 carries counter 8, anchor record 4 carried 9"), "%q", k.Problems)
	f.Apply("k1", anchor(6, "", 0), time.Now())
	assert.True(t, hasProblem(k, "anchor record 6 carries no counter"), "%q", k.Problems)

	// Heads that go back: rolled back too.
	g := NewFleet()
	g.Apply("k2", anchor(1, "", 5), time.Now())
	assert.False(t, g.Kiosks["k2"].RolledBack)
	g.Apply("k2", anchor(2, "", 3), time.Now())
	assert.True(t, g.Kiosks["k2"].RolledBack)
}

// noNumberLeft reads every message the server holds, in the records and
// in the voucher bucket (subjects, headers, bodies), as whoever reads the
// server's disk would, and fails on any validation number in clear.
func noNumberLeft(t *testing.T, js jetstream.JetStream, numbers ...string) {
	t.Helper()
	ctx := context.Background()
	for _, name := range []string{RecordsStream, "KV_" + VoucherBucket} {
		s, err := js.Stream(ctx, name)
		require.NoError(t, err)
		info, err := s.Info(ctx)
		require.NoError(t, err)
		for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
			m, err := s.GetMsg(ctx, seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			require.NoError(t, err)
			raw := m.Subject + fmt.Sprint(m.Header) + string(m.Data)
			for _, n := range numbers {
				if strings.Contains(raw, n) {
					t.Errorf("%s message %d (%s) holds the validation number %s in clear", name, seq, m.Subject, n)
				}
			}
		}
	}
}

// The centre opens a record's sealed number with its kiosk's key (from
// the fleet's) and checks the row's hash with it; a number in clear, a
// seal changed or moved to another record, a seal of another kiosk, or no
// fleet key to open it with, are each a problem.
func TestCentreOpensTheSealedNumbers(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	_, err := s.BillIn(ctx, 20*game.Euro, "note-1")
	require.NoError(t, err)
	const val = "900100000000000009"
	v, err := s.IssueVoucher(ctx, store.VoucherRequest{Amount: 20 * game.Euro, Validation: val, Expires: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	recs, err := s.Outbox(ctx, 0, 100)
	require.NoError(t, err)
	master := bytes.Repeat([]byte{4}, VoucherKeySize)
	keys, err := newVoucherKeys("k1", KioskVoucherKey(master, "k1"))
	require.NoError(t, err)
	other, err := newVoucherKeys("k2", KioskVoucherKey(master, "k2"))
	require.NoError(t, err)
	sealedWith := func(k voucherKeys, change func(i int, r store.OutboxRecord) store.OutboxRecord) []store.OutboxRecord {
		var out []store.OutboxRecord
		for i, r := range recs {
			r, err := k.sealRecord(r)
			require.NoError(t, err)
			assert.NotContains(t, string(r.Payload), val)
			if change != nil {
				r = change(i, r)
			}
			out = append(out, r)
		}
		return out
	}
	fold := func(master []byte, recs []store.OutboxRecord) *KioskStatus {
		f := NewFleet()
		f.VoucherMaster = master
		for _, r := range recs {
			f.Apply("k1", r, time.Now())
		}
		return f.Kiosks["k1"]
	}

	assert.Empty(t, fold(master, sealedWith(keys, nil)).Problems, "sealed by its kiosk: opened, every hash checked")
	assert.True(t, hasProblem(fold(master, recs), "carries a validation number in clear"))
	assert.True(t, hasProblem(fold(nil, sealedWith(keys, nil)), "voucher rows not checked"))
	assert.True(t, hasProblem(fold(master, sealedWith(other, nil)), "does not open"), "another kiosk's seal")
	var sealedAt []int
	changed := fold(master, sealedWith(keys, func(i int, r store.OutboxRecord) store.OutboxRecord {
		if !hasSealed(r) {
			return r
		}
		sealedAt = append(sealedAt, i)
		var p map[string]any
		require.NoError(t, json.Unmarshal(r.Payload, &p))
		for _, f := range []string{"validation_sealed", "ref_sealed"} {
			if s, ok := p[f].(string); ok {
				p[f] = s[:len(s)-2] + "AA" // a byte of the tag
			}
		}
		r.Payload, _ = json.Marshal(p)
		return r
	}))
	require.NotEmpty(t, sealedAt)
	assert.True(t, hasProblem(changed, "does not open"), "%q", changed.Problems)
	moved := sealedWith(keys, nil)
	var first []byte
	for _, r := range moved {
		if r.Kind == "voucher_state" {
			first = r.Payload
			break
		}
	}
	for i, r := range moved {
		if r.Kind == "voucher" {
			var from, to map[string]any
			require.NoError(t, json.Unmarshal(first, &from))
			require.NoError(t, json.Unmarshal(r.Payload, &to))
			to["validation_sealed"] = from["validation_sealed"] // another row's seal
			moved[i].Payload, _ = json.Marshal(to)
		}
	}
	assert.True(t, hasProblem(fold(master, moved), "does not open"), "a seal moved to another record")
}

// Kiosk A's credentials, used by hand on A's own voucher entries (the
// only ones they may write), cannot get the centre to pay: an entry paid
// set back to printed, its amount raised, its kiosk renamed, or written
// over and over to push its history out, is refused by the centre's
// counter and reported by its status against A's records.
func TestCentreRefusesAnEntryRewrittenByItsKiosk(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	js := ns.js(t)
	a := newCounter(t, ns, "A", ns.url())
	centre := ns.vouchers(t)
	paid, raised, renamed, flooded := a.voucher(5*game.Euro), a.voucher(5*game.Euro), a.voucher(5*game.Euro), a.voucher(5*game.Euro)
	moved := a.voucher(5 * game.Euro)
	a.publish(ns.url())
	_, err := a.o.PayVoucher(ctx, a.s, paid.Validation)
	require.NoError(t, err)
	a.publish(ns.url())
	e, err := centre.Find(ctx, paid.Validation)
	require.NoError(t, err)
	require.Equal(t, "paid", e.State)

	att := attackAs(t, a.cfg)
	ab := NewBucket(att.js, VoucherBucket)
	keys := ns.keys(t, "A")
	rewrite := func(val string, change func(*VoucherEntry)) {
		t.Helper()
		cur, err := LookupVoucher(ctx, ab, keys.entryKey(val))
		require.NoError(t, err)
		change(&cur)
		data, _ := json.Marshal(cur)
		_, err = ab.put(ctx, cur.Key, data)
		require.NoError(t, err, "A may write its own entries")
	}
	rewrite(paid.Validation, func(v *VoucherEntry) { v.State, v.PaidBy, v.PaidAt, v.PaidKiosk = "printed", "", 0, "" })
	rewrite(raised.Validation, func(v *VoucherEntry) { v.Amount = 3750 * int64(game.Euro) })
	rewrite(renamed.Validation, func(v *VoucherEntry) { v.Kiosk = "B" })
	for range VoucherHistory {
		rewrite(flooded.Validation, func(v *VoucherEntry) {})
	}
	rewrite(moved.Validation, func(v *VoucherEntry) { v.Record++ })
	// An entry made up for a number of the attacker's choosing, as one
	// of A's vouchers: the centre's counter does not pay it (its records
	// do not hold it: TestCentrePaysOnlyWhatItsKioskReported), and status
	// reports it once A's records passed its id.
	chosen := "444433332222111100"
	made, _ := json.Marshal(VoucherEntry{Kiosk: "A", ID: paid.ID, Amount: 1500 * int64(game.Euro),
		ExpiresAt: time.Now().Add(time.Hour).UnixNano(), State: "printed"})
	_, err = ab.create(ctx, keys.entryKey(chosen), made)
	require.NoError(t, err)
	for _, c := range []struct {
		v    store.Voucher
		what string
	}{{paid, "went back from paid to printed"}, {raised, "amount or expiry changed"}, {renamed, `says kiosk "B"`},
		{flooded, "written 16 times or more"},
		{moved, "the records it names went back"}} {
		_, err := centre.Pay(ctx, c.v.Validation, "central", time.Now())
		require.ErrorIs(t, err, ErrVoucherForged, c.what)
		assert.ErrorContains(t, err, c.what)
	}

	f := NewFleet()
	f.VoucherMaster = ns.master
	require.NoError(t, ReadRecords(ctx, js, "A", func(r Record) error {
		f.Add(r)
		return nil
	}))
	require.NoError(t, f.CheckVouchers(ctx, js))
	k := f.Kiosks["A"]
	assert.True(t, hasProblem(k, fmt.Sprintf("voucher %d: its fleet entry says printed, its records paid", paid.ID)), "%q", k.Problems)
	assert.True(t, hasProblem(k, fmt.Sprintf("voucher %d: its fleet entry says voucher %d of %s", raised.ID, raised.ID, (3750*game.Euro).Plain())), "%q", k.Problems)
	assert.True(t, hasProblem(k, `says kiosk "B", its key kiosk A`), "%q", k.Problems)
	assert.True(t, hasProblem(k, fmt.Sprintf("voucher %d: its fleet entry names record ", moved.ID)), "%q", k.Problems)
	assert.True(t, hasProblem(k, fmt.Sprintf("voucher %d: a fleet entry of %s under a number its records do not give it",
		paid.ID, (1500*game.Euro).Plain())), "%q", k.Problems)
}
