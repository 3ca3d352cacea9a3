//go:build pharaon_weaksync

package store

import (
	"context"
	"fmt"
)

// WeakSyncBuilt says whether WeakenSync can weaken synchronous: only in a
// binary built with the tag pharaon_weaksync, which the kiosk never is.
const WeakSyncBuilt = true

// WeakenSync sets PRAGMA synchronous to mode (OFF or NORMAL) on the writer
// connection, the only one that commits: the power-cut tests' proof that
// they see what a store that does not sync loses (docs/power-loss.md). It
// exists only in binaries built with the tag pharaon_weaksync.
func (s *Store) WeakenSync(ctx context.Context, mode string) error {
	if mode != "OFF" && mode != "NORMAL" {
		return fmt.Errorf("synchronous %q: OFF or NORMAL: %w", mode, ErrBadRequest)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.wc.ExecContext(ctx, "PRAGMA synchronous = "+mode)
	return err
}
