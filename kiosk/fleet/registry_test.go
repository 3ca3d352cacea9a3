package fleet

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw"
	"pharaon/kiosk"
	"pharaon/store"
)

// counter is a kiosk's core and its maintenance screen's office, joined to
// a fleet's voucher registry: a headless kiosk whose staff pay vouchers.
type counter struct {
	t   *testing.T
	id  string
	cfg Config
	// ahead moves the store's clock ahead of the machine's.
	ahead atomic.Int64
	st    *store.Store
	m     *kiosk.Machine
	o     *kiosk.Office
	s     *kiosk.Session
	reg   *Registry
	notes int // the notes put in
}

// newCounter makes kiosk id of ns whose registry reaches the centre at
// registryURL (it may differ from the publisher's: a kiosk cut from the
// centre), with staff logged in.
func newCounter(t *testing.T, ns *natsServer, id, registryURL string) *counter {
	t.Helper()
	ctx := context.Background()
	c := &counter{t: t, id: id, cfg: ns.kiosk(t, id)}
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"),
		store.WithClock(func() time.Time { return time.Now().Add(time.Duration(c.ahead.Load())) }))
	require.NoError(t, err)
	m, err := kiosk.New(st, kiosk.SystemClock{}, kiosk.Config{KioskID: id})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close(); st.Close() })
	a := kiosk.NewAccess(st, kiosk.SystemClock{}, kiosk.AccessConfig{KDF: kiosk.KDF{Time: 1, MemoryKiB: 64, Threads: 1}})
	setup, err := a.SetupSession(ctx)
	require.NoError(t, err)
	require.NoError(t, a.Setup(ctx, setup, "246800", "135700"))
	o := kiosk.NewOffice(m, a, time.Hour)
	s, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	reg, err := NewRegistry(at(c.cfg, registryURL))
	require.NoError(t, err)
	reg.Timeout = 2 * time.Second
	t.Cleanup(reg.Close)
	m.SetVoucherRegistry(reg, 0)
	c.st, c.m, c.o, c.s, c.reg = st, m, o, s, reg
	return c
}

// voucher prints a voucher of amount at the kiosk, as a cash-out does.
func (c *counter) voucher(amount game.Money) store.Voucher {
	c.t.Helper()
	ctx := context.Background()
	val, err := kiosk.NewValidation(rand.Reader)
	require.NoError(c.t, err)
	c.notes++
	_, err = c.st.BillIn(ctx, amount, fmt.Sprintf("note-%d", c.notes))
	require.NoError(c.t, err)
	v, err := c.st.IssueVoucher(ctx, store.VoucherRequest{Amount: amount, Validation: val, Expires: time.Now().Add(72 * time.Hour)})
	require.NoError(c.t, err)
	v, _, err = c.st.ConfirmVoucher(ctx, v.ID)
	require.NoError(c.t, err)
	return v
}

// publish sends the kiosk's outbox to the centre at url, up to its last
// record, and returns the conflicts the publisher reported.
func (c *counter) publish(url string) []VoucherConflict {
	c.t.Helper()
	st, err := c.st.OutboxState(context.Background())
	require.NoError(c.t, err)
	a := newAcks()
	p := newTestPublisher(c.t, at(c.cfg, url), c.st, a)
	var mu sync.Mutex
	var conflicts []VoucherConflict
	p.OnConflict = func(v VoucherConflict) {
		mu.Lock()
		conflicts = append(conflicts, v)
		mu.Unlock()
		ReportConflict(context.Background(), c.st, v, c.t.Logf)
	}
	stop := run(p)
	a.wait(c.t, st.Last)
	stop()
	mu.Lock()
	defer mu.Unlock()
	return conflicts
}

func (c *counter) state(v store.Voucher) store.VoucherState {
	c.t.Helper()
	got, err := c.st.Voucher(context.Background(), v.ID)
	require.NoError(c.t, err)
	return got.State
}

func (c *counter) events(code string) []store.Event {
	c.t.Helper()
	ev, err := c.st.EventsWhere(context.Background(), store.EventQuery{N: 1000})
	require.NoError(c.t, err)
	var out []store.Event
	for _, e := range ev {
		if e.Code == code {
			out = append(out, e)
		}
	}
	return out
}

