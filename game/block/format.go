package block

import (
	"crypto"
	"crypto/ed25519"
	"encoding/binary"
	"fmt"
	"time"

	"pharaon/game"
)

// FormatVersion is the version of the file layout written by this package,
// and the only one it reads.
const FormatVersion = 1

// Magic is the first 8 bytes of every block file.
const Magic = "PHARAONB"

// Sizes of the parts of a block file, in bytes.
const (
	magicSize  = 8                                                // len(Magic)
	headerSize = 2 + 4 + 4 + 4 + 4 + 32 + 4*game.NumTiers + 8 + 8 // 98
	prefixSize = magicSize + headerSize                           // 106
	unitSize   = 4 + 1 + 1 + 8                                    // 14
	sigSize    = ed25519.SignatureSize                            // 64
)

// FileSize is the exact size of a block file of game.UnitsPerBlock units.
const FileSize = prefixSize + game.UnitsPerBlock*unitSize + sigSize

// signatureContext separates block signatures from anything else the same
// key might ever sign.
const signatureContext = "pharaon-block-v1"

// signOpts selects Ed25519ph (RFC 8032): the message signed is the SHA-512
// of magic + header + units, so neither side holds the file in memory.
var signOpts = &ed25519.Options{Hash: crypto.SHA512, Context: signatureContext}

// flagViaBonus is bit 0 of a unit's flags; the other bits must be zero.
const flagViaBonus = 1

// The magic is magicSize bytes long.
var _ [magicSize]byte = [len(Magic)]byte{}

// Header describes a block. It is written after the magic and covered by
// the signature, as 98 bytes, big-endian:
//
//	offset size field
//	     0    2 Version
//	     2    4 Emission
//	     6    4 Number
//	    10    4 Stake, in cents
//	    14    4 Units
//	    18   32 TableDigest
//	    50   32 BonusLots, 8 × 4 bytes, tier 1 first
//	    82    8 Created, Unix seconds (two's complement)
//	    90    8 KeyID
//
// A unit is 14 bytes: Index (4), Tier (1), flags (1: bit 0 ViaBonus, the
// others zero), Seed (8).
type Header struct {
	Version     uint16                // FormatVersion
	Emission    uint32                // emission number (Art. 2), >= 1
	Number      uint32                // block number within the emission, >= 1
	Stake       game.Stake            // 0,50 €, 1 € or 2 € (Art. 2)
	Units       uint32                // always game.UnitsPerBlock
	TableDigest [32]byte              // game.Table(Stake).Digest()
	BonusLots   [game.NumTiers]uint32 // lots of each tier revealed through the bonus game (Art. 4.7)
	Created     time.Time             // stored as Unix seconds, UTC
	KeyID       KeyID                 // the signing key
}

// Name is "block E/N", the way every message of the package names a block.
func (h Header) Name() string { return fmt.Sprintf("block %d/%d", h.Emission, h.Number) }

// Unit is one unit of play of a block.
type Unit struct {
	Index    uint32    // 0-based position in the block; units are sold strictly in this order
	Tier     game.Tier // 0 = losing, 1..8
	ViaBonus bool      // the prize is revealed through the bonus game (3 snakes); only on winners
	Seed     uint64    // reveal seed for game/reveal
}

// spec is what a block of one stake must hold: its size and its lots per
// tier. The package API always uses officialSpec, built from game.Table;
// tests use smaller specs to run exhaustive checks over small files.
type spec struct {
	units  uint32
	lots   [game.NumTiers]uint32
	digest [32]byte
}

// specFunc gives the spec of a stake, or false if the stake has none.
type specFunc func(game.Stake) (spec, bool)

// officialSpec is the block of Art. 2 and 3: 350 000 units holding exactly
// the lots of game.Table(s).
func officialSpec(s game.Stake) (spec, bool) {
	if !s.Valid() {
		return spec{}, false
	}
	tab := game.Table(s)
	sp := spec{units: game.UnitsPerBlock, digest: tab.Digest()}
	for i, p := range tab.Prizes {
		sp.lots[i] = uint32(p.Lots)
	}
	return sp, true
}

// losers is the number of losing units of a block of this spec.
func (sp spec) losers() uint32 {
	n := sp.units
	for _, l := range sp.lots {
		n -= l
	}
	return n
}

// count is how many units of tier t a block holds.
func (sp spec) count(t game.Tier) uint32 {
	if t == game.TierLose {
		return sp.losers()
	}
	return sp.lots[t-1]
}

// signedSize is the number of bytes covered by the signature.
func (sp spec) signedSize() int64 { return prefixSize + int64(sp.units)*unitSize }

// check validates h against the rules of a block: everything but the key,
// which the reader checks against its trusted keys and the writer against
// its private key. It returns the stake's spec.
func (h Header) check(specs specFunc) (spec, error) {
	if h.Version != FormatVersion {
		return spec{}, fmt.Errorf("%s: format version %d, this software reads version %d: %w",
			h.Name(), h.Version, FormatVersion, ErrVersion)
	}
	if h.Emission == 0 {
		return spec{}, fmt.Errorf("%s: emission number is 0: %w", h.Name(), ErrHeader)
	}
	if h.Number == 0 {
		return spec{}, fmt.Errorf("%s: block number is 0: %w", h.Name(), ErrHeader)
	}
	sp, ok := specs(h.Stake)
	if !ok {
		return spec{}, fmt.Errorf("%s: stake of %d cents is not a stake of the game: %w",
			h.Name(), int64(h.Stake), ErrHeader)
	}
	if h.Units != sp.units {
		return spec{}, fmt.Errorf("%s: %d units, a block has %d: %w", h.Name(), h.Units, sp.units, ErrHeader)
	}
	if h.TableDigest != sp.digest {
		return spec{}, fmt.Errorf("%s: table digest %x is not the one of the prize table at %s (%x): %w",
			h.Name(), h.TableDigest[:8], h.Stake, sp.digest[:8], ErrHeader)
	}
	for i, b := range h.BonusLots {
		if b > sp.lots[i] {
			return spec{}, fmt.Errorf("%s: %d lots of tier %d via the bonus, the table has %d: %w",
				h.Name(), b, i+1, sp.lots[i], ErrHeader)
		}
	}
	return sp, nil
}

