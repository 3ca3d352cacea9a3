//go:build !pharaon_weaksync

package store

import (
	"context"
	"errors"
)

// WeakSyncBuilt says whether WeakenSync can weaken synchronous: only in a
// binary built with the tag pharaon_weaksync, which the kiosk never is.
const WeakSyncBuilt = false

// WeakenSync refuses: synchronous stays FULL in every binary built
// without the tag pharaon_weaksync (weaksync.go).
func (s *Store) WeakenSync(ctx context.Context, mode string) error {
	return errors.New("this binary was built without the pharaon_weaksync tag: synchronous stays FULL")
}