// A voucher printed at kiosk A reaches the bucket once A's records are
// published; then A's counter, the centre and kiosk B's counter try to pay
// it at once: exactly one of A and the centre pays it, B knows nothing of
// it (it can neither compute nor read A's entries) and changes nothing,
// and the loser changes nothing. A voucher paid at the centre is refused
// at A's counter with who paid it and when; one paid at A's counter before
// its records were published is refused at the centre.
func TestVoucherPaidOnceAcrossCounters(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	a, b := newCounter(t, ns, "A", ns.url()), newCounter(t, ns, "B", ns.url())
	centre := ns.vouchers(t)

	const rounds = 12
	vs := make([]store.Voucher, rounds)
	for i := range vs {
		vs[i] = a.voucher(5 * game.Euro)
	}
	assert.Empty(t, a.publish(ns.url()))
	for _, v := range vs {
		e, err := centre.Find(ctx, v.Validation)
		require.NoError(t, err, "the voucher's issue reached the bucket with its records")
		assert.Equal(t, "printed", e.State)
		assert.Equal(t, "A", e.Kiosk)
	}

	var atKiosk, atCentre int
	for _, v := range vs {
		var wg sync.WaitGroup
		start := make(chan struct{})
		var kioskErr, centreErr, otherErr error
		wg.Add(3)
		go func() { defer wg.Done(); <-start; _, kioskErr = a.o.PayVoucher(ctx, a.s, v.Validation) }()
		go func() {
			defer wg.Done()
			<-start
			_, centreErr = centre.Pay(ctx, v.Validation, "central", time.Now())
		}()
		go func() { defer wg.Done(); <-start; _, otherErr = b.o.PayVoucher(ctx, b.s, v.Validation) }()
		close(start)
		wg.Wait()

		require.ErrorIs(t, otherErr, store.ErrNotFound, "kiosk B never pays A's voucher, nor learns of it")
		require.NotErrorIs(t, otherErr, kiosk.ErrFleetOffline)

		e, err := centre.Find(ctx, v.Validation)
		require.NoError(t, err)
		switch {
		case kioskErr == nil && centreErr == nil:
			t.Fatalf("voucher %d paid twice", v.ID)
		case kioskErr == nil:
			atKiosk++
			assert.ErrorIs(t, centreErr, ErrVoucherNotPayable)
			assert.Equal(t, store.VoucherPaid, a.state(v))
			assert.Equal(t, stateClaimed, e.State, "claimed by A's counter, paid once its record is published")
			assert.Equal(t, "A", e.PaidKiosk)
		case centreErr == nil:
			atCentre++
			require.Equal(t, "paid", e.State)
			require.ErrorIs(t, kioskErr, kiosk.ErrPaidElsewhere)
			var fr *kiosk.FleetRefusal
			require.ErrorAs(t, kioskErr, &fr)
			assert.Equal(t, "central", fr.Voucher.PaidBy)
			assert.Empty(t, fr.Voucher.PaidKiosk)
			assert.Equal(t, store.VoucherPrinted, a.state(v), "refused: nothing changed at the kiosk")
		default:
			t.Fatalf("voucher %d paid nowhere: kiosk %v, centre %v", v.ID, kioskErr, centreErr)
		}
	}
	t.Logf("paid at kiosk A %d times, at the centre %d times", atKiosk, atCentre)
	m, err := a.st.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(atKiosk), m.Get(store.MeterVouchersPaidCount), "the kiosk counts only what it paid")
	assert.Len(t, a.events("voucher_refused"), atCentre)
	mb, err := b.st.Meters(ctx)
	require.NoError(t, err)
	assert.Zero(t, mb.Get(store.MeterVouchersPaidCount), "B paid nothing")
	assert.Empty(t, a.publish(ns.url()))
	for _, v := range vs {
		e, err := centre.Find(ctx, v.Validation)
		require.NoError(t, err)
		assert.Equal(t, "paid", e.State, "A's records published: its claims are paid")
	}

	// Paid at the centre, then brought to A's counter: refused, saying so.
	v := a.voucher(10 * game.Euro)
	a.publish(ns.url())
	_, err = centre.Pay(ctx, v.Validation, "guichet-7", time.Now())
	require.NoError(t, err)
	_, err = a.o.PayVoucher(ctx, a.s, v.Validation)
	require.ErrorIs(t, err, kiosk.ErrPaidElsewhere)
	assert.Equal(t, store.VoucherPrinted, a.state(v))

	// Paid at A's counter before A's records reached the centre: the
	// centre refuses it, and A's records change nothing.
	w := a.voucher(20 * game.Euro)
	_, err = a.o.PayVoucher(ctx, a.s, w.Validation)
	require.NoError(t, err)
	_, err = centre.Pay(ctx, w.Validation, "central", time.Now())
	require.ErrorIs(t, err, ErrVoucherNotPayable)
	assert.Empty(t, a.publish(ns.url()), "the kiosk's own payment is no conflict")
	e, err := centre.Find(ctx, w.Validation)
	require.NoError(t, err)
	assert.Equal(t, "paid", e.State)
	assert.Equal(t, "A", e.PaidKiosk)
	assert.Equal(t, string(kiosk.RoleStaff), e.PaidBy, "by whom, as the claim said")
	assert.Empty(t, e.Conflict)

	// None of those numbers is in the records or the bucket.
	var numbers []string
	for _, x := range append(vs, v, w) {
		numbers = append(numbers, x.Validation)
	}
	noNumberLeft(t, ns.js(t), numbers...)
}

