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

// The kiosk dies before its commit: at restart the unit still repeats VEND VALID, the new host
// (which never saw the escrow) asks Credit with Recovered, the wallet credits the pending intent.
func TestRestartWithVendValidPendingCreditsOnce(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	r.wallet.FailNext(1 << 30) // every commit "crashes"
	r.insert(2000)
	eventually(t, func() bool { return r.rec.has(id003.EventCreditFailed) }, "credit never attempted")
	r.killHost()
	assert.Equal(t, id003.StateVendValid, r.sim.State())
	assert.Zero(t, r.sim.Counts().Acked, "nothing acknowledged before a commit")
	time.Sleep(20 * time.Millisecond) // the unit waits, as long as it takes
	assert.Equal(t, id003.StateVendValid, r.sim.State(), "the unit keeps the note at VEND VALID")

	r.wallet.FailNext(0)
	r.startHost(nil)
	r.settled(1)
	_, intents, credits := r.wallet.Snapshot()
	require.Len(t, credits, 1)
	assert.True(t, credits[0].Recovered)
	assert.Equal(t, int64(2000), credits[0].Cents)
	assert.Equal(t, intents[0].ID, credits[0].IntentID, "the pending intent was resolved")
	assert.Equal(t, id003test.Credited, intents[0].State)
	c := r.sim.Counts()
	assert.Equal(t, 1, c.Stacked)
	assert.Equal(t, 1, c.VendValid)
	assert.Equal(t, 1, c.Acked)
}

// The kiosk dies after its commit, before the ACK reached the unit: the new host asks Credit
// again, the wallet finds the intent credited and credits nothing; the host ACKs.
func TestRestartBetweenCommitAndAckDoesNotCreditTwice(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	r.wallet.SetAfterCredit(func(id003.Note) {
		require.NoError(t, r.sim.Inject(id003sim.DropAck, 1<<30)) // no ACK will get through
	})
	r.insert(5000)
	eventually(t, func() bool { return len(r.credits()) == 1 && r.rec.has(id003.EventAckRepeated) }, "no credit")
	r.killHost()
	// An ACK the dead host wrote may still wait in the pty. Pulling the line (the serving goroutine
	// stops, under DropAck, and the unread bytes go) keeps it from reaching the unit once the line
	// is clear: without this the unit sometimes took that stale ACK and the new host found STACKED.
	require.NoError(t, r.sim.Unplug())
	require.Equal(t, id003.StateVendValid, r.sim.State())
	r.sim.ClearLine()
	require.NoError(t, r.sim.Replug())

	r.startHost(nil)
	r.settled(1)
	bal, _, credits := r.wallet.Snapshot()
	assert.Len(t, credits, 1, "credited exactly once")
	assert.Equal(t, int64(5000), bal)
	assert.Equal(t, 2, r.wallet.CreditCalls, "the restarted host asked once, and was told it is done")
	assert.Equal(t, 1, r.sim.Counts().Stacked)
	assert.Equal(t, 1, r.sim.Counts().Acked)
}

// The kiosk dies after recording the intent, before STACK: the note waits in escrow; the new host
// asks again, the earlier intent is void, the note is credited once.
func TestRestartInEscrowVoidsTheEarlierIntent(t *testing.T) {
	s, link := newSim(t, id003sim.Config{})
	r := &rig{t: t, sim: s, link: link, wallet: &id003test.MemoryWallet{}}
	crashed := make(chan struct{})
	r.startHostWith(hookWallet{MemoryWallet: r.wallet, onEscrow: func(ctx context.Context, _ id003.Note) {
		close(crashed)
		<-ctx.Done() // the process dies here: nothing more is sent
	}}, nil)
	r.insert(1000)
	<-crashed
	r.killHost()
	assert.Equal(t, id003.StateEscrow, s.State())

	r.startHost(nil)
	r.settled(1)
	_, intents, credits := r.wallet.Snapshot()
	require.Len(t, intents, 2)
	assert.Equal(t, id003test.Void, intents[0].State)
	assert.Equal(t, id003test.Credited, intents[1].State)
	require.Len(t, credits, 1)
	assert.Equal(t, intents[1].ID, credits[0].IntentID)
	assert.False(t, credits[0].Recovered)
	assert.Equal(t, 1, s.Counts().Stacked)
}

