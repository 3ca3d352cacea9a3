package ui

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/kiosktest"
)

// deviceDownAtBoot makes a simulated device fail before the kiosk starts
// (after withDevices), with a short bound for the devices' self-test.
func deviceDownAtBoot(cause func(*devsim.Devices)) fixtureOption {
	return func(f *scrFixture, c *kiosk.Config) {
		f.deviceDown = true
		c.DeviceCheck = kiosktest.SelfTestBound
		cause(f.devs)
	}
}

// A cash device that fails its self-test at boot shows the out-of-service
// screen with the device's fault, in both languages, and nothing to sell;
// the detail is the technician's. Once the device answers again, the
// technician's clear brings the home screen back.
func TestScreensDeviceSelfTestOutOfService(t *testing.T) {
	for _, c := range []struct {
		name   string
		cause  func(*devsim.Devices)
		code   string
		golden string
	}{
		{"validator missing", func(d *devsim.Devices) { require.NoError(t, d.Cause(devsim.ValidatorUnplugged)) }, kiosk.FaultValidator,
			"screen-out-of-service-validator.png"},
		{"validator not answering", func(d *devsim.Devices) { require.NoError(t, d.Validator.Inject("silence", 1_000_000)) }, kiosk.FaultValidator, ""},
		{"printer missing", func(d *devsim.Devices) { require.NoError(t, d.Cause(devsim.PrinterUnplugged)) }, kiosk.FaultPrinter,
			"screen-out-of-service-printer.png"},
		{"printer paper out", func(d *devsim.Devices) { require.NoError(t, d.Cause(devsim.PrinterPaperOut)) }, kiosk.FaultPrinter, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newScrFixture(t, withDevices(nil), deviceDownAtBoot(c.cause))
			require.Equal(t, scrOutOfService, f.s.screen, "%q", f.texts())
			fault := kiosk.Fault{Code: c.code}
			texts := f.screenText()
			for _, want := range []string{"Hors service", "Out of service", Tr{Lang: French}.Fault(fault), Tr{Lang: English}.Fault(fault)} {
				assert.Contains(t, texts, want)
			}
			assert.NotContains(t, texts, f.m.Snapshot().Fault.Detail, "the technician's detail is not for the player")
			assert.Nil(t, f.button("Jouer"), "nothing is sold out of service")
			if c.golden != "" {
				f.golden(c.golden)
			}

			a := kiosk.NewAccess(f.st, f.clock, kiosk.AccessConfig{KDF: kiosk.KDF{Time: 1, MemoryKiB: 64, Threads: 1}})
			setup, err := a.SetupSession(context.Background())
			require.NoError(t, err)
			require.NoError(t, a.Setup(context.Background(), setup, "246800", "135700"))
			o := kiosk.NewOffice(f.m, a, time.Hour)
			tech, err := o.Login(context.Background(), "246800")
			require.NoError(t, err)
			require.Error(t, o.ClearFault(context.Background(), tech), "the device still fails")
			require.Equal(t, scrOutOfService, f.s.screen)
			require.NoError(t, f.devs.Repair())
			require.NoError(t, o.ClearFault(context.Background(), tech))
			f.waitFor(func() bool { return f.s.screen == scrHome }, "the home screen back")
			f.cashReady()
		})
	}
}
