package fleet

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk"
	"pharaon/kiosk/kiosktest"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// updateKey is the test's update key: the kiosks trust it for updates.
var updateKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize))

// fakePackage is the payload of a test bundle: what fakeDpkg reads as a
// package's control fields.
func fakePackage(version string) []byte {
	return fmt.Appendf(nil, "%s %s amd64\n/usr/bin/pharaon\n", update.Package, version)
}

// writeBundle writes a bundle of version signed by priv, as a rollback
// when rollback, and returns its path.
func writeBundle(t *testing.T, version string, rollback bool, priv ed25519.PrivateKey) string {
	t.Helper()
	var buf bytes.Buffer
	m := update.Manifest{Kind: update.KindDeb, Package: update.Package, Version: version, Arch: "amd64", Rollback: rollback,
		Payload: "pharaon_" + version + "_amd64.deb", Created: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	_, err := update.Write(&buf, m, bytes.NewReader(fakePackage(version)), priv)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), fmt.Sprintf("pharaon_%s.update", version))
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// fakeDpkg is a kiosk's package manager: installing failOn fails (the
// package's postinst), and the updater reinstalls the kept one.
type fakeDpkg struct {
	mu        sync.Mutex
	installed string
	failOn    string
	installs  []string
}

func (s *fakeDpkg) Installed(context.Context, string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.installed, nil
}

func (s *fakeDpkg) Inspect(_ context.Context, deb string) (update.DebInfo, error) {
	b, err := os.ReadFile(deb)
	if err != nil {
		return update.DebInfo{}, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	f := strings.Fields(lines[0])
	if len(f) != 3 {
		return update.DebInfo{}, errors.New("not a package")
	}
	return update.DebInfo{Package: f[0], Version: f[1], Arch: f[2], Files: lines[1:]}, nil
}

func (s *fakeDpkg) Install(ctx context.Context, deb string) error {
	info, err := s.Inspect(ctx, deb)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.installs = append(s.installs, info.Version)
	if info.Version == s.failOn {
		s.installed = ""
		return errors.New("dpkg: postinst failed")
	}
	s.installed = info.Version
	return nil
}

func (s *fakeDpkg) Check(context.Context) error { return nil }

func (s *fakeDpkg) version() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.installed
}

func (s *fakeDpkg) installedVersions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.installs...)
}

// updaterInstaller hands a bundle to kiosk/update as the root helper does
// for a bundle on a USB stick: the same Updater, the same checks, no
// option forcing a downgrade.
type updaterInstaller struct {
	u   *update.Updater
	sys *fakeDpkg
}

func newUpdaterInstaller(t *testing.T, version, failOn string) *updaterInstaller {
	t.Helper()
	state := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(state, update.InstalledDeb), fakePackage(version), 0o644))
	sys := &fakeDpkg{installed: version, failOn: failOn}
	return &updaterInstaller{sys: sys, u: &update.Updater{Keys: block.NewKeySet(updateKey.Public().(ed25519.PublicKey)),
		Sys: sys, State: state, Arch: "amd64"}}
}

func (i *updaterInstaller) Version(context.Context) (string, error) { return i.sys.version(), nil }

func (i *updaterInstaller) Check(ctx context.Context, bundle string) (update.Result, error) {
	return i.u.Apply(ctx, bundle, update.Options{CheckOnly: true})
}

func (i *updaterInstaller) Install(ctx context.Context, bundle string) (update.Result, error) {
	return i.u.Apply(ctx, bundle, update.Options{})
}

// fakeMachine is a kiosk's machine for the follower: busy or out of
// service when the test says.
type fakeMachine struct{ busy, out, held atomic.Bool }

func (m *fakeMachine) HoldIdle(string) (func(), bool) {
	if m.busy.Load() || !m.held.CompareAndSwap(false, true) {
		return nil, false
	}
	return func() { m.held.Store(false) }, true
}

