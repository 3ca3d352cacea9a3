package essp_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/essp"
	"pharaon/hw/essp/essptest"
	"pharaon/hw/sim/esspsim"
	"pharaon/hw/validator"
)

// rig is the host against the simulator over a real pty, with a kiosk wallet in memory.
type rig struct {
	t      *testing.T
	sim    *esspsim.Sim
	wallet *essptest.Wallet
	host   *essp.Host
	cfg    essp.Config

	mu     sync.Mutex
	events []validator.Event
}

func newRig(t *testing.T, sc esspsim.Config, hc essp.Config) *rig {
	t.Helper()
	r := &rig{t: t, sim: esspsim.New(sc), wallet: &essptest.Wallet{}}
	require.NoError(t, r.sim.Start(""))
	t.Cleanup(func() { _ = r.sim.Close() })
	hc.PollInterval = 5 * time.Millisecond
	hc.ReplyTimeout = 150 * time.Millisecond
	hc.Backoff = hw.Backoff{Min: 5 * time.Millisecond, Max: 40 * time.Millisecond}
	hc.OnEvent = r.on
	r.cfg = hc
	r.startHost()
	return r
}

func (r *rig) on(e validator.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *rig) count(k validator.EventKind) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func (r *rig) states() []validator.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []validator.State
	for _, e := range r.events {
		if e.Kind == validator.EventState {
			out = append(out, e.Status.State)
		}
	}
	return out
}

func (r *rig) startHost() {
	r.t.Helper()
	path := r.sim.Path()
	h, err := essp.New(func() (hw.Port, error) { return hw.Open(path, essp.Mode) }, r.wallet, r.cfg)
	require.NoError(r.t, err)
	h.SetAccepting(true)
	require.NoError(r.t, h.Start())
	r.host = h
	r.t.Cleanup(func() { _ = h.Close() })
}

func (r *rig) killHost() {
	r.t.Helper()
	require.NoError(r.t, r.host.Close())
}

// wait is eventually with the events logged when the condition never holds.
func (r *rig) wait(cond func() bool, msg string) {
	r.t.Helper()
	if !assert.Eventually(r.t, cond, 10*time.Second, 5*time.Millisecond, msg) {
		r.dump(r.t)
		r.t.FailNow()
	}
}

// insert waits for the unit to take notes, then inserts one.
func (r *rig) insert(cents int64) {
	r.t.Helper()
	r.wait(func() bool { return r.sim.InsertNote(cents) == nil }, "the unit never took a note")
}

func (r *rig) balance() int64 {
	b, _, _ := r.wallet.Snapshot()
	return b
}

func TestSimNotesCreditedOnceEncrypted(t *testing.T) {
	r := newRig(t, esspsim.Config{RequireEncryption: true}, essp.Config{})
	for i, v := range []int64{500, 2000, 5000} {
		r.insert(v)
		want := r.balance() + v
		r.wait(func() bool { return r.balance() == want && r.sim.Counts().Acked == i+1 }, "note not credited")
	}
	assert.True(t, r.sim.Encrypted())
	c := r.sim.Counts()
	assert.Equal(t, []int64{500, 2000, 5000}, c.Values)
	assert.Equal(t, 3, c.Acked)
	_, intents, credits := r.wallet.Snapshot()
	assert.Len(t, credits, 3)
	for _, in := range intents {
		assert.True(t, in.Credited)
	}
	snap := r.host.Snapshot()
	assert.Equal(t, "10203040", snap.Identity.Serial)
	assert.Equal(t, "NV0200420EUR0SIM", snap.Identity.Version)
	assert.Zero(t, r.sim.Commands()[essp.CmdPoll], "never the plain POLL")
	// 100 € is in the unit's table but not taken by the kiosk: inhibited in the unit.
	_, inh := r.sim.Enabled()
	assert.Equal(t, [2]byte{0x0F, 0x00}, inh)
}

