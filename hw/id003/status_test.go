package id003_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/id003"
)

func TestParseStatusEveryState(t *testing.T) {
	tests := []struct {
		code  byte
		data  []byte
		state id003.State
	}{
		{0x11, nil, id003.StateIdle},
		{0x12, nil, id003.StateAccepting},
		{0x13, []byte{0x63}, id003.StateEscrow},
		{0x14, nil, id003.StateStacking},
		{0x15, []byte{0x63}, id003.StateVendValid},
		{0x15, nil, id003.StateVendValid},
		{0x16, nil, id003.StateStacked},
		{0x17, []byte{0x71}, id003.StateRejecting},
		{0x18, nil, id003.StateReturning},
		{0x19, nil, id003.StateHolding},
		{0x1A, nil, id003.StateDisabled},
		{0x1B, nil, id003.StateInitialize},
		{0x40, nil, id003.StatePowerUp},
		{0x41, nil, id003.StatePowerUpBillInAcceptor},
		{0x42, nil, id003.StatePowerUpBillInStacker},
		{0x43, nil, id003.StateStackerFull},
		{0x44, nil, id003.StateStackerOpen},
		{0x45, nil, id003.StateJamInAcceptor},
		{0x46, nil, id003.StateJamInStacker},
		{0x47, nil, id003.StatePause},
		{0x48, nil, id003.StateCheated},
		{0x49, []byte{0xA2}, id003.StateFailure},
		{0x4A, nil, id003.StateCommunicationError},
	}
	for _, tt := range tests {
		t.Run(tt.state.String(), func(t *testing.T) {
			s, err := id003.ParseStatus(id003.Frame{Cmd: tt.code, Data: tt.data})
			require.NoError(t, err)
			assert.Equal(t, tt.state, s.State)
			assert.Equal(t, tt.code, s.Code)
			assert.Equal(t, tt.code, tt.state.Code(), "state and code map both ways")
			assert.NotEqual(t, "unknown", tt.state.Key())
		})
	}
}

func TestParseStatusAccessors(t *testing.T) {
	s, err := id003.ParseStatus(id003.Frame{Cmd: 0x13, Data: []byte{0x64}})
	require.NoError(t, err)
	code, ok := s.Denomination()
	assert.True(t, ok)
	assert.Equal(t, byte(0x64), code)
	assert.Equal(t, "13 64", s.DeviceCode())

	s, err = id003.ParseStatus(id003.Frame{Cmd: 0x17, Data: []byte{0x77}})
	require.NoError(t, err)
	assert.Equal(t, id003.RejectPhotoPattern, s.Reason())
	assert.Equal(t, "photo pattern error", s.Reason().String())
	assert.Contains(t, s.String(), "17 77")
	_, ok = s.Denomination()
	assert.False(t, ok)

	s, err = id003.ParseStatus(id003.Frame{Cmd: 0x49, Data: []byte{0xAF}})
	require.NoError(t, err)
	assert.Equal(t, "validator head removed", s.Failure().String())
	assert.Equal(t, "failure 0xEE", id003.FailureCode(0xEE).String())
	assert.Equal(t, "reject reason 0x7A", id003.RejectReason(0x7A).String())
}

func TestParseStatusRefusesNonsense(t *testing.T) {
	tests := []struct {
		name string
		f    id003.Frame
		want error
	}{
		{"unknown byte", id003.Frame{Cmd: 0x20}, id003.ErrUnknownStatus},
		{"ack is not a status", id003.Frame{Cmd: 0x50}, id003.ErrUnknownStatus},
		{"invalid command is not a status", id003.Frame{Cmd: 0x4B}, id003.ErrUnknownStatus},
		{"escrow without denomination", id003.Frame{Cmd: 0x13}, id003.ErrStatusData},
		{"idle with data", id003.Frame{Cmd: 0x11, Data: []byte{1}}, id003.ErrStatusData},
		{"vend valid with two bytes", id003.Frame{Cmd: 0x15, Data: []byte{0x63, 0x63}}, id003.ErrStatusData},
		{"rejecting with two bytes", id003.Frame{Cmd: 0x17, Data: []byte{0x71, 0}}, id003.ErrStatusData},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := id003.ParseStatus(tt.f)
			assert.ErrorIs(t, err, tt.want)
			assert.ErrorIs(t, err, hw.ErrProtocol)
		})
	}
}

func TestStateClassification(t *testing.T) {
	assert.True(t, id003.StateJamInStacker.Fault())
	assert.True(t, id003.StateStackerOpen.Fault())
	assert.False(t, id003.StateIdle.Fault())
	assert.True(t, id003.StatePowerUpBillInStacker.PowerUp())
	assert.False(t, id003.StateInitialize.PowerUp())
	assert.Equal(t, id003.StateUnknown, id003.StateOf(0x99))
}
