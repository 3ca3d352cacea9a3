package store

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Anchoring (DESIGN.md §4). The hash chains show an edited row, but
// whoever holds the file can cut the newest rows of a chain, or recompute
// a chain, and nothing in the file shows it. So the head of every chain
// (its last id and hash) is also kept outside the database file, in the
// anchor file, with an HMAC-SHA256 under a per-kiosk secret kept in a file
// of its own: the holder of the database alone cannot write an anchor
// that matches a database they changed.
//
// Every transaction that moves a head writes, before its COMMIT, a record
// holding the heads committed so far and the heads it is about to commit
// (pending), and syncs it; after the COMMIT it writes the record of the
// heads it left, nothing pending, synced by a goroutine of its own. The
// anchor file has two slots written in turn, so a record torn by a power
// cut leaves the previous one whole. After any crash the database is at
// the committed heads or, if the newest record is an announcement, at its
// pending ones; anything else — a chain shorter than its anchor, or rows
// appended that no record announced — is out of service. The one window
// in which a cut goes unseen: a power cut between a COMMIT and the sync of
// its confirmation (one disk flush, milliseconds) leaves the announcement
// newest, and the last transaction could then be cut. (A killed process
// loses nothing: the confirmation is in the operating system's cache.)
//
// What it cannot do: whoever holds the secret too (the whole disk) can
// write any anchor, and an older copy of both the database and the anchor
// file is a consistent pair. The heads are printed on the staff reports
// (Store.Anchor) so that a rollback shows against paper and, later, the
// fleet's records.

// ErrAnchor: the database does not match its anchor (a chain cut or
// extended behind the store's back, another kiosk's or an older database),
// the anchor or its secret is missing or unreadable, or an anchor could
// not be written. The store then refuses every write.
var ErrAnchor = errors.New("database does not match its anchor")

// AnchorConfig says where the anchor of the chains' heads lives. Both
// files are the kiosk's alone (mode 0600) and must be outside the
// database file; by default (DefaultAnchor) they sit beside it, so that a
// copy of the database alone carries neither.
type AnchorConfig struct {
	// Key is the per-kiosk secret: 32 random bytes, created at the first
	// anchoring and never rewritten.
	Key string
	// Path is the anchor file: the heads and their HMAC, rewritten with
	// every commit that moves a head.
	Path string
	// NoSync leaves the anchor's writes to the operating system's own
	// flushing: cheaper, but a power cut may lose the newest anchors, and
	// a tail cut within that window (seconds) would go unseen. For
	// measurements only.
	NoSync bool
}

// DefaultAnchor is the anchor beside the database at dbPath:
// anchor.key and pharaon.anchor in its directory.
func DefaultAnchor(dbPath string) AnchorConfig {
	dir := filepath.Dir(dbPath)
	return AnchorConfig{Key: filepath.Join(dir, "anchor.key"), Path: filepath.Join(dir, "pharaon.anchor")}
}

// WithAnchor anchors the chains' heads outside the database (see
// AnchorConfig). The key and the anchor are created when neither the
// database nor the files say the kiosk was anchored before; after that, a
// missing file is ErrAnchor.
func WithAnchor(a AnchorConfig) Option {
	return func(c *config) error {
		if a.Key == "" || a.Path == "" || a.Key == a.Path {
			return fmt.Errorf("anchor: key %q and anchor %q must be two paths: %w", a.Key, a.Path, ErrBadRequest)
		}
		c.anchor = &a
		return nil
	}
}

// The chained tables, in the anchor's order.
type chainID int

const (
	chLedger chainID = iota
	chPlays
	chPlaySteps
	chEvents
	chVouchers
	chVoucherSteps
	chIntents
	chIntentSteps
	chMeterSnapshots
	chCredentials
	chPINLock
	chSettings
	numChains
)

var chainTables = [numChains]string{"ledger", "plays", "play_steps", "events", "vouchers", "voucher_steps",
	"bill_intents", "bill_intent_steps", "meter_snapshots", "credentials", "pin_lock",
	"settings"}

