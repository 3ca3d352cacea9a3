package fleet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/fleet/authority"
	"pharaon/store"
)

// The centre as a three-node cluster (docs/fleet.md, The centre as a
// cluster): the streams and buckets replicated on the three, the kiosks
// given the three nodes' URLs. kiosk/fleet/fleettest.StartCluster is the
// same for the other packages' tests.

// natsCluster is the fleet's cluster of embedded nodes on loopback
// (authority.LocalCluster), provisioned with as many replicas as nodes,
// with the centre's claim service.
type natsCluster struct {
	t      *testing.T
	m      *authority.Material
	master []byte
	nodes  []*authority.Server

	mu     sync.Mutex
	kiosks map[string]Config
}

func startCluster(t *testing.T, n int) *natsCluster {
	t.Helper()
	m, err := authority.Init(t.TempDir(), authority.TLSInput{})
	require.NoError(t, err)
	master, err := m.VoucherMaster()
	require.NoError(t, err)
	stores := make([]string, n)
	for i := range stores {
		stores[i] = t.TempDir()
	}
	nodes, err := m.LocalCluster("127.0.0.1", stores)
	require.NoError(t, err)
	c := &natsCluster{t: t, m: m, master: master, nodes: nodes, kiosks: map[string]Config{}}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, s := range nodes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = s.Start() }()
		t.Cleanup(s.Stop)
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	// JetStream answers once the nodes elected their meta leader.
	js := c.js(t)
	var perr error
	require.Eventually(t, func() bool {
		perr = Provision(context.Background(), js, n)
		return perr == nil
	}, time.Minute, 100*time.Millisecond, "provision: %v", perr)
	nc := c.connect(t, nats.Name("claims"))
	stop, err := ServeClaims(nc, nil)
	require.NoError(t, err)
	t.Cleanup(stop)
	return c
}

// url is the kiosks' URL: every node's.
func (c *natsCluster) url() string {
	urls := make([]string, len(c.nodes))
	for i, s := range c.nodes {
		urls[i] = s.URL()
	}
	return strings.Join(urls, ",")
}