func (m *fakeMachine) InService() bool { return !m.out.Load() }

// updateKiosk is a kiosk following its offers of updates.
type updateKiosk struct {
	id      string
	cfg     Config
	st      *store.Store
	inst    *updaterInstaller
	m       UpdateMachine
	reports chan UpdateReport
	polls   atomic.Int64
	stop    func()
	tune    func(*UpdateFollower) // the test's settings, before it runs
	dir     string                // where it downloads
}

func newUpdateKiosk(t *testing.T, cfg Config, st *store.Store, inst *updaterInstaller, m UpdateMachine) *updateKiosk {
	t.Helper()
	return &updateKiosk{id: cfg.KioskID, cfg: cfg, st: st, inst: inst, m: m, reports: make(chan UpdateReport, 16), stop: func() {}}
}

// follow starts the kiosk's follower, stopped at the test's end.
func (k *updateKiosk) follow(t *testing.T, clock func() time.Time) {
	t.Helper()
	k.dir = t.TempDir()
	f, err := NewUpdateFollower(k.cfg, k.inst, k.m, k.st, k.dir)
	require.NoError(t, err)
	f.Poll, f.MinBackoff, f.Now = 20*time.Millisecond, 10*time.Millisecond, clock
	if k.tune != nil {
		k.tune(f)
	}
	f.OnReport = func(r UpdateReport) { k.reports <- r }
	sleep := f.Sleep
	f.Sleep = func(ctx context.Context, d time.Duration) error {
		k.polls.Add(1)
		return sleep(ctx, d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx) //nolint:errcheck // ends with ctx
	}()
	k.stop = func() { cancel(); <-done }
	t.Cleanup(k.stop)
}

// report waits for the kiosk's next report.
func (k *updateKiosk) report(t *testing.T) UpdateReport {
	t.Helper()
	select {
	case r := <-k.reports:
		return r
	case <-time.After(time.Minute):
		t.Fatalf("kiosk %s: no report", k.id)
		return UpdateReport{}
	}
}

// quiet checks that the kiosk polls its offer n more times and reports
// nothing.
func (k *updateKiosk) quiet(t *testing.T, n int64) {
	t.Helper()
	until := k.polls.Load() + n
	require.Eventually(t, func() bool { return k.polls.Load() >= until }, time.Minute, 5*time.Millisecond, "kiosk %s polls", k.id)
	select {
	case r := <-k.reports:
		t.Errorf("kiosk %s reported %+v", k.id, r)
	default:
	}
}

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// machineKiosk is a kiosk core (kiosk.Machine) on a copy of the fleet
// tests' template store, started with no credit: idle.
func machineKiosk(t *testing.T, id string) (*store.Store, *kiosk.Machine) {
	t.Helper()
	path, err := kiosktest.CopyTemplate(scaleTemplate(t), t.TempDir())
	require.NoError(t, err)
	st, err := store.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st, startMachine(t, st, id)
}

func startMachine(t *testing.T, st *store.Store, id string) *kiosk.Machine {
	t.Helper()
	m, err := kiosk.New(st, kiosk.SystemClock{}, kiosk.Config{KioskID: id, Keys: kiosktest.Keys,
		Cash: kiosk.CashConfig{HandPayLimit: kiosk.PayoutLimitBound, MaxCredit: 1_000_000 * game.Euro}})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	require.NoError(t, m.Start(context.Background()))
	require.Equal(t, kiosk.Home, m.Snapshot().State)
	return m
}

