package id003_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/id003"
	"pharaon/hw/id003/id003test"
	"pharaon/hw/sim/id003sim"
)

// Every state change reaches the event log with the unit's own bytes, in the unit's order.
func TestHostLogsEveryStateWithDeviceCodes(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	r.insert(2000)
	r.settled(1)
	var codes []string
	for _, e := range r.rec.all() {
		if e.Kind == id003.EventState {
			codes = append(codes, e.Status.DeviceCode())
		}
	}
	// After configuration: the note's whole path, each change once.
	assert.Subset(t, codes, []string{"40", "1B", "12", "13 64", "14", "15 64", "16", "11"})
	i := indexOf(codes, "12")
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, []string{"12", "13 64", "14", "15 64", "16", "11"}, codes[i:i+6])
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestHostCounterfeitIsRejectedWithItsReason(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	r.waitReady()
	require.NoError(t, r.sim.InsertCounterfeit(id003.RejectPhotoPattern))
	eventually(t, func() bool { return r.sim.Counts().Returned == 1 && r.sim.State() == id003.StateIdle }, "counterfeit not returned")
	var rejected *id003.Event
	for _, e := range r.rec.all() {
		if e.Kind == id003.EventState && e.Status.State == id003.StateRejecting {
			rejected = &e
		}
	}
	require.NotNil(t, rejected, "no REJECTING event")
	assert.Equal(t, id003.RejectPhotoPattern, rejected.Status.Reason())
	assert.Equal(t, "17 77", rejected.Status.DeviceCode())
	assert.Zero(t, r.wallet.EscrowCalls, "a rejected note never reaches the kiosk")
	assert.Empty(t, r.credits())
}

func TestHostInhibitedDenominationIsNeverEscrowed(t *testing.T) {
	// The kiosk takes 5-50 €; a 100 € note is inhibited in the unit (SET ENABLE), which refuses it.
	r := newRig(t, id003sim.Config{}, nil)
	r.waitReady()
	enable, _, inhibit := r.sim.Settings()
	assert.Equal(t, [2]byte{0xE1, 0xFF}, enable)
	assert.Equal(t, byte(0), inhibit)
	require.NoError(t, r.sim.InsertNote(10000))
	eventually(t, func() bool { return r.sim.Counts().Returned == 1 }, "100 € note not refused")
	assert.True(t, r.rec.sawState(id003.StateRejecting))
	assert.Zero(t, r.wallet.EscrowCalls)
	assert.Zero(t, r.sim.Counts().Stacked)
}

func TestHostReturnsNoteBeyondMaxCredit(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	r.wallet.MaxCredit = 1500
	r.insert(1000)
	r.settled(1)
	r.insert(1000) // would make 20 €, over the 15 € maximum
	eventually(t, func() bool { return r.sim.Counts().Returned == 1 && r.sim.State() == id003.StateIdle }, "note not returned")
	bal, intents, _ := r.wallet.Snapshot()
	assert.Equal(t, int64(1000), bal)
	assert.Len(t, intents, 1, "a refused note leaves no intent")
	assert.Equal(t, 1, r.sim.Counts().Stacked)
	assert.True(t, r.rec.sawState(id003.StateReturning))
	refused := 0
	for _, e := range r.rec.all() {
		if e.Kind == id003.EventEscrow && !e.Accepted {
			refused++
			assert.Equal(t, int64(1000), e.Note.Cents)
		}
	}
	assert.Equal(t, 1, refused)
	r.insert(500) // still room for 5 €
	r.settled(2)
}

// Line faults hitting the money path (the STACK answer, STACKING and VEND VALID polls) cost
// retries, never a credit.
func TestHostLineFaultsNeverChangeTheCredit(t *testing.T) {
	tests := []struct {
		fault     id003sim.Fault
		n         int
		lineError bool // the host must have retried
	}{
		{id003sim.BadCRC, 3, true},
		{id003sim.Silence, 3, true},
		{id003sim.Garbage, 4, false},
		{id003sim.Split, 4, false},
		{id003sim.Merged, 4, false},
		{id003sim.DropAck, 2, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.fault), func(t *testing.T) {
			s, link := newSim(t, id003sim.Config{Seed: 7})
			r := &rig{t: t, sim: s, link: link, wallet: &id003test.MemoryWallet{}}
			var once sync.Once
			r.startHostWith(hookWallet{MemoryWallet: r.wallet, onEscrow: func(context.Context, id003.Note) {
				once.Do(func() { require.NoError(t, s.Inject(tt.fault, tt.n)) })
			}}, nil)
			r.insert(5000)
			r.settled(1)
			r.insert(2000) // the line is sound again
			r.settled(2)
			assert.Equal(t, []int64{5000, 2000}, s.Counts().Values)
			_, _, credits := r.wallet.Snapshot()
			assert.Equal(t, int64(5000), credits[0].Cents)
			assert.Equal(t, 2, r.wallet.CreditCalls, "Credit called once per note")
			assert.Equal(t, 2, s.Counts().Acked)
			if tt.lineError {
				assert.True(t, r.rec.has(id003.EventLineError), "expected retries")
			}
			if tt.fault == id003sim.DropAck {
				assert.Equal(t, 2, r.rec.count(id003.EventAckRepeated), "each lost ACK is sent again, nothing credited")
			}
			assert.False(t, r.rec.has(id003.EventCreditFailed))
		})
	}
}

