package kiosktest

import (
	"time"

	"pharaon/hw"
	"pharaon/hw/escpos"
	"pharaon/hw/validator"
)

// The device timings of the tests on the simulators (kiosk/devsim): polls
// as often as the simulators allow, and waits for an answer that a loaded
// machine meets. A simulator on its pseudo-terminal answers within a
// millisecond once it gets a processor, which may take a second or more
// while other builds and tests share the machine: a wait that expires in a
// test is then a device that did not answer, never a busy machine. A test
// of a silent or missing device gets its answer within SelfTestBound, or
// sees the line fail at once (an unplugged cable hangs the port up).
const (
	ReplyTimeout  = 2 * time.Second // validator.Settings.ReplyTimeout; 250 ms in service
	StatusTimeout = 5 * time.Second // escpos.Config.StatusTimeout; 500 ms in service
	// SelfTestBound is the devices' self-test bound (kiosk.Config.DeviceCheck)
	// of the tests that make a device fail it: each such check lasts it
	// whole, and the device that does answer (the other one, or the
	// repaired one at the technician's clear) must answer within it.
	SelfTestBound = 2 * time.Second
)

// ValidatorTiming is the bill validator's driver timing of the tests (the
// family's default: ID-003).
func ValidatorTiming() validator.Settings {
	return validator.Settings{
		PollInterval: 5 * time.Millisecond,
		ReplyTimeout: ReplyTimeout,
		Backoff:      hw.Backoff{Min: 5 * time.Millisecond, Max: 50 * time.Millisecond},
	}
}

// PrinterTiming is the voucher printer's driver timing of the tests.
func PrinterTiming() escpos.Config {
	return escpos.Config{StatusTimeout: StatusTimeout, PollInterval: 20 * time.Millisecond}
}