// connect is a connection as the centre that goes from node to node as
// they stop and start, closed at the test's end.
func (c *natsCluster) connect(t *testing.T, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := c.m.Connect(c.url(), authority.AccountName, authority.CentralUser,
		append([]nats.Option{nats.MaxReconnects(-1), nats.ReconnectWait(50 * time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

func (c *natsCluster) js(t *testing.T) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(c.connect(t))
	require.NoError(t, err)
	return js
}

// kiosk is kiosk id's configuration, as natsServer.kiosk, reaching every
// node.
func (c *natsCluster) kiosk(t *testing.T, id string) Config {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.kiosks[id]; ok {
		return k
	}
	p := authority.Permissions(KioskPermissions(id, nil))
	creds, err := c.m.IssueUser(authority.AccountName, id, &p, time.Time{})
	require.NoError(t, err)
	require.NoError(t, ProvisionKiosk(context.Background(), c.js(t), id, nil))
	k := Config{URL: c.url(), KioskID: id, CredsFile: creds, CAFile: c.m.CAFile(), VoucherKey: KioskVoucherKey(c.master, id)}
	c.kiosks[id] = k
	return k
}

func (c *natsCluster) keys(t *testing.T, id string) voucherKeys {
	t.Helper()
	k, err := newVoucherKeys(id, KioskVoucherKey(c.master, id))
	require.NoError(t, err)
	return k
}

func (c *natsCluster) vouchers(t *testing.T, js jetstream.JetStream) *Vouchers {
	t.Helper()
	c.mu.Lock()
	ids := slices.Sorted(maps.Keys(c.kiosks))
	c.mu.Unlock()
	v, err := NewVouchers(context.Background(), js, c.master, ids)
	require.NoError(t, err)
	return v
}

// replicated are the streams the fleet provisions: each must be whole on
// every node.
var replicated = []string{RecordsStream, BlocksStream, "KV_" + VoucherBucket, "KV_" + ClaimsBucket, "KV_" + BlockResults,
	"KV_" + RolloutsBucket, "KV_" + UpdateOffers, "KV_" + UpdateReports}

// replicas reads what node i's own replica of each stream holds (its last
// sequence and its count of messages); ok false while the node is stopped
// or does not hold them all yet.
func (c *natsCluster) replicas(i int) (last, msgs map[string]uint64, ok bool) {
	s := c.nodes[i].NATS()
	if s == nil {
		return nil, nil, false
	}
	acc, err := s.JszAccount(&server.JSzOptions{Account: c.m.AccountPublicKey(), Streams: true})
	if err != nil {
		return nil, nil, false
	}
	last, msgs = map[string]uint64{}, map[string]uint64{}
	for _, sd := range acc.Streams {
		last[sd.Name], msgs[sd.Name] = sd.State.LastSeq, sd.State.Msgs
	}
	for _, name := range replicated {
		if _, ok := last[name]; !ok {
			return nil, nil, false
		}
	}
	return last, msgs, true
}

// whole reports whether every node's replica of every stream holds at
// least what the stream held at target (a stream's last sequence, the
// highest any node had).
func (c *natsCluster) whole(target map[string]uint64) bool {
	for i := range c.nodes {
		last, _, ok := c.replicas(i)
		if !ok {
			return false
		}
		for name, seq := range target {
			if last[name] < seq {
				return false
			}
		}
	}
	return true
}

// high is the highest last sequence of each stream among the running
// nodes.
func (c *natsCluster) high() map[string]uint64 {
	out := map[string]uint64{}
	for i := range c.nodes {
		last, _, _ := c.replicas(i)
		for name, seq := range last {
			out[name] = max(out[name], seq)
		}
	}
	return out
}

// leader is the index of the node that leads stream, -1 if none does.
func (c *natsCluster) leader(ctx context.Context, js jetstream.JetStream, stream string) int {
	s, err := js.Stream(ctx, stream)
	if err != nil || s.CachedInfo().Cluster == nil {
		return -1
	}
	for i, n := range c.nodes {
		if n.Node().Name == s.CachedInfo().Cluster.Leader {
			return i
		}
	}
	return -1
}

// Provisioning an R1 fleet again with three replicas makes every stream
// and every bucket R3: a bucket made before is brought to the replicas
// too, not only the streams. Provisioning again without saying the
// replicas keeps them.
func TestProvisionReplicasOnTheCluster(t *testing.T) {
	c := startCluster(t, 3)
	ctx := context.Background()
	js := c.js(t)
	// What startCluster provisioned, brought down to one replica, as a
	// fleet provisioned before it had a cluster.
	for _, name := range replicated {
		s, err := js.Stream(ctx, name)
		require.NoError(t, err)
		cfg := s.CachedInfo().Config
		cfg.Replicas = 1
		_, err = js.UpdateStream(ctx, cfg)
		require.NoError(t, err, name)
	}
	require.NoError(t, Provision(ctx, js, 3))
	for _, name := range replicated {
		s, err := js.Stream(ctx, name)
		require.NoError(t, err)
		assert.Equal(t, 3, s.CachedInfo().Config.Replicas, name)
	}
	// Provisioned again without its replicas said: they stay three.
	require.NoError(t, Provision(ctx, js, 0))
	for _, name := range replicated {
		s, err := js.Stream(ctx, name)
		require.NoError(t, err)
		assert.Equal(t, 3, s.CachedInfo().Config.Replicas, name)
	}
}

// clusterParams are the fleet and the faults of TestFleetClusterFaults.
type clusterParams struct{ kiosks, machines, games int }

//	make test    4 kiosks (1 machine) x 60 games
//	-short       3 kiosks x 30 games
//	make soak    24 kiosks (4 machines) x 400 games
//
// PHARAON_CLUSTER_KIOSKS, _MACHINES and _GAMES choose otherwise.
func clusterParamsFor(t *testing.T) clusterParams {
	p := clusterParams{kiosks: 4, machines: 1, games: 60}
	if testing.Short() {
		p = clusterParams{kiosks: 3, games: 30}
	}
	if os.Getenv("PHARAON_SOAK") != "" {
		p = clusterParams{kiosks: 24, machines: 4, games: 400}
	}
	for name, v := range map[string]*int{"PHARAON_CLUSTER_KIOSKS": &p.kiosks, "PHARAON_CLUSTER_MACHINES": &p.machines, "PHARAON_CLUSTER_GAMES": &p.games} {
		if s := os.Getenv(name); s != "" {
			n, err := strconv.Atoi(s)
			require.NoError(t, err, name)
			*v = n
		}
	}
	p.machines = min(p.machines, p.kiosks)
	return p
}

// clusterFault is one fault of the run and what it cost.
type clusterFault struct {
	what      string
	node      string
	began     time.Time // the node stopped
	restarted time.Time // the node started again
	whole     time.Time // every replica of every stream held what the stream held at the restart
}

// payments pays each voucher the kiosks print from two counters of the
// centre at once, each trying again through the faults until it is
// paid, and tells how each went.
type payments struct {
	ctx context.Context
	vs  *Vouchers
	wg  sync.WaitGroup

	mu       sync.Mutex
	paid     map[string][]string // validation: the counters told it was theirs
	lost     map[string][]string // validation: the counters whose answer was lost and the entry says theirs
	longest  time.Duration       // the longest a payment waited once its kiosk's records held the voucher
	failures int                 // calls that failed for the faults (timeouts, no leader), tried again
}

func (p *payments) pay(val string) {
	for _, by := range []string{"counter-a", "counter-b"} {
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.payFrom(val, by) }()
	}
}

// payFrom pays val at counter by until the entry says paid. A call that
// fails for the faults is tried again, as a clerk would; a refusal says
// who paid it.
func (p *payments) payFrom(val, by string) {
	var began time.Time // the first call past the voucher's records
	lost := false
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) && p.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
		e, err := p.vs.Pay(ctx, val, by, time.Now())
		cancel()
		switch {
		case errors.Is(err, ErrVoucherUnknown), errors.Is(err, ErrVoucherUnreported),
			errors.Is(err, ErrVoucherNotPayable) && e.State != "paid":
			// Its kiosk's records, or its entry, not here yet.
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if began.IsZero() {
			began = time.Now()
		}
		if err == nil || errors.Is(err, ErrVoucherNotPayable) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if err == nil {
				p.paid[val] = append(p.paid[val], by)
			} else if lost && e.PaidBy == by {
				p.lost[val] = append(p.lost[val], by)
			}
			p.longest = max(p.longest, time.Since(began))
			return
		}
		lost = true
		p.mu.Lock()
		p.failures++
		p.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	}
}

// The centre on three nodes (docs/fleet.md, The centre as a cluster):
// kiosks play, print vouchers and claim blocks, two counters of the
// centre pay each voucher as soon as it is printed, and the centre reads
// its status, while the node leading the records is stopped and started
// again, then another node's store is wiped and the node started again
// empty, rebuilt from the two others. Afterwards: each record once in the
// stream and in order, on all three replicas; each voucher paid once;
// each block claimed by one kiosk; each kiosk's ledger the centre's to
// the cent. It logs the records per second, each fault's time to whole
// again, and the longest a publish, a payment and the centre's reads
// waited (docs/fleet.md).
func TestFleetClusterFaults(t *testing.T) {
	sp := clusterParamsFor(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tmpl := scaleTemplate(t)
	c := startCluster(t, 3)
	js := c.js(t)

	pay := &payments{ctx: ctx, vs: c.vouchers(t, js), paid: map[string][]string{}, lost: map[string][]string{}}
	ks := make([]*scaleKiosk, sp.kiosks)
	for i := range ks {
		ks[i] = newScaleKiosk(t, tmpl, i+1, i < sp.machines, sp.games, c.kiosk(t, scaleID(i+1)))
		ks[i].printed = pay.pay
	}
	pay.vs = c.vouchers(t, js) // every kiosk's
	var wg sync.WaitGroup
	for _, k := range ks {
		require.NoError(t, k.start(ctx))
	}
	// The longest a record waited for its acknowledgement: from its
	// writing (the store's clock) to the acknowledgement that covered it.
	var publishWait atomic.Int64
	for _, k := range ks {
		var last int64
		k.pub.OnAck = func(upTo int64) {
			if recs, err := k.st.Outbox(ctx, last, 1); err == nil && len(recs) == 1 {
				w := int64(time.Since(recs[0].At))
				for cur := publishWait.Load(); w > cur && !publishWait.CompareAndSwap(cur, w); cur = publishWait.Load() {
				}
			}
			last = upTo
			k.ack.on(upTo)
		}
		t.Cleanup(run(k.pub))
	}

	// Blocks claimed through the faults: four kiosks each claim the same
	// blocks, trying again whatever failed but a block taken.
	const claimBlocks = 40
	won := map[uint32][]string{}
	var claimMu sync.Mutex
	claimsDone := make(chan struct{})
	var claimWG sync.WaitGroup
	for _, k := range ks[:min(4, len(ks))] {
		claimWG.Add(1)
		go func() {
			defer claimWG.Done()
			cl, err := NewClaimer(c.kiosk(t, k.id))
			if !assert.NoError(t, err) {
				return
			}
			defer cl.Close()
			for n := uint32(1); n <= claimBlocks; n++ {
				for ctx.Err() == nil {
					cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
					_, err := cl.Claim(cctx, kiosk.BlockClaim{Emission: 9, Number: n, At: time.Now(), Via: "local"})
					ccancel()
					var taken *kiosk.BlockTakenError
					if err == nil || errors.As(err, &taken) {
						if err == nil {
							claimMu.Lock()
							won[n] = append(won[n], k.id)
							claimMu.Unlock()
						}
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(100 * time.Millisecond) // spread over the run
			}
		}()
	}
	go func() { claimWG.Wait(); close(claimsDone) }()

	// The centre's reads (what status and report fold) go on through the
	// faults.
	var reads, readFailures atomic.Int64
	var readGap atomic.Int64
	readsDone := make(chan struct{})
	readCtx, endReads := context.WithCancel(ctx)
	go func() {
		defer close(readsDone)
		rjs := c.js(t)
		lastOK := time.Now()
		for readCtx.Err() == nil {
			f := NewFleet()
			f.VoucherMaster = c.master
			rctx, rcancel := context.WithTimeout(readCtx, 20*time.Second)
			err := ReadRecords(rctx, rjs, "", func(r Record) error { f.Add(r); return nil })
			rcancel()
			if err != nil {
				readFailures.Add(1)
				time.Sleep(50 * time.Millisecond)
				continue
			}
			for _, k := range f.Kiosks {
				assert.Empty(t, k.Problems, "%s, read during the faults", k.Kiosk)
			}
			reads.Add(1)
			if g := int64(time.Since(lastOK)); g > readGap.Load() {
				readGap.Store(g)
			}
			lastOK = time.Now()
			time.Sleep(100 * time.Millisecond)
		}
		if g := int64(time.Since(lastOK)); g > readGap.Load() {
			readGap.Store(g) // the last read may have been waiting when the reads ended
		}
	}()

	// The faults, at fifths of the fleet's games: the records' leader
	// stopped at the first, started again at the second; at the third,
	// another node stopped and its store wiped, started again empty at
	// the fourth. Each waits for the replicas to be whole.
	prog := &progress{tick: make(chan struct{}, 1)}
	total := int64(sp.kiosks * sp.games)
	var faults []*clusterFault
	chaos := make(chan error, 1)
	go func() {
		chaos <- func() error {
			at := func(fifth int64) error { return prog.wait(ctx, fifth*total/5) }
			restart := func(f *clusterFault, i int) error {
				target := c.high()
				if err := c.nodes[i].Start(); err != nil {
					return err
				}
				f.restarted = time.Now()
				t.Logf("%s started %s", time.Now().Format("15:04:05.000"), f.node)
				for !c.whole(target) {
					if time.Since(f.restarted) > 3*time.Minute {
						return fmt.Errorf("%s: %s not whole 3 min after its start", f.what, f.node)
					}
					time.Sleep(20 * time.Millisecond)
				}
				f.whole = time.Now()
				return nil
			}
			if err := at(1); err != nil {
				return err
			}
			killed := c.leader(ctx, js, RecordsStream)
			if killed < 0 {
				return errors.New("the records have no leader")
			}
			f := &clusterFault{what: "stopped", node: c.nodes[killed].Node().Name, began: time.Now()}
			t.Logf("%s stop %s", time.Now().Format("15:04:05.000"), f.node)
			faults = append(faults, f)
			c.nodes[killed].Stop()
			if err := at(2); err != nil {
				return err
			}
			if err := restart(f, killed); err != nil {
				return err
			}
			if err := at(3); err != nil {
				return err
			}
			wiped := c.leader(ctx, js, RecordsStream)
			if wiped == killed || wiped < 0 {
				wiped = (killed + 1) % len(c.nodes)
			}
			f = &clusterFault{what: "wiped", node: c.nodes[wiped].Node().Name, began: time.Now()}
			t.Logf("%s wipe %s", time.Now().Format("15:04:05.000"), f.node)
			faults = append(faults, f)
			c.nodes[wiped].Stop()
			if err := os.RemoveAll(c.nodes[wiped].Store()); err != nil {
				return err
			}
			if err := at(4); err != nil {
				return err
			}
			return restart(f, wiped)
		}()
	}()

	playStart := time.Now()
	errs := make(chan error, len(ks))
	for _, k := range ks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := k.play(ctx, sp.games, prog.played); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		cancel()
		t.FailNow()
	}
	played := time.Since(playStart)
	require.NoError(t, <-chaos, "faults")
	// Every publisher catches up: one record at a time on three copies,
	// so a bound for a stuck publisher, not for a slow one.
	var records, failures int64
	for _, k := range ks {
		o, err := k.st.OutboxState(ctx)
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			p, err := k.st.OutboxState(ctx)
			return err == nil && p.Published == o.Last
		}, 10*time.Minute, 20*time.Millisecond, "%s: not published", k.id)
		records += o.Last
		failures += k.failures.Load()
	}
	caughtUp := time.Since(playStart)
	pay.wg.Wait()
	<-claimsDone
	// On two loaded cores a read of the whole stream can outlast the faults
	// and the kiosks' catching up: the reads end once one has come through
	// (a read is bounded by 20 s and ReadRecords' retries), and the longest
	// gap between two says how long the centre went without an answer.
	require.Eventually(t, func() bool { return reads.Load() > 0 }, 3*time.Minute, 50*time.Millisecond,
		"the centre's reads never came through (%d failed)", readFailures.Load())
	endReads()
	<-readsDone

	for _, f := range faults {
		t.Logf("node %s %s: whole again %v after it stopped, %v after it started again",
			f.node, f.what, f.whole.Sub(f.began).Round(time.Millisecond), f.whole.Sub(f.restarted).Round(time.Millisecond))
	}
	vouchers := 0
	for _, k := range ks {
		vouchers += len(k.vouchers)
	}
	t.Logf("%d kiosks (%d machines), %d games, %d records written in %v; all acknowledged %v after the first game (%.0f records/s); %d publisher failures; "+
		"longest wait of a record for its acknowledgement %v",
		sp.kiosks, sp.machines, total, records, played.Round(time.Millisecond), caughtUp.Round(time.Millisecond),
		float64(records)/caughtUp.Seconds(), failures, time.Duration(publishWait.Load()).Round(time.Millisecond))
	t.Logf("%d vouchers paid from two counters each: longest payment %v, %d calls failed and tried again, %d answers lost; "+
		"%d blocks claimed by %d kiosks; the centre read the records %d times, %d reads failed, longest between two reads %v",
		vouchers, pay.longest.Round(time.Millisecond), pay.failures, len(pay.lost), claimBlocks, min(4, len(ks)),
		reads.Load(), readFailures.Load(), time.Duration(readGap.Load()).Round(time.Millisecond))
	require.Len(t, faults, 2)
	assert.Positive(t, failures, "the faults reached the publishers")
	assert.Positive(t, reads.Load(), "the centre read")

	// Each replica holds the same streams, the records once each.
	var msgs []map[string]uint64
	require.Eventually(t, func() bool {
		msgs = msgs[:0]
		for i := range c.nodes {
			_, m, ok := c.replicas(i)
			if !ok {
				return false
			}
			msgs = append(msgs, m)
		}
		return maps.Equal(msgs[0], msgs[1]) && maps.Equal(msgs[0], msgs[2])
	}, time.Minute, 50*time.Millisecond, "the replicas agree: %v", msgs)
	assert.Equal(t, uint64(records), msgs[0][RecordsStream], "each record once in the stream")

	got := map[string][]store.OutboxRecord{}
	f := NewFleet()
	f.VoucherMaster = c.master
	require.NoError(t, ReadRecords(ctx, js, "", func(r Record) error {
		got[r.Kiosk] = append(got[r.Kiosk], r.OutboxRecord)
		f.Add(r)
		return nil
	}))
	require.NoError(t, f.CheckVouchers(ctx, js))
	for _, k := range ks {
		want, err := k.st.Outbox(ctx, 0, 1<<30)
		require.NoError(t, err)
		sameRecords(t, c.keys(t, k.id), want, got[k.id])
		kc := f.Kiosks[k.id]
		require.NotNil(t, kc, k.id)
		assert.Empty(t, kc.Problems, k.id)
		l := ledgerOf(t, k.st)
		assert.Equal(t, l.credit, kc.Credit, "%s: credit", k.id)
		assert.Equal(t, l.sales, kc.Sales, "%s: sales", k.id)
		assert.Equal(t, l.wins, kc.Wins, "%s: wins", k.id)
		assert.Equal(t, l.vouchers, kc.Vouchers, "%s: vouchers", k.id)
		assert.NotEmpty(t, k.vouchers, k.id)
		for _, val := range k.vouchers {
			e, err := pay.vs.Find(ctx, val)
			require.NoError(t, err, "%s: voucher %s", k.id, val)
			assert.Equal(t, "paid", e.State, "%s: voucher %s", k.id, val)
			told := append(slices.Clone(pay.paid[val]), pay.lost[val]...)
			assert.Equal(t, []string{e.PaidBy}, told, "%s: voucher %s paid once, by the counter its entry names", k.id, val)
		}
	}
	claims := NewBucket(js, ClaimsBucket)
	for n := uint32(1); n <= claimBlocks; n++ {
		require.Len(t, won[n], 1, "block 9/%d held by %v", n, won[n])
		cl, err := ReadClaim(ctx, claims, 9, n)
		require.NoError(t, err)
		assert.Equal(t, won[n][0], cl.Kiosk, "block 9/%d", n)
	}
}