// numChainsV1 is the number of chains of an anchor record of the first
// format (anchorMagicV1), written before the meter snapshots were chained:
// the chains it lacks were empty then.
const numChainsV1 = chMeterSnapshots

// head is the last row of a chain: id 0 and a zero hash for an empty one.
type head struct {
	id   int64
	hash [sha256.Size]byte
}

type heads [numChains]head

func (h *heads) set(c chainID, id int64, hash []byte) {
	h[c].id = id
	copy(h[c].hash[:], hash)
}

type scanner interface{ Scan(...any) error }

// readHeads reads the last row of every chain.
func readHeads(row func(q string) scanner) (heads, error) {
	var h heads
	for c, table := range chainTables {
		var id int64
		var hash []byte
		err := row(`SELECT id, hash FROM `+table+` ORDER BY id DESC LIMIT 1`).Scan(&id, &hash)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return h, fmt.Errorf("read head of %s: %w", table, err)
		case len(hash) != sha256.Size:
			return h, integrity("chain", table, id, "no hash")
		}
		h.set(chainID(c), id, hash)
	}
	return h, nil
}

// describe says how the database's heads db differ from the anchor's a.
func describe(db, a heads) string {
	var parts []string
	for c, table := range chainTables {
		d, w := db[c], a[c]
		switch {
		case d.id < w.id:
			parts = append(parts, fmt.Sprintf("%s ends at row %d, its anchor at row %d", table, d.id, w.id))
		case d.id > w.id:
			parts = append(parts, fmt.Sprintf("%s ends at row %d, its anchor at row %d", table, d.id, w.id))
		case d.hash != w.hash:
			parts = append(parts, fmt.Sprintf("%s row %d is not the row anchored", table, d.id))
		}
	}
	return strings.Join(parts, "; ")
}

// The anchor file: two slots of slotSize bytes, each a record
//
//	magic(8) seq(8) committed heads(numChains×40) has-pending(1)
//	pending heads(numChains×40) HMAC-SHA256 of all that(32)
//
// written in turn (seq even: slot 0, odd: slot 1). A record of the first
// format (magic anchorMagicV1) has numChainsV1 heads; it is still read,
// and the next commit writes the current format.
const (
	anchorMagic   = "PHANCHR2"
	anchorMagicV1 = "PHANCHR1"
	headSize      = 8 + sha256.Size
	recordBody    = 8 + 8 + int(numChains)*headSize + 1 + int(numChains)*headSize
	recordSize    = recordBody + sha256.Size
	slotSize      = 1024
	keySize       = 32
)

// recordBodyOf is the size of a record's body with n chains.
func recordBodyOf(n int) int { return 8 + 8 + n*headSize + 1 + n*headSize }

type record struct {
	seq       uint64
	committed heads
	pending   *heads
}

func putHeads(b []byte, h *heads) []byte {
	for _, x := range h {
		b = binary.BigEndian.AppendUint64(b, uint64(x.id))
		b = append(b, x.hash[:]...)
	}
	return b
}

func getHeads(b []byte, h *heads, n int) []byte {
	for c := range n {
		h[c].id = int64(binary.BigEndian.Uint64(b))
		copy(h[c].hash[:], b[8:headSize])
		b = b[headSize:]
	}
	return b
}

