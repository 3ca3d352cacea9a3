package store

import (
	"context"
	"crypto/hmac"
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
	"time"
)

// Anchoring (DESIGN.md §4). The hash chains show an edited row, but
// whoever holds the file can cut the newest rows of a chain, or recompute
// a chain, and nothing in the file shows it. So the head of every chain
// (its last id and hash) is also kept outside the database file, in the
// anchor file, with an HMAC-SHA256 under a key derived from the kiosk's
// secret, which lives in the trust root (trust.go), off the data
// partition: the holder of the database and its anchor cannot write an
// anchor that matches a database they changed.
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
// Every record also carries the trust root's counter. Every start counts
// it once, and so does a transaction that moves money out of the kiosk (a
// voucher printed or paid, a hand-pay, a collection), at most once per
// AnchorConfig.Pace: such a transaction announces the counter's next
// value, then counts it, then commits. At open the newest record must
// carry the trust root's value (or, when it announced the next count
// that did not happen, the next value, the database at its committed
// heads): a record behind it is a database and anchor put back to an
// earlier copy, ErrRollback. A record can never be ahead by more than
// one.

// ErrAnchor: the database does not match its anchor (a chain cut or
// extended behind the store's back, another kiosk's or an older database),
// the anchor or its trust root is missing or unreadable, or an anchor
// could not be written. The store then refuses every write.
var ErrAnchor = errors.New("database does not match its anchor")

// ErrRollback: the database and its anchor are older than the trust
// root's counter says: an earlier copy put back. It comes with ErrAnchor.
var ErrRollback = errors.New("database put back to an earlier copy")

// DefaultCounterPace is the least time between two counts of the trust
// root for money moving out (DESIGN.md §4 has the arithmetic: a TPM's NV
// memory lasts ten years of a kiosk paying out without pause).
const DefaultCounterPace = 15 * time.Minute

// AnchorConfig says where the anchor of the chains' heads lives and what
// it rests on.
type AnchorConfig struct {
	// Trust is the trust root: a TPM's (hw/tpm.Root) or FileTrust. When
	// nil, the files trust root in TrustDir is opened (and made the first
	// time). A trust root that is an io.Closer is closed with the store.
	Trust    TrustRoot
	TrustDir string
	// Path is the anchor file: the heads and their HMAC, rewritten with
	// every commit that moves a head (mode 0600).
	Path string
	// Pace is the least time between two counts of the trust root for
	// money moving out: DefaultCounterPace when 0; below 0, every money
	// move out counts.
	Pace time.Duration
	// NoSync leaves the anchor's writes to the operating system's own
	// flushing: cheaper, but a power cut may lose the newest anchors, and
	// a tail cut within that window (seconds) would go unseen. For
	// measurements only.
	NoSync bool
}

// DefaultAnchor is the anchor of a development run and of the tests:
// pharaon.anchor and a files trust root (trust.secret, trust.counter)
// beside the database at dbPath. A kiosk keeps its trust root off the data
// partition (cmd/pharaon's trust settings).
func DefaultAnchor(dbPath string) AnchorConfig {
	dir := filepath.Dir(dbPath)
	return AnchorConfig{TrustDir: dir, Path: filepath.Join(dir, "pharaon.anchor")}
}

// WithAnchor anchors the chains' heads outside the database (see
// AnchorConfig). The anchor is made when the trust root never counted (a
// new kiosk) and the database holds no history; after that, an anchor
// missing or behind the trust root is ErrAnchor.
func WithAnchor(a AnchorConfig) Option {
	return func(c *config) error {
		if a.Path == "" || (a.Trust == nil && a.TrustDir == "") {
			return fmt.Errorf("anchor: a path and a trust root are needed: %w", ErrBadRequest)
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
	chCollections
	numChains
)

var chainTables = [numChains]string{"ledger", "plays", "play_steps", "events", "vouchers", "voucher_steps",
	"bill_intents", "bill_intent_steps", "meter_snapshots", "credentials", "pin_lock",
	"settings", "collections"}

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

// empty says whether every chain is empty.
func (h *heads) empty() bool { return *h == heads{} }

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
		case d.id != w.id:
			parts = append(parts, fmt.Sprintf("%s ends at row %d, its anchor at row %d", table, d.id, w.id))
		case d.hash != w.hash:
			parts = append(parts, fmt.Sprintf("%s row %d is not the row anchored", table, d.id))
		}
	}
	return strings.Join(parts, "; ")
}

