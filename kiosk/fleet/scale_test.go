package fleet

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet/authority"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
)

// The fleet at scale (docs/fleet.md): many kiosks, each on its own store
// with its own publisher, play while the server is stopped and started
// again and their connections are cut or go dead; afterwards the centre
// holds every kiosk's records exactly once, in order, and its totals equal
// each kiosk's ledger to the cent.
//
// Some kiosks are the real kiosk core without its screens (kiosk.Machine:
// its boot check, its play writer, the breakout engine stepped to the end
// of each game, Auto and Jouer); the others play through the store's play
// path (the same transactions, without the engine), which keeps make test
// within its time under the race detector: a machine's boot check alone
// verifies its blocks' signatures, seconds of processor under -race.
//
//	make test    50 kiosks (10 machines) x 100 games, 6 faults
//	-short       10 kiosks (2 machines) x 30 games, 3 faults
//	make soak    50 kiosks (all machines) x 300 games, 12 faults
//
// PHARAON_FLEET_KIOSKS, _MACHINES, _GAMES and _FAULTS choose otherwise.

type scaleParams struct{ kiosks, machines, games, faults int }

func scaleParamsFor(t *testing.T) scaleParams {
	p := scaleParams{kiosks: 50, machines: 10, games: 100, faults: 6}
	if testing.Short() {
		p = scaleParams{kiosks: 10, machines: 2, games: 30, faults: 3}
	}
	if os.Getenv("PHARAON_SOAK") != "" {
		p = scaleParams{kiosks: 50, machines: 50, games: 300, faults: 12}
	}
	env := func(name string, v *int) {
		if s := os.Getenv(name); s != "" {
			n, err := strconv.Atoi(s)
			require.NoError(t, err, name)
			*v = n
		}
	}
	env("PHARAON_FLEET_KIOSKS", &p.kiosks)
	env("PHARAON_FLEET_MACHINES", &p.machines)
	env("PHARAON_FLEET_GAMES", &p.games)
	env("PHARAON_FLEET_FAULTS", &p.faults)
	p.machines = min(p.machines, p.kiosks)
	return p
}

// scaleStakes are the stakes the kiosks play (a block of each).
var scaleStakes = []game.Stake{game.Stake050, game.Stake100}

// scaleTemplate is a kiosk's database before its first play: a test block
// at each of scaleStakes. Every kiosk starts from a copy; the template is
// made once for the tests of the package.
func scaleTemplate(t *testing.T) kiosktest.TemplateFiles {
	t.Helper()
	templateOnce.Do(func() { templateBytes, templateErr = makeScaleTemplate() })
	require.NoError(t, templateErr, "the kiosks' template")
	return templateBytes
}

var (
	templateOnce  sync.Once
	templateBytes kiosktest.TemplateFiles
	templateErr   error
)