func (r *record) encode(key []byte, buf []byte) []byte {
	b := append(buf[:0], anchorMagic...)
	b = binary.BigEndian.AppendUint64(b, r.seq)
	b = putHeads(b, &r.committed)
	if r.pending != nil {
		b = append(b, 1)
		b = putHeads(b, r.pending)
	} else {
		b = append(b, 0)
		b = append(b, make([]byte, numChains*headSize)...)
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	b = m.Sum(b)
	for len(b) < slotSize {
		b = append(b, 0)
	}
	return b
}

func decodeRecord(key, b []byte) (record, bool) {
	n := int(numChains)
	switch {
	case len(b) >= 8 && string(b[:8]) == anchorMagic:
	case len(b) >= 8 && string(b[:8]) == anchorMagicV1:
		n = int(numChainsV1)
	default:
		return record{}, false
	}
	body := recordBodyOf(n)
	if len(b) < body+sha256.Size {
		return record{}, false
	}
	m := hmac.New(sha256.New, key)
	m.Write(b[:body])
	if !hmac.Equal(m.Sum(nil), b[body:body+sha256.Size]) {
		return record{}, false
	}
	var r record
	r.seq = binary.BigEndian.Uint64(b[8:16])
	rest := getHeads(b[16:], &r.committed, n)
	if rest[0] == 1 {
		var p heads
		getHeads(rest[1:], &p, n)
		r.pending = &p
	}
	return r, true
}

// anchor is the store's side of the anchor file. Its fields are used under
// the store's write lock (wmu), or before the store is shared.
type anchor struct {
	cfg   AnchorConfig
	key   []byte
	f     *os.File
	seq   uint64
	heads heads // committed: the database's heads as this store knows them
	err   error // set once the database or the anchor failed: writes are refused
	buf   []byte
	// sync asks the syncer goroutine to sync the confirmations; done is
	// closed when it has stopped (close).
	sync chan struct{}
	done chan struct{}
}

// startSyncer runs the goroutine that syncs the confirmation records off
// the writer's path.
func (a *anchor) startSyncer() {
	a.sync, a.done = make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(a.done)
		for range a.sync {
			if !a.cfg.NoSync {
				_ = a.f.Sync() // a failure shows at the next announce's sync
			}
		}
	}()
}

// metaAnchored is the meta row saying the database was anchored: from
// then on a missing key or anchor file is ErrAnchor, never a new start.
const metaAnchored = "anchored"