// marshalPrefix encodes magic + header.
func (h Header) marshalPrefix() [prefixSize]byte {
	var b [prefixSize]byte
	copy(b[:], Magic)
	p := b[magicSize:]
	binary.BigEndian.PutUint16(p[0:], h.Version)
	binary.BigEndian.PutUint32(p[2:], h.Emission)
	binary.BigEndian.PutUint32(p[6:], h.Number)
	binary.BigEndian.PutUint32(p[10:], uint32(h.Stake))
	binary.BigEndian.PutUint32(p[14:], h.Units)
	copy(p[18:50], h.TableDigest[:])
	for i, n := range h.BonusLots {
		binary.BigEndian.PutUint32(p[50+4*i:], n)
	}
	binary.BigEndian.PutUint64(p[82:], uint64(h.Created.Unix()))
	copy(p[90:98], h.KeyID[:])
	return b
}

// unmarshalHeader decodes the header that follows the magic. A stake that
// does not fit the stored 32 bits cannot be written, so the decoded stake is
// exactly the stored one.
func unmarshalHeader(p []byte) Header {
	var h Header
	h.Version = binary.BigEndian.Uint16(p[0:])
	h.Emission = binary.BigEndian.Uint32(p[2:])
	h.Number = binary.BigEndian.Uint32(p[6:])
	h.Stake = game.Stake(binary.BigEndian.Uint32(p[10:]))
	h.Units = binary.BigEndian.Uint32(p[14:])
	copy(h.TableDigest[:], p[18:50])
	for i := range h.BonusLots {
		h.BonusLots[i] = binary.BigEndian.Uint32(p[50+4*i:])
	}
	h.Created = time.Unix(int64(binary.BigEndian.Uint64(p[82:])), 0).UTC()
	copy(h.KeyID[:], p[90:98])
	return h
}

func (u Unit) marshal(b *[unitSize]byte) {
	binary.BigEndian.PutUint32(b[0:], u.Index)
	b[4] = byte(u.Tier)
	b[5] = 0
	if u.ViaBonus {
		b[5] = flagViaBonus
	}
	binary.BigEndian.PutUint64(b[6:], u.Seed)
}

// unmarshalUnit decodes a unit and checks what can be checked of it alone:
// its index is its position, its tier exists, its flags are known and a
// losing unit is never revealed through the bonus (three snakes only ever
// appear on a winning unit, Art. 4.6, 4.7).
func unmarshalUnit(b []byte, pos uint32, name string) (Unit, error) {
	u := Unit{
		Index: binary.BigEndian.Uint32(b[0:]),
		Tier:  game.Tier(b[4]),
		Seed:  binary.BigEndian.Uint64(b[6:]),
	}
	flags := b[5]
	u.ViaBonus = flags&flagViaBonus != 0
	return u, u.check(pos, flags, name)
}

func (u Unit) check(pos uint32, flags byte, name string) error {
	switch {
	case u.Index != pos:
		return fmt.Errorf("%s: unit at position %d has index %d: %w", name, pos, u.Index, ErrFormat)
	case u.Tier > game.NumTiers:
		return fmt.Errorf("%s: unit %d has tier %d, the table has tiers 1 to %d: %w",
			name, pos, u.Tier, game.NumTiers, ErrFormat)
	case flags&^flagViaBonus != 0:
		return fmt.Errorf("%s: unit %d has unknown flags %#02x: %w", name, pos, flags, ErrFormat)
	case u.ViaBonus && u.Tier == game.TierLose:
		return fmt.Errorf("%s: unit %d loses but is marked as revealed through the bonus: %w",
			name, pos, ErrFormat)
	}
	return nil
}

// checkCounts compares the counts seen in a block's units with its spec and
// header: exactly the table's lots of every tier (Art. 3), exactly the
// header's bonus lots.
func checkCounts(h Header, sp spec, tiers, bonus *[game.NumTiers + 1]int) error {
	for t := game.Tier(1); t <= game.NumTiers; t++ {
		if want := int(sp.count(t)); tiers[t] != want {
			return fmt.Errorf("%s: tier %d has %d units, the table has %d: %w", h.Name(), t, tiers[t], want, ErrCounts)
		}
	}
	if want := int(sp.losers()); tiers[game.TierLose] != want {
		return fmt.Errorf("%s: %d losing units, the table leaves %d: %w", h.Name(), tiers[0], want, ErrCounts)
	}
	if bonus[game.TierLose] != 0 {
		return fmt.Errorf("%s: %d losing units via the bonus: %w", h.Name(), bonus[0], ErrCounts)
	}
	for t := game.Tier(1); t <= game.NumTiers; t++ {
		if want := int(h.BonusLots[t-1]); bonus[t] != want {
			return fmt.Errorf("%s: tier %d has %d units via the bonus, the header says %d: %w",
				h.Name(), t, bonus[t], want, ErrCounts)
		}
	}
	return nil
}
