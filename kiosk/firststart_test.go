package kiosk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The first start's steps are the technician's, in order: staff cannot
// read or pass them, a step other than the one reached is refused and
// changes nothing, a failed check stays at its step, and a kiosk that
// never began the sequence is not held back by it.
func TestFirstStartStepsInOrder(t *testing.T) {
	f, o := newOffice(t)
	pending, err := f.m.FirstStartPending(ctx)
	require.NoError(t, err)
	assert.False(t, pending, "a kiosk that never began the sequence")
	require.NoError(t, f.m.BeginFirstStart(ctx))
	pending, err = f.m.FirstStartPending(ctx)
	require.NoError(t, err)
	assert.True(t, pending)

	staff, err := o.Login(ctx, testStaffPIN)
	require.NoError(t, err)
	_, _, err = o.PassFirstStep(ctx, staff, StepKeys)
	require.ErrorIs(t, err, ErrNotAllowed)
	tech, err := o.Login(ctx, testTechPIN)
	require.NoError(t, err)
	_, _, err = o.PassFirstStep(ctx, tech, StepBlock)
	require.ErrorIs(t, err, ErrFirstStep, "a step skipped")
	step, err := o.FirstStart(ctx, tech)
	require.NoError(t, err)
	assert.Equal(t, StepKeys, step, "nothing changed")

	next, c, err := o.PassFirstStep(ctx, tech, StepKeys)
	require.NoError(t, err)
	assert.Equal(t, FirstCheck{Step: StepKeys, OK: true, Code: "keys.found", N: 1}, c)
	assert.Equal(t, StepDevices, next)
	next, c, err = o.PassFirstStep(ctx, tech, StepDevices)
	require.NoError(t, err)
	assert.False(t, c.OK, "this kiosk has no validator")
	assert.Equal(t, "devices.validator_missing", c.Code)
	assert.Equal(t, StepDevices, next, "a failed check stays at its step")
	require.NoError(t, f.m.BeginFirstStart(ctx))
	step, err = o.FirstStart(ctx, tech)
	require.NoError(t, err)
	assert.Equal(t, StepDevices, step, "beginning again does not go back")
}

// A step the sequence does not know (a row written by no release) is an
// error where the step is read, the same for the start and the screen:
// the start said the sequence was pending while the screen took it as
// done and opened the kiosk.
func TestFirstStartUnknownStepRefused(t *testing.T) {
	f, o := newOffice(t)
	require.NoError(t, f.m.st.SetSetting(ctx, "setup", SettingFirstStart, "bogus"))
	_, err := f.m.FirstStartPending(ctx)
	require.ErrorIs(t, err, ErrFirstStep)
	tech, err := o.Login(ctx, testTechPIN)
	require.NoError(t, err)
	_, err = o.FirstStart(ctx, tech)
	require.ErrorIs(t, err, ErrFirstStep)
}
