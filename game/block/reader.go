package block

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"
	"io"

	"pharaon/game"
)

// readBufferSize is the Reader's only buffer: the file is never held whole.
const readBufferSize = 16 << 10

// Reader streams a block file. NewReader reads and checks the header; Next
// returns the units one at a time and io.EOF only once the whole file has
// been checked: every unit read, the signature verified, no byte after it,
// the lots of every tier exactly those of the prize table (Art. 3), the
// bonus lots exactly those of the header, no losing unit marked via the
// bonus and every index equal to its position. Any problem is an error
// wrapping one of the package's sentinels (or the underlying reader's
// error); it is returned again by every later call to Next.
type Reader struct {
	h      Header
	name   string // h.Name(), for messages
	sp     spec
	pub    ed25519.PublicKey // nil: the signature is not checked (Inspect without keys)
	hr     *hashingReader
	br     *bufio.Reader
	n      uint32 // units read
	tiers  [game.NumTiers + 1]int
	bonus  [game.NumTiers + 1]int
	buf    [unitSize]byte
	digest [32]byte
	sig    [sigSize]byte
	err    error // sticky; io.EOF once the file is fully checked
}

// NewReader reads the magic and the header from r and checks them: format
// version, stake, unit count, table digest, bonus lots within the table,
// emission and block numbers, and that keys trusts the signing key. It reads
// nothing beyond the header.
func NewReader(r io.Reader, keys Keys) (*Reader, error) {
	if noKeys(keys) {
		return nil, fmt.Errorf("block file: %w", ErrNoKeys)
	}
	br, err := open(r, keys, officialSpec)
	if err != nil {
		return nil, err
	}
	return br, nil
}

// open reads the header. With keys nil it does not check the signature
// (Inspect). On error after the header was decoded, the returned Reader
// holds the header, for diagnostics only.
func open(r io.Reader, keys Keys, specs specFunc) (*Reader, error) {
	var prefix [prefixSize]byte
	if n, err := io.ReadFull(r, prefix[:magicSize]); err != nil {
		return nil, prefixErr(prefix[:n], err)
	}
	if string(prefix[:magicSize]) != Magic {
		return nil, fmt.Errorf("block file: starts with %q, not %q: %w", prefix[:magicSize], Magic, ErrFormat)
	}
	// The version comes first so that a later format, whose header may
	// differ, is reported as such rather than as a malformed header.
	if _, err := io.ReadFull(r, prefix[magicSize:magicSize+2]); err != nil {
		return nil, truncErr("block file", "in the header", err)
	}
	if v := uint16(prefix[magicSize])<<8 | uint16(prefix[magicSize+1]); v != FormatVersion {
		return nil, fmt.Errorf("block file: format version %d, this software reads version %d: %w", v, FormatVersion, ErrVersion)
	}
	if _, err := io.ReadFull(r, prefix[magicSize+2:]); err != nil {
		return nil, truncErr("block file", "in the header", err)
	}
	br := &Reader{h: unmarshalHeader(prefix[magicSize:])}
	br.name = br.h.Name()
	sp, err := br.h.check(specs)
	if err != nil {
		return br, err
	}
	br.sp = sp
	if keys != nil {
		pub, err := trustedKey(keys, br.h)
		if err != nil {
			return br, err
		}
		br.pub = pub
	}
	br.hr = &hashingReader{r: r, signed: sha512.New(), file: sha256.New(), left: sp.signedSize() - prefixSize}
	br.hr.signed.Write(prefix[:])
	br.hr.file.Write(prefix[:])
	br.br = bufio.NewReaderSize(br.hr, readBufferSize)
	return br, nil
}

// prefixErr explains a file shorter than the magic: the start of a block
// file is truncated, anything else is not a block file.
func prefixErr(got []byte, err error) error {
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("block file: read: %w", err)
	}
	if !bytes.HasPrefix([]byte(Magic), got) {
		return fmt.Errorf("block file: starts with %q, not %q: %w", got, Magic, ErrFormat)
	}
	if len(got) == 0 {
		return fmt.Errorf("block file: empty: %w", ErrTruncated)
	}
	return fmt.Errorf("block file: ends in the magic after %d bytes: %w", len(got), ErrTruncated)
}

// truncErr turns an end of file met where more was due into ErrTruncated.
func truncErr(name, where string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: file ends %s: %w", name, where, ErrTruncated)
	}
	return fmt.Errorf("%s: read %s: %w", name, where, err)
}

// Header is the block's header, checked.
func (r *Reader) Header() Header { return r.h }