// A kiosk whose centre does not answer pays its own vouchers up to the
// offline limit, refuses a larger one and changes nothing, and cannot tell
// another kiosk's voucher from a wrong number. When its records reach the
// centre, a voucher the centre paid meanwhile is reported as paid twice:
// a critical event at the kiosk, the bucket's entry, and the centre's
// status of the kiosk.
func TestOfflinePaymentConflictReported(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	js := ns.js(t)
	// A's link to the centre is cut for its counter: nothing listens there.
	a := newCounter(t, ns, "A", "tls://127.0.0.1:1")
	centre := ns.vouchers(t)
	twice := a.voucher(20 * game.Euro)
	once := a.voucher(50 * game.Euro)
	big := a.voucher(200 * game.Euro) // above kiosk.DefaultOfflinePayLimit
	a.publish(ns.url())

	_, err := centre.Pay(ctx, twice.Validation, "central", time.Now())
	require.NoError(t, err, "the centre pays it while A is cut off")

	_, err = a.o.PayVoucher(ctx, a.s, twice.Validation)
	require.NoError(t, err, "offline, A pays its own voucher under the limit")
	_, err = a.o.PayVoucher(ctx, a.s, once.Validation)
	require.NoError(t, err)
	_, err = a.o.PayVoucher(ctx, a.s, big.Validation)
	require.ErrorIs(t, err, kiosk.ErrOfflineLimit)
	var off *kiosk.OfflineRefusal
	require.ErrorAs(t, err, &off)
	assert.Equal(t, kiosk.DefaultOfflinePayLimit, off.Limit)
	assert.Equal(t, store.VoucherPrinted, a.state(big), "refused: nothing changed")
	assert.Len(t, a.events("voucher_paid_offline"), 2)
	val, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	_, err = a.o.PayVoucher(ctx, a.s, val)
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, err, kiosk.ErrFleetOffline)

	conflicts := a.publish(ns.url())
	require.Len(t, conflicts, 1, "only the voucher paid at the centre too")
	c := conflicts[0]
	assert.Equal(t, twice.ID, c.ID)
	assert.Equal(t, "A", c.Kiosk)
	assert.Equal(t, "central", c.Entry.PaidBy)
	ev := a.events(EventVoucherPaidTwice)
	require.Len(t, ev, 1)
	assert.Equal(t, store.LevelCritical, ev[0].Level)
	assert.Contains(t, ev[0].Detail, "paid twice")
	assert.NotContains(t, ev[0].Detail, twice.Validation, "the log never holds a payable number")

	e, err := centre.Find(ctx, twice.Validation)
	require.NoError(t, err)
	assert.Contains(t, e.Conflict, "also paid by kiosk A")
	e, err = centre.Find(ctx, once.Validation)
	require.NoError(t, err)
	assert.Equal(t, "A", e.PaidKiosk)
	assert.Empty(t, e.Conflict)

	// The centre's status lists it among A's problems.
	a.publish(ns.url())
	f := NewFleet()
	f.VoucherMaster = ns.master
	require.NoError(t, ReadRecords(ctx, js, "A", func(r Record) error {
		f.Add(r)
		return nil
	}))
	k := f.Kiosks["A"]
	require.NotNil(t, k)
	assert.True(t, hasProblem(k, "paid twice"), "problems: %q", k.Problems)
	assert.GreaterOrEqual(t, k.Faults, int64(1))
	assert.Len(t, k.Problems, 1, "%q", k.Problems)
	require.NoError(t, f.CheckVouchers(ctx, js))
	assert.Len(t, k.Problems, 1, "its entries agree with its records: %q", k.Problems)
	noNumberLeft(t, js, twice.Validation, once.Validation, big.Validation, val)
}