// sells restarts the kiosk's machine (as after an update's outcome), puts
// a note in and plays a game on it: the kiosk still sells.
func sells(t *testing.T, st *store.Store, m *kiosk.Machine, id string) {
	t.Helper()
	ctx := context.Background()
	require.False(t, m.Snapshot().Maintenance, "kiosk %s: the players are let back", id)
	m.Close()
	before, err := st.Meters(ctx)
	require.NoError(t, err)
	_, err = st.BillIn(ctx, 5*game.Euro, id+"-after-update")
	require.NoError(t, err)
	k := &scaleKiosk{id: id, st: st, m: startMachine(t, st, id), rng: rand.New(rand.NewPCG(1, 2))}
	require.NoError(t, k.playMachine(ctx, game.Stake100), "kiosk %s plays", id)
	after, err := st.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, before[store.MeterPlays]+1, after[store.MeterPlays], "kiosk %s: a game played after the update", id)
	assert.Equal(t, kiosk.Home, k.m.Snapshot().State)
}

func hasOffer(t *testing.T, js jetstream.JetStream, id string) bool {
	t.Helper()
	_, err := NewBucket(js, UpdateOffers).get(context.Background(), id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return false
	}
	require.NoError(t, err)
	return true
}

// A staged rollout to 60 % of a group in which the update fails on some
// kiosks: the rollout stops by itself once their share passes its
// threshold, the offers not taken are withdrawn, the kiosks that failed run
// their version and sell; the operator rolls the rollout back, stops
// another, and a downgrade not signed as a rollback is refused by the
// kiosk.
func TestRolloutStopsByItselfAndKiosksKeepSelling(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	js := ns.js(t)
	// The centre's clock is compared with the server's time of the
	// reports (a kiosk silent after taking an update): it starts now.
	clk := &testClock{now: time.Now()}
	ro := NewRollouts(js, clk.Now)

	ids := []string{"N1", "N2", "N3", "N4", "N5"}
	cfgs := map[string]Config{}
	for _, id := range ids {
		cfgs[id] = ns.kiosk(t, id, "nord")
	}
	ns.kiosk(t, "S1", "sud")
	members, err := GroupMembers(ctx, js, "nord")
	require.NoError(t, err)
	require.Equal(t, ids, members)

	b110, err := UploadBundle(ctx, js, writeBundle(t, "1.1.0", false, updateKey), clk.Now())
	require.NoError(t, err)
	_, err = UploadBundle(ctx, js, writeBundle(t, "1.0.0", true, updateKey), clk.Now())
	require.NoError(t, err)
	_, err = UploadBundle(ctx, js, writeBundle(t, "0.9.0", false, updateKey), clk.Now())
	require.NoError(t, err)
	again, err := UploadBundle(ctx, js, writeBundle(t, "1.1.0", false, updateKey), clk.Now())
	require.NoError(t, err)
	assert.Equal(t, b110, again, "the same bundle uploaded twice is one")
	all, err := Bundles(ctx, js)
	require.NoError(t, err)
	require.Len(t, all, 3)

	// The stop rule evaluated as the reports come in: the centre's watch.
	wctx, wcancel := context.WithCancel(ctx)
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		ro.Watch(wctx, time.Second, func(err error) { t.Logf("watch: %v", err) }) //nolint:errcheck // ends with wctx
	}()
	t.Cleanup(func() { wcancel(); <-wdone })

	r1, err := ro.Start(ctx, RolloutSpec{Bundle: "1.1.0", To: ToGroup("nord"), Percent: 60, MaxFailures: 30, By: "alice"})
	require.NoError(t, err)
	require.Len(t, r1.Targets, 3, "60 %% of 5 kiosks")
	assert.Equal(t, ChooseTargets(b110.SHA256, ids, 60), r1.Targets, "the targets are chosen deterministically")
	assert.Subset(t, ChooseTargets(b110.SHA256, ids, 80), r1.Targets, "a larger share keeps the kiosks of a smaller one")
	for _, id := range ids {
		assert.Equal(t, contains(r1.Targets, id), hasOffer(t, js, id), "kiosk %s offered only if a target", id)
	}
	assert.False(t, hasOffer(t, js, "S1"))
	good, bad, late := r1.Targets[0], r1.Targets[1], r1.Targets[2]
	var others []string
	for _, id := range ids {
		if !contains(r1.Targets, id) {
			others = append(others, id)
		}
	}

	kiosks := map[string]*updateKiosk{}
	machines := map[string]*kiosk.Machine{}
	for _, id := range ids {
		st, m := machineKiosk(t, id)
		failOn := ""
		if id == bad {
			failOn = "1.1.0"
		}
		machines[id] = m
		kiosks[id] = newUpdateKiosk(t, cfgs[id], st, newUpdaterInstaller(t, "1.0.0", failOn), m)
	}

	// One kiosk installs it: the rollout runs on.
	kiosks[good].follow(t, clk.Now)
	rep := kiosks[good].report(t)
	assert.Equal(t, UpdateInstalling, rep.Outcome)
	rep = kiosks[good].report(t)
	assert.Equal(t, UpdateInstalled, rep.Outcome, rep.Detail)
	assert.Equal(t, "1.1.0", rep.Version)
	assert.Equal(t, "1.1.0", kiosks[good].inst.sys.version())
	st, err := ro.Status(ctx, r1.ID)
	require.NoError(t, err)
	assert.Equal(t, RolloutRunning, st.State)
	assert.Equal(t, 1, st.Installed)
	assert.Equal(t, 2, st.Pending)

	// Another fails: 1 of the 2 that took it, past 30 %: the rollout
	// stops by itself, and the third target's offer is withdrawn.
	kiosks[bad].follow(t, clk.Now)
	assert.Equal(t, UpdateInstalling, kiosks[bad].report(t).Outcome)
	rep = kiosks[bad].report(t)
	assert.Equal(t, UpdateFailed, rep.Outcome)
	assert.Equal(t, "rolledback", rep.Reason, rep.Detail)
	assert.Equal(t, "1.0.0", rep.Version, "the kiosk that failed runs its version")
	assert.True(t, rep.InService)
	assert.Equal(t, "1.0.0", kiosks[bad].inst.sys.version())
	failedAt := time.Now()
	require.Eventually(t, func() bool {
		r, err := ro.Get(ctx, r1.ID)
		return err == nil && r.State == RolloutHalted
	}, 30*time.Second, 10*time.Millisecond, "the rollout stops by itself")
	t.Logf("halted by the centre's watch %v after the failure was reported", time.Since(failedAt).Round(time.Millisecond))
	r1, err = ro.Get(ctx, r1.ID)
	require.NoError(t, err)
	last := r1.Log[len(r1.Log)-1]
	assert.Equal(t, "centre", last.By)
	assert.Contains(t, last.Detail, "1 of the 2 kiosks that took it failed")
	assert.False(t, hasOffer(t, js, late), "the offer not taken is withdrawn")
	assert.True(t, hasOffer(t, js, good))

	kiosks[late].follow(t, clk.Now)
	kiosks[late].quiet(t, 5)
	assert.Equal(t, "1.0.0", kiosks[late].inst.sys.version(), "a withdrawn offer is not installed")
	assert.Empty(t, kiosks[late].inst.sys.installedVersions())

	// The kiosk that failed sells, and so does the one that never took it.
	kiosks[bad].stop()
	sells(t, kiosks[bad].st, machines[bad], bad)
	sells(t, kiosks[late].st, machines[late], late)

	// The operator rolls it back: the rollback goes to the kiosk that
	// installed it, signed as a rollback, older.
	_, err = ro.Rollback(ctx, r1.ID, "0.9.0", "bob")
	assert.ErrorIs(t, err, ErrNotRollback)
	back, err := ro.Rollback(ctx, r1.ID, "1.0.0", "bob")
	require.NoError(t, err)
	assert.Equal(t, []string{good}, back.Targets)
	assert.Equal(t, r1.ID, back.RollbackOf)
	assert.Equal(t, UpdateInstalling, kiosks[good].report(t).Outcome)
	rep = kiosks[good].report(t)
	assert.Equal(t, UpdateInstalled, rep.Outcome, rep.Detail)
	assert.Equal(t, "1.0.0", kiosks[good].inst.sys.version())
	r1, err = ro.Get(ctx, r1.ID)
	require.NoError(t, err)
	assert.Equal(t, RolloutRolledBack, r1.State)
	assert.Equal(t, back.ID, r1.RolledBackBy)
	var audit []string
	for _, e := range r1.Log {
		audit = append(audit, e.By+" "+e.Action)
	}
	assert.Equal(t, []string{"alice started", "centre halted", "bob rolled-back"}, audit)
	kiosks[good].stop()
	sells(t, kiosks[good].st, machines[good], good)

	// The operator stops a rollout before its kiosk took it: nothing is
	// installed.
	stopped := others[0]
	r3, err := ro.Start(ctx, RolloutSpec{Bundle: "1.1.0", To: ToKiosk(stopped), By: "alice"})
	require.NoError(t, err)
	_, err = ro.Start(ctx, RolloutSpec{Bundle: "0.9.0", To: ToKiosk(stopped), By: "alice"})
	assert.ErrorIs(t, err, ErrOfferOpen, "one running offer a kiosk")
	r3, err = ro.Stop(ctx, r3.ID, "bob", "wrong kiosk")
	require.NoError(t, err)
	assert.Equal(t, RolloutStopped, r3.State)
	assert.Equal(t, "bob", r3.Log[len(r3.Log)-1].By)
	_, err = ro.Stop(ctx, r3.ID, "bob", "again")
	assert.ErrorIs(t, err, ErrRolloutOver)
	kiosks[stopped].follow(t, clk.Now)
	kiosks[stopped].quiet(t, 5)
	assert.Empty(t, kiosks[stopped].inst.sys.installedVersions())

	// A downgrade not signed as a rollback: the kiosk refuses it and runs
	// its version.
	down := others[1]
	r4, err := ro.Start(ctx, RolloutSpec{Bundle: "0.9.0", To: ToKiosk(down), By: "alice"})
	require.NoError(t, err)
	kiosks[down].follow(t, clk.Now)
	rep = kiosks[down].report(t)
	assert.Equal(t, UpdateRefused, rep.Outcome)
	assert.Equal(t, "downgrade", rep.Reason, rep.Detail)
	assert.Equal(t, "1.0.0", rep.Version)
	assert.Empty(t, kiosks[down].inst.sys.installedVersions())
	st, err = ro.Status(ctx, r4.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Refused)
	assert.Equal(t, 0, st.Took, "a refusal is not a kiosk that took it")
	assert.Equal(t, RolloutRunning, st.State)
	assert.True(t, st.Complete)
	kiosks[down].stop()
	sells(t, kiosks[down].st, machines[down], down)

	// Every rollout, the newest first.
	list, err := ro.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 4)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// A kiosk that took the update and is out of service after it, or says