// The anchor file: two slots of slotSize bytes, each a record
//
//	magic(8) seq(8) counter(8) committed heads(numChains×40)
//	has-pending(1) pending heads(numChains×40) HMAC-SHA256 of all that(32)
//
// written in turn (seq even: slot 0, odd: slot 1). Only this format is
// read: a file of any other is no anchor of this software.
const (
	anchorMagic = "PHANCHR3"
	headSize    = 8 + sha256.Size
	recordBody  = 8 + 8 + 8 + int(numChains)*headSize + 1 + int(numChains)*headSize
	recordSize  = recordBody + sha256.Size
	slotSize    = 2048
	keySize     = 32
)

// The slots must hold a record; a chain added later grows the record.
var _ [slotSize - recordSize]struct{}

type record struct {
	seq       uint64
	counter   uint64 // the trust root's counter this record goes with
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

func getHeads(b []byte, h *heads) []byte {
	for c := range h {
		h[c].id = int64(binary.BigEndian.Uint64(b))
		copy(h[c].hash[:], b[8:headSize])
		b = b[headSize:]
	}
	return b
}

func (r *record) encode(key []byte, buf []byte) []byte {
	b := append(buf[:0], anchorMagic...)
	b = binary.BigEndian.AppendUint64(b, r.seq)
	b = binary.BigEndian.AppendUint64(b, r.counter)
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
	if len(b) < recordSize || string(b[:8]) != anchorMagic {
		return record{}, false
	}
	m := hmac.New(sha256.New, key)
	m.Write(b[:recordBody])
	if !hmac.Equal(m.Sum(nil), b[recordBody:recordSize]) {
		return record{}, false
	}
	var r record
	r.seq = binary.BigEndian.Uint64(b[8:16])
	r.counter = binary.BigEndian.Uint64(b[16:24])
	rest := getHeads(b[24:], &r.committed)
	if rest[0] == 1 {
		var p heads
		getHeads(rest[1:], &p)
		r.pending = &p
	}
	return r, true
}

// Keys derived from the trust root's secret, one per use: the secret
// itself never keys anything, so no use of one key helps against another.
const (
	domainAnchorKey = "pharaon/key/anchor/v1"
	domainUnitsKey  = "pharaon/key/units/v1"
	domainPepperKey = "pharaon/key/pepper/v1"
)

// AnchorKey is the key that seals a kiosk's anchor records (AnchorRecordMAC),
// derived from its trust root's secret: what an operator who keeps the
// secrets of kiosks without a TPM gives the centre.
func AnchorKey(secret []byte) []byte { return deriveKey(secret, domainAnchorKey) }

func deriveKey(secret []byte, domain string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(domain))
	return m.Sum(nil)
}

