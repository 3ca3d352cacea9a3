package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"
)

// MinEventsKept is the fewest events the rotation keeps.
const MinEventsKept = 10_000

// DefaultBusyTimeout is how long a connection waits for another process's
// lock before failing with SQLITE_BUSY.
const DefaultBusyTimeout = 5 * time.Second

// Store is the kiosk's database. Its methods are safe for concurrent use;
// writes are serialized on one connection.
type Store struct {
	path        string
	w           *sql.DB // the one writer connection, BEGIN IMMEDIATE
	r           *sql.DB // readers (WAL: they never block the writer)
	now         func() time.Time
	busyTimeout time.Duration
	eventsKept  int
	onWrite     func()    // WithWriteHook
	anc         *anchor   // WithAnchor; nil: the heads are not anchored
	units       *unitSeal // seals the units under the trust root's secret (units_seal.go)
	schema      []string  // the migrations, whose schema Verify expects

	lock *storeLock // the database's lock (lock.go), from open to Close

	wc    *sql.Conn                     // the writer connection, held open
	wmu   sync.Mutex                    // one write transaction at a time on wc
	stmts [numStmts]*sqlite3.SQLiteStmt // prepared on wc, used inside wc.Raw only
	ncols [numStmts]int                 // their numbers of columns, once known

	mu     sync.RWMutex // guards closed; held for reading by every operation
	closed bool

	// snapAt is the time of the newest meter snapshot (Unix nanoseconds),
	// read once, then kept by the writer (under wmu): a play checks it
	// without a query (snapshot.go).
	snapAt   int64
	snapRead bool
}

// Option configures Open.
type Option func(*config) error

type config struct {
	now         func() time.Time
	busyTimeout time.Duration
	eventsKept  int
	migrations  []string
	onWrite     func()
	noCreate    bool
	anchor      *AnchorConfig
}

// WithClock sets the clock the store stamps rows with (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return fmt.Errorf("nil clock: %w", ErrBadRequest)
		}
		c.now = now
		return nil
	}
}

// WithBusyTimeout sets SQLite's busy timeout (default DefaultBusyTimeout).
func WithBusyTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d < time.Millisecond {
			return fmt.Errorf("busy timeout %v: %w", d, ErrBadRequest)
		}
		c.busyTimeout = d
		return nil
	}
}

// WithWriteHook has f called on the calling goroutine at the start of
// every write transaction, before it waits for the writer connection: the
// kiosk's tests check with it that no durable write runs on the screens'
// goroutine. f must not call the store.
func WithWriteHook(f func()) Option {
	return func(c *config) error {
		c.onWrite = f
		return nil
	}
}

// WithEventsKept sets how many of the newest events the rotation keeps
// (default and minimum MinEventsKept).
func WithEventsKept(n int) Option {
	return func(c *config) error {
		if n < MinEventsKept {
			return fmt.Errorf("keep %d events, at least %d: %w", n, MinEventsKept, ErrBadRequest)
		}
		c.eventsKept = n
		return nil
	}
}

// WithCreate says whether Open may create the database when there is none
// at the path (default true). A kiosk that has run before must not: a
// new, empty database would hide the loss of its credit and history, so
// without it Open fails with ErrNoDatabase and writes nothing.
func WithCreate(create bool) Option {
	return func(c *config) error {
		c.noCreate = !create
		return nil
	}
}

// Open opens the database at path, creating it if it does not exist (see
// WithCreate), checks
// that it is a Pharaon database this software can run (refusing with
// ErrNotSQLite, ErrNotPharaon or ErrNewerSchema before writing anything),
// applies the pending migrations and checks that WAL, synchronous=FULL,
// foreign keys and the busy timeout are in force on every connection
// (ErrPragma otherwise).
func Open(path string, opts ...Option) (*Store, error) {
	cfg := config{now: time.Now, busyTimeout: DefaultBusyTimeout, eventsKept: MinEventsKept, migrations: migrations}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
	}
	s, err := open(path, cfg)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