func TestSimPlainHost(t *testing.T) {
	r := newRig(t, esspsim.Config{}, essp.Config{Plain: true})
	r.insert(1000)
	r.wait(func() bool { return r.balance() == 1000 }, "note not credited")
	assert.False(t, r.sim.Encrypted())
	assert.Zero(t, r.sim.Commands()[essp.CmdRequestKeyExchange])
}

func TestSimPlainHostAgainstAUnitRequiringEncryption(t *testing.T) {
	r := newRig(t, esspsim.Config{RequireEncryption: true}, essp.Config{Plain: true})
	r.wait(func() bool { return r.count(validator.EventDisconnected) > 0 }, "the host did not give up the session")
	on, _ := r.sim.Enabled()
	assert.False(t, on)
	assert.ErrorIs(t, r.sim.InsertNote(1000), esspsim.ErrDisabled)
}

func TestSimKioskRefusesNote(t *testing.T) {
	r := newRig(t, esspsim.Config{}, essp.Config{})
	r.wallet.SetRefuse(true)
	r.insert(2000)
	r.wait(func() bool { return r.sim.Counts().Returned == 1 }, "note not given back")
	assert.Zero(t, r.balance())
	assert.Zero(t, r.sim.Counts().Stacked)
}

func TestSimLineFaults(t *testing.T) {
	r := newRig(t, esspsim.Config{Seed: 3}, essp.Config{})
	r.wait(func() bool { on, _ := r.sim.Enabled(); return on }, "never enabled")
	// Each note ends in the cash box, credited once and acknowledged, or back with the player
	// (a fault long enough to lose the line while it waited in escrow: the next session gives it
	// back); never anything else.
	for i, f := range []esspsim.Fault{esspsim.Silence, esspsim.BadCRC, esspsim.Garbage, esspsim.Split, esspsim.Merged, esspsim.Deaf} {
		require.NoError(t, r.sim.Inject(f, 2))
		r.insert(1000)
		r.wait(func() bool {
			c := r.sim.Counts()
			return c.Stacked+c.Returned == i+1 && c.Acked == c.Stacked && r.sim.State() == "idle"
		}, string(f))
		assert.Equal(t, r.sim.Counts().StackedSum, r.balance(), string(f))
	}
	assert.GreaterOrEqual(t, r.sim.Counts().Stacked, 4, "most notes go through")
	assert.Positive(t, r.count(validator.EventLineError))
}

func TestSimUnplugAndReplug(t *testing.T) {
	r := newRig(t, esspsim.Config{}, essp.Config{})
	r.wait(func() bool { return r.host.Snapshot().Connected }, "never connected")
	require.NoError(t, r.sim.Unplug())
	r.wait(func() bool { return !r.host.Snapshot().Connected }, "unplug not seen")
	require.NoError(t, r.sim.Replug())
	r.wait(func() bool { return r.count(validator.EventConfigured) == 2 }, "not set up again")
	r.insert(500)
	r.wait(func() bool { return r.balance() == 500 }, "not credited after replug")
}

// A note read while no host listened waits in escrow: the host that comes gives it back rather
// than let its first poll stack a note the kiosk never decided on.
func TestSimNoteInEscrowAtStartIsGivenBack(t *testing.T) {
	r := newRig(t, esspsim.Config{}, essp.Config{})
	r.wait(func() bool { on, _ := r.sim.Enabled(); return on }, "not enabled")
	r.killHost()
	require.NoError(t, r.sim.InsertNote(2000))
	r.wait(func() bool { return r.sim.State() == "escrow" }, "not in escrow")
	r.startHost()
	r.wait(func() bool { return r.sim.Counts().Returned == 1 && r.sim.State() == "idle" }, "not given back")
	assert.Zero(t, r.sim.Counts().Stacked)
	_, intents, _ := r.wallet.Snapshot()
	assert.Empty(t, intents)
}

