package block

import (
	"bufio"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"
	"io"
	"time"

	"pharaon/game"
)

// Writer streams a block file: magic and header at construction, the units
// one by one, the signature at Close. It refuses, with an error and without
// signing, anything a Reader would refuse: a unit out of order, a tier or a
// bonus count beyond the table or the header, a block closed short.
type Writer struct {
	h      Header
	name   string // h.Name(), for messages
	sp     spec
	priv   ed25519.PrivateKey
	w      io.Writer
	bw     *bufio.Writer
	signed hash.Hash // SHA-512 of everything written before the signature
	n      uint32    // units written
	tiers  [game.NumTiers + 1]int
	bonus  [game.NumTiers + 1]int
	buf    [unitSize]byte
	err    error // sticky: the first error, returned by every later call
	closed bool
}

// errClosed is returned by Write after Close.
var errClosed = errors.New("block writer closed")

// NewWriter checks h and writes the magic and the header to w. Zero fields
// of h that have only one right value are filled in: Version
// (FormatVersion), Units (game.UnitsPerBlock), TableDigest (the stake's
// table) and KeyID (priv's). Created is stored to the second, in UTC;
// Header returns the header as written. Nothing is written if h is invalid.
func NewWriter(w io.Writer, h Header, priv ed25519.PrivateKey) (*Writer, error) {
	return newWriter(w, h, priv, officialSpec)
}

func newWriter(w io.Writer, h Header, priv ed25519.PrivateKey, specs specFunc) (*Writer, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%s: signing key of %d bytes, want %d: %w", h.Name(), len(priv), ed25519.PrivateKeySize, ErrKey)
	}
	pub := priv.Public().(ed25519.PublicKey)
	if h.Version == 0 {
		h.Version = FormatVersion
	}
	if sp, ok := specs(h.Stake); ok {
		if h.Units == 0 {
			h.Units = sp.units
		}
		if h.TableDigest == ([32]byte{}) {
			h.TableDigest = sp.digest
		}
	}
	if h.KeyID == (KeyID{}) {
		h.KeyID = KeyIDOf(pub)
	}
	h.Created = time.Unix(h.Created.Unix(), 0).UTC()
	sp, err := h.check(specs)
	if err != nil {
		return nil, err
	}
	if id := KeyIDOf(pub); h.KeyID != id {
		return nil, fmt.Errorf("%s: header names key %s, the signing key is %s: %w", h.Name(), h.KeyID, id, ErrHeader)
	}
	bw := &Writer{h: h, name: h.Name(), sp: sp, priv: priv, w: w, signed: sha512.New()}
	bw.bw = bufio.NewWriterSize(hashingWriter{w: w, h: bw.signed}, 32<<10)
	prefix := h.marshalPrefix()
	if _, err := bw.bw.Write(prefix[:]); err != nil {
		return nil, fmt.Errorf("%s: write header: %w", h.Name(), err)
	}
	return bw, nil
}

// Header is the header as written.
func (w *Writer) Header() Header { return w.h }

// Write appends u, which must be the next unit: its Index is the number of
// units written so far.
func (w *Writer) Write(u Unit) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("%s: write unit %d: %w", w.name, u.Index, errClosed)
	}
	w.err = w.write(u)
	return w.err
}

func (w *Writer) write(u Unit) error {
	name := w.name
	if w.n == w.sp.units {
		return fmt.Errorf("%s: unit %d is beyond the %d units of a block: %w", name, u.Index, w.sp.units, ErrCounts)
	}
	var flags byte
	if u.ViaBonus {
		flags = flagViaBonus
	}
	if err := u.check(w.n, flags, name); err != nil {
		return err
	}
	if w.tiers[u.Tier]++; w.tiers[u.Tier] > int(w.sp.count(u.Tier)) {
		if u.Tier == game.TierLose {
			return fmt.Errorf("%s: unit %d would be losing unit %d, the table leaves %d: %w",
				name, u.Index, w.tiers[u.Tier], w.sp.count(u.Tier), ErrCounts)
		}
		return fmt.Errorf("%s: unit %d would be lot %d of tier %d, the table has %d: %w",
			name, u.Index, w.tiers[u.Tier], u.Tier, w.sp.count(u.Tier), ErrCounts)
	}
	if u.ViaBonus {
		if w.bonus[u.Tier]++; w.bonus[u.Tier] > int(w.h.BonusLots[u.Tier-1]) {
			return fmt.Errorf("%s: unit %d would be lot %d of tier %d via the bonus, the header says %d: %w",
				name, u.Index, w.bonus[u.Tier], u.Tier, w.h.BonusLots[u.Tier-1], ErrCounts)
		}
	}
	u.marshal(&w.buf)
	if _, err := w.bw.Write(w.buf[:]); err != nil {
		return fmt.Errorf("%s: write unit %d: %w", name, u.Index, err)
	}
	w.n++
	return nil
}

// Close checks that the block is complete and exact, then writes the
// signature. It does not close the underlying writer. A block that is short
// or wrong is not signed: the file ends without its signature, which every
// Reader refuses.
func (w *Writer) Close() error {
	if w.closed || w.err != nil {
		return w.err
	}
	w.closed = true
	w.err = w.close()
	return w.err
}

func (w *Writer) close() error {
	name := w.name
	if w.n != w.sp.units {
		return fmt.Errorf("%s: closed after %d of %d units: %w", name, w.n, w.sp.units, ErrCounts)
	}
	if err := checkCounts(w.h, w.sp, &w.tiers, &w.bonus); err != nil {
		return err
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("%s: write units: %w", name, err)
	}
	sig, err := w.priv.Sign(nil, w.signed.Sum(nil), signOpts)
	if err != nil {
		return fmt.Errorf("%s: sign: %w", name, err)
	}
	if _, err := w.w.Write(sig); err != nil {
		return fmt.Errorf("%s: write signature: %w", name, err)
	}
	return nil
}

// hashingWriter writes to w and hashes what w accepted.
type hashingWriter struct {
	w io.Writer
	h hash.Hash
}

func (hw hashingWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	return n, err
}