func open(path string, cfg config) (*Store, error) {
	if path == "" || strings.HasPrefix(path, ":memory:") || strings.HasPrefix(path, "file:") || strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("%q is not a plain file path: %w", path, ErrBadRequest)
	}
	if cfg.noCreate {
		// Before SQLite sees the path: it would create the file.
		if err := mustExist(path); err != nil {
			return nil, err
		}
	}
	// One process owns the store (lock.go): before anything is created,
	// read or written.
	lk, err := lockStore(path)
	if err != nil {
		return nil, err
	}
	held := false // until the Store holds it, a failure releases it
	defer func() {
		if !held {
			lk.release()
		}
	}()
	if !cfg.noCreate {
		if err := createPrivate(path); err != nil {
			return nil, err
		}
	}
	// Look at the file's header before SQLite does: setting WAL on a
	// foreign or newer database would already write to it.
	if err := probe(path, len(cfg.migrations)); err != nil {
		return nil, err
	}
	ctx := context.Background()
	w, err := sql.Open("sqlite3", dsn(path, cfg.busyTimeout, true))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	s := &Store{path: path, w: w, now: cfg.now, busyTimeout: cfg.busyTimeout, eventsKept: cfg.eventsKept, onWrite: cfg.onWrite,
		schema: cfg.migrations}
	if err := checkPragmas(ctx, w, cfg.busyTimeout); err != nil {
		w.Close()
		return nil, err
	}
	if cfg.noCreate {
		// A file with no schema yet (made by hand, or left by an install
		// that never ran) is no database either.
		version, _, err := schemaIdentity(ctx, w)
		if err != nil {
			w.Close()
			return nil, err
		}
		if version == 0 {
			w.Close()
			return nil, fmt.Errorf("no schema in the file: %w", ErrNoDatabase)
		}
	}
	if err := migrate(ctx, w, cfg.migrations); err != nil {
		w.Close()
		return nil, err
	}
	if _, err := w.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'events_kept'`, cfg.eventsKept); err != nil {
		w.Close()
		return nil, fmt.Errorf("set events kept: %w", err)
	}
	created := false
	if cfg.anchor != nil {
		if s.anc, created, err = openAnchor(ctx, w, *cfg.anchor, cfg.now()); err != nil {
			w.Close()
			return nil, err
		}
	}
	secret := make([]byte, keySize) // no trust root: a key that hides nothing (units_seal.go)
	if s.anc != nil && s.anc.trust != nil && len(s.anc.trust.Secret()) == keySize {
		secret = s.anc.trust.Secret()
	}
	s.units = newUnitSeal(secret)
	s.r, err = sql.Open("sqlite3", dsn(path, cfg.busyTimeout, false))
	if err != nil {
		s.anc.close()
		w.Close()
		return nil, err
	}
	s.r.SetMaxOpenConns(4)
	if err := checkPragmas(ctx, s.r, cfg.busyTimeout); err != nil {
		s.closeDBs()
		return nil, err
	}
	if err := s.prepare(ctx); err != nil {
		s.closeDBs()
		return nil, err
	}
	if created {
		// The first anchor is an event of its own: a kiosk anchored anew
		// is seen in its log.
		if _, err := s.Log(ctx, Event{Level: LevelWarning, Source: sourceStore, Code: EventAnchorCreated,
			Detail: fmt.Sprintf("anchor %s, trust root: %s", cfg.anchor.Path, s.anc.trust)}); err != nil {
			s.closeDBs()
			return nil, err
		}
	}
	s.lock, held = lk, true
	return s, nil
}

// dsn builds the go-sqlite3 connection string: the pragmas are applied by
// the driver on every new connection.
func dsn(path string, busy time.Duration, writer bool) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	q.Set("_foreign_keys", "1")
	q.Set("_busy_timeout", fmt.Sprint(busy.Milliseconds()))
	if writer {
		// Every write transaction takes the write lock at BEGIN, so two
		// writers never deadlock upgrading a read lock.
		q.Set("_txlock", "immediate")
	} else {
		q.Set("_query_only", "1")
	}
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path), RawQuery: q.Encode()}
	return u.String()
}

// checkPragmas reads the settings back from a connection of db: the
// driver applies them, but SQLite silently keeps another journal mode when
// WAL is impossible (some file systems, memory databases).
func checkPragmas(ctx context.Context, db *sql.DB, busy time.Duration) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", mapOpenErr(err))
	}
	defer conn.Close()
	var mode string
	var sync, fk, timeout int
	for _, p := range []struct {
		q   string
		dst any
	}{
		{"PRAGMA journal_mode", &mode},
		{"PRAGMA synchronous", &sync},
		{"PRAGMA foreign_keys", &fk},
		{"PRAGMA busy_timeout", &timeout},
	} {
		if err := conn.QueryRowContext(ctx, p.q).Scan(p.dst); err != nil {
			return fmt.Errorf("%s: %w", p.q, mapOpenErr(err))
		}
	}
	switch {
	case !strings.EqualFold(mode, "wal"):
		return fmt.Errorf("journal_mode is %q, not wal: %w", mode, ErrPragma)
	case sync != 2:
		return fmt.Errorf("synchronous is %d, not 2 (FULL): %w", sync, ErrPragma)
	case fk != 1:
		return fmt.Errorf("foreign_keys is off: %w", ErrPragma)
	case int64(timeout) != busy.Milliseconds():
		return fmt.Errorf("busy_timeout is %d ms, not %d: %w", timeout, busy.Milliseconds(), ErrPragma)
	}
	return nil
}

// mustExist refuses a path with no file, or an empty one, for ErrNoDatabase.
func mustExist(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("no file: %w", ErrNoDatabase)
	case err != nil:
		return err
	case fi.Mode().IsRegular() && fi.Size() == 0:
		return fmt.Errorf("empty file: %w", ErrNoDatabase)
	}
	return nil
}

// sqliteMagic opens every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// probe reads the 100-byte header of an existing file. SQLite would fail
// on a file that is not a database only after the driver has tried to set
// the journal mode; a foreign database in rollback mode would be turned to
// WAL. The authoritative check runs again through SQLite in migrate (the
// header may be behind the WAL).
// createPrivate creates the database file, empty, readable and writable by
// its owner only, if it is not there: SQLite would create it 0644 less the
// umask, and its WAL and shared-memory files take the database's mode. The
// ledger, the PIN hashes and the validation numbers of payable vouchers are
// in them (docs/threat-model.md). An existing file is left as it is.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

func probe(path string, latest int) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	var h [100]byte
	n, err := io.ReadFull(f, h[:])
	switch {
	case n == 0 && (err == io.EOF):
		return nil // an empty file is an empty database
	case err == io.ErrUnexpectedEOF:
		return fmt.Errorf("%d bytes: %w", n, ErrNotSQLite)
	case err != nil:
		return err
	}
	return checkHeader(h, latest)
}

// checkHeader checks the header of an SQLite file against what this
// software can open (see probe).
func checkHeader(h [100]byte, latest int) error {
	if !bytes.Equal(h[:16], []byte(sqliteMagic)) {
		return fmt.Errorf("header %q: %w", bytes.TrimRight(h[:16], "\x00"), ErrNotSQLite)
	}
	version := int(int32(binary.BigEndian.Uint32(h[60:64])))
	appID := int(int32(binary.BigEndian.Uint32(h[68:72])))
	if err := checkIdentity(version, appID, latest); err != nil {
		return err
	}
	wal := h[18] == 2 && h[19] == 2
	pages := binary.BigEndian.Uint32(h[28:32])
	if appID == 0 && !wal && pages > 1 {
		return fmt.Errorf("database of another application (%d pages, no application id): %w", pages, ErrNotPharaon)
	}
	return nil
}

// mapOpenErr turns SQLite's "file is not a database" into ErrNotSQLite.
func mapOpenErr(err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) && se.Code == sqlite3.ErrNotADB {
		return fmt.Errorf("%w: %w", ErrNotSQLite, err)
	}
	return err
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database. SQLite checkpoints the WAL when the last
// connection closes.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.closeDBs()
}

func (s *Store) closeDBs() error {
	errs := []error{s.closeStmts()}
	if s.wc != nil {
		errs = append(errs, s.wc.Close())
	}
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	errs = append(errs, s.w.Close(), s.anc.close(), s.lock.release())
	return errors.Join(errs...)
}
