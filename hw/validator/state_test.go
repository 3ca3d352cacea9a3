package validator

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The screens hold words for every state's key and the event log for every kind's code: a state
// or kind without a name would show "unknown" for something the unit did say.
func TestEveryStateAndKindIsNamed(t *testing.T) {
	seen := map[string]State{}
	for _, s := range States() {
		k := s.Key()
		assert.NotEqual(t, "unknown", k, "state %d", int(s))
		if o, dup := seen[k]; dup {
			t.Errorf("states %d and %d share the key %q", int(o), int(s), k)
		}
		seen[k] = s
	}
	assert.Equal(t, "power_up_with_bill_in_stacker", StatePowerUpBillInStacker.Key())
	for k := EventConnected; k <= EventCalled; k++ {
		assert.NotEqual(t, "event", k.Code(), "kind %d", int(k))
	}
	assert.Equal(t, "config_error", EventConfigError.Code())
}

func TestFaultsAndPowerUps(t *testing.T) {
	for _, s := range States() {
		if s.PowerUp() && s.Fault() {
			t.Errorf("%s is both a power-up and a fault", s)
		}
		if s.AtRest() && (s.Fault() || s.PowerUp()) {
			t.Errorf("%s is at rest and not", s)
		}
	}
	assert.True(t, StateJamInStacker.Fault())
	assert.False(t, StateVendValid.Fault())
	assert.Equal(t, "rejecting (inhibited denomination) [17 79]",
		Status{State: StateRejecting, Code: "17 79", Reason: "inhibited_denomination"}.String())
}