// Power cut at each step of a note's way: afterwards the kiosk's balance is exactly what the cash
// box holds.
func TestSimPowerCutAtEveryStep(t *testing.T) {
	slow := esspsim.Durations{Read: 150 * time.Millisecond, Stack: 150 * time.Millisecond, Stacked: 150 * time.Millisecond,
		Reject: 50 * time.Millisecond, Escrow: 10 * time.Second}
	for _, step := range []string{"reading", "stacking", "finishing"} {
		t.Run(step, func(t *testing.T) {
			r := newRig(t, esspsim.Config{Timing: slow}, essp.Config{})
			r.insert(1000)
			r.wait(func() bool { return r.sim.State() == step }, "never reached "+step)
			r.sim.PowerCycle()
			r.wait(func() bool {
				_, intents, _ := r.wallet.Snapshot()
				open := slices.ContainsFunc(intents, func(i essptest.Intent) bool { return !i.Credited && !i.Void && !i.Held })
				on, _ := r.sim.Enabled()
				return !open && on && r.sim.State() == "idle"
			}, "not settled")
			assert.Equal(t, r.sim.Counts().StackedSum, r.balance())
			// And the unit takes the next note.
			r.insert(500)
			want := r.sim.Counts().StackedSum + 500
			r.wait(func() bool { return r.balance() == want }, "next note")
		})
	}
}

// The kiosk commits the credit and dies before the unit got EVENT ACK: the restarted host is told
// the credit again and the kiosk credits nothing twice.
func TestSimHostKilledBetweenCreditAndAck(t *testing.T) {
	r := newRig(t, esspsim.Config{}, essp.Config{})
	var once sync.Once
	r.wallet.SetAfterCredit(func(validator.Note) {
		once.Do(func() { _ = r.sim.Inject(esspsim.Deaf, 1<<30) }) // the ack never arrives
	})
	r.insert(5000)
	r.wait(func() bool { return r.balance() == 5000 && r.count(validator.EventLineError) > 0 }, "no credit")
	r.killHost()
	require.NoError(t, r.sim.Unplug())
	assert.Zero(t, r.sim.Counts().Acked)
	r.sim.ClearLine()
	require.NoError(t, r.sim.Replug())
	r.startHost()
	r.wait(func() bool { return r.sim.Counts().Acked == 1 }, "credit never acknowledged")
	assert.Equal(t, int64(5000), r.balance())
	_, _, credits := r.wallet.Snapshot()
	assert.Len(t, credits, 1)
}

// The kiosk dies before its commit: the new host credits the pending intent, once.
func TestSimHostKilledBeforeCommit(t *testing.T) {
	r := newRig(t, esspsim.Config{}, essp.Config{})
	r.wallet.FailNext(1 << 30)
	r.insert(2000)
	r.wait(func() bool { return r.count(validator.EventCreditFailed) > 0 }, "credit never tried")
	r.killHost()
	assert.Zero(t, r.sim.Counts().Acked)
	r.wallet.FailNext(0)
	r.startHost()
	r.wait(func() bool { return r.sim.Counts().Acked == 1 }, "credit never acknowledged")
	_, intents, credits := r.wallet.Snapshot()
	require.Len(t, credits, 1)
	assert.True(t, credits[0].Recovered)
	assert.True(t, intents[0].Credited)
	assert.Equal(t, int64(2000), r.balance())
}

func TestSimJamClearedByStaffLeavesIntentForStaff(t *testing.T) {
	slow := esspsim.Durations{Stack: 300 * time.Millisecond}
	r := newRig(t, esspsim.Config{Timing: slow}, essp.Config{})
	r.insert(1000)
	r.wait(func() bool { return r.sim.State() == "stacking" }, "never stacking")
	require.NoError(t, r.sim.Inject(esspsim.SafeJam, 0))
	r.wait(func() bool { return slices.Contains(r.states(), validator.StateJamInStacker) }, "jam not reported")
	r.sim.Clear()
	r.wait(func() bool { return r.count(validator.EventNoteUncertain) == 1 }, "uncertain note not reported")
	assert.Zero(t, r.balance())
	assert.Equal(t, 1, r.sim.Counts().Removed)
}

