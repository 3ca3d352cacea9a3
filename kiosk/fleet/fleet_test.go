package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/store"
)

// natsServer is an embedded nats-server with JetStream on loopback; it can
// be stopped and started again on the same port and store directory.
type natsServer struct {
	t    *testing.T
	dir  string
	port int
	s    *server.Server
}

func startNATS(t *testing.T) *natsServer {
	t.Helper()
	n := &natsServer{t: t, dir: t.TempDir(), port: -1}
	n.start()
	n.port = n.s.Addr().(*net.TCPAddr).Port
	t.Cleanup(n.stop)
	return n
}

// start starts the server on its port and store directory (again after
// stop), failing the test if it does not.
func (n *natsServer) start() {
	n.t.Helper()
	require.NoError(n.t, n.startErr())
}

// startErr is start for any goroutine: it returns its error.
func (n *natsServer) startErr() error {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: n.port, JetStream: true,
		StoreDir: n.dir, NoLog: true, NoSigs: true})
	if err != nil {
		return err
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return errors.New("nats-server did not start")
	}
	n.s = s
	return nil
}

func (n *natsServer) stop() {
	if n.s != nil {
		n.s.Shutdown()
		n.s.WaitForShutdown()
		n.s = nil
	}
}

func (n *natsServer) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", n.port) }

func (n *natsServer) js(t *testing.T) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(n.url())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// logN writes n events, n outbox records.
func logN(t *testing.T, s *store.Store, n int) {
	t.Helper()
	for i := range n {
		_, err := s.Log(context.Background(), store.Event{Level: store.LevelInfo, Source: "test", Code: "tick", Detail: fmt.Sprint(i)})
		require.NoError(t, err)
	}
}

// acks follows a publisher's mark: wait returns once it reached seq.
type acks struct {
	mu   sync.Mutex
	last int64
	ch   chan struct{}
}

func newAcks() *acks { return &acks{ch: make(chan struct{}, 1)} }

func (a *acks) on(upTo int64) {
	a.mu.Lock()
	a.last = upTo
	a.mu.Unlock()
	select {
	case a.ch <- struct{}{}:
	default:
	}
}

func (a *acks) wait(t *testing.T, seq int64) {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		a.mu.Lock()
		last := a.last
		a.mu.Unlock()
		if last >= seq {
			return
		}
		select {
		case <-a.ch:
		case <-deadline.C:
			t.Fatalf("published up to %d, waiting for %d", last, seq)
		}
	}
}

func newTestPublisher(t *testing.T, url string, src Outbox, a *acks) *Publisher {
	t.Helper()
	p, err := NewPublisher(Config{URL: url, KioskID: "k1"}, src)
	require.NoError(t, err)
	p.MinBackoff, p.MaxBackoff, p.Poll = 10*time.Millisecond, 100*time.Millisecond, 20*time.Millisecond
	p.OnAck = a.on
	return p
}

// run starts p on its goroutine; the returned func stops it and waits.
func run(p *Publisher) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

// stored reads the stream's records of a kiosk, in order.
func stored(t *testing.T, js jetstream.JetStream, kiosk string) []int64 {
	t.Helper()
	var seqs []int64
	require.NoError(t, ReadRecords(context.Background(), js, kiosk, func(k string, r store.OutboxRecord, _ time.Time) error {
		assert.Equal(t, kiosk, k)
		seqs = append(seqs, r.Seq)
		return nil
	}))
	return seqs
}

