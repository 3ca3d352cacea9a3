package hw

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Clock is the time a driver needs. The kiosk passes SystemClock; tests pass a fake that advances
// on demand, so no test waits on the wall clock.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx is done, whichever comes first; it returns ctx.Err() in the
	// second case.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real time.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Dial opens (or re-opens) a device. Drivers take one instead of a Port so that they can re-open
// their device after an unplug: func() (Port, error) { return hw.Open(path, mode) }.
type Dial func() (Port, error)

// Backoff is the wait between attempts to re-open a device: Min, doubled after each failure, capped
// at Max. No jitter: one kiosk has one device on each line, there is no herd to spread.
type Backoff struct {
	Min, Max time.Duration
}

// DefaultBackoff re-opens quickly after a short glitch and settles at one attempt every 5 s for a
// device left unplugged.
var DefaultBackoff = Backoff{Min: 100 * time.Millisecond, Max: 5 * time.Second}

// Delay is the wait before attempt n (0 is the first retry after a failure).
func (b Backoff) Delay(n int) time.Duration {
	d := b.Min
	if d <= 0 {
		d = DefaultBackoff.Min
	}
	max := b.Max
	if max < d {
		max = d
	}
	for i := 0; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d
}

// Reconnector opens a device, waiting with back-off while it is absent or busy.
type Reconnector struct {
	Dial    Dial
	Backoff Backoff
	Clock   Clock
	// OnRetry, when set, is told of each failed attempt (the kiosk logs the first and then shows
	// the device as disconnected).
	OnRetry func(attempt int, err error, wait time.Duration)
}

// Connect returns an open port, retrying failed attempts with back-off until ctx is done. It gives
// up at once on ErrInvalid (a configuration error that waiting will not fix).
func (r *Reconnector) Connect(ctx context.Context) (Port, error) {
	clock := r.Clock
	if clock == nil {
		clock = SystemClock{}
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("connect: %w", err)
		}
		p, err := r.Dial()
		if err == nil {
			return p, nil
		}
		if errors.Is(err, ErrInvalid) {
			return nil, fmt.Errorf("connect: %w", err)
		}
		wait := r.Backoff.Delay(attempt)
		if r.OnRetry != nil {
			r.OnRetry(attempt, err, wait)
		}
		if err := clock.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("connect: %w", err)
		}
	}
}