// openAnchor loads (or, the first time, creates) the anchor and compares
// it with the database's heads, on the writer db before the store is
// shared. A database that does not match is not an error of Open: the
// store opens, keeps the reason (Verify and every write return it), and
// the kiosk shows it out of service.
func openAnchor(ctx context.Context, db *sql.DB, cfg AnchorConfig) (*anchor, bool, error) {
	a := &anchor{cfg: cfg, buf: make([]byte, 0, slotSize)}
	dbHeads, err := readHeads(func(q string) scanner { return db.QueryRowContext(ctx, q) })
	if err != nil {
		return nil, false, err
	}
	var anchored int64
	if err := db.QueryRowContext(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = ?), 0)`, metaAnchored).Scan(&anchored); err != nil {
		return nil, false, fmt.Errorf("anchor: %w", err)
	}
	if anchored == 0 && !holdsRecord(cfg) {
		// The first anchoring of this database: new secret, first record.
		// A secret without its anchor, or an anchor file without its first
		// record, is what a cut during a first anchoring leaves (the secret
		// is written first, then the anchor file, the database marked
		// last): they never sealed anything, and are made again.
		for _, f := range []string{cfg.Key, cfg.Path} {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, false, fmt.Errorf("anchor: %s of an unfinished first anchoring: %w", f, err)
			}
		}
		if err := a.create(dbHeads); err != nil {
			return nil, false, err
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, 1) ON CONFLICT(key) DO UPDATE SET value = 1`, metaAnchored); err != nil {
			a.close()
			return nil, false, fmt.Errorf("anchor: mark the database anchored: %w", err)
		}
		a.startSyncer()
		return a, true, nil
	}
	a.err = a.load(dbHeads)
	if a.err == nil && anchored == 0 {
		// The files were written and the cut came before the mark: mark
		// it now, so that files removed later are refused, not replaced.
		if _, err := db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, 1) ON CONFLICT(key) DO UPDATE SET value = 1`, metaAnchored); err != nil {
			a.close()
			return nil, false, fmt.Errorf("anchor: mark the database anchored: %w", err)
		}
	}
	if a.f != nil {
		a.startSyncer()
	}
	return a, false, nil
}

// create writes a new secret and the first record.
func (a *anchor) create(h heads) error {
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("anchor: secret: %w", err)
	}
	if err := writeNew(a.cfg.Key, key); err != nil {
		return fmt.Errorf("anchor: secret: %w", err)
	}
	a.key = key
	r := record{seq: 1, committed: h}
	b := r.encode(key, a.buf)
	if err := writeNew(a.cfg.Path, append(b, make([]byte, slotSize)...)); err != nil {
		return fmt.Errorf("anchor: %w", err)
	}
	f, err := os.OpenFile(a.cfg.Path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("anchor: %w", err)
	}
	a.f, a.seq, a.heads = f, 1, h
	return nil
}

// writeNew creates path (mode 0600, refusing an existing file) with b,
// synced with its directory entry.
func writeNew(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// load reads the secret and the newest whole record, and checks the
// database's heads against it.
func (a *anchor) load(dbHeads heads) error {
	key, err := os.ReadFile(a.cfg.Key)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("the anchor's secret %s is missing (the database or the anchor says the kiosk was anchored): %w", a.cfg.Key, ErrAnchor)
	case err != nil:
		return fmt.Errorf("the anchor's secret %s: %v: %w", a.cfg.Key, err, ErrAnchor)
	case len(key) != keySize:
		return fmt.Errorf("the anchor's secret %s is %d bytes, not %d: %w", a.cfg.Key, len(key), keySize, ErrAnchor)
	}
	a.key = key
	f, err := os.OpenFile(a.cfg.Path, os.O_RDWR, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("the anchor %s is missing (the database or the secret says the kiosk was anchored): %w", a.cfg.Path, ErrAnchor)
	case err != nil:
		return fmt.Errorf("the anchor %s: %v: %w", a.cfg.Path, err, ErrAnchor)
	}
	a.f = f
	r, err := a.read()
	if err != nil {
		return err
	}
	a.seq = r.seq
	switch {
	case dbHeads == r.committed:
		a.heads = r.committed
	case r.pending != nil && dbHeads == *r.pending:
		a.heads = *r.pending // the last transaction committed after its record
	default:
		want := r.committed
		if r.pending != nil {
			want = *r.pending
		}
		return fmt.Errorf("%s: %w", describe(dbHeads, want), ErrAnchor)
	}
	return nil
}

// holdsRecord says whether cfg's anchor file holds a record signed with
// its secret; a file that cannot be read for another reason than its
// absence counts as holding one, so that load says why.
func holdsRecord(cfg AnchorConfig) bool {
	key, err := os.ReadFile(cfg.Key)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false
	case err != nil:
		return true
	case len(key) != keySize:
		return false
	}
	b, err := os.ReadFile(cfg.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false
	case err != nil:
		return true
	}
	for off := 0; off < len(b); off += slotSize {
		if _, ok := decodeRecord(key, b[off:]); ok {
			return true
		}
	}
	return false
}

// read returns the newest record of the anchor file whose HMAC holds.
func (a *anchor) read() (record, error) {
	b := make([]byte, 2*slotSize)
	n, err := a.f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return record{}, fmt.Errorf("read the anchor %s: %v: %w", a.cfg.Path, err, ErrAnchor)
	}
	b = b[:n]
	var best record
	found := false
	for off := 0; off < len(b); off += slotSize {
		if r, ok := decodeRecord(a.key, b[off:]); ok && (!found || r.seq > best.seq) {
			best, found = r, true
		}
	}
	if !found {
		return record{}, fmt.Errorf("the anchor %s holds no record signed with this kiosk's secret: %w", a.cfg.Path, ErrAnchor)
	}
	return best, nil
}

// announce writes, before a COMMIT, the record of the heads it will leave.
func (a *anchor) announce(next heads) error {
	r := record{seq: a.seq + 1, committed: a.heads, pending: &next}
	a.buf = r.encode(a.key, a.buf)
	if _, err := a.f.WriteAt(a.buf, int64(r.seq%2)*slotSize); err != nil {
		return fmt.Errorf("write the anchor: %v: %w", err, ErrAnchor)
	}
	if !a.cfg.NoSync {
		if err := a.f.Sync(); err != nil {
			return fmt.Errorf("sync the anchor: %v: %w", err, ErrAnchor)
		}
	}
	a.seq = r.seq
	return nil
}

// confirm writes, after a COMMIT, the record of the heads it left, with
// nothing pending: from then on the database must be exactly at them. It
// is synced by the syncer goroutine, not on the writer's path: until that
// sync, a power cut may leave the announcement as the newest record,
// which also accepts the heads before this commit.
func (a *anchor) confirm(h heads) {
	a.heads = h
	r := record{seq: a.seq + 1, committed: h}
	a.buf = r.encode(a.key, a.buf)
	if _, err := a.f.WriteAt(a.buf, int64(r.seq%2)*slotSize); err != nil {
		a.err = fmt.Errorf("write the anchor: %v: %w", err, ErrAnchor)
		return
	}
	a.seq = r.seq
	select {
	case a.sync <- struct{}{}:
	default: // a sync is already asked for
	}
}

// check compares the database's heads, read in a write transaction, and
// the anchor file with what the store committed.
func (a *anchor) check(dbHeads heads) error {
	if dbHeads != a.heads {
		return fmt.Errorf("%s: %w", describe(dbHeads, a.heads), ErrAnchor)
	}
	r, err := a.read()
	if err != nil {
		return err
	}
	if r.seq != a.seq || (r.committed != a.heads && (r.pending == nil || *r.pending != a.heads)) {
		return fmt.Errorf("the anchor %s was rewritten behind the store (record %d, the store wrote %d): %w", a.cfg.Path, r.seq, a.seq, ErrAnchor)
	}
	return nil
}

func (a *anchor) close() error {
	if a == nil || a.f == nil {
		return nil
	}
	if a.sync != nil {
		close(a.sync)
		<-a.done
	}
	return errors.Join(a.f.Sync(), a.f.Close())
}

// anchorMAC is the short HMAC of a set of heads, as printed on reports.
func (a *anchor) mac(h heads) []byte { return headsMAC(a.key, h) }

func headsMAC(key []byte, h heads) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("pharaon/anchor-heads/v1"))
	m.Write(putHeads(nil, &h))
	return m.Sum(nil)
}

// Head is the last row of one chained table.
type Head struct {
	Table string
	ID    int64  // 0: the table is empty
	Hash  []byte // the row's chain hash (SHA-256)
}

// AnchorHeads are the chains' heads as anchored, for the staff reports
// (printed with Short) and the fleet's records: whoever holds the
// kiosk's secret recomputes MAC from the heads.
type AnchorHeads struct {
	Seq   uint64 // the anchor's record number: one more per commit that moved a head
	Heads []Head
	MAC   []byte // HMAC-SHA256 under the kiosk's secret of the heads
}

// Short is the MAC's first 8 bytes in four groups of hexadecimal digits,
// "3f2a-9c01-77be-0d4e": what a report prints to be compared by eye.
func (a AnchorHeads) Short() string {
	if len(a.MAC) < 8 {
		return ""
	}
	h := hex.EncodeToString(a.MAC[:8])
	return h[0:4] + "-" + h[4:8] + "-" + h[8:12] + "-" + h[12:16]
}

// Anchor returns the chains' heads the store committed and anchored, with
// their HMAC. ErrAnchor when the store has no anchor (WithAnchor) or its
// anchor failed.
func (s *Store) Anchor() (AnchorHeads, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return AnchorHeads{}, ErrClosed
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	a := s.anc
	switch {
	case a == nil:
		return AnchorHeads{}, fmt.Errorf("no anchor configured: %w", ErrAnchor)
	case a.err != nil:
		return AnchorHeads{}, a.err
	}
	return AnchorHeads{Seq: a.seq, MAC: a.mac(a.heads), Heads: headList(&a.heads)}, nil
}

// AnchorErr is why the database does not match its anchor, nil when it
// does or when the store has no anchor.
func (s *Store) AnchorErr() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.anc == nil {
		return nil
	}
	return s.anc.err
}

// checkAnchor compares, inside a write transaction, the database's heads
// and the anchor file with what this store committed: a tail cut or a
// file rewritten while the kiosk runs. A mismatch refuses this and every
// later write.
func (t *wtx) checkAnchor() error {
	a := t.s.anc
	if a == nil {
		return nil
	}
	h, err := readHeads(func(q string) scanner { return t.rowQ(q) })
	if err != nil {
		return err
	}
	if err := a.check(h); err != nil {
		a.err = err
		return err
	}
	return nil
}
