package id003_test

import (
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/hwtest"
	"pharaon/hw/id003"
	"pharaon/hw/id003/id003test"
	"pharaon/hw/sim/id003sim"
)

// crcBitwise is the textbook bit-at-a-time CRC-16/Kermit: the baseline of BenchmarkCRC and the
// oracle of the table-driven CRC.
func crcBitwise(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c ^= uint16(x)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ 0x8408
			} else {
				c >>= 1
			}
		}
	}
	return c
}

func TestCRCTableMatchesBitwise(t *testing.T) {
	buf := make([]byte, 300)
	for i := range buf {
		buf[i] = byte(i*131 + 7)
	}
	for n := range buf {
		if got, want := id003.CRC(buf[:n]), crcBitwise(buf[:n]); got != want {
			t.Fatalf("n=%d: %04X want %04X", n, got, want)
		}
	}
}

var statusFrame = id003.MustEncode(id003.StatusEscrow, 0x63)

func BenchmarkCRC(b *testing.B) {
	b.Run("table", func(b *testing.B) {
		b.SetBytes(int64(len(statusFrame) - 2))
		for b.Loop() {
			id003.CRC(statusFrame[:len(statusFrame)-2])
		}
	})
	b.Run("bitwise-baseline", func(b *testing.B) {
		b.SetBytes(int64(len(statusFrame) - 2))
		for b.Loop() {
			crcBitwise(statusFrame[:len(statusFrame)-2])
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	buf := make([]byte, 0, id003.MaxFrameLen)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = id003.AppendFrame(buf[:0], id003.CmdSetEnable, []byte{0xE1, 0xFF})
	}
}

func BenchmarkDecode(b *testing.B) {
	b.Run("DecodeFrame-baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := id003.DecodeFrame(statusFrame); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Decoder", func(b *testing.B) {
		var d id003.Decoder
		b.ReportAllocs()
		for b.Loop() {
			d.Feed(statusFrame)
			if _, ok := d.Next(); !ok {
				b.Fatal("no frame")
			}
		}
	})
	b.Run("Decoder-garbage-split", func(b *testing.B) {
		var d id003.Decoder
		noisy := append([]byte{0xFC, 0xC8, 0x01, 0x13}, statusFrame...)
		b.ReportAllocs()
		for b.Loop() {
			d.Feed(noisy[:5])
			d.Next()
			d.Feed(noisy[5:])
			if _, ok := d.Next(); !ok {
				b.Fatal("no frame")
			}
			d.Reset()
		}
	})
}

// countingPort signals when the host has sent a number of status requests.
type countingPort struct {
	hw.Port
	polls  atomic.Int64
	target atomic.Int64
	done   chan struct{}
}

func (p *countingPort) Write(b []byte) (int, error) {
	if len(b) == 5 && b[2] == id003.CmdStatusRequest {
		if p.polls.Add(1) == p.target.Load() {
			p.done <- struct{}{}
		}
	}
	return p.Port.Write(b)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIdlePolling150ms polls an idle unit at the kiosk's real interval and reports the whole
// process's CPU per poll and as a share of one core: the idle cost of the bill path as deployed
// (timer wake-ups and scheduler included, the in-process simulator too). Run it with
// -benchtime=100x (15 s); it is slow by nature.
func BenchmarkIdlePolling150ms(b *testing.B) {
	benchmarkIdlePolling(b, 150*time.Millisecond)
}

// BenchmarkIdleProcess150ms is the baseline of BenchmarkIdlePolling150ms: the same process and
// simulator, no host, sleeping 150 ms per iteration.
func BenchmarkIdleProcess150ms(b *testing.B) {
	s := id003sim.New(id003sim.Config{StartIdle: true})
	require.NoError(b, s.Start(filepath.Join(b.TempDir(), "bv")))
	defer s.Close()
	port, err := hw.Open(s.Path(), id003.Mode) // a host that holds the line and says nothing
	require.NoError(b, err)
	defer port.Close()
	cpu0, wall0 := cpuTime(), time.Now()
	for b.Loop() {
		time.Sleep(150 * time.Millisecond)
	}
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/poll")
	b.ReportMetric(float64(cpu)/float64(wall)*100, "cpu%")
}

// BenchmarkIdlePolling measures the CPU one status poll of an idle unit costs through the real
// host, go.bug.st/serial and a pty (the simulator's side of the pty is in the same process and is
// counted too: an upper bound). cpu%@150ms is that cost at the kiosk's poll interval.
func BenchmarkIdlePolling(b *testing.B) {
	benchmarkIdlePolling(b, time.Nanosecond)
}

func benchmarkIdlePolling(b *testing.B, interval time.Duration) {
	s := id003sim.New(id003sim.Config{StartIdle: true})
	link := filepath.Join(b.TempDir(), "bv")
	require.NoError(b, s.Start(link))
	defer s.Close()
	cp := &countingPort{done: make(chan struct{}, 1)}
	cfg := id003.Config{PollInterval: interval, ReplyTimeout: time.Second}
	h, err := id003.New(func() (hw.Port, error) {
		p, err := hw.Open(link, id003.Mode)
		cp.Port = p
		return cp, err
	}, &id003test.MemoryWallet{}, cfg)
	require.NoError(b, err)
	h.SetAccepting(true)
	cp.target.Store(3) // warm up: connect and configure
	require.NoError(b, h.Start())
	defer h.Close()
	<-cp.done
	cp.target.Store(cp.polls.Load() + int64(b.N))
	cpu0, wall0 := cpuTime(), time.Now()
	b.ResetTimer()
	<-cp.done
	b.StopTimer()
	cpu := cpuTime() - cpu0
	perPoll := float64(cpu.Nanoseconds()) / float64(b.N)
	b.ReportMetric(perPoll, "cpu-ns/poll")
	b.ReportMetric(perPoll/float64(150*time.Millisecond)*100, "cpu%@150ms")
	wall := time.Since(wall0)
	b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N), "wall-ns/poll")
	b.ReportMetric(float64(cpu)/float64(wall)*100, "cpu%")
}

// BenchmarkIdlePollingPlayback is the baseline: the same host polling a fake port, no kernel and
// no simulator, to show what the pty and the serial library add.
func BenchmarkIdlePollingPlayback(b *testing.B) {
	ops := make([]hwtest.Exchange, 0, b.N+20)
	ops = append(ops, startup()[:]...)
	for range b.N {
		ops = append(ops, status(id003.StatusIdle))
	}
	pb := hwtest.NewPlayback(ops...)
	var dials atomic.Int32
	h, err := id003.New(func() (hw.Port, error) {
		if dials.Add(1) == 1 {
			return pb, nil
		}
		return nil, &hw.Error{Op: "open", Kind: hw.ErrNotFound}
	}, &id003test.MemoryWallet{}, id003.Config{Clock: instantClock{}})
	require.NoError(b, err)
	h.SetAccepting(true)
	cpu0 := cpuTime()
	b.ResetTimer()
	require.NoError(b, h.Start())
	<-pb.Done()
	b.StopTimer()
	cpu := cpuTime() - cpu0
	h.Close()
	require.NoError(b, pb.Err())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/poll")
}
