package kiosk

import (
	"context"
	"fmt"
)

// Health answers once the store answers the kiosk: a write handed to the
// play writer now is taken (its goroutine is not stuck in a write that
// never ends), and the store reads the credit. systemd's watchdog pings
// only while it answers (cmd/pharaon/notify.go): a kiosk whose store hangs
// shows its screens but sells nothing, and must be restarted like a frozen
// one. It returns ctx's error when ctx ends first; the probe it left with
// the writer runs, harmlessly, when the writer frees.
func (m *Machine) Health(ctx context.Context) error {
	taken := make(chan error, 1)
	m.w.submit(func(context.Context, playStore, int) error { return nil }, func(err error) { taken <- err })
	select {
	case err := <-taken:
		if err != nil {
			return fmt.Errorf("play writer: %w", err)
		}
	case <-ctx.Done():
		return fmt.Errorf("play writer: %w", ctx.Err())
	}
	if _, err := m.st.Credit(ctx); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}