func TestHostSurvivesALongSilence(t *testing.T) {
	// Longer than the retries: the host declares the line lost, re-opens and picks the note up
	// where the unit has it.
	s, link := newSim(t, id003sim.Config{})
	r := &rig{t: t, sim: s, link: link, wallet: &id003test.MemoryWallet{}}
	r.startHostWith(hookWallet{MemoryWallet: r.wallet, onEscrow: func(context.Context, id003.Note) {
		require.NoError(t, s.Inject(id003sim.Silence, 10))
	}}, nil)
	r.insert(1000)
	r.settled(1)
	assert.GreaterOrEqual(t, r.rec.count(id003.EventDisconnected), 1)
	assert.GreaterOrEqual(t, r.rec.count(id003.EventConnected), 2)
	_, _, credits := r.wallet.Snapshot()
	assert.False(t, credits[0].Recovered, "the same host run keeps the note's intent across a lost line")
	assert.Equal(t, 1, r.wallet.CreditCalls)
}

func TestHostReportsUnitFaultsAndRecovers(t *testing.T) {
	tests := []struct {
		fault id003sim.Fault
		n     int
		code  string
	}{
		{id003sim.StackerFull, 0, "43"},
		{id003sim.StackerOpen, 0, "44"},
		{id003sim.JamInAcceptor, 0, "45"},
		{id003sim.JamInStacker, 0, "46"},
		{id003sim.Pause, 0, "47"},
		{id003sim.Cheated, 0, "48"},
		{id003sim.Failure, 0xA6, "49 a6"},
	}
	for _, tt := range tests {
		t.Run(string(tt.fault), func(t *testing.T) {
			r := newRig(t, id003sim.Config{}, nil)
			r.waitReady()
			require.NoError(t, r.sim.Inject(tt.fault, tt.n))
			eventually(t, func() bool {
				for _, e := range r.rec.all() {
					if e.Kind == id003.EventState && e.Status.DeviceCode() == tt.code {
						return e.Status.State.Fault()
					}
				}
				return false
			}, "fault %s not reported with code %s", tt.fault, tt.code)
			assert.ErrorIs(t, r.sim.InsertNote(500), id003sim.ErrDisabled, "a faulty unit takes no note")
			r.sim.Clear()
			r.insert(500)
			r.settled(1)
		})
	}
}

func TestHostJamWithNoteInPathVoidsTheIntent(t *testing.T) {
	s, link := newSim(t, id003sim.Config{})
	r := &rig{t: t, sim: s, link: link, wallet: &id003test.MemoryWallet{}}
	r.startHostWith(hookWallet{MemoryWallet: r.wallet, onEscrow: func(context.Context, id003.Note) {
		require.NoError(t, s.Inject(id003sim.JamInAcceptor, 0))
	}}, nil)
	r.insert(2000)
	eventually(t, func() bool { return r.rec.sawState(id003.StateJamInAcceptor) }, "jam not reported")
	s.Clear() // staff pulls the note out
	eventually(t, func() bool { return r.rec.has(id003.EventNoteReturned) }, "accepted note coming back not reported")
	_, intents, credits := r.wallet.Snapshot()
	assert.Empty(t, credits)
	require.Len(t, intents, 1)
	assert.Equal(t, id003test.Void, intents[0].State)
	assert.Equal(t, 1, s.Counts().Removed)
	assert.Zero(t, s.Counts().Stacked)
}

func TestHostResetWaitsUntilNoNoteIsInFlight(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	r.wallet.FailNext(1 << 30) // the kiosk cannot commit: VEND VALID stays unacknowledged
	r.insert(1000)
	eventually(t, func() bool { return r.rec.count(id003.EventCreditFailed) >= 3 }, "credit never attempted")
	resets := r.sim.Commands()[id003.CmdReset]
	r.host.Reset()
	r.waitPolls(10) // each one a chance to send the RESET
	assert.Equal(t, resets, r.sim.Commands()[id003.CmdReset], "no RESET while VEND VALID waits")
	assert.Equal(t, id003.StateVendValid, r.sim.State())
	assert.Equal(t, 0, r.sim.Counts().Acked, "no ACK before the credit is committed")

	r.wallet.FailNext(0)
	eventually(t, func() bool { return r.sim.Commands()[id003.CmdReset] == resets+1 }, "reset not sent once the note is credited")
	r.waitReady()
	assert.Len(t, r.credits(), 1)
}

func TestHostUnplugReplugWhileIdle(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	r.waitReady()
	require.NoError(t, r.sim.Unplug())
	eventually(t, func() bool { return r.rec.has(id003.EventDisconnected) && !r.host.Snapshot().Connected }, "unplug not noticed")
	time.Sleep(30 * time.Millisecond) // several failed re-opens with back-off
	require.NoError(t, r.sim.Replug())
	eventually(t, func() bool { return r.host.Snapshot().Connected }, "host did not re-open the replugged unit")
	assert.GreaterOrEqual(t, r.rec.count(id003.EventConnected), 2)
	r.insert(1000)
	r.settled(1)
}

func TestHostUnplugBetweenCommitAndAck(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	r.wallet.SetAfterCredit(func(id003.Note) {
		require.NoError(t, r.sim.Unplug()) // the cable goes after the commit, before the ACK
	})
	r.insert(5000)
	eventually(t, func() bool { return len(r.credits()) == 1 && !r.host.Snapshot().Connected }, "no credit / no unplug")
	assert.Equal(t, id003.StateVendValid, r.sim.State(), "the unit never got the ACK")
	require.NoError(t, r.sim.Replug())
	r.settled(1)
	assert.Equal(t, 1, r.wallet.CreditCalls, "the same host remembers it credited this note")
	assert.Equal(t, 1, r.rec.count(id003.EventAckRepeated))
	assert.Equal(t, 1, r.sim.Counts().Stacked)
}
