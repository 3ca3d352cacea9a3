package block

import (
	"crypto/ed25519"
	"crypto/sha512"
	"fmt"
	"hash"
	"io"
)

// Signature is the issuer's signature of the block: what a kiosk keeps so
// that it can check, long after the file is gone, that the units it stored
// are the ones the issuer signed (SignedUnits). Valid after Next returned
// io.EOF, zero before.
func (r *Reader) Signature() [SignatureSize]byte {
	if r.err != io.EOF {
		return [SignatureSize]byte{}
	}
	return r.sig
}

// SignatureSize is the size of a block's signature, in bytes.
const SignatureSize = sigSize

// SignedUnits rebuilds the message a block's signature covers (magic,
// header, units in order) from a header and the units as a store kept them,
// one at a time, and checks the issuer's signature over it. Whoever edits a
// stored unit and recomputes any digest kept beside it cannot sign the
// result: only the issuer's private key can.
type SignedUnits struct {
	h    Header
	name string // h.Name(), made once: a Sprintf per unit cost more than the hash
	sp   spec
	sum  hash.Hash
	buf  [hashBatch * unitSize]byte
	fill int // bytes of buf not hashed yet
	n    uint32
	err  error
}

// hashBatch is how many units SignedUnits hashes at a time.
const hashBatch = 1024

// NewSignedUnits starts the check of a block of header h. The header is
// checked as a Reader checks it (version, stake, units, table digest,
// bonus lots); a header that fails is reported by Verify.
func NewSignedUnits(h Header) *SignedUnits { return newSignedUnits(h, officialSpec) }

func newSignedUnits(h Header, specs specFunc) *SignedUnits {
	c := &SignedUnits{h: h, name: h.Name(), sum: sha512.New()}
	c.sp, c.err = h.check(specs)
	prefix := h.marshalPrefix()
	c.sum.Write(prefix[:])
	return c
}

// Add hashes the next unit. A unit out of its place or out of range is
// reported by Verify.
func (c *SignedUnits) Add(u Unit) {
	if c.err != nil {
		return
	}
	var flags byte
	if u.ViaBonus {
		flags = flagViaBonus
	}
	if err := u.check(c.n, flags, c.name); err != nil {
		c.err = err
		return
	}
	// Units are hashed by the batch: one Write of 14 bytes per unit
	// costs more than SHA-512 itself (BenchmarkBootCheck in store).
	u.marshal((*[unitSize]byte)(c.buf[c.fill:]))
	c.fill += unitSize
	if c.fill == len(c.buf) {
		c.sum.Write(c.buf[:])
		c.fill = 0
	}
	c.n++
}

// Verify checks that every unit of the block was added and that sig is the
// signature of the header and units by a key that keys trusts. The error
// wraps ErrUnknownKey when the signing key is not (or no longer) trusted,
// ErrSignature when the content is not what the issuer signed.
func (c *SignedUnits) Verify(keys Keys, sig []byte) error {
	name := c.name
	switch {
	case c.err != nil:
		return c.err
	case c.n != c.sp.units:
		return fmt.Errorf("%s: %d units, a block has %d: %w", name, c.n, c.sp.units, ErrCounts)
	case len(sig) != SignatureSize:
		return fmt.Errorf("%s: signature of %d bytes, not %d: %w", name, len(sig), SignatureSize, ErrSignature)
	}
	pub, err := trustedKey(keys, c.h)
	if err != nil {
		return err
	}
	c.sum.Write(c.buf[:c.fill])
	c.fill = 0
	if ed25519.VerifyWithOptions(pub, c.sum.Sum(nil), sig, signOpts) != nil {
		return fmt.Errorf("%s: signature does not match the content for key %s: %w", name, c.h.KeyID, ErrSignature)
	}
	return nil
}

// trustedKey is the public key of the header's KeyID, if keys trusts it.
func trustedKey(keys Keys, h Header) (ed25519.PublicKey, error) {
	name := h.Name()
	if noKeys(keys) {
		return nil, fmt.Errorf("%s: %w", name, ErrNoKeys)
	}
	pub, ok := keys.Lookup(h.KeyID)
	switch {
	case !ok:
		return nil, fmt.Errorf("%s: signed by key %s, which is not trusted: %w", name, h.KeyID, ErrUnknownKey)
	case len(pub) != ed25519.PublicKeySize:
		return nil, fmt.Errorf("%s: trusted key %s has %d bytes, not %d: %w", name, h.KeyID, len(pub), ed25519.PublicKeySize, ErrUnknownKey)
	case KeyIDOf(pub) != h.KeyID:
		return nil, fmt.Errorf("%s: the key trusted as %s has id %s: %w", name, h.KeyID, KeyIDOf(pub), ErrUnknownKey)
	}
	return pub, nil
}