// A claim given back (the kiosk could not record the payment after all)
// leaves the voucher payable elsewhere once its records hold it; a claim
// of a voucher whose records have not reached the centre creates its
// entry claimed. A claim is given back even when the records came between
// the claim and its give-back and named themselves in the entry.
func TestClaimGivenBack(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	a := newCounter(t, ns, "A", ns.url())
	centre := ns.vouchers(t)
	early, late := a.voucher(10*game.Euro), a.voucher(20*game.Euro)
	claimOf := func(v store.Voucher) kiosk.VoucherClaim {
		return kiosk.VoucherClaim{Validation: v.Validation, ID: v.ID, Amount: v.Amount, Issued: v.Issued, Expires: v.Expires,
			At: time.Now(), By: "staff"}
	}
	releaseEarly, err := a.reg.Claim(ctx, claimOf(early))
	require.NoError(t, err)
	e, err := centre.Find(ctx, early.Validation)
	require.NoError(t, err)
	assert.Equal(t, stateClaimed, e.State, "created claimed: its records have not come")
	_, err = centre.Pay(ctx, early.Validation, "central", time.Now())
	require.ErrorIs(t, err, ErrVoucherNotPayable, "claimed")
	require.NoError(t, releaseEarly(ctx))
	e, err = centre.Find(ctx, early.Validation)
	require.NoError(t, err)
	assert.Equal(t, "printed", e.State)
	_, err = centre.Pay(ctx, early.Validation, "central", time.Now())
	require.ErrorIs(t, err, ErrVoucherUnreported, "given back before its records came")

	releaseLate, err := a.reg.Claim(ctx, claimOf(late))
	require.NoError(t, err)
	a.publish(ns.url())
	e, err = centre.Find(ctx, late.Validation)
	require.NoError(t, err)
	assert.Equal(t, stateClaimed, e.State)
	assert.NotZero(t, e.Record, "its records name themselves in the claimed entry")
	require.NoError(t, releaseLate(ctx), "given back after its records came")
	e, err = centre.Find(ctx, late.Validation)
	require.NoError(t, err)
	assert.Equal(t, "printed", e.State)
	assert.NotZero(t, e.Record)

	for _, v := range []store.Voucher{early, late} {
		_, err = centre.Pay(ctx, v.Validation, "central", time.Now())
		require.NoError(t, err, "given back, its records come: payable again")
		_, err = a.reg.Claim(ctx, claimOf(v))
		require.ErrorIs(t, err, kiosk.ErrPaidElsewhere)
		var fr *kiosk.FleetRefusal
		require.True(t, errors.As(err, &fr))
		assert.Equal(t, "central", fr.Voucher.PaidBy)
	}
}

