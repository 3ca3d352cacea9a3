package kiosk

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/hw/validator/drivers"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/kiosktest"
)

// testCashConfig is the cash configuration of the tests on the simulators,
// with the timings a loaded machine meets (kiosktest.ValidatorTiming).
func testCashConfig(d *devsim.Devices) CashConfig {
	return CashConfig{
		ValidatorPath: d.ValidatorPath,
		PrinterPath:   d.PrinterPath,
		Validator:     kiosktest.ValidatorTiming(),
		Drivers:       drivers.Opener{},
		PrinterTiming: kiosktest.PrinterTiming(),
		PrinterCheck:  30 * time.Millisecond,
	}
}

// startDevices runs both simulators for a test; receipts land in the
// returned directory.
func startDevices(t testing.TB) (*devsim.Devices, string) {
	t.Helper()
	dir := t.TempDir()
	receipts := filepath.Join(dir, "vouchers")
	d, err := devsim.Start(devsim.Config{Dir: filepath.Join(dir, "dev"), Receipts: receipts})
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return d, receipts
}

// newCashFixture is newFixture with both cash devices simulated; mod may
// change the configuration before the machine is made. Not booted.
func newCashFixture(t *testing.T, mod func(*Config)) (*fixture, *devsim.Devices, string) {
	t.Helper()
	path := templateCopy(t)
	d, receipts := startDevices(t)
	cfg := Config{Dev: true, Keys: testKeys, KioskID: "PH-0042", Venue: "Tabac de la Gare, 12 place Bellecour, Lyon",
		Cash: testCashConfig(d), Protection: noProtection}
	if mod != nil {
		mod(&cfg)
	}
	f := &fixture{t: t, path: path, clock: &fakeClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}, cfg: cfg}
	f.start()
	t.Cleanup(f.stop)
	return f, d, receipts
}

// waitFor waits until cond holds (the devices run on their own goroutines).
//
// It looks again when a machine of the tests tells its listeners (watch),
// and every 20 ms for what only the simulators know (their counts and
// settings tell no one).
func waitFor(t testing.TB, cond func() bool, msg string, args ...any) {
	t.Helper()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	look := time.NewTicker(20 * time.Millisecond)
	defer look.Stop()
	for !cond() {
		select {
		case <-changed:
		case <-look.C:
		case <-deadline.C:
			t.Fatalf("timed out waiting: "+msg, args...)
		}
	}
}

// changed has a value once a machine watched by the tests told its
// listeners since waitFor last looked.
var changed = make(chan struct{}, 1)

// watch makes every change of m wake waitFor.
func watch(m *Machine) {
	m.OnChange(func(Snapshot) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
}

// cashReady waits until the validator takes notes and the printer works.
func cashReady(t testing.TB, m *Machine) {
	t.Helper()
	waitFor(t, func() bool {
		c := m.Snapshot().Cash
		return c.Validator.OK && c.Printer.OK && m.cash.validator.Snapshot().Accepting
	}, "cash devices not ready: %+v", m.Snapshot().Cash)
}

// insert puts a note in the simulated validator once it takes notes.
func insert(t testing.TB, d *devsim.Devices, cents int64) {
	t.Helper()
	var err error
	waitFor(t, func() bool { err = d.Validator.InsertNote(cents); return err == nil }, "insert %d: %v", cents, err)
}

// recorder keeps every snapshot the machine announces.
type recorder struct {
	mu    sync.Mutex
	snaps []Snapshot
}

func (r *recorder) on(s Snapshot) {
	r.mu.Lock()
	r.snaps = append(r.snaps, s)
	r.mu.Unlock()
}

// cashIn lists the distinct cash-in events seen, in order.
func (r *recorder) cashIn() []CashInEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []CashInEvent
	for _, s := range r.snaps {
		if e := s.Cash.CashIn; e.Seq != 0 && (len(out) == 0 || out[len(out)-1].Seq != e.Seq) {
			out = append(out, e)
		}
	}
	return out
}