func TestSimUnitConditionsReported(t *testing.T) {
	r := newRig(t, esspsim.Config{}, essp.Config{})
	r.wait(func() bool { on, _ := r.sim.Enabled(); return on }, "never enabled")
	require.NoError(t, r.sim.Inject(esspsim.CashBoxRemoved, 0))
	r.wait(func() bool { return r.host.Snapshot().Status.State == validator.StateStackerOpen }, "cash box")
	r.sim.Clear()
	r.wait(func() bool { return r.host.Snapshot().Status.State == validator.StateIdle }, "back")
	require.NoError(t, r.sim.InsertFraud(2000))
	r.wait(func() bool { return slices.Contains(r.states(), validator.StateCheated) }, "fraud")
	r.wait(func() bool { return r.sim.InsertNote(500) == nil }, "fraud event not acknowledged")
	r.wait(func() bool { return r.balance() == 500 }, "credit after fraud")
	require.NoError(t, r.sim.Inject(esspsim.StackerFull, 0))
	r.wait(func() bool { return r.host.Snapshot().Status.State == validator.StateStackerFull }, "full")
	assert.Equal(t, "EF 00", (validator.Status{Code: "EF 00"}).DeviceCode())
}

func TestSimAcceptingSwitchedOff(t *testing.T) {
	r := newRig(t, esspsim.Config{}, essp.Config{})
	r.wait(func() bool { on, _ := r.sim.Enabled(); return on }, "never enabled")
	r.host.SetAccepting(false)
	r.wait(func() bool { on, _ := r.sim.Enabled(); return !on }, "never disabled")
	assert.ErrorIs(t, r.sim.InsertNote(500), esspsim.ErrDisabled)
}

func TestProbeChangesNothing(t *testing.T) {
	s := esspsim.New(esspsim.Config{})
	require.NoError(t, s.Start(""))
	defer s.Close()
	p, err := hw.Open(s.Path(), essp.Mode)
	require.NoError(t, err)
	defer p.Close()
	id, st, err := essp.Probe(t.Context(), p, essp.Config{ReplyTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, validator.FamilyESSP, id.Family)
	assert.Equal(t, "10203040", id.Serial)
	assert.Equal(t, validator.StateUnknown, st.State)
	cmds := s.Commands()
	for _, c := range []byte{essp.CmdPoll, essp.CmdPollWithAck, essp.CmdEnable, essp.CmdReset, essp.CmdHold, essp.CmdSetInhibits, essp.CmdRequestKeyExchange} {
		assert.Zero(t, cmds[c], "probe sent %02X", c)
	}
}

// dump logs what the kiosk heard, for a failing test.
func (r *rig) dump(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		t.Log(e)
	}
	t.Logf("unit %s %+v", r.sim.State(), r.sim.Counts())
}

func TestSimUnitWithoutPollWithAckStaysDisabled(t *testing.T) {
	r := newRig(t, esspsim.Config{NoPollWithAck: true}, essp.Config{})
	r.wait(func() bool { return r.count(validator.EventConfigError) == 1 }, "no config error")
	r.wait(func() bool { return r.host.Snapshot().Polls > 3 }, "not polled")
	on, _ := r.sim.Enabled()
	assert.False(t, on)
	assert.ErrorIs(t, r.host.Snapshot().ConfigError, essp.ErrNoPollWithAck)
	assert.Positive(t, r.sim.Commands()[essp.CmdPoll], "state still read, plainly")
}

