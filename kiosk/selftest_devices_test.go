package kiosk

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/escpos"
	"pharaon/hw/sim/id003sim"
	"pharaon/hw/validator"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
)

// deviceFaults are the ways a cash device fails its self-test at boot:
// missing, silent, garbled, or reporting that it cannot work.
var deviceFaults = []struct {
	name  string
	cause func(t *testing.T, d *devsim.Devices)
	code  string
	says  string
}{
	{"validator missing", func(t *testing.T, d *devsim.Devices) { require.NoError(t, d.Cause(devsim.ValidatorUnplugged)) },
		FaultValidator, "no valid answer to a status request"},
	{"validator not answering", func(t *testing.T, d *devsim.Devices) {
		require.NoError(t, d.Validator.Inject(id003sim.Silence, 1_000_000))
	}, FaultValidator, "no answer within"},
	{"validator garbled", func(t *testing.T, d *devsim.Devices) {
		// Noise before a good answer is not a fault (the answer is
		// found); answers that never pass their CRC are.
		require.NoError(t, d.Validator.Inject(id003sim.Garbage, 1_000_000))
		require.NoError(t, d.Validator.Inject(id003sim.BadCRC, 1_000_000))
	}, FaultValidator, "without a valid frame"},
	{"validator failure", func(t *testing.T, d *devsim.Devices) { require.NoError(t, d.Cause(devsim.ValidatorFailure)) },
		FaultValidator, "reports failure"},
	{"printer missing", func(t *testing.T, d *devsim.Devices) { require.NoError(t, d.Cause(devsim.PrinterUnplugged)) },
		FaultPrinter, "no valid answer to a status request"},
	{"printer not answering", func(t *testing.T, d *devsim.Devices) { d.Printer.SetSilent(true) },
		FaultPrinter, "no valid answer to a status request"},
	{"printer paper out", func(t *testing.T, d *devsim.Devices) { require.NoError(t, d.Cause(devsim.PrinterPaperOut)) },
		FaultPrinter, escpos.ErrPaperOut.Error()},
	{"printer cover open", func(t *testing.T, d *devsim.Devices) { require.NoError(t, d.Cause(devsim.PrinterCoverOpen)) },
		FaultPrinter, escpos.ErrCoverOpen.Error()},
}

// Each way a cash device fails its self-test at boot puts the kiosk out
// of service with the device's fault and the reason, logged as a critical
// event, nothing of the data shown and the data kept. The technician's
// clear runs the checks again, the devices included: refused while the
// device still fails, the kiosk back in service with its credit once the
// device answers.
func TestDeviceSelfTestAndTheTechniciansClear(t *testing.T) {
	for _, c := range deviceFaults {
		t.Run(c.name, func(t *testing.T) {
			f, d, _ := newCashFixture(t, func(cfg *Config) { cfg.DeviceCheck = kiosktest.SelfTestBound })
			f.boot()
			f.credit(5 * game.Euro)
			f.stop()
			c.cause(t, d)
			f.start()
			f.boot()
			snap := f.m.Snapshot()
			require.Equal(t, OutOfService, snap.State, "%+v", snap.Fault)
			assert.Equal(t, c.code, snap.Fault.Code)
			assert.Contains(t, snap.Fault.Detail, c.says)
			assert.Zero(t, snap.Credit, "nothing of the data is shown")
			assert.False(t, snap.Available[game.Stake050], "nothing is sold")
			ev := kioskEvents(t, f, c.code)
			require.Len(t, ev, 1)
			assert.Equal(t, store.LevelCritical, ev[0].Level)
			assert.Contains(t, ev[0].Detail, "self-test of the devices: ")
			assert.Contains(t, ev[0].Detail, c.says)

			o, tech := technician(t, f)
			require.Error(t, o.ClearFault(ctx, tech), "never a reset: the checks run again")
			assert.Equal(t, OutOfService, f.m.Snapshot().State)
			assert.Equal(t, c.code, f.m.Snapshot().Fault.Code)
			require.Len(t, officeEvents(t, f, "fault_not_cleared"), 1)

			require.NoError(t, d.Repair())
			d.Printer.SetSilent(false)
			require.NoError(t, o.ClearFault(ctx, tech))
			snap = f.m.Snapshot()
			assert.Equal(t, Home, snap.State)
			assert.Equal(t, 5*game.Euro, snap.Credit, "the credit kept")
			assert.True(t, snap.Available[game.Stake050], "on sale again")
			cleared := officeEvents(t, f, "fault_cleared")
			require.Len(t, cleared, 1)
			assert.Contains(t, cleared[0].Detail, "fault "+c.code+" cleared by the technician")
			waitFor(t, func() bool { c := f.m.Snapshot().Cash; return c.Validator.OK && c.Printer.OK }, "the devices run")
		})
	}
}

