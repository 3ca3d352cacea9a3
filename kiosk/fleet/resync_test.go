package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

// deadBucket is the vouchers' bucket over the kiosk's connection that
// died: every read and write of it fails.
func deadBucket(t *testing.T, c Config) Bucket {
	t.Helper()
	nc, err := c.connect()
	require.NoError(t, err)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	nc.Close()
	return NewBucket(js, VoucherBucket)
}

// A voucher's records stored by the server whose bucket entry was not
// written (the connection died after the server stored the batch: its
// acknowledgements or the entry's write lost) get their entry when the
// publisher comes back, although it then finds the records stored and does
// not send them again: else the voucher printed is unknown to the fleet
// and no other counter can pay it. TestFleetScale found it.
func TestVoucherEntryAfterLostBatch(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	s := openStore(t)
	_, err := s.BillIn(ctx, 20*game.Euro, "note-1")
	require.NoError(t, err)
	const val = "900100000000000001"
	v, err := s.IssueVoucher(ctx, store.VoucherRequest{Amount: 20 * game.Euro, Validation: val, Expires: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	o, err := s.OutboxState(ctx)
	require.NoError(t, err)

	js := ns.js(t)
	k1 := ns.kiosk(t, "k1")
	centre := ns.vouchers(t)
	a := newAcks()
	p := newTestPublisher(t, k1, s, a)
	_, err = p.sendBatch(ctx, kioskJS(t, k1), deadBucket(t, k1), RecordsSubject+"k1", new(uint64))
	require.ErrorIs(t, err, nats.ErrConnectionClosed)
	require.Equal(t, seqs(1, o.Last), stored(t, js, "k1"), "the server stored the batch")
	_, err = centre.Find(ctx, val)
	require.ErrorIs(t, err, ErrVoucherUnknown)

	stop := run(p)
	a.wait(t, o.Last)
	stop()
	e, err := centre.Find(ctx, val)
	require.NoError(t, err, "the voucher's entry after the publisher came back")
	assert.Equal(t, "printed", e.State)
	assert.Equal(t, int64(20*game.Euro), e.Amount)
	assert.Equal(t, seqs(1, o.Last), stored(t, js, "k1"), "each record once")
}

// The same, when the records the publisher moves over are a payment the
// kiosk made offline of a voucher the centre paid meanwhile: the resync
// tells the conflict as a sent batch does, and the publisher goes on (a
// resync that failed on it would fail at every connection: the kiosk would
// publish nothing more).
func TestResyncTellsAPaidTwiceVoucher(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	s := openStore(t)
	_, err := s.BillIn(ctx, 20*game.Euro, "note-1")
	require.NoError(t, err)
	const val = "900100000000000002"
	v, err := s.IssueVoucher(ctx, store.VoucherRequest{Amount: 20 * game.Euro, Validation: val, Expires: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	a := newAcks()
	k1 := ns.kiosk(t, "k1")
	p := newTestPublisher(t, k1, s, a)
	o, err := s.OutboxState(ctx)
	require.NoError(t, err)
	stop := run(p)
	a.wait(t, o.Last)
	stop()

	js := ns.js(t)
	_, err = ns.vouchers(t).Pay(ctx, val, "centre", time.Now())
	require.NoError(t, err)
	_, err = s.PayVoucher(ctx, val, "staff") // offline, at the kiosk
	require.NoError(t, err)
	o, err = s.OutboxState(ctx)
	require.NoError(t, err)
	kjs := kioskJS(t, k1)
	_, last, err := directGet(ctx, kjs.Conn(), RecordsStream, RecordsSubject+"k1")
	require.NoError(t, err)
	_, err = p.sendBatch(ctx, kjs, deadBucket(t, k1), RecordsSubject+"k1", &last)
	require.ErrorIs(t, err, nats.ErrConnectionClosed)

	conflicts := make(chan VoucherConflict, 4)
	p.OnConflict = func(c VoucherConflict) { conflicts <- c }
	stop = run(p)
	a.wait(t, o.Last)
	stop()
	require.Len(t, conflicts, 1)
	c := <-conflicts
	assert.Equal(t, "k1", c.Kiosk)
	assert.Equal(t, v.ID, c.ID)
	assert.Equal(t, seqs(1, o.Last), stored(t, js, "k1"), "each record once")
}
