package id003_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
)

func TestHostCreditsEveryDenominationOnceOverAPTY(t *testing.T) {
	r := newRig(t, id003sim.Config{}, nil)
	var want int64
	for _, cents := range id003.DefaultEnabled {
		r.insert(cents)
		want += cents
		eventually(t, func() bool {
			return r.sim.Counts().Acked == len(r.credits()) && r.sim.State() == id003.StateIdle && r.sim.Counts().Stacked == len(r.credits()) && len(r.credits()) > 0 && r.credits()[len(r.credits())-1].Cents == cents
		},
			"note of %d cents not credited and stacked", cents)
	}
	bal, intents, credits := r.wallet.Snapshot()
	assert.Equal(t, want, bal)
	c := r.sim.Counts()
	assert.Equal(t, len(id003.DefaultEnabled), c.Stacked)
	assert.Equal(t, want, c.StackedSum, "money credited equals money in the cash box")
	assert.Equal(t, id003.DefaultEnabled, c.Values)
	require.Len(t, credits, len(id003.DefaultEnabled))
	for i, n := range credits {
		assert.Equal(t, intents[i].ID, n.IntentID)
		assert.False(t, n.Recovered)
	}
	assert.Equal(t, len(id003.DefaultEnabled), r.wallet.CreditCalls, "one Credit call per note")
	// The unit's path, as logged: power up, reset, then each note through escrow to stacked.
	for _, s := range []id003.State{id003.StatePowerUp, id003.StateInitialize, id003.StateAccepting,
		id003.StateEscrow, id003.StateStacking, id003.StateVendValid, id003.StateStacked} {
		assert.True(t, r.rec.sawState(s), "state %s never reported", s)
	}
}