func makeScaleTemplate() (kiosktest.TemplateFiles, error) {
	dir, err := os.MkdirTemp("", "fleet-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "template.db")
	st, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	for i, s := range scaleStakes {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(kiosktest.WriteBlock(pw, s, uint32(i+1), nil)) }()
		_, err := st.ImportBlock(context.Background(), pr, kiosktest.Keys)
		pr.CloseWithError(err)
		if err != nil {
			st.Close()
			return nil, err
		}
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	return kiosktest.TemplateFiles{"pharaon.db": b}, err
}

// scaleKiosk is one kiosk of the fleet: its store, its machine (nil: it
// plays through the store), its publisher.
type scaleKiosk struct {
	id       string
	n        int
	st       *store.Store
	m        *kiosk.Machine
	rng      *rand.Rand
	pub      *Publisher
	ack      *acks
	failures atomic.Int64 // the publisher's failures (connections lost, refused, timed out)
	notes    int
	vouchers []string // validation numbers printed
	// printed, when set, is told each voucher as it is printed (the
	// cluster's test pays them while the kiosks play).
	printed func(validation string)
}

// scaleID is the id of the fleet's kiosk n.
func scaleID(n int) string { return fmt.Sprintf("PH-%03d", n) }

func newScaleKiosk(t *testing.T, tmpl kiosktest.TemplateFiles, n int, machine bool, games int, cfg Config) *scaleKiosk {
	t.Helper()
	ctx := context.Background()
	path, err := kiosktest.CopyTemplate(tmpl, t.TempDir())
	require.NoError(t, err)
	st, err := store.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	k := &scaleKiosk{id: scaleID(n), n: n, st: st, rng: rand.New(rand.NewPCG(uint64(n), 0xf1ee7))}
	if machine {
		// The machine has no bank note validator here: the notes go in
		// before it starts, enough for every game at the highest stake.
		for c := game.Money(0); c < game.Money(games)*game.Money(scaleStakes[len(scaleStakes)-1]); c += 200 * game.Euro {
			require.NoError(t, k.billIn(ctx, 200*game.Euro))
		}
		k.m, err = kiosk.New(st, kiosk.SystemClock{}, kiosk.Config{KioskID: k.id, Keys: kiosktest.Keys,
			Cash: kiosk.CashConfig{HandPayLimit: kiosk.PayoutLimitBound, MaxCredit: 1_000_000 * game.Euro}})
		require.NoError(t, err)
		t.Cleanup(func() { k.closeMachine() })
	}
	k.pub, err = NewPublisher(cfg, st)
	require.NoError(t, err)
	k.pub.MinBackoff, k.pub.MaxBackoff, k.pub.Poll = 10*time.Millisecond, 200*time.Millisecond, 50*time.Millisecond
	k.ack = newAcks()
	k.pub.OnAck = k.ack.on
	k.pub.OnError = func(error) { k.failures.Add(1) }
	return k
}

// start starts the kiosk's machine (its boot check) and checks it is
// ready to play.
func (k *scaleKiosk) start(ctx context.Context) error {
	if k.m == nil {
		return nil
	}
	if err := k.m.Start(ctx); err != nil {
		return fmt.Errorf("%s: %w", k.id, err)
	}
	if s := k.m.Snapshot(); s.State != kiosk.Home {
		return fmt.Errorf("%s: %s after its start: %s %s", k.id, s.State, s.Fault.Code, s.Fault.Detail)
	}
	return nil
}

func (k *scaleKiosk) closeMachine() {
	if k.m != nil {
		k.m.Close()
		k.m = nil
	}
}

func (k *scaleKiosk) billIn(ctx context.Context, denom game.Money) error {
	k.notes++
	_, err := k.st.BillIn(ctx, denom, fmt.Sprintf("%s-note-%d", k.id, k.notes))
	return err
}

// play plays the kiosk's games, cashing out now and then (every 40 games
// and at the end) by a voucher.
func (k *scaleKiosk) play(ctx context.Context, games int, played func()) error {
	for i := range games {
		stake := scaleStakes[k.rng.IntN(len(scaleStakes))]
		var err error
		if k.m != nil {
			err = k.playMachine(ctx, stake)
		} else {
			err = k.playStore(ctx, stake)
			if err == nil && i%40 == 39 {
				err = k.cashOut(ctx)
			}
		}
		if err != nil {
			return fmt.Errorf("%s game %d: %w", k.id, i, err)
		}
		played()
	}
	k.closeMachine() // the vouchers below go through the store
	if c, err := k.st.Credit(ctx); err != nil {
		return err
	} else if c == 0 {
		if err := k.billIn(ctx, 5*game.Euro); err != nil {
			return err
		}
	}
	return k.cashOut(ctx)
}

// playMachine plays one game on the kiosk core as the screens would:
// Auto, or now and then Jouer with a player following the ball.
func (k *scaleKiosk) playMachine(ctx context.Context, stake game.Stake) error {
	mode := breakout.Auto
	if k.rng.IntN(8) == 0 {
		mode = breakout.Play
	}
	g, err := k.m.Play(ctx, stake, mode)
	if err != nil {
		return err
	}
	for steps := 0; g.Stage() != kiosk.StageDone; steps++ {
		if err := g.Err(); err != nil {
			return err
		}
		if !g.Settled() {
			g.Wait()
			continue
		}
		if steps > 2_000_000 {
			return fmt.Errorf("play %d not over after %d steps", g.ID(), steps)
		}
		in := breakout.Input{}
		if w := g.World(); w.Mode() == breakout.Play {
			b := w.Ball()
			in = breakout.Input{Steer: true, PaddleX: b.X, Launch: b.Phase == breakout.OnPaddle}
		}
		if g.Step(in) == nil {
			g.Wait()
		}
	}
	if err := g.Err(); err != nil {
		return err
	}
	if r := g.Result(); r.Mismatch || r.Won != g.Play().Prize {
		return fmt.Errorf("play %d: won %s for a prize of %s (mismatch %v)", g.ID(), r.Won, g.Play().Prize, r.Mismatch)
	}
	k.m.EndResult()
	return nil
}

// playStore plays one game through the store's play path, a 20 € note in
// first when the credit is short.
func (k *scaleKiosk) playStore(ctx context.Context, stake game.Stake) error {
	c, err := k.st.Credit(ctx)
	if err != nil {
		return err
	}
	if c < game.Money(stake) {
		if err := k.billIn(ctx, 20*game.Euro); err != nil {
			return err
		}
	}
	p, err := k.st.StartPlay(ctx, store.PlayRequest{Stake: stake, Mode: store.ModeAuto, LayoutVersion: 1})
	if err != nil {
		return err
	}
	var shown game.Counts
	switch {
	case p.ViaBonus:
		shown[game.Snake] = 3
		if err := k.st.EnterBonus(ctx, p.ID, nil); err != nil {
			return err
		}
	case p.Tier.Wins():
		comb := game.Table(p.Stake).Prizes[p.Tier-1].Combination
		shown[comb.Symbol] = comb.Count
	}
	_, err = k.st.FinishPlay(ctx, p.ID, store.FinishInfo{Revealed: shown, Shown: p.Prize})
	return err
}

// cashOut prints the whole credit on a voucher, as the kiosk's cash-out
// writes it once the printer confirmed the print.
func (k *scaleKiosk) cashOut(ctx context.Context) error {
	c, err := k.st.Credit(ctx)
	if err != nil || c == 0 {
		return err
	}
	val := fmt.Sprintf("9%03d%014d", k.n, len(k.vouchers)+1)
	v, err := k.st.IssueVoucher(ctx, store.VoucherRequest{Amount: c, Validation: val, Expires: time.Now().Add(90 * 24 * time.Hour)})
	if err != nil {
		return err
	}
	if _, _, err := k.st.ConfirmVoucher(ctx, v.ID); err != nil {
		return err
	}
	k.vouchers = append(k.vouchers, val)
	if k.printed != nil {
		k.printed(val)
	}
	return nil
}

// faultKind is what the fleet's network suffers between two moments of
// the run.
type faultKind string

const (
	faultCut     faultKind = "cut"      // every connection closed, new ones refused
	faultRestart faultKind = "restart"  // the server stopped, started again on its store
	faultFreeze  faultKind = "freeze"   // the connections pass nothing and stay open (until a timeout)
	faultBoth    faultKind = "cut+stop" // the connections cut and the server stopped
)

func scaleFaults(n int, short bool) []faultKind {
	kinds := []faultKind{faultCut, faultRestart, faultFreeze, faultBoth}
	if short {
		kinds = []faultKind{faultCut, faultRestart} // no freeze: it lasts the publisher's ack timeout
	}
	out := make([]faultKind, n)
	for i := range out {
		out[i] = kinds[i%len(kinds)]
	}
	return out
}

// progress counts the games played across the fleet; wait returns once n
// are played.
type progress struct {
	n    atomic.Int64
	tick chan struct{}
}

func (p *progress) played() {
	p.n.Add(1)
	select {
	case p.tick <- struct{}{}:
	default:
	}
}

func (p *progress) wait(ctx context.Context, n int64) error {
	for p.n.Load() < n {
		select {
		case <-p.tick:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func TestFleetScale(t *testing.T) {
	sp := scaleParamsFor(t)
	ctx := context.Background()
	t0 := time.Now()
	tmpl := scaleTemplate(t)
	t.Logf("template %v", time.Since(t0).Round(time.Millisecond))
	ns := startNATS(t)
	px := startProxy(t, fmt.Sprintf("127.0.0.1:%d", ns.Port()))

	ks := make([]*scaleKiosk, sp.kiosks)
	for i := range ks {
		ks[i] = newScaleKiosk(t, tmpl, i+1, i < sp.machines, sp.games, at(ns.kiosk(t, scaleID(i+1)), px.url()))
	}
	// The machines' boot checks, side by side.
	var wg sync.WaitGroup
	booted := make(chan error, len(ks))
	for _, k := range ks {
		wg.Add(1)
		go func() { defer wg.Done(); booted <- k.start(ctx) }()
	}
	wg.Wait()
	close(booted)
	for err := range booted {
		require.NoError(t, err)
	}
	t.Logf("%d kiosks (%d machines) ready in %v", sp.kiosks, sp.machines, time.Since(t0).Round(time.Millisecond))
	stops := make([]func(), len(ks))
	for i, k := range ks {
		stops[i] = run(k.pub)
		t.Cleanup(stops[i])
	}

	// The faults fall at even intervals of the fleet's games: fault i
	// begins after (2i+1)/(2F+1) of them are played and ends after
	// (2i+2)/(2F+1), while the kiosks go on playing.
	prog := &progress{tick: make(chan struct{}, 1)}
	total := int64(sp.kiosks * sp.games)
	faults := scaleFaults(sp.faults, testing.Short())
	chaosCtx, endChaos := context.WithCancel(ctx)
	defer endChaos()
	chaos := make(chan error, 1)
	go func() {
		chaos <- func() error {
			slices := int64(2*len(faults) + 1)
			for i, f := range faults {
				if err := prog.wait(chaosCtx, (2*int64(i)+1)*total/slices); err != nil {
					return err
				}
				switch f {
				case faultCut:
					px.cut()
				case faultFreeze:
					px.freeze()
				case faultRestart:
					ns.stop()
				case faultBoth:
					px.cut()
					ns.stop()
				}
				if err := prog.wait(chaosCtx, (2*int64(i)+2)*total/slices); err != nil {
					return err
				}
				switch f {
				case faultCut, faultFreeze:
					px.restore()
				case faultRestart:
					if err := ns.Start(); err != nil {
						return err
					}
				case faultBoth:
					if err := ns.Start(); err != nil {
						return err
					}
					px.restore()
				}
			}
			return nil
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
				endChaos()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.NoError(t, <-chaos, "faults")
	if t.Failed() {
		t.FailNow()
	}
	played := time.Since(playStart)

	// Every publisher catches up once the faults are over: none is stuck.
	var records, failures int64
	for _, k := range ks {
		o, err := k.st.OutboxState(ctx)
		require.NoError(t, err)
		k.ack.wait(t, o.Last)
		records += o.Last
		failures += k.failures.Load()
	}
	caughtUp := time.Since(playStart)
	for _, stop := range stops {
		stop()
	}
	accepted, severed := px.counts()
	t.Logf("%d games, %d records in %v; all published %v after the first game; faults %v; %d publisher failures, %d connections through the proxy, %d severed",
		total, records, played.Round(time.Millisecond), caughtUp.Round(time.Millisecond), faults, failures, accepted, severed)
	assert.Positive(t, failures, "the faults reached the publishers")
	assert.Positive(t, severed, "connections were cut")

	// The centre, after one more restart of the server: what it holds is
	// on its disk.
	ns.stop()
	heapBefore := heapInUse()
	ns.start()
	js := ns.js(t)
	stream, err := js.Stream(ctx, RecordsStream)
	require.NoError(t, err)
	info, err := stream.Info(ctx)
	require.NoError(t, err)
	heapServer := heapInUse() - heapBefore
	disk, err := dirSize(ns.Store())
	require.NoError(t, err)
	acct, err := js.AccountInfo(ctx)
	require.NoError(t, err)
	t.Logf("server for %d kiosks: stream %d records, %d bytes; JetStream store %d bytes on disk (%d bytes of files under its directory); Go heap of the restarted server with the stream loaded %d KiB",
		sp.kiosks, info.State.Msgs, info.State.Bytes, acct.Store, disk, heapServer>>10)
	assert.Equal(t, uint64(records), info.State.Msgs, "the stream holds each record once")

	got := map[string][]store.OutboxRecord{}
	f := NewFleet()
	f.VoucherMaster = ns.master
	printed := map[string][]string{}
	for _, k := range ks {
		printed[k.id] = k.vouchers
	}
	require.NoError(t, ReadRecords(ctx, js, "", func(r Record) error {
		for _, val := range printed[r.Kiosk] {
			if bytes.Contains(r.Payload, []byte(val)) {
				t.Errorf("%s: record %d carries the validation number %s in clear", r.Kiosk, r.Seq, val)
			}
		}
		got[r.Kiosk] = append(got[r.Kiosk], r.OutboxRecord)
		f.Add(r)
		return nil
	}))
	require.Len(t, f.Kiosks, sp.kiosks)
	centre := ns.vouchers(t)
	require.NoError(t, f.CheckVouchers(ctx, js))

	stakeSales, stakeWins := map[int64]int64{}, map[int64]int64{}
	for _, k := range ks {
		want, err := k.st.Outbox(ctx, 0, 1<<30)
		require.NoError(t, err)
		sameRecords(t, ns.keys(t, k.id), want, got[k.id])

		c := f.Kiosks[k.id]
		require.NotNil(t, c, k.id)
		assert.Empty(t, c.Problems, k.id)
		assert.Equal(t, int64(len(want)), c.Records, k.id)
		assert.Equal(t, int64(len(want)), c.LastSeq, k.id)
		l := ledgerOf(t, k.st)
		assert.Equal(t, l.credit, c.Credit, "%s: credit", k.id)
		assert.Equal(t, l.sum, c.Ledger, "%s: ledger", k.id)
		assert.Equal(t, l.plays, c.Plays, "%s: plays", k.id)
		assert.Equal(t, l.sales, c.Sales, "%s: sales", k.id)
		assert.Equal(t, l.wins, c.Wins, "%s: wins", k.id)
		assert.Equal(t, l.billsIn, c.BillsIn, "%s: notes", k.id)
		assert.Equal(t, l.vouchers, c.Vouchers, "%s: vouchers", k.id)
		assert.Equal(t, int64(sp.games), c.Plays, k.id)
		for s, v := range l.stakeSales {
			stakeSales[s] += v
		}
		for s, v := range l.stakeWins {
			stakeWins[s] += v
		}
		for _, val := range k.vouchers {
			e, err := centre.Find(ctx, val)
			if assert.NoError(t, err, "%s: voucher %s", k.id, val) {
				assert.Equal(t, k.id, e.Kiosk)
				assert.Equal(t, "printed", e.State)
			}
		}
		assert.NotEmpty(t, k.vouchers, k.id)
	}
	require.Len(t, f.Stakes(), len(scaleStakes))
	for _, r := range f.Stakes() {
		assert.Equal(t, stakeSales[r.Stake], r.Sales, "sales at %d", r.Stake)
		assert.Equal(t, stakeWins[r.Stake], r.Wins, "wins at %d", r.Stake)
	}
}

// sameRecords: the centre holds the kiosk's outbox record for record:
// each sequence once, in order, with the kiosk's very payload.
// A record whose validation number was sealed is compared once opened
// with the kiosk's key: the same fields, and the voucher's entry key.
func sameRecords(t *testing.T, keys voucherKeys, want, got []store.OutboxRecord) {
	t.Helper()
	kiosk := keys.kiosk
	if !assert.Len(t, got, len(want), "%s: records", kiosk) {
		return
	}
	for i, w := range want {
		g := got[i]
		same := bytes.Equal(g.Payload, w.Payload)
		if !same && hasSealed(g) {
			opened, err := keys.openRecord(g)
			require.NoError(t, err, "%s: record %d", kiosk, g.Seq)
			var gm, wm map[string]any
			require.NoError(t, json.Unmarshal(opened.Payload, &gm))
			require.NoError(t, json.Unmarshal(w.Payload, &wm))
			delete(gm, fieldEntryKey)
			same = reflect.DeepEqual(gm, wm)
		}
		if g.Seq != w.Seq || g.Kind != w.Kind || g.RefID != w.RefID || !g.At.Equal(w.At) || !same {
			t.Errorf("%s: record %d at the centre is %d %s %d %s, the kiosk's is %d %s %d %s", kiosk, i,
				g.Seq, g.Kind, g.RefID, g.Payload, w.Seq, w.Kind, w.RefID, w.Payload)
			return
		}
	}
}

// kioskLedger is what a kiosk's own ledger says, in cents.
type kioskLedger struct {
	credit, sum, plays, sales, wins, billsIn, vouchers int64
	stakeSales, stakeWins                              map[int64]int64
}

func ledgerOf(t *testing.T, s *store.Store) kioskLedger {
	t.Helper()
	ctx := context.Background()
	c, err := s.Credit(ctx)
	require.NoError(t, err)
	plays, err := s.LastPlays(ctx, 1<<30, 0)
	require.NoError(t, err)
	stakeOf := map[int64]int64{}
	for _, p := range plays {
		stakeOf[p.ID] = int64(p.Stake)
	}
	entries, err := s.Entries(ctx, 1<<30, 0)
	require.NoError(t, err)
	l := kioskLedger{credit: int64(c), plays: int64(len(plays)), stakeSales: map[int64]int64{}, stakeWins: map[int64]int64{}}
	for _, e := range entries {
		a := int64(e.Amount)
		l.sum += a
		switch e.Kind {
		case store.KindStake:
			l.sales -= a
			l.stakeSales[stakeOf[e.PlayID]] -= a
		case store.KindWin:
			l.wins += a
			l.stakeWins[stakeOf[e.PlayID]] += a
		case store.KindBillIn:
			l.billsIn += a
		case store.KindVoucherOut:
			l.vouchers -= a
		}
	}
	if l.sum != l.credit {
		t.Fatal(errors.New("the kiosk's ledger does not sum to its credit"))
	}
	return l
}

// A day offline: a kiosk plays while the server is down (2 000 games, 200
// with -short), its publisher backing off; once the server is back, the
// kiosk catches up. The test logs the figures of docs/fleet.md: the
// records, the catch-up time from the server's start (the publisher's
// backoff here is at most 200 ms; 30 s by default) and the records per
// second one kiosk publishes. It asserts no time, only that every record
// arrives once and in order.
func TestFleetCatchUp(t *testing.T) {
	plays := 2000
	if testing.Short() {
		plays = 200
	}
	ctx := context.Background()
	tmpl := scaleTemplate(t)
	ns := startNATS(t)
	cfg := ns.kiosk(t, scaleID(1))
	ns.stop()
	k := newScaleKiosk(t, tmpl, 1, false, plays, cfg)
	offline := make(chan struct{})
	var once sync.Once
	k.pub.OnError = func(error) { once.Do(func() { close(offline) }) }
	stop := run(k.pub)
	defer stop()
	<-offline

	began := time.Now()
	require.NoError(t, k.play(ctx, plays, func() {}))
	playing := time.Since(began)
	o, err := k.st.OutboxState(ctx)
	require.NoError(t, err)
	require.Zero(t, o.Published, "nothing published while offline")
	assert.False(t, k.pub.Status().Connected)

	require.NoError(t, ns.Start())
	began = time.Now()
	k.ack.wait(t, o.Last)
	took := time.Since(began)
	t.Logf("a day offline: %d games (%d records) written in %v; caught up in %v from the server's start: %.0f records/s",
		plays, o.Last, playing.Round(time.Millisecond), took.Round(time.Millisecond), float64(o.Last)/took.Seconds())
	assert.Equal(t, seqs(1, o.Last), stored(t, ns.js(t), k.id))
	assert.True(t, k.pub.Status().Connected)
}

// The server's memory for the fleet, on a server of its own process
// (cmd/pharaon-central serve), so that its resident size is the server's
// alone: 50 kiosks (PHARAON_FLEET_KIOSKS) play 300 games each
// (PHARAON_FLEET_GAMES) through the store's play path, publishing as they
// play. The test logs the server's resident size at its start, at the
// end and at its peak, and its store on disk (docs/fleet.md). It builds
// the command: run it with PHARAON_FLEET_FIGURES=1.
func TestFleetServerFigures(t *testing.T) {
	if os.Getenv("PHARAON_FLEET_FIGURES") == "" {
		t.Skip("PHARAON_FLEET_FIGURES=1 runs it")
	}
	sp := scaleParams{kiosks: 50, games: 300}
	env := func(name string, v *int) {
		if s := os.Getenv(name); s != "" {
			n, err := strconv.Atoi(s)
			require.NoError(t, err, name)
			*v = n
		}
	}
	env("PHARAON_FLEET_KIOSKS", &sp.kiosks)
	env("PHARAON_FLEET_GAMES", &sp.games)
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "pharaon-central")
	out, err := exec.Command("go", "build", "-o", bin, "pharaon/cmd/pharaon-central").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	fleetDir := filepath.Join(t.TempDir(), "fleet")
	out, err = exec.Command(bin, "init", "-fleet", fleetDir).CombinedOutput()
	require.NoError(t, err, "pharaon-central init: %s", out)
	m, err := authority.Open(fleetDir)
	require.NoError(t, err)
	master, err := m.VoucherMaster()
	require.NoError(t, err)
	cmd := exec.Command(bin, "serve", "-fleet", fleetDir, "-listen", addr, "-store", dir)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the server's first line")
	require.Contains(t, line, "nats-server JetStream")
	go io.Copy(io.Discard, stdout)
	rss := func(field string) int64 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		require.NoError(t, err)
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, field+":"); ok {
				var kb int64
				_, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb)
				require.NoError(t, err, l)
				return kb << 10
			}
		}
		t.Fatalf("no %s in /proc/%d/status", field, cmd.Process.Pid)
		return 0
	}
	atStart := rss("VmRSS")

	tmpl := scaleTemplate(t)
	ks := make([]*scaleKiosk, sp.kiosks)
	for i := range ks {
		id := scaleID(i + 1)
		p := authority.Permissions(KioskPermissions(id, nil))
		creds, err := m.IssueUser(authority.AccountName, id, &p, time.Time{})
		require.NoError(t, err)
		ks[i] = newScaleKiosk(t, tmpl, i+1, false, sp.games, Config{URL: "tls://" + addr, KioskID: id,
			CredsFile: creds, CAFile: m.CAFile(), VoucherKey: KioskVoucherKey(master, id)})
		t.Cleanup(run(ks[i].pub))
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(ks))
	began := time.Now()
	for _, k := range ks {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- k.play(ctx, sp.games, func() {}) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	var records int64
	for _, k := range ks {
		o, err := k.st.OutboxState(ctx)
		require.NoError(t, err)
		k.ack.wait(t, o.Last)
		records += o.Last
	}
	took := time.Since(began)
	disk, err := dirSize(dir)
	require.NoError(t, err)
	t.Logf("server process for %d kiosks x %d games (%d records, published as played in %v): resident %d MiB at its start, %d MiB at the end, %d MiB at its peak; store %d bytes on disk (%d bytes a record)",
		sp.kiosks, sp.games, records, took.Round(time.Millisecond), atStart>>20, rss("VmRSS")>>20, rss("VmHWM")>>20, disk, disk/records)
}
