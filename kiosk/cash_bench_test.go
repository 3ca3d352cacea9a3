package kiosk

import (
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

// Figures: the time from a note's VEND VALID to the credit on
// screen, and the CPU the devices' polling costs an idle kiosk.
//
//	go test -run '^$' -bench 'Credit|Polling' -benchtime 200x ./kiosk

// benchMachine starts a kiosk on an empty store with the simulated devices
// at the kiosk's own timings (150 ms validator polls), or without devices.
func benchMachine(b *testing.B, devices bool) (*Machine, *store.Store, func(int64)) {
	b.Helper()
	st, err := store.Open(filepath.Join(b.TempDir(), "pharaon.db"))
	require.NoError(b, err)
	b.Cleanup(func() { st.Close() })
	cfg := Config{KioskID: "PH-BENCH", Cash: CashConfig{MaxCredit: 1_000_000 * game.Euro}}
	var insertNote func(int64)
	if devices {
		d, _ := startDevices(b)
		cfg.Cash.ValidatorPath, cfg.Cash.PrinterPath = d.ValidatorPath, d.PrinterPath
		insertNote = func(cents int64) { insert(b, d, cents) }
	}
	m, err := New(st, SystemClock{}, cfg)
	require.NoError(b, err)
	b.Cleanup(func() { m.Close() })
	return m, st, insertNote
}

// BenchmarkCreditCommit is the baseline: the store's two transactions of a
// note (its intent, its credit) alone.
func BenchmarkCreditCommit(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "pharaon.db"))
	require.NoError(b, err)
	defer st.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in, err := st.RecordBillIntent(ctx, 5*game.Euro)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.CreditBillIntent(ctx, in.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStackedToCredit inserts notes into the simulated validator, one
// per iteration, and measures, for each, the time from the host's VEND
// VALID (Credit called) to the listener seeing the new credit: the commit
// and the snapshot. A real unit's VEND VALID waits up to one poll (150 ms)
// before the host reads it; the simulator's moves at a poll, so that wait
// is not in the figure and must be added: at worst 150 ms + this.
func BenchmarkStackedToCredit(b *testing.B) {
	m, _, insertNote := benchMachine(b, true)
	var (
		mu        sync.Mutex
		vend      time.Time
		latencies []time.Duration
		credited  = make(chan struct{}, 1)
		last      game.Money
	)
	m.cash.hook = func(p string) {
		if p == pointVendValid {
			mu.Lock()
			vend = time.Now()
			mu.Unlock()
		}
	}
	m.OnChange(func(s Snapshot) {
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		if s.Credit > last && !vend.IsZero() {
			latencies = append(latencies, now.Sub(vend))
			vend = time.Time{}
			last = s.Credit
			select {
			case credited <- struct{}{}:
			default:
			}
		}
	})
	require.NoError(b, m.Start(ctx))
	cashReady(b, m)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		insertNote(500)
		select {
		case <-credited:
		case <-time.After(10 * time.Second):
			b.Fatal("no credit")
		}
	}
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(latencies)
	if len(latencies) > 0 {
		b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "µs-median")
		b.ReportMetric(float64(latencies[len(latencies)*95/100].Microseconds()), "µs-p95")
		b.ReportMetric(float64(latencies[len(latencies)-1].Microseconds()), "µs-max")
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// idleCPU runs an idle kiosk for 2 s per iteration and reports the share of
// one core the whole process used (the simulators included: they run in
// the same process and answer every poll, so this is an upper bound of
// the kiosk's own polling).
func idleCPU(b *testing.B, devices bool) {
	m, _, _ := benchMachine(b, devices)
	require.NoError(b, m.Start(ctx))
	if devices {
		cashReady(b, m)
	}
	time.Sleep(300 * time.Millisecond) // start-up settled
	b.ResetTimer()
	c0, t0 := cpuTime(b), time.Now()
	for i := 0; i < b.N; i++ {
		time.Sleep(2 * time.Second)
	}
	cpu, wall := cpuTime(b)-c0, time.Since(t0)
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "%core")
}

// BenchmarkPollingCPUIdleKiosk is the baseline: a kiosk with no devices.
func BenchmarkPollingCPUIdleKiosk(b *testing.B) { idleCPU(b, false) }

// BenchmarkPollingCPUWithDevices: the validator polled every 150 ms and the
// printer's status read every 5 s, against the simulators.
func BenchmarkPollingCPUWithDevices(b *testing.B) { idleCPU(b, true) }