// Power cut with the note in the stacker: the unit stacks it during the reset and never reports
// VEND VALID. The host asks the wallet to resolve the intent (credited at its value) before it
// sends RESET, and retries while the wallet cannot commit: the unit waits in its power-up state.
func TestPowerUpWithBillInStackerIsResolvedBeforeTheReset(t *testing.T) {
	s, link := newSim(t, id003sim.Config{StackPolls: 1 << 20}) // the note stays in STACKING
	r := &rig{t: t, sim: s, link: link, wallet: &id003test.MemoryWallet{}}
	w := &failingPowerUp{MemoryWallet: r.wallet, fails: 1 << 30}
	r.startHostWith(w, nil)
	r.insert(2000)
	r.waitState(id003.StateStacking)
	resets := s.Commands()[id003.CmdReset]
	s.PowerCycle()
	eventually(t, func() bool { return w.calls() >= 4 }, "power up asked again after each failure")
	assert.Equal(t, resets, s.Commands()[id003.CmdReset], "no reset before the wallet resolved the note")
	assert.Equal(t, id003.StatePowerUpBillInStacker, s.State(), "the unit waits")
	assert.True(t, r.rec.has(id003.EventCreditFailed))
	w.mu.Lock()
	w.fails = 0
	w.mu.Unlock()
	r.waitReady()
	eventually(t, func() bool { return s.Counts().Stacked == 1 }, "note not stacked at reset")
	assert.Zero(t, r.wallet.CreditCalls, "no VEND VALID, no Credit")
	assert.Zero(t, s.Counts().VendValid)
	bal, intents, credits := r.wallet.Snapshot()
	require.Len(t, intents, 1)
	assert.Equal(t, id003test.Credited, intents[0].State, "credited at its recorded value")
	require.Len(t, credits, 1)
	assert.Equal(t, int64(2000), bal)
	assert.Equal(t, int64(s.Counts().StackedSum), bal)
}

// failingPowerUp fails PowerUp a number of times, as a kiosk whose disk refuses to write.
type failingPowerUp struct {
	*id003test.MemoryWallet
	mu    sync.Mutex
	fails int
	n     int
}

func (w *failingPowerUp) PowerUp(ctx context.Context, st id003.State, n id003.Note) error {
	w.mu.Lock()
	w.n++
	fail := w.fails > 0
	w.mu.Unlock()
	if fail {
		return id003test.ErrCrash
	}
	return w.MemoryWallet.PowerUp(ctx, st, n)
}

func (w *failingPowerUp) calls() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// The same power cut seen by a kiosk that restarted: the new host knows no note and asks the
// wallet with a recovered note; the wallet's stacking intent is credited, once.
func TestPowerUpWithBillInStackerAfterRestart(t *testing.T) {
	r := newRig(t, id003sim.Config{StackPolls: 1 << 20}, nil)
	r.insert(1000)
	r.waitState(id003.StateStacking)
	r.killHost()
	r.sim.PowerCycle()
	r.startHost(nil)
	r.waitReady()
	assert.True(t, r.rec.sawState(id003.StatePowerUpBillInStacker))
	assert.Equal(t, 1, r.sim.Counts().Stacked)
	assert.Zero(t, r.wallet.CreditCalls)
	assert.Equal(t, 1, r.wallet.PowerUpCalls)
	bal, _, credits := r.wallet.Snapshot()
	require.Len(t, credits, 1)
	assert.True(t, credits[0].Recovered)
	assert.Equal(t, int64(1000), bal)
}

