package play

import (
	"fmt"
	"time"
)

// FrameStats sums up about one second of frames of the game screen, for the
// --fps log of the kiosk and of the scene bench.
type FrameStats struct {
	Frames  int           // frames drawn
	Elapsed time.Duration // time they covered
	Ticks   int           // engine ticks run
	Dropped int64         // ticks dropped by the catch-up cap so far (Pump.Dropped)
	// WorkMean and WorkMax are the time spent updating a frame: running
	// the engine's ticks and moving the canvas objects (not Fyne's own
	// drawing, which happens after).
	WorkMean, WorkMax time.Duration
	// GapMax is the longest interval between two frames: a long one is a
	// frame the screen missed.
	GapMax time.Duration
}

// FPS is the frame rate over the period.
func (s FrameStats) FPS() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Frames) / s.Elapsed.Seconds()
}

// String is the log line: it starts with "fps <n>", the form the peer-scene
// bench parses, then the frame times in milliseconds.
func (s FrameStats) String() string {
	return fmt.Sprintf("fps %.1f ticks %d work_ms_avg %.3f work_ms_max %.3f gap_ms_max %.1f dropped %d",
		s.FPS(), s.Ticks, pumpMS(s.WorkMean), pumpMS(s.WorkMax), pumpMS(s.GapMax), s.Dropped)
}

func pumpMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// FrameMeter gathers FrameStats frame after frame and hands them out once a
// Period. It allocates nothing and reads no clock: the caller passes the
// times. Not safe for concurrent use.
type FrameMeter struct {
	Period time.Duration // one second if zero

	started       bool
	since, last   time.Time
	frames, ticks int
	work, workMax time.Duration
	gapMax        time.Duration
}

// Frame records one frame whose update began at begin, ended at end and ran
// ticks engine ticks. Once a period has passed since the first frame of the
// period it returns the period's stats and true, and starts a new period.
func (m *FrameMeter) Frame(begin, end time.Time, ticks int, dropped int64) (FrameStats, bool) {
	period := m.Period
	if period <= 0 {
		period = time.Second
	}
	if !m.started {
		m.started, m.since, m.last = true, begin, begin
		return FrameStats{}, false
	}
	m.frames++
	m.ticks += ticks
	if gap := begin.Sub(m.last); gap > m.gapMax {
		m.gapMax = gap
	}
	m.last = begin
	w := end.Sub(begin)
	m.work += w
	if w > m.workMax {
		m.workMax = w
	}
	el := begin.Sub(m.since)
	if el < period {
		return FrameStats{}, false
	}
	s := FrameStats{
		Frames: m.frames, Elapsed: el, Ticks: m.ticks, Dropped: dropped,
		WorkMean: m.work / time.Duration(m.frames), WorkMax: m.workMax, GapMax: m.gapMax,
	}
	m.since = begin
	m.frames, m.ticks, m.work, m.workMax, m.gapMax = 0, 0, 0, 0, 0
	return s, true
}

// Reset starts the meter again (after a pause, so the pause is not logged as
// a missed frame).
func (m *FrameMeter) Reset() {
	m.started = false
	m.frames, m.ticks, m.work, m.workMax, m.gapMax = 0, 0, 0, 0, 0
}
