package fleet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/fleet/authority"
	"pharaon/store"
)

// natsServer is an embedded nats-server with JetStream on loopback, in
// operator mode with the fleet's material as pharaon-central makes it
// (kiosk/fleet/authority): TLS, the centre's user with every right, and
// each kiosk's user with its permissions only (kiosk). It can be stopped
// and started again on the same port and store directory.
type natsServer struct {
	t *testing.T
	*authority.Server
	m      *authority.Material
	master []byte

	mu     sync.Mutex
	kiosks map[string]Config
}

func startNATS(t *testing.T) *natsServer {
	t.Helper()
	m, err := authority.Init(filepath.Join(t.TempDir(), "fleet"), authority.TLSInput{})
	require.NoError(t, err)
	master, err := m.VoucherMaster()
	require.NoError(t, err)
	n := &natsServer{t: t, Server: m.NewServer("127.0.0.1", -1, t.TempDir()), m: m, master: master, kiosks: map[string]Config{}}
	n.start()
	t.Cleanup(n.Stop)
	require.NoError(t, Provision(context.Background(), n.js(t), 1))
	n.serveClaims()
	return n
}

// serveClaims runs the centre's claim service for the test, on a
// connection of its own that follows the server through its restarts.
func (n *natsServer) serveClaims() {
	n.t.Helper()
	nc, err := n.m.Connect(n.url(), authority.AccountName, authority.CentralUser,
		nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	require.NoError(n.t, err)
	stop, err := ServeClaims(nc, nil)
	require.NoError(n.t, err)
	n.t.Cleanup(func() { stop(); nc.Close() })
}

// start starts the server on its port and store directory (again after
// stop), failing the test if it does not.
func (n *natsServer) start() {
	n.t.Helper()
	require.NoError(n.t, n.Start())
}

func (n *natsServer) stop() { n.Stop() }

func (n *natsServer) url() string { return n.URL() }

// js is the centre's connection: its user has every right.
func (n *natsServer) js(t *testing.T) jetstream.JetStream {
	t.Helper()
	nc, err := n.m.Connect(n.url(), authority.AccountName, authority.CentralUser)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

// kiosk is the configuration of kiosk id in groups, as pharaon-central
// kiosk add makes it: its own user with KioskPermissions, its consumer of
// the deliveries, its voucher key. The same kiosk asked again gets the
// same configuration.
func (n *natsServer) kiosk(t *testing.T, id string, groups ...string) Config {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if c, ok := n.kiosks[id]; ok {
		return c
	}
	p := authority.Permissions(KioskPermissions(id, groups))
	creds, err := n.m.IssueUser(authority.AccountName, id, &p, time.Time{})
	require.NoError(t, err)
	require.NoError(t, ProvisionKiosk(context.Background(), n.js(t), id, groups))
	c := Config{URL: n.url(), KioskID: id, CredsFile: creds, CAFile: n.m.CAFile(), VoucherKey: KioskVoucherKey(n.master, id)}
	n.kiosks[id] = c
	return c
}

// at is c reaching the server through url (a proxy).
func at(c Config, url string) Config {
	c.URL = url
	return c
}

// keys are the kiosk's voucher keys.
func (n *natsServer) keys(t *testing.T, id string) voucherKeys {
	t.Helper()
	k, err := newVoucherKeys(id, KioskVoucherKey(n.master, id))
	require.NoError(t, err)
	return k
}

// vouchers is the centre's voucher bucket for the kiosks configured.
func (n *natsServer) vouchers(t *testing.T) *Vouchers {
	t.Helper()
	n.mu.Lock()
	ids := slices.Sorted(maps.Keys(n.kiosks))
	n.mu.Unlock()
	v, err := NewVouchers(context.Background(), n.js(t), n.master, ids)
	require.NoError(t, err)
	return v
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

func newTestPublisher(t *testing.T, cfg Config, src Outbox, a *acks) *Publisher {
	t.Helper()
	p, err := NewPublisher(cfg, src)
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
	require.NoError(t, ReadRecords(context.Background(), js, kiosk, func(r Record) error {
		assert.Equal(t, kiosk, r.Kiosk)
		assert.Empty(t, r.Claims)
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

	k1 := ns.kiosk(t, "k1")
	stop := run(newTestPublisher(t, k1, src, a))
	a.wait(t, 300)
	stop()

	// Sent, stored, but the mark is lost: the next publisher sends them
	// again and the server keeps one of each.
	logN(t, s, 200)
	src.lose.Store(true)
	var failures atomic.Int64
	p := newTestPublisher(t, k1, src, newAcks())
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
	stop = run(newTestPublisher(t, k1, src, a))
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
	k1 := ns.kiosk(t, "k1")
	ns.stop()
	s := openStore(t)
	a := newAcks()
	p := newTestPublisher(t, k1, s, a)
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

// Two counters of the centre paying the same voucher at once: exactly one
// pays it. The entry is the kiosk's, written through its own connection.
func TestPayVoucherOnce(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	kb := NewBucket(kioskJS(t, ns.kiosk(t, "k1")), VoucherBucket)
	keys := ns.keys(t, "k1")
	centre := ns.vouchers(t)
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	const val = "123456789012345678"
	rec := func(seq int64, kind, state string) store.OutboxRecord {
		return store.OutboxRecord{Seq: seq, Kind: kind, Payload: []byte(fmt.Sprintf(
			`{"id":1,"at":%d,"validation":%q,"amount":7000,"expires_at":%d,"state":%q}`,
			now.UnixNano(), val, now.Add(24*time.Hour).UnixNano(), state))}
	}
	_, err := centre.Pay(ctx, val, "counter-a", now)
	assert.ErrorIs(t, err, ErrVoucherUnknown)
	require.NoError(t, applyVoucherRecord(ctx, kb, keys, rec(1, "voucher", "issued")))
	_, err = centre.Pay(ctx, val, "counter-a", now)
	assert.ErrorIs(t, err, ErrVoucherNotPayable, "issued, not printed")
	require.NoError(t, applyVoucherRecord(ctx, kb, keys, rec(2, "voucher_state", "printed")))
	require.NoError(t, applyVoucherRecord(ctx, kb, keys, rec(1, "voucher", "issued")), "a resend changes nothing")
	_, err = centre.Pay(ctx, val, "counter-a", now.Add(25*time.Hour))
	assert.ErrorIs(t, err, ErrVoucherNotPayable, "expired")

	// Vouchers its kiosk printed and published: the centre pays them (its
	// records hold them), each once.
	k1 := newCounter(t, ns, "k1", ns.url())
	var printed []store.Voucher
	for range 20 {
		printed = append(printed, k1.voucher(50*game.Euro))
	}
	k1.publish(ns.url())
	for round, pv := range printed {
		v := pv.Validation
		var wg sync.WaitGroup
		var won, refused atomic.Int64
		start := make(chan struct{})
		for _, by := range []string{"counter-a", "counter-b"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, err := centre.Pay(ctx, v, by, time.Now())
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
		e, err := centre.Find(ctx, v)
		require.NoError(t, err)
		assert.Equal(t, "paid", e.State)
		assert.Equal(t, "k1", e.Kiosk)
	}
	// The kiosk's own later record of a voucher does not undo its payment.
	last := printed[19].Validation
	r := rec(3, "voucher_state", "printed")
	r.Payload = []byte(fmt.Sprintf(`{"id":1,"validation":%q,"amount":7000,"expires_at":%d,"state":"printed"}`,
		last, now.Add(time.Hour).UnixNano()))
	require.NoError(t, applyVoucherRecord(ctx, kb, keys, r))
	e, err := centre.Find(ctx, last)
	require.NoError(t, err)
	assert.Equal(t, "paid", e.State)
}

// kioskJS is a JetStream connection as the kiosk c (its credentials, its
// inbox): what its permissions allow, and no more.
func kioskJS(t *testing.T, c Config) jetstream.JetStream {
	t.Helper()
	nc, err := c.connect()
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

// A batch sent again (its acknowledgement lost, its mark not written) is
// stored once: the server drops the copies by their Nats-Msg-Id, or
// refuses them for not following the kiosk's last record.
func TestResendIsStoredOnce(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	s := openStore(t)
	src := &lostMark{Store: s}
	src.lose.Store(true)
	logN(t, s, 50)
	k1 := ns.kiosk(t, "k1")
	kjs := kioskJS(t, k1)
	p := newTestPublisher(t, k1, src, newAcks())
	var last uint64 // the stream's sequence of the kiosk's last record
	for range 3 {
		n, err := p.sendBatch(ctx, kjs, NewBucket(kjs, VoucherBucket), RecordsSubject+"k1", &last)
		if isWrongLastSeq(err) {
			assert.Equal(t, 50, n, "sent, refused")
			continue
		}
		assert.Equal(t, 0, n)
		require.ErrorContains(t, err, "crash before the mark")
	}
	js := ns.js(t)
	assert.Equal(t, seqs(1, 50), stored(t, js, "k1"))
	info, err := js.Stream(ctx, RecordsStream)
	require.NoError(t, err)
	assert.Equal(t, uint64(50), info.CachedInfo().State.Msgs)
}