// A payout the fleet recorded and the kiosk's store then refused (here:
// the store's clock says the voucher expired, the machine's not yet) is
// given back to the fleet: the entry is printed again, payable at the
// centre, and nothing is paid at the kiosk.
func TestOfficeGivesBackAClaimTheStoreRefused(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	a := newCounter(t, ns, "A", ns.url())
	centre := ns.vouchers(t)
	v := a.voucher(10 * game.Euro)
	a.publish(ns.url())

	a.ahead.Store(int64(100 * time.Hour))
	_, err := a.o.PayVoucher(ctx, a.s, v.Validation)
	require.ErrorIs(t, err, store.ErrVoucherExpired)
	assert.Equal(t, store.VoucherPrinted, a.state(v))
	e, err := centre.Find(ctx, v.Validation)
	require.NoError(t, err)
	assert.Equal(t, "printed", e.State, "the claim was given back")
	assert.Empty(t, a.events("voucher_claim_left"))
	_, err = centre.Pay(ctx, v.Validation, "central", time.Now())
	require.NoError(t, err, "payable at the centre")
}

// What the NATS client reports outside a call (a write on a broken
// connection) goes to the kiosk's log, not to the client's own print on
// stderr.
func TestClientAsyncErrorsGoToTheKiosksLog(t *testing.T) {
	var got []error
	c := Config{URL: "tls://127.0.0.1:4222", KioskID: "PH-0001", OnAsyncError: func(err error) { got = append(got, err) }}
	for _, receiver := range []bool{true, false} {
		if !receiver {
			c.OnAsyncError = nil
		}
		opts, err := c.Options()
		require.NoError(t, err)
		o := nats.GetDefaultOptions()
		for _, set := range opts {
			require.NoError(t, set(&o))
		}
		require.NotNil(t, o.AsyncErrorCB, "the client's default handler prints on stderr")
		o.AsyncErrorCB(nil, nil, syscall.EPIPE)
	}
	require.Len(t, got, 1, "received with a receiver, dropped without")
	assert.ErrorIs(t, got[0], syscall.EPIPE)
}

// The publisher and the block fetcher reconnect alike: after each session
// that ends, the wait doubles up to its bound, and starts from the
// shortest again after a session that made progress; a cancelled context
// ends it at once.
func TestReconnectingBacksOff(t *testing.T) {
	const lo, hi = 250 * time.Millisecond, time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := []bool{false, false, false, false, true, false, false}
	sessions := 0
	var told []error
	var waits []time.Duration
	err := reconnecting(ctx, lo, hi, func(context.Context) (bool, error) {
		sessions++
		if sessions > len(progress) {
			cancel()
			return false, ctx.Err()
		}
		return progress[sessions-1], errors.New("link down")
	}, func(err error) { told = append(told, err) }, func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, len(progress)+1, sessions)
	assert.Len(t, told, len(progress), "every session's end told, not the cancelled one's")
	assert.Equal(t, []time.Duration{lo, 2 * lo, hi, hi, lo, 2 * lo, hi}, waits)

	// A context cancelled during a wait ends it with the context's error.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	err = reconnecting(context.Background(), lo, hi, func(context.Context) (bool, error) { return false, errors.New("down") },
		func(error) {}, func(context.Context, time.Duration) error { return hw.SystemClock{}.Sleep(ctx2, time.Hour) })
	assert.ErrorIs(t, err, context.Canceled)
}

// A voucher of this kiosk that the fleet knows and its store does not (the
// store put back to a copy from before its print) is refused at the
// counter as the fleet's, naming this kiosk, and nothing is paid.
func TestOwnVoucherTheStoreLostIsRefused(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	a := newCounter(t, ns, "A", ns.url())
	v := a.voucher(20 * game.Euro)
	a.publish(ns.url())
	restored := newCounter(t, ns, "A", ns.url()) // A again, on a store without the voucher
	_, err := restored.o.PayVoucher(ctx, restored.s, v.Validation)
	require.ErrorIs(t, err, kiosk.ErrForeignVoucher)
	var fr *kiosk.FleetRefusal
	require.ErrorAs(t, err, &fr)
	assert.Equal(t, "A", fr.Voucher.Kiosk)
	assert.Equal(t, v.ID, fr.Voucher.ID)
	m, err := restored.st.Meters(ctx)
	require.NoError(t, err)
	assert.Zero(t, m.Get(store.MeterVouchersPaidCount))
	e, err := ns.vouchers(t).Find(ctx, v.Validation)
	require.NoError(t, err)
	assert.Equal(t, "printed", e.State, "still payable once its kiosk is whole")
}
