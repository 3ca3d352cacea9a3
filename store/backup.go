package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
)

// Backup writes a consistent copy of the database to db and of its anchor
// file to anc (neither may exist; both 0600, synced), then checks the copy
// before it says it is done: SQLite's integrity check of the copy, opened
// read-only, and the anchor's own check (the one Open makes) of the copy
// against the copied anchor and the trust root's counter now. The copy is
// made under the writer's lock: no commit, and so no anchor record, comes
// between the database's copy and the anchor's. It is SQLite's VACUUM
// INTO: one file, whatever the WAL holds, compacted. The trust root is
// never copied: a copy put back on the kiosk later than the trust root's
// next count is a rollback by design.
//
// A store without an anchor, or whose anchor failed, has no copy that
// would pass: ErrAnchor (or the anchor's failure).
func (s *Store) Backup(ctx context.Context, db, anc string) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	a := s.anc
	switch {
	case a == nil:
		return fmt.Errorf("backup: no anchor configured: %w", ErrAnchor)
	case a.err != nil:
		return fmt.Errorf("backup: %w", a.err)
	}
	if _, err := s.wc.ExecContext(ctx, `VACUUM INTO ?`, db); err != nil {
		return fmt.Errorf("backup: copy the database: %w", err)
	}
	if err := syncPrivate(db); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	b, err := os.ReadFile(a.cfg.Path)
	if err != nil {
		return fmt.Errorf("backup: read the anchor: %w", err)
	}
	if err := writeSynced(anc, os.O_EXCL, b); err != nil {
		return fmt.Errorf("backup: copy the anchor: %w", err)
	}
	if err := a.checkCopy(ctx, db, anc); err != nil {
		return fmt.Errorf("backup: the copy: %w", err)
	}
	return nil
}

// syncPrivate makes the file at path its owner's alone and syncs it.
func syncPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Chmod(0o600)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkCopy checks a copy of the database (db) and of the anchor file
// (anc) as Open would check them under this trust root, reading only: the
// database opened read-only and immutable (no WAL, no lock, nothing
// written beside it), its integrity, then its heads against the copied
// anchor's newest record and the counter now.
func (a *anchor) checkCopy(ctx context.Context, db, anc string) error {
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(db), RawQuery: "mode=ro&immutable=1"}
	c, err := sql.Open("sqlite3", u.String())
	if err != nil {
		return err
	}
	defer c.Close()
	var ok string
	if err := c.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&ok); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if ok != "ok" {
		return fmt.Errorf("integrity check: %s: %w", ok, ErrIntegrity)
	}
	h, err := readHeads(func(q string) scanner { return c.QueryRowContext(ctx, q) })
	if err != nil {
		return err
	}
	history, err := hasHistory(ctx, c, h)
	if err != nil {
		return err
	}
	f, err := os.Open(anc)
	if err != nil {
		return err
	}
	defer f.Close()
	cp := &anchor{cfg: AnchorConfig{Path: anc}, trust: a.trust, key: a.key, f: f}
	r, err := cp.read()
	if err != nil {
		return err
	}
	_, err = cp.match(r, h, a.counter, history)
	return err
}