// A power cut while the kiosk decides (the note held in escrow) and while a refused note goes back:
// the note comes out of the front, the intent is void, nothing is credited.
func TestSimPowerCutInEscrowAndWhileRejecting(t *testing.T) {
	t.Run("escrow", func(t *testing.T) {
		r := newRig(t, esspsim.Config{}, essp.Config{})
		var once sync.Once
		r.wallet.SetBeforeEscrow(func(validator.Note) { once.Do(r.sim.PowerCycle) })
		r.insert(2000)
		r.wait(func() bool { return len(r.wallet.PowerUps()) == 1 }, "power-up not resolved")
		assert.Equal(t, []validator.Place{validator.InAcceptor}, r.wallet.PowerUps())
		_, intents, _ := r.wallet.Snapshot()
		require.Len(t, intents, 1)
		assert.True(t, intents[0].Void)
		assert.Zero(t, r.balance())
		assert.Equal(t, 1, r.sim.Counts().Returned)
		assert.Zero(t, r.sim.Counts().Stacked)
	})
	t.Run("rejecting", func(t *testing.T) {
		slow := esspsim.Durations{Reject: 300 * time.Millisecond}
		r := newRig(t, esspsim.Config{Timing: slow}, essp.Config{})
		r.wallet.SetRefuse(true)
		r.insert(2000)
		r.wait(func() bool { return r.sim.State() == "rejecting" }, "never rejecting")
		r.sim.PowerCycle()
		r.wait(func() bool { on, _ := r.sim.Enabled(); return on && len(r.wallet.PowerUps()) == 1 }, "not back")
		assert.Zero(t, r.balance())
		assert.Equal(t, 1, r.sim.Counts().Returned)
	})
}

func TestSimCounterfeitAndUnitFaultStates(t *testing.T) {
	r := newRig(t, esspsim.Config{}, essp.Config{})
	r.wait(func() bool { on, _ := r.sim.Enabled(); return on }, "never enabled")
	require.NoError(t, r.sim.InsertCounterfeit(0))
	r.wait(func() bool {
		s := r.host.Snapshot().Status
		return s.State == validator.StateRejecting && s.Reason == "denomination_not_identified"
	}, "counterfeit's reason not reported")
	for _, c := range []struct {
		f    esspsim.Fault
		want validator.State
	}{
		{esspsim.UnsafeJam, validator.StateJamInAcceptor},
		{esspsim.SafeJam, validator.StateJamInStacker},
		{esspsim.NotePathOpen, validator.StateFailure},
	} {
		require.NoError(t, r.sim.Inject(c.f, 0))
		r.wait(func() bool { return r.host.Snapshot().Status.State == c.want }, string(c.f))
		r.sim.Clear()
		r.wait(func() bool { return r.host.Snapshot().Status.State == validator.StateIdle }, "cleared")
	}
	assert.Zero(t, r.balance())
}

func TestSimResetWaitsForTheCredit(t *testing.T) {
	slow := esspsim.Durations{Stack: 300 * time.Millisecond}
	r := newRig(t, esspsim.Config{Timing: slow}, essp.Config{})
	r.insert(1000)
	r.wait(func() bool { return r.sim.State() == "stacking" }, "never stacking")
	r.host.Reset()
	// Not while the note is on its way to its credit: the reset comes after.
	r.wait(func() bool { return r.sim.Commands()[essp.CmdReset] == 1 }, "reset never sent")
	assert.Equal(t, int64(1000), r.balance(), "credited before the reset")
	assert.Equal(t, 2, r.sim.Counts().PowerUps)
	r.wait(func() bool { on, _ := r.sim.Enabled(); return on }, "not enabled again after the reset")
	r.insert(500)
	r.wait(func() bool { return r.balance() == 1500 }, "no note after the reset")
}

func TestHostStartAndCloseOnce(t *testing.T) {
	h, err := essp.New(func() (hw.Port, error) { return nil, &hw.Error{Op: "open", Kind: hw.ErrNotFound} },
		&essptest.Wallet{}, essp.Config{Backoff: hw.Backoff{Min: time.Millisecond, Max: 2 * time.Millisecond}})
	require.NoError(t, err)
	require.NoError(t, h.Start())
	assert.Error(t, h.Start(), "started twice")
	require.NoError(t, h.Close())
	require.NoError(t, h.Close(), "closed twice")
	_, err = essp.New(nil, &essptest.Wallet{}, essp.Config{})
	assert.Error(t, err)
	_, err = essp.New(func() (hw.Port, error) { return nil, nil }, &essptest.Wallet{}, essp.Config{Country: "EURO"})
	assert.Error(t, err)
}
