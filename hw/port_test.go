package hw_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.bug.st/serial"

	"pharaon/hw"
)

var mode8E1 = hw.Mode{BaudRate: 9600, DataBits: 8, Parity: hw.EvenParity, StopBits: 1}

func TestModeValidate(t *testing.T) {
	tests := []struct {
		m  hw.Mode
		ok bool
	}{
		{mode8E1, true},
		{hw.Mode{BaudRate: 19200, DataBits: 7, Parity: hw.OddParity, StopBits: 2}, true},
		{hw.Mode{BaudRate: 0, DataBits: 8, StopBits: 1}, false},
		{hw.Mode{BaudRate: 9600, DataBits: 9, StopBits: 1}, false},
		{hw.Mode{BaudRate: 9600, DataBits: 8, StopBits: 3}, false},
		{hw.Mode{BaudRate: 9600, DataBits: 8, Parity: 7, StopBits: 1}, false},
	}
	for _, tt := range tests {
		err := tt.m.Validate()
		if tt.ok {
			assert.NoError(t, err, "%v", tt.m)
		} else {
			assert.ErrorIs(t, err, hw.ErrInvalid, "%v", tt.m)
		}
	}
	assert.Equal(t, "9600 8E1", mode8E1.String())
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(regular, nil, 0o600))
	tests := []struct {
		name string
		path string
		mode hw.Mode
		kind error
	}{
		{"absent", filepath.Join(dir, "nope"), mode8E1, hw.ErrNotFound},
		{"dangling link", func() string {
			p := filepath.Join(dir, "dangling")
			require.NoError(t, os.Symlink(filepath.Join(dir, "gone"), p))
			return p
		}(), mode8E1, hw.ErrNotFound},
		{"not a tty", regular, mode8E1, hw.ErrInvalid},
		{"bad mode", regular, hw.Mode{}, hw.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := hw.Open(tt.path, tt.mode)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.kind)
			assert.Equal(t, tt.kind, hw.Kind(err))
			var e *hw.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "open", e.Op)
			assert.Equal(t, tt.path, e.Path)
			assert.Contains(t, err.Error(), tt.path)
		})
	}
}

func TestErrorUnwrapsKindAndCause(t *testing.T) {
	cause := &serial.PortError{}
	err := error(&hw.Error{Op: "read", Path: "/dev/x", Kind: hw.ErrIO, Err: cause})
	assert.ErrorIs(t, err, hw.ErrIO)
	var pe *serial.PortError
	assert.ErrorAs(t, err, &pe, "the serial library's error stays reachable")
	assert.Nil(t, hw.Kind(errors.New("other")))
	assert.Equal(t, hw.ErrProtocol, hw.Kind(hw.Errorf(hw.ErrProtocol, "decode", "bad %d", 1)))
	assert.Equal(t, "decode: device protocol error: bad 1", hw.Errorf(hw.ErrProtocol, "decode", "bad %d", 1).Error())
}

func TestBackoffDelay(t *testing.T) {
	b := hw.Backoff{Min: 100 * time.Millisecond, Max: time.Second}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		assert.Equal(t, w*time.Millisecond, b.Delay(i), "attempt %d", i)
	}
	assert.Equal(t, hw.DefaultBackoff.Min, hw.Backoff{}.Delay(0))
	assert.Equal(t, 50*time.Millisecond, hw.Backoff{Min: 50 * time.Millisecond}.Delay(10), "max below min: min")
}

// fakeClock records sleeps and never waits.
type fakeClock struct{ slept []time.Duration }

func (c *fakeClock) Now() time.Time { return time.Unix(0, 0) }
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.slept = append(c.slept, d)
	return ctx.Err()
}

type nopPort struct{ hw.Port }

func TestReconnectorBacksOffUntilTheDeviceIsBack(t *testing.T) {
	clock := &fakeClock{}
	attempts := 0
	var retried []int
	r := hw.Reconnector{
		Dial: func() (hw.Port, error) {
			attempts++
			if attempts < 5 {
				return nil, &hw.Error{Op: "open", Kind: hw.ErrNotFound}
			}
			return nopPort{}, nil
		},
		Backoff: hw.Backoff{Min: 10 * time.Millisecond, Max: 40 * time.Millisecond},
		Clock:   clock,
		OnRetry: func(a int, err error, _ time.Duration) {
			assert.ErrorIs(t, err, hw.ErrNotFound)
			retried = append(retried, a)
		},
	}
	p, err := r.Connect(context.Background())
	require.NoError(t, err)
	assert.NotNil(t, p)
	assert.Equal(t, 5, attempts)
	assert.Equal(t, []int{0, 1, 2, 3}, retried)
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{10 * ms, 20 * ms, 40 * ms, 40 * ms}, clock.slept)
}

func TestReconnectorStops(t *testing.T) {
	clock := &fakeClock{}
	r := hw.Reconnector{Dial: func() (hw.Port, error) {
		return nil, &hw.Error{Op: "open", Kind: hw.ErrInvalid}
	}, Clock: clock}
	_, err := r.Connect(context.Background())
	assert.ErrorIs(t, err, hw.ErrInvalid, "a configuration error is not retried")
	assert.Empty(t, clock.slept)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.Dial = func() (hw.Port, error) { return nil, &hw.Error{Op: "open", Kind: hw.ErrBusy} }
	_, err = r.Connect(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestSystemClockSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, hw.SystemClock{}.Sleep(ctx, time.Hour), context.Canceled, "a cancelled sleep returns at once")
	assert.NoError(t, hw.SystemClock{}.Sleep(context.Background(), time.Millisecond))
}
