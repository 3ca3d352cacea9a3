package kiosk

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/devsim"
)

// The identity's SHA-256 is the running binary's, read from its file.
func TestSoftwareIdentity(t *testing.T) {
	f, o := newOffice(t)
	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	id, err := o.Identity(ctx, tech)
	require.NoError(t, err)
	self, err := os.Executable()
	require.NoError(t, err)
	b, err := os.ReadFile(self)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	assert.Equal(t, hex.EncodeToString(sum[:]), id.SHA256)
	assert.Equal(t, self, id.Path)
	assert.Equal(t, "dev", id.Version)
	assert.NotEmpty(t, id.GoVersion)
	require.Len(t, officeEvents(t, f, "identity"), 1)

	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	_, err = o.Identity(ctx, staff)
	require.ErrorIs(t, err, ErrNotAllowed)
}

// The devices: their paths, the notes taken, the validator's test; an
// unplugged validator fails its test, logged.
func TestOfficeDevices(t *testing.T) {
	f, d, o := newCashOffice(t)
	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	dv, err := o.Devices(ctx, tech)
	require.NoError(t, err)
	assert.Equal(t, d.ValidatorPath, dv.ValidatorPath)
	assert.Equal(t, d.PrinterPath, dv.PrinterPath)
	assert.Equal(t, []game.Money{5 * game.Euro, 10 * game.Euro, 20 * game.Euro, 50 * game.Euro}, dv.Accepted)
	assert.True(t, dv.Printer.OK)
	dv, err = o.TestValidator(ctx, tech)
	require.NoError(t, err)
	assert.NotZero(t, dv.Polls)

	require.NoError(t, d.Cause(devsim.ValidatorUnplugged))
	waitFor(t, func() bool { return !f.m.Snapshot().Cash.Validator.Connected }, "validator gone")
	_, err = o.TestValidator(ctx, tech)
	require.ErrorIs(t, err, ErrDeviceDown)
	require.Len(t, officeEvents(t, f, "validator_test"), 2)
}