// anchor is the store's side of the anchor file. Its fields are used under
// the store's write lock (wmu), or before the store is shared.
type anchor struct {
	cfg     AnchorConfig
	trust   TrustRoot
	key     []byte // the anchor's HMAC key, derived from the trust root's secret
	f       *os.File
	seq     uint64
	counter uint64 // the trust root's counter as the newest record carries it
	heads   heads  // committed: the database's heads as this store knows them
	err     error  // set once the database or the anchor failed: writes are refused
	buf     []byte
	// lastCount is when the counter last counted (the store's clock), for
	// the pace of the counts for money out.
	lastCount time.Time
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

// hasHistory says whether the database holds anything a kiosk did: a row
// of any chain, or a block.
func hasHistory(ctx context.Context, db *sql.DB, h heads) (bool, error) {
	if !h.empty() {
		return true, nil
	}
	var blocks int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM blocks`).Scan(&blocks); err != nil {
		return false, fmt.Errorf("anchor: %w", err)
	}
	return blocks > 0, nil
}

// openAnchor opens the trust root and the anchor (or, for a new kiosk,
// makes the anchor) and compares the anchor with the database's heads and
// the trust root's counter, on the writer db before the store is shared;
// then it counts the start. A database that does not match is not an
// error of Open: the store opens, keeps the reason (Verify and every write
// return it), and the kiosk shows it out of service. created says the
// anchor was made.
func openAnchor(ctx context.Context, db *sql.DB, cfg AnchorConfig, now time.Time) (a *anchor, created bool, err error) {
	a = &anchor{cfg: cfg, trust: cfg.Trust, buf: make([]byte, 0, slotSize)}
	if a.trust == nil {
		ft, err := OpenFileTrust(cfg.TrustDir)
		if err != nil {
			// Not an error of Open: the kiosk shows why it is out of service.
			a.err = fmt.Errorf("%w: %w", err, ErrAnchor)
			return a, false, nil
		}
		a.trust = ft
	}
	if s := a.trust.Secret(); len(s) != keySize {
		a.err = fmt.Errorf("the trust root's secret is %d bytes, not %d: %w: %w", len(s), keySize, ErrTrust, ErrAnchor)
		return a, false, nil
	}
	a.key = deriveKey(a.trust.Secret(), domainAnchorKey)
	dbHeads, err := readHeads(func(q string) scanner { return db.QueryRowContext(ctx, q) })
	if err != nil {
		return nil, false, err
	}
	history, err := hasHistory(ctx, db, dbHeads)
	if err != nil {
		return nil, false, err
	}
	counter, err := a.trust.Counter()
	if err != nil {
		a.err = fmt.Errorf("the trust root's counter: %w: %w", err, ErrAnchor)
		return a, false, nil
	}
	if counter == 0 {
		// A trust root that never counted: a new kiosk, whose database
		// must hold nothing yet. A database with history is never
		// anchored afresh.
		if history {
			a.err = fmt.Errorf("the database holds history, but the trust root (%s) is new: this database is not this kiosk's, or its trust root was replaced: %w", a.trust, ErrAnchor)
			return a, false, nil
		}
		if err := a.create(dbHeads, now); err != nil {
			a.close()
			return nil, false, err
		}
		a.startSyncer()
		return a, true, nil
	}
	a.err = a.load(dbHeads, counter, history)
	if a.f != nil {
		a.startSyncer()
	}
	if a.err == nil {
		// Every start counts: a copy of the disk taken while the kiosk was
		// stopped is behind from this start on.
		if err := a.count(now); err != nil {
			a.err = err
		}
	}
	return a, false, nil
}

// create writes the first record of a new kiosk's anchor, then counts the
// trust root for the first time and confirms it. A cut between the two
// leaves a record of counter 0, which load accepts only for a database
// that still holds nothing.
func (a *anchor) create(h heads, now time.Time) error {
	if err := os.Remove(a.cfg.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("anchor: %s of an unfinished first anchoring: %w", a.cfg.Path, err)
	}
	r := record{seq: 1, committed: h}
	b := r.encode(a.key, a.buf)
	if err := writeNew(a.cfg.Path, append(b, make([]byte, slotSize)...)); err != nil {
		return fmt.Errorf("anchor: %w", err)
	}
	f, err := os.OpenFile(a.cfg.Path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("anchor: %w", err)
	}
	a.f, a.seq, a.heads = f, 1, h
	return a.count(now)
}

// writeNew creates path (mode 0600, refusing an existing file) with b,
// synced with its directory entry.
func writeNew(path string, b []byte) error {
	if err := writeSynced(path, os.O_EXCL, b); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// load reads the newest whole record, and checks the database's heads and
// the trust root's counter against it.
func (a *anchor) load(dbHeads heads, counter uint64, history bool) error {
	f, err := os.OpenFile(a.cfg.Path, os.O_RDWR, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("the anchor %s is missing (the trust root has counted to %d): %w", a.cfg.Path, counter, ErrAnchor)
	case err != nil:
		return fmt.Errorf("the anchor %s: %v: %w", a.cfg.Path, err, ErrAnchor)
	}
	a.f = f
	r, err := a.read()
	if err != nil {
		return err
	}
	a.seq = r.seq
	h, err := a.match(r, dbHeads, counter, history)
	if err != nil {
		return err
	}
	a.counter, a.heads = counter, h
	return nil
}

// match checks a database's heads and the trust root's counter against
// the anchor's newest record r, and returns the heads the database is at:
// the store's open (load) and the check of a backup's copy (backup.go).
func (a *anchor) match(r record, dbHeads heads, counter uint64, history bool) (heads, error) {
	want := r.committed // the heads the database must be at
	alsoPending := r.pending != nil
	switch {
	case r.counter == counter:
	case r.counter == counter+1 && r.pending != nil:
		// A count announced that did not happen: its transaction did not
		// commit either (it commits after the count).
		alsoPending = false
	case r.counter == 0 && !history:
		// The first anchoring cut between its first record and its first
		// count: nothing was anchored yet.
	case r.counter < counter:
		return heads{}, fmt.Errorf("the anchor's record %d goes with count %d of the trust root, which has counted to %d: the database and its anchor were put back to an earlier copy: %w: %w",
			r.seq, r.counter, counter, ErrRollback, ErrAnchor)
	default:
		return heads{}, fmt.Errorf("the trust root (%s) has counted to %d only, its anchor's record %d says %d: another trust root, or one put back: %w",
			a.trust, counter, r.seq, r.counter, ErrAnchor)
	}
	switch {
	case dbHeads == want:
		return want, nil
	case alsoPending && dbHeads == *r.pending:
		return *r.pending, nil // the last transaction committed after its record
	}
	if alsoPending {
		want = *r.pending
	}
	return heads{}, fmt.Errorf("%s: %w", describe(dbHeads, want), ErrAnchor)
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

// announce writes, before a COMMIT, the record of the heads it will leave
// and of the counter's value after the transaction's count, if any.
func (a *anchor) announce(next heads, counter uint64) error {
	r := record{seq: a.seq + 1, counter: counter, committed: a.heads, pending: &next}
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

// increment counts the trust root once, after the record announcing the
// count is durable. The count must be the one announced: anything else
// means the counter moved behind the store's back.
func (a *anchor) increment(now time.Time) error {
	want := a.counter + 1
	got, err := a.trust.Increment()
	if err != nil {
		return fmt.Errorf("count the trust root: %w: %w", err, ErrAnchor)
	}
	if a.counter != 0 && got != want {
		return fmt.Errorf("the trust root counted to %d where %d was due: it moved behind the kiosk's back: %w", got, want, ErrAnchor)
	}
	a.counter, a.lastCount = got, now
	return nil
}

// count counts the trust root with no change to the database (a start):
// an announcement of the same heads and the next count, the count, and
// its confirmation. A first count (the counter never counted, whose first
// value only the trust root knows) is not announced: the record of
// counter 0 already stands for it.
func (a *anchor) count(now time.Time) error {
	if a.counter != 0 {
		if err := a.announce(a.heads, a.counter+1); err != nil {
			return err
		}
	}
	if err := a.increment(now); err != nil {
		return err
	}
	a.confirm(a.heads)
	if a.err != nil {
		return a.err
	}
	return nil
}

// due says whether a transaction moving money out counts the trust root
// now: not within the pace of the last count.
func (a *anchor) due(now time.Time) bool {
	pace := a.cfg.Pace
	if pace == 0 {
		pace = DefaultCounterPace
	}
	return pace < 0 || a.lastCount.IsZero() || now.Sub(a.lastCount) >= pace || now.Before(a.lastCount)
}

// confirm writes, after a COMMIT, the record of the heads it left, with
// nothing pending: from then on the database must be exactly at them. It
// is synced by the syncer goroutine, not on the writer's path: until that
// sync, a power cut may leave the announcement as the newest record,
// which also accepts the heads before this commit.
func (a *anchor) confirm(h heads) {
	a.heads = h
	r := record{seq: a.seq + 1, counter: a.counter, committed: h}
	a.buf = r.encode(a.key, a.buf)
	if _, err := a.f.WriteAt(a.buf, int64(r.seq%2)*slotSize); err != nil {
		a.err = fmt.Errorf("write the anchor: %v: %w", err, ErrAnchor)
		return
	}
	a.seq = r.seq
	if a.sync == nil {
		// Before the syncer runs (the first anchoring): synced here.
		if !a.cfg.NoSync {
			if err := a.f.Sync(); err != nil {
				a.err = fmt.Errorf("sync the anchor: %v: %w", err, ErrAnchor)
			}
		}
		return
	}
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
	if a == nil {
		return nil
	}
	if a.f == nil {
		return a.closeTrust()
	}
	if a.sync != nil {
		close(a.sync)
		<-a.done
		a.sync = nil
	}
	err := errors.Join(a.f.Sync(), a.f.Close())
	a.f = nil
	return errors.Join(err, a.closeTrust())
}

// closeTrust closes a trust root that needs it (a TPM's).
func (a *anchor) closeTrust() error {
	if c, ok := a.trust.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// mac is the HMAC of a set of heads and the counter they go with, as the
// reports print it and the fleet's anchor records carry it.
func (a *anchor) mac(counter uint64, h heads) []byte { return headsMAC(a.key, counter, h) }

func headsMAC(key []byte, counter uint64, h heads) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("pharaon/anchor-heads/v2"))
	m.Write(binary.BigEndian.AppendUint64(nil, counter))
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
	Seq     uint64 // the anchor's record number: one more per commit that moved a head
	Counter uint64 // the trust root's counter the heads go with
	Heads   []Head
	MAC     []byte // HMAC-SHA256 of the counter and the heads under the anchor's key
	Trust   string // what the trust root is (TrustRoot.String)
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
	return AnchorHeads{Seq: a.seq, Counter: a.counter, MAC: a.mac(a.counter, a.heads), Heads: headList(&a.heads), Trust: a.trust.String()}, nil
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
