package play

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game/breakout"
)

// Frame intervals rounded up to the nanosecond, so that a frame of 60 Hz is
// worth two whole ticks and not a hair less.
const (
	pumpHz60  = 16_666_667 * time.Nanosecond
	pumpHz120 = 8_333_334 * time.Nanosecond
)

func TestPumpTicks(t *testing.T) {
	t0 := time.Unix(5000, 0)
	tests := []struct {
		name    string
		max     int
		frames  []time.Duration // intervals between frames after the first
		want    []int           // ticks returned for each of them
		dropped int64
	}{
		{
			name:   "60 Hz runs two ticks a frame",
			frames: []time.Duration{pumpHz60, pumpHz60, pumpHz60},
			want:   []int{2, 2, 2},
		},
		{
			name:   "120 Hz runs one",
			frames: []time.Duration{pumpHz120, pumpHz120},
			want:   []int{1, 1},
		},
		{
			name:   "a short frame owes the remainder to the next",
			frames: []time.Duration{5 * time.Millisecond, 5 * time.Millisecond, 5 * time.Millisecond},
			want:   []int{0, 1, 0}, // 5 ms, then 10 ms ≥ 8.33 ms, then 1.67+5 < 8.33
		},
		{
			name:    "a slow frame is capped and the game slows down",
			max:     4,
			frames:  []time.Duration{500 * time.Millisecond, pumpHz60},
			want:    []int{4, 2},
			dropped: 56, // 60 ticks owed, 4 run
		},
		{
			name:    "a pause of an hour counts as a minute, all but the cap dropped",
			frames:  []time.Duration{time.Hour},
			want:    []int{DefaultMaxCatchUp},
			dropped: 60*breakout.TicksPerSecond - DefaultMaxCatchUp,
		},
		{
			name:   "a clock going backwards gives no tick",
			frames: []time.Duration{-time.Second, pumpHz60},
			want:   []int{0, 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPump(tc.max)
			now := t0
			require.Equal(t, 0, p.Advance(now), "the first frame starts the clock")
			var got []int
			for _, d := range tc.frames {
				now = now.Add(d)
				got = append(got, p.Advance(now))
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.dropped, p.Dropped())
		})
	}
}

// Over any run of frames below the cap, the ticks run are exactly the
// elapsed time in ticks, rounded down: game time follows the clock and the
// remainder is never lost nor counted twice.
func TestPumpFollowsTheClock(t *testing.T) {
	rates := []time.Duration{pumpHz60, time.Second / 75, time.Second / 144, time.Second / 50, 7 * time.Millisecond}
	for _, d := range rates {
		p := NewPump(0)
		now := time.Unix(0, 0)
		p.Advance(now)
		total := 0
		for i := 1; i <= 10000; i++ {
			now = now.Add(d)
			total += p.Advance(now)
			want := int(time.Duration(i) * d * breakout.TicksPerSecond / time.Second)
			require.Equal(t, want, total, "frame %d at %v", i, d)
		}
	}
}

func TestPumpReset(t *testing.T) {
	p := NewPump(0)
	t0 := time.Unix(0, 0)
	p.Advance(t0)
	assert.Equal(t, 1, p.Advance(t0.Add(12*time.Millisecond))) // 3.67 ms owed
	assert.InDelta(t, 3.6667/8.3333, p.Alpha(), 1e-4, "the frame is 44 % of a tick past its last one")
	p.Reset()
	assert.Equal(t, 0, p.Advance(t0.Add(time.Hour)), "after Reset the pause is not caught up")
	assert.Equal(t, 0, p.Advance(t0.Add(time.Hour+5*time.Millisecond)), "nor the 3.67 ms owed before it (with them, 5 ms more would make a tick)")
	assert.Zero(t, p.Dropped())
	assert.InDelta(t, 0.6, p.Alpha(), 1e-6, "5 ms owed since the reset: 60 % of a tick")
}

func TestFrameMeter(t *testing.T) {
	var m FrameMeter
	t0 := time.Unix(100, 0)
	frame := 16667 * time.Microsecond // 60 of them just over a second
	var got []FrameStats
	for i := 0; i <= 130; i++ {
		begin := t0.Add(time.Duration(i) * frame)
		if i == 30 {
			begin = begin.Add(10 * time.Millisecond) // one late frame
		}
		work := time.Duration(100+i) * time.Microsecond
		if st, ok := m.Frame(begin, begin.Add(work), 2, 3); ok {
			got = append(got, st)
		}
	}
	require.Len(t, got, 2, "one stats a second")
	s := got[0]
	assert.Equal(t, 60, s.Frames)
	assert.Equal(t, 120, s.Ticks)
	assert.InDelta(t, 60, s.FPS(), 0.01)
	assert.Equal(t, 160*time.Microsecond, s.WorkMax, "the longest update of the first second (frame 60)")
	assert.Equal(t, frame+10*time.Millisecond, s.GapMax, "the late frame")
	assert.Equal(t, int64(3), s.Dropped)
	assert.Equal(t, (101+160)*time.Microsecond/2, s.WorkMean)
	assert.True(t, strings.HasPrefix(s.String(), "fps 60.0 "), s.String())
	assert.Equal(t, frame, got[1].GapMax, "a new period forgets the late frame")

	m.Reset()
	_, ok := m.Frame(t0.Add(time.Hour), t0.Add(time.Hour), 0, 0)
	assert.False(t, ok, "after Reset the first frame only starts the meter")
}