// nothing of it past the rollout's take timeout, counts as failed: the
// rollout stops. A busy kiosk waits for its players before it installs.
func TestRolloutStopsOnKiosksOutOfService(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	js := ns.js(t)
	// The centre's clock is compared with the server's time of the
	// reports (a kiosk silent after taking an update): it starts now.
	clk := &testClock{now: time.Now()}
	ro := NewRollouts(js, clk.Now)
	_, err := UploadBundle(ctx, js, writeBundle(t, "1.1.0", false, updateKey), clk.Now())
	require.NoError(t, err)

	t.Run("out of service", func(t *testing.T) {
		cfg := ns.kiosk(t, "O1")
		m := &fakeMachine{}
		m.busy.Store(true)
		k := newUpdateKiosk(t, cfg, openStore(t), newUpdaterInstaller(t, "1.0.0", ""), m)
		r, err := ro.Start(ctx, RolloutSpec{Bundle: "1.1.0", To: ToKiosk("O1"), MaxFailures: 50, By: "alice"})
		require.NoError(t, err)
		k.follow(t, clk.Now)
		k.quiet(t, 5)
		assert.Empty(t, k.inst.sys.installedVersions(), "not installed while a player plays")
		m.busy.Store(false)
		assert.Equal(t, UpdateInstalling, k.report(t).Outcome)
		assert.Equal(t, UpdateInstalled, k.report(t).Outcome)
		st, err := ro.Evaluate(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, RolloutRunning, st.State)
		m.out.Store(true) // its new version does not sell
		rep := k.report(t)
		assert.False(t, rep.InService)
		st, err = ro.Evaluate(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, 1, st.OutOfService)
		assert.Equal(t, RolloutHalted, st.State)
	})

	t.Run("not the offer's bundle", func(t *testing.T) {
		// The bundle in the kiosk's store is not the one offered: a byte
		// changed, or cut short. The kiosk refuses it and installs
		// nothing.
		for i, change := range []func([]byte) []byte{
			func(b []byte) []byte { b[len(b)/2] ^= 1; return b },
			func(b []byte) []byte { return b[:len(b)-100] },
		} {
			id := fmt.Sprintf("T%d", i)
			cfg := ns.kiosk(t, id)
			r, err := ro.Start(ctx, RolloutSpec{Bundle: "1.1.0", To: ToKiosk(id), By: "alice"})
			require.NoError(t, err)
			obj, err := js.ObjectStore(ctx, UpdateObjectsFor(ToKiosk(id)))
			require.NoError(t, err)
			b, err := obj.GetBytes(ctx, r.Bundle.Name)
			require.NoError(t, err)
			_, err = obj.PutBytes(ctx, r.Bundle.Name, change(b))
			require.NoError(t, err)
			k := newUpdateKiosk(t, cfg, openStore(t), newUpdaterInstaller(t, "1.0.0", ""), &fakeMachine{})
			k.follow(t, clk.Now)
			rep := k.report(t)
			assert.Equal(t, UpdateRefused, rep.Outcome)
			assert.Equal(t, "payload", rep.Reason, rep.Detail)
			assert.Empty(t, k.inst.sys.installedVersions())
			left, _ := os.ReadDir(k.dir)
			assert.Empty(t, left, "no download left")
		}
	})

	t.Run("no room on the disk", func(t *testing.T) {
		cfg := ns.kiosk(t, "D1")
		_, err := ro.Start(ctx, RolloutSpec{Bundle: "1.1.0", To: ToKiosk("D1"), By: "alice"})
		require.NoError(t, err)
		k := newUpdateKiosk(t, cfg, openStore(t), newUpdaterInstaller(t, "1.0.0", ""), &fakeMachine{})
		k.tune = func(f *UpdateFollower) { f.Free = func(string) (int64, error) { return 100 << 20, nil } }
		k.follow(t, clk.Now)
		rep := k.report(t)
		assert.Equal(t, UpdateRefused, rep.Outcome)
		assert.Equal(t, "space", rep.Reason, rep.Detail)
		assert.Empty(t, k.inst.sys.installedVersions())
	})

	t.Run("not a kiosk of the fleet", func(t *testing.T) {
		_, err := ro.Start(ctx, RolloutSpec{Bundle: "1.1.0", To: ToKiosk("GHOST"), By: "alice"})
		assert.ErrorIs(t, err, ErrUnknownKiosk)
	})

	t.Run("silent after taking it", func(t *testing.T) {
		cfg := ns.kiosk(t, "O2")
		r, err := ro.Start(ctx, RolloutSpec{Bundle: "1.1.0", To: ToKiosk("O2"), TakeTimeout: time.Hour, By: "alice"})
		require.NoError(t, err)
		// The kiosk said it takes it, and then nothing (it restarted
		// into a version that never reaches the centre).
		kjs := kioskJS(t, cfg)
		data := fmt.Appendf(nil, `{"kiosk":"O2","rollout":%q,"outcome":"installing","version":"1.0.0","offered":"1.1.0","in_service":true}`, r.ID)
		_, err = NewBucket(kjs, UpdateReports).put(ctx, ReportKey("O2", r.ID), data)
		require.NoError(t, err)
		clk.now = time.Now() // the centre's clock against the server's time of the report
		st, err := ro.Evaluate(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, RolloutRunning, st.State)
		assert.Equal(t, 1, st.Installing)
		clk.add(2 * time.Hour)
		st, err = ro.Evaluate(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, RolloutHalted, st.State)
		assert.Equal(t, 1, st.OutOfService)
	})
}

