package id003_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/id003"
	"pharaon/hw/id003/id003test"
	"pharaon/hw/sim/id003sim"
)

// Short timings keep the pty tests fast; the protocol is the same.
func testConfig() id003.Config {
	return id003.Config{
		PollInterval: 3 * time.Millisecond,
		ReplyTimeout: 60 * time.Millisecond,
		Retries:      3,
		Backoff:      hw.Backoff{Min: 5 * time.Millisecond, Max: 40 * time.Millisecond},
	}
}

// recorder keeps every event and lets a test wait for one.
type recorder struct {
	mu     sync.Mutex
	events []id003.Event
	wallet *id003test.MemoryWallet
}

func (r *recorder) on(e id003.Event) {
	if r.wallet != nil {
		r.wallet.Observe(e)
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	select {
	case heard <- struct{}{}:
	default:
	}
}

// heard has a value once a recorder heard an event since eventually last
// looked.
var heard = make(chan struct{}, 1)

func (r *recorder) all() []id003.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func (r *recorder) count(k id003.EventKind) int {
	n := 0
	for _, e := range r.all() {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// states lists the device states reported, in order.
func (r *recorder) states() []id003.State {
	var out []id003.State
	for _, e := range r.all() {
		if e.Kind == id003.EventState {
			out = append(out, e.Status.State)
		}
	}
	return out
}

func (r *recorder) has(k id003.EventKind) bool { return r.count(k) > 0 }

func (r *recorder) sawState(s id003.State) bool { return slices.Contains(r.states(), s) }

const waitFor = 10 * time.Second

// eventually waits until cond holds: it looks again when a recorder hears
// the host's event, and every 20 ms for what only the simulator knows (its
// counts and state tell no one).
func eventually(t *testing.T, cond func() bool, msg string, args ...any) {
	t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	look := time.NewTicker(20 * time.Millisecond)
	defer look.Stop()
	for !cond() {
		select {
		case <-heard:
		case <-look.C:
		case <-deadline.C:
			t.Fatalf("timed out waiting: "+msg, args...)
		}
	}
}

type rig struct {
	t      *testing.T
	sim    *id003sim.Sim
	link   string
	wallet *id003test.MemoryWallet
	host   *id003.Host
	rec    *recorder
}

func newSim(t *testing.T, cfg id003sim.Config) (*id003sim.Sim, string) {
	t.Helper()
	link := filepath.Join(t.TempDir(), "validator")
	s := id003sim.New(cfg)
	require.NoError(t, s.Start(link))
	t.Cleanup(func() { s.Close() })
	return s, link
}

// newRig starts a simulator, and a host on it with a fresh wallet, accepting notes.
func newRig(t *testing.T, simCfg id003sim.Config, mod func(*id003.Config)) *rig {
	t.Helper()
	s, link := newSim(t, simCfg)
	r := &rig{t: t, sim: s, link: link, wallet: &id003test.MemoryWallet{}}
	r.startHost(mod)
	return r
}

// startHost starts a host on the rig's simulator with the rig's wallet, accepting notes.
func (r *rig) startHost(mod func(*id003.Config)) {
	r.t.Helper()
	r.startHostWith(r.wallet, mod)
}

// killHost stops the host as a crash would, as far as the unit can tell: it stops polling.
func (r *rig) killHost() {
	r.t.Helper()
	require.NoError(r.t, r.host.Close())
}

func (r *rig) waitState(s id003.State) {
	r.t.Helper()
	eventually(r.t, func() bool { return r.sim.State() == s }, "simulator never reached %s (at %s)", s, r.sim.State())
}

// waitReady waits until the host has configured the unit and it takes notes.
func (r *rig) waitReady() {
	r.t.Helper()
	r.waitState(id003.StateIdle)
	eventually(r.t, func() bool { return r.rec.has(id003.EventConfigured) }, "host never configured the unit")
}

// waitPolls waits until the host has sent n more status requests: time for the unit goes by in
// polls, so a test that checks something does not happen waits for polls, not for the clock.
func (r *rig) waitPolls(n int) {
	r.t.Helper()
	from := r.sim.Commands()[id003.CmdStatusRequest]
	eventually(r.t, func() bool { return r.sim.Commands()[id003.CmdStatusRequest] >= from+n },
		"host stopped polling after %d requests", from)
}

// insert inserts a note once the unit is idle.
func (r *rig) insert(cents int64) {
	r.t.Helper()
	r.waitReady()
	require.NoError(r.t, r.sim.InsertNote(cents))
}

func (r *rig) credits() []id003.Note {
	_, _, c := r.wallet.Snapshot()
	return c
}

// hookWallet runs test code inside the kiosk's callbacks, where a crash or a fault hurts most.
type hookWallet struct {
	*id003test.MemoryWallet
	onEscrow func(ctx context.Context, n id003.Note)
}

func (w hookWallet) Escrow(ctx context.Context, n id003.Note) (bool, string, error) {
	ok, id, err := w.MemoryWallet.Escrow(ctx, n)
	if w.onEscrow != nil {
		w.onEscrow(ctx, n)
		if ctx.Err() != nil {
			return ok, id, ctx.Err()
		}
	}
	return ok, id, err
}

// startHostWith starts a host with w, a wrapper around the rig's wallet; the events still reach
// the rig's wallet.
func (r *rig) startHostWith(w id003.Wallet, mod func(*id003.Config)) {
	r.t.Helper()
	r.rec = &recorder{wallet: r.wallet}
	cfg := testConfig()
	cfg.OnEvent = r.rec.on
	if mod != nil {
		mod(&cfg)
	}
	h, err := id003.New(func() (hw.Port, error) { return hw.Open(r.link, id003.Mode) }, w, cfg)
	require.NoError(r.t, err)
	h.SetAccepting(true)
	require.NoError(r.t, h.Start())
	r.host = h
	r.t.Cleanup(func() { h.Close() })
}

// settled waits until n notes are credited, acknowledged and the unit is back to idle.
func (r *rig) settled(n int) {
	r.t.Helper()
	eventually(r.t, func() bool {
		c := r.sim.Counts()
		return len(r.credits()) == n && c.Acked >= n && r.sim.State() == id003.StateIdle &&
			r.host.Snapshot().Status.State == id003.StateIdle
	}, "expected %d credited notes and an idle unit; credits %d, sim %+v at %s", n, len(r.credits()), r.sim.Counts(), r.sim.State())
}