// A device lost after the boot is not a fault of the kiosk: it stays in
// service, the device's state shown and its part of the cash refused.
func TestDeviceLostAfterBootIsNoFault(t *testing.T) {
	f, d, _ := newCashFixture(t, nil)
	f.boot()
	waitFor(t, func() bool { return f.m.Snapshot().Cash.CanCashIn }, "notes taken")
	require.NoError(t, d.Cause(devsim.ValidatorUnplugged))
	waitFor(t, func() bool { return !f.m.Snapshot().Cash.Validator.OK }, "the validator's loss seen")
	snap := f.m.Snapshot()
	assert.Equal(t, Home, snap.State)
	assert.False(t, snap.Cash.CanCashIn)
	assert.Empty(t, kioskEvents(t, f, FaultValidator))
}

// technician logs a technician in on f's machine.
func technician(t *testing.T, f *fixture) (*Office, *Session) {
	t.Helper()
	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	setPINs(t, a)
	o := NewOffice(f.m, a, time.Hour)
	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	return o, tech
}

// BenchmarkDeviceSelfTest is the devices' self-test against the
// simulators on their pseudo-terminals, both answering: what it adds to a
// start in which it did not run beside the store's checks.
func BenchmarkDeviceSelfTest(b *testing.B) {
	d, _ := startDevices(b)
	cfg := Config{Cash: testCashConfig(d)}
	cfg.Cash.Validator.ReplyTimeout = 0 // the production default
	require.NoError(b, cfg.fill())
	m := &Machine{cfg: cfg}
	b.ResetTimer()
	for range b.N {
		if err := m.checkDevices(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// The self-test says what the unit is: its family and what it reports of
// itself, in the log and in the devices view, and in the fault of a unit
// that answers with a failure.
func TestDeviceSelfTestSaysWhatTheUnitIs(t *testing.T) {
	f, d, _ := newCashFixture(t, func(cfg *Config) { cfg.DeviceCheck = kiosktest.SelfTestBound })
	f.boot()
	ev := kioskEvents(t, f, "validator_identity")
	require.Len(t, ev, 1)
	assert.Contains(t, ev[0].Detail, "bill validator "+d.ValidatorPath+" is ID-003 PHARAON-SIM ID003 EUR V1.00 2025-01-01")
	o, tech := technician(t, f)
	devs, err := o.Devices(ctx, tech)
	require.NoError(t, err)
	assert.Equal(t, validator.FamilyID003, devs.ValidatorFamily)
	assert.Equal(t, validator.Identity{Family: validator.FamilyID003, Version: "PHARAON-SIM ID003 EUR V1.00 2025-01-01"}, devs.ValidatorUnit)

	f.stop()
	require.NoError(t, d.Cause(devsim.ValidatorFailure))
	f.start()
	f.boot()
	snap := f.m.Snapshot()
	require.Equal(t, FaultValidator, snap.Fault.Code)
	assert.Contains(t, snap.Fault.Detail, "(ID-003 PHARAON-SIM ID003 EUR V1.00 2025-01-01) reports failure")
}