// A kiosk's credentials read its own offer and bundles and write its own
// reports only: not the bundles' stores (its own neither), not another
// kiosk's offer or report, not the rollouts, not the catalogue.
func TestKioskCredentialsOnUpdates(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	js := ns.js(t)
	cfgA, _ := ns.kiosk(t, "A", "nord"), ns.kiosk(t, "B", "sud")
	ro := NewRollouts(js, time.Now)
	_, err := UploadBundle(ctx, js, writeBundle(t, "1.1.0", false, updateKey), time.Now())
	require.NoError(t, err)
	rA, err := ro.Start(ctx, RolloutSpec{Bundle: "1.1.0", To: ToKiosk("A"), By: "alice"})
	require.NoError(t, err)
	rB, err := ro.Start(ctx, RolloutSpec{Bundle: "1.1.0", To: ToGroup("sud"), By: "alice"})
	require.NoError(t, err)

	a := attackAs(t, cfgA)
	// What A's kiosk does: its offer, its bundle, its report.
	offers, reports := NewBucket(a.js, UpdateOffers), NewBucket(a.js, UpdateReports)
	_, err = offers.get(ctx, "A")
	require.NoError(t, err)
	obj, err := a.js.ObjectStore(ctx, UpdateObjectsFor(ToKiosk("A")))
	require.NoError(t, err)
	_, err = obj.GetBytes(ctx, rA.Bundle.Name)
	require.NoError(t, err)
	_, err = reports.put(ctx, ReportKey("A", rA.ID), []byte(`{"kiosk":"A"}`))
	require.NoError(t, err)

	// Its own store and the others' are not writable, B's not readable.
	_, err = obj.PutBytes(a.ctx(), "evil", []byte("x"))
	assert.Error(t, err, "write a bundle into its own store")
	for _, s := range []string{UpdateObjectsFor(ToKiosk("B")), UpdateObjectsFor(ToGroup("sud")), UpdateBundles} {
		_, err := a.js.ObjectStore(a.ctx(), s)
		assert.Error(t, err, "open %s", s)
		a.refused("$JS.API.STREAM.INFO.OBJ_"+s, "open "+s)
	}
	// B's offer and report, the rollouts, the offers written.
	a.request(directGetSubject("KV_"+UpdateOffers, kvSubject(UpdateOffers, "B")), nil, "B's offer")
	a.request(directGetSubject("KV_"+UpdateReports, kvSubject(UpdateReports, ReportKey("B", rB.ID))), nil, "B's report")
	a.request(directGetSubject("KV_"+RolloutsBucket, kvSubject(RolloutsBucket, rA.ID)), nil, "a rollout")
	for _, subj := range []string{kvSubject(UpdateReports, ReportKey("B", rB.ID)), kvSubject(UpdateOffers, "A"),
		kvSubject(UpdateOffers, "B"), kvSubject(RolloutsBucket, rA.ID)} {
		_, err := a.js.Publish(a.ctx(), subj, []byte(`{"outcome":"installed"}`))
		assert.Error(t, err, "publish on %s", subj)
		a.refused(subj, "write "+subj)
	}
	st, err := ro.Status(ctx, rB.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Pending, "B's report untouched")
	assert.True(t, hasOffer(t, js, "B"))
}