func seqs(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// lostMark is a store whose published mark is not written while lose is
// set: the kiosk crashed after the server stored the records and before
// it wrote their mark (or the acknowledgement never came).
type lostMark struct {
	*store.Store
	lose atomic.Bool
}

func (l *lostMark) MarkPublished(ctx context.Context, seq int64) error {
	if l.lose.Load() {
		return errors.New("crash before the mark")
	}
	return l.Store.MarkPublished(ctx, seq)
}

// Records arrive in order exactly once across a publisher stopped and
// started again, a mark lost after the server stored the records, and a
// server restart.
func TestPublishInOrderOnce(t *testing.T) {
	ns := startNATS(t)
	s := openStore(t)
	src := &lostMark{Store: s}
	a := newAcks()
	logN(t, s, 300)

	stop := run(newTestPublisher(t, ns.url(), src, a))
	a.wait(t, 300)
	stop()

	// Sent, stored, but the mark is lost: the next publisher sends them
	// again and the server keeps one of each.
	logN(t, s, 200)
	src.lose.Store(true)
	var failures atomic.Int64
	p := newTestPublisher(t, ns.url(), src, newAcks())
	p.OnError = func(error) { failures.Add(1) }
	stop = run(p)
	js := ns.js(t)
	require.Eventually(t, func() bool { return len(stored(t, js, "k1")) == 500 && failures.Load() > 0 },
		30*time.Second, 10*time.Millisecond)
	stop()
	o, err := s.OutboxState(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(300), o.Published, "the mark was lost")
	src.lose.Store(false)

	a = newAcks()
	stop = run(newTestPublisher(t, ns.url(), src, a))
	a.wait(t, 500)
	ns.stop()
	logN(t, s, 100)
	ns.start()
	a.wait(t, 600)
	stop()

	assert.Equal(t, seqs(1, 600), stored(t, ns.js(t), "k1"))
	o, err = s.OutboxState(context.Background())
	require.NoError(t, err)
	assert.Equal(t, store.OutboxState{Last: 600, Published: 600}, o)
}

// A kiosk whose server is down keeps writing (the store never waits for
// the publisher) and catches up once the server is back.
func TestOfflineThenCatchUp(t *testing.T) {
	ns := startNATS(t)
	ns.stop()
	s := openStore(t)
	a := newAcks()
	p := newTestPublisher(t, ns.url(), s, a)
	offline := make(chan struct{})
	var once sync.Once
	p.OnError = func(error) { once.Do(func() { close(offline) }) }
	stop := run(p)
	defer stop()
	<-offline

	const n = 2000
	logN(t, s, n)
	assert.False(t, p.Status().Connected)
	o, err := s.OutboxState(context.Background())
	require.NoError(t, err)
	assert.Equal(t, store.OutboxState{Last: n}, o, "written while offline, nothing published")

	ns.start()
	began := time.Now()
	a.wait(t, n)
	t.Logf("caught up %d records in %v", n, time.Since(began).Round(time.Millisecond))
	assert.Equal(t, seqs(1, n), stored(t, ns.js(t), "k1"))
	assert.True(t, p.Status().Connected)
}

// Two counters paying the same voucher at once: exactly one pays it.
func TestPayVoucherOnce(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	js := ns.js(t)
	_, kv, err := Ensure(ctx, js, 1)
	require.NoError(t, err)
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	const val = "123456789012345678"
	rec := func(seq int64, kind, state string) store.OutboxRecord {
		return store.OutboxRecord{Seq: seq, Kind: kind, Payload: []byte(fmt.Sprintf(
			`{"id":1,"at":%d,"validation":%q,"amount":7000,"expires_at":%d,"state":%q}`,
			now.UnixNano(), val, now.Add(24*time.Hour).UnixNano(), state))}
	}
	_, err = PayVoucher(ctx, kv, val, "counter-a", now)
	assert.ErrorIs(t, err, ErrVoucherUnknown)
	require.NoError(t, applyVoucherRecord(ctx, kv, "k1", rec(1, "voucher", "issued")))
	_, err = PayVoucher(ctx, kv, val, "counter-a", now)
	assert.ErrorIs(t, err, ErrVoucherNotPayable, "issued, not printed")
	require.NoError(t, applyVoucherRecord(ctx, kv, "k1", rec(2, "voucher_state", "printed")))
	require.NoError(t, applyVoucherRecord(ctx, kv, "k1", rec(1, "voucher", "issued")), "a resend changes nothing")
	_, err = PayVoucher(ctx, kv, val, "counter-a", now.Add(25*time.Hour))
	assert.ErrorIs(t, err, ErrVoucherNotPayable, "expired")

	for round := range 20 {
		v := fmt.Sprintf("%018d", round)
		r := rec(1, "voucher_state", "printed")
		r.Payload = []byte(fmt.Sprintf(`{"id":1,"validation":%q,"amount":7000,"expires_at":%d,"state":"printed"}`,
			v, now.Add(time.Hour).UnixNano()))
		require.NoError(t, applyVoucherRecord(ctx, kv, "k1", r))
		var wg sync.WaitGroup
		var won, refused atomic.Int64
		start := make(chan struct{})
		for _, by := range []string{"counter-a", "counter-b"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, err := PayVoucher(ctx, kv, v, by, now)
				switch {
				case err == nil:
					won.Add(1)
				case errors.Is(err, ErrVoucherNotPayable):
					refused.Add(1)
				default:
					t.Error(err)
				}
			}()
		}
		close(start)
		wg.Wait()
		assert.Equal(t, int64(1), won.Load(), "round %d", round)
		assert.Equal(t, int64(1), refused.Load(), "round %d", round)
		e, err := LookupVoucher(ctx, kv, v)
		require.NoError(t, err)
		assert.Equal(t, "paid", e.State)
	}
	// The kiosk's own later record of the voucher does not undo the payment.
	require.NoError(t, applyVoucherRecord(ctx, kv, "k1", rec(2, "voucher_state", "printed")))
}

// A batch sent again (its acknowledgement lost, its mark not written) is
// stored once: the server drops the copies by their Nats-Msg-Id.
func TestResendIsStoredOnce(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	s := openStore(t)
	src := &lostMark{Store: s}
	src.lose.Store(true)
	logN(t, s, 50)
	js := ns.js(t)
	_, kv, err := Ensure(ctx, js, 1)
	require.NoError(t, err)
	p := newTestPublisher(t, ns.url(), src, newAcks())
	for range 3 {
		n, err := p.sendBatch(ctx, js, kv, RecordsSubject+"k1")
		assert.Equal(t, 0, n)
		require.ErrorContains(t, err, "crash before the mark")
	}
	assert.Equal(t, seqs(1, 50), stored(t, js, "k1"))
	info, err := js.Stream(ctx, RecordsStream)
	require.NoError(t, err)
	assert.Equal(t, uint64(50), info.CachedInfo().State.Msgs)
}