// Power cut while the kiosk records the intent, before STACK: the unit refuses STACK (it is
// powering up), so the host tells the wallet STACK was not taken; the note comes back at the
// reset and its intent is void.
func TestPowerUpWithBillInAcceptorReturnsIt(t *testing.T) {
	s, link := newSim(t, id003sim.Config{})
	r := &rig{t: t, sim: s, link: link, wallet: &id003test.MemoryWallet{}}
	var once sync.Once
	r.startHostWith(hookWallet{MemoryWallet: r.wallet, onEscrow: func(context.Context, id003.Note) {
		once.Do(s.PowerCycle) // power cut while the kiosk records the intent, before STACK
	}}, nil)
	r.insert(1000)
	eventually(t, func() bool { return s.Counts().Returned == 1 }, "note in the acceptor not returned at reset")
	r.waitReady()
	assert.True(t, r.rec.sawState(id003.StatePowerUpBillInAcceptor))
	assert.Equal(t, 1, r.wallet.PowerUpCalls)
	_, intents, credits := r.wallet.Snapshot()
	assert.Empty(t, credits)
	require.Len(t, intents, 1)
	assert.Equal(t, id003test.Void, intents[0].State, "the returned note's intent is void")
	assert.Zero(t, s.Counts().Stacked)
	r.insert(1000) // and the kiosk goes on
	r.settled(1)
}

func TestCurrencyMismatchKeepsTheUnitInhibited(t *testing.T) {
	// A unit whose software swaps 5 € and 10 €: taking notes would credit wrong amounts.
	swapped := id003.DenomTable{{0x62, 1000}, {0x63, 500}, {0x64, 2000}, {0x65, 5000}}
	r := newRig(t, id003sim.Config{Table: swapped}, nil)
	eventually(t, func() bool { return r.rec.has(id003.EventConfigError) }, "mismatch not reported")
	r.waitState(id003.StateDisabled)
	r.waitPolls(10)
	assert.Equal(t, id003.StateDisabled, r.sim.State(), "the host never enables a unit it cannot trust")
	assert.ErrorIs(t, r.host.Snapshot().ConfigError, id003.ErrCurrencyMismatch)
	assert.ErrorIs(t, r.sim.InsertNote(500), id003sim.ErrDisabled)
}

func TestSetAcceptingInhibitsAndEnables(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	r.waitReady()
	r.host.SetAccepting(false)
	r.waitState(id003.StateDisabled)
	_, _, inhibit := r.sim.Settings()
	assert.Equal(t, byte(1), inhibit)
	assert.False(t, r.host.Snapshot().Accepting)
	r.host.SetAccepting(true)
	r.waitState(id003.StateIdle)
	r.insert(500)
	r.settled(1)
}

// The kiosk dies before its commit and the unit repeats VEND VALID without the escrow code: the
// restarted host hands the wallet a recovered note with no code; the wallet credits its open
// intent at its recorded value, and the host ACKs (a unit at VEND VALID accepts no reset).
func TestRestartWithVendValidWithoutCodeCreditsTheIntent(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	r.wallet.FailNext(1 << 30)
	r.insert(5000)
	eventually(t, func() bool { return r.rec.has(id003.EventCreditFailed) }, "credit never attempted")
	r.killHost()
	require.NoError(t, r.sim.DropVendValidData())
	r.wallet.FailNext(0)
	r.startHost(nil)
	r.settled(1)
	bal, intents, credits := r.wallet.Snapshot()
	require.Len(t, credits, 1)
	assert.True(t, credits[0].Recovered)
	assert.Zero(t, credits[0].Code, "the unit gave no code")
	assert.Equal(t, int64(5000), bal)
	assert.Equal(t, id003test.Credited, intents[0].State)
	assert.Equal(t, 1, r.sim.Counts().Acked)
}

// A note jams in the stacker after STACK, and staff clear the jam: the unit comes back idle with
// no VEND VALID. The note may be in the cash box or in staff's hand: its intent is not voided as
// if the note had come back; the host reports it uncertain and the wallet holds it for staff.
func TestNoteLostAfterStackIsNeverVoided(t *testing.T) {
	r := newRig(t, id003sim.Config{StackPolls: 1 << 20}, nil)
	r.insert(2000)
	r.waitState(id003.StateStacking)
	require.NoError(t, r.sim.Inject(id003sim.JamInStacker, 1))
	r.waitState(id003.StateJamInStacker)
	r.sim.Clear()
	r.host.Reset()
	r.waitReady()
	eventually(t, func() bool { return r.rec.has(id003.EventNoteUncertain) }, "note reported uncertain")
	assert.False(t, r.rec.has(id003.EventNoteReturned), "not reported returned")
	_, intents, credits := r.wallet.Snapshot()
	assert.Empty(t, credits)
	require.Len(t, intents, 1)
	assert.Equal(t, id003test.Held, intents[0].State)
}