// Next returns the next unit, or io.EOF once the last unit has been read
// and the whole file checked (see Reader).
func (r *Reader) Next() (Unit, error) {
	if r.err != nil {
		return Unit{}, r.err
	}
	if r.n == r.sp.units {
		r.err = r.finish()
		if r.err == nil {
			r.err = io.EOF
		}
		return Unit{}, r.err
	}
	if _, err := io.ReadFull(r.br, r.buf[:]); err != nil {
		r.err = truncErr(r.name, fmt.Sprintf("in unit %d of %d", r.n, r.sp.units), err)
		return Unit{}, r.err
	}
	u, err := unmarshalUnit(r.buf[:], r.n, r.name)
	if err != nil {
		r.err = err
		return Unit{}, err
	}
	r.tiers[u.Tier]++
	if u.ViaBonus {
		r.bonus[u.Tier]++
	}
	r.n++
	return u, nil
}

// finish reads and checks what follows the last unit.
func (r *Reader) finish() error {
	name := r.name
	var sig [sigSize]byte
	if n, err := io.ReadFull(r.br, sig[:]); err != nil {
		return truncErr(name, fmt.Sprintf("in the signature (%d of %d bytes)", n, sigSize), err)
	}
	switch _, err := r.br.ReadByte(); {
	case err == nil:
		return fmt.Errorf("%s: bytes follow the signature (a block file has %d bytes): %w",
			name, r.sp.signedSize()+sigSize, ErrTrailing)
	case !errors.Is(err, io.EOF):
		return fmt.Errorf("%s: read after the signature: %w", name, err)
	}
	// The signature first: a file altered after signing is reported as
	// such, not by the first count it happens to break.
	if r.pub != nil && ed25519.VerifyWithOptions(r.pub, r.hr.signed.Sum(nil), sig[:], signOpts) != nil {
		return fmt.Errorf("%s: signature does not match the content for key %s: %w", name, r.h.KeyID, ErrSignature)
	}
	if err := checkCounts(r.h, r.sp, &r.tiers, &r.bonus); err != nil {
		return err
	}
	r.hr.file.Sum(r.digest[:0])
	r.sig = sig
	return nil
}

// FileDigest is the SHA-256 of the whole file; valid after Next returned
// io.EOF, zero before.
func (r *Reader) FileDigest() [32]byte {
	if r.err != io.EOF {
		return [32]byte{}
	}
	return r.digest
}

// Summary is a block's header and the counts seen in its units.
type Summary struct {
	Header      Header
	TierCounts  [game.NumTiers + 1]int // index 0 = losers
	BonusCounts [game.NumTiers + 1]int // units revealed through the bonus, per tier
	FileDigest  [32]byte
}

// Verify reads a whole block file through a Reader and returns its summary
// once everything is checked, or the first problem and a zero Summary.
func Verify(r io.Reader, keys Keys) (Summary, error) {
	if noKeys(keys) {
		return Summary{}, fmt.Errorf("block file: %w", ErrNoKeys)
	}
	s, err := scan(r, keys, officialSpec)
	if err != nil {
		return Summary{}, err
	}
	return s, nil
}

// Inspect reads a whole block file for an audit. With keys, it checks
// everything Verify checks; with keys nil it checks everything but the key
// and the signature, so it must never be used to accept a block. Unlike
// Verify it returns, even with an error, the summary of what it read (the
// header if it was decoded, the counts of the units read so far), so an
// auditor sees what is wrong; FileDigest is set only when there is no error.
func Inspect(r io.Reader, keys Keys) (Summary, error) {
	return scan(r, keys, officialSpec)
}

func scan(rd io.Reader, keys Keys, specs specFunc) (Summary, error) {
	r, err := open(rd, keys, specs)
	if err != nil {
		var s Summary
		if r != nil {
			s.Header = r.h
		}
		return s, err
	}
	for err == nil {
		_, err = r.Next()
	}
	s := Summary{Header: r.h, TierCounts: r.tiers, BonusCounts: r.bonus}
	if err != io.EOF {
		return s, err
	}
	s.FileDigest = r.digest
	return s, nil
}

// hashingReader reads from r and hashes every byte into file and the first
// left bytes (the signed part) into signed.
type hashingReader struct {
	r            io.Reader
	signed, file hash.Hash
	left         int64
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.file.Write(p[:n])
	k := int64(n)
	if k > h.left {
		k = h.left
	}
	h.signed.Write(p[:k])
	h.left -= k
	return n, err
}
