package block

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"time"

	"pharaon/game"
)

// Params are the issuer's choices for a block.
type Params struct {
	Emission, Number uint32     // Art. 2, both >= 1
	Stake            game.Stake // Art. 2
	// BonusShare is, per tier, the share of its lots revealed through the
	// bonus game (Art. 4.7), in per mille (0 to 1000). A non-zero share gives
	// the tier at least one bonus lot. The zero value means
	// DefaultBonusShare (so a block with no bonus lot at all cannot be
	// asked for: three snakes are a combination of the game, Art. 4.3).
	BonusShare [game.NumTiers]uint16
	Created    time.Time // the issuer's clock; stored to the second, UTC
	// Rand is the source of the shuffle and of the reveal seeds. Nil means
	// crypto/rand, which issuing must use: a block's order must not be
	// guessable. Tests set a seeded source to replay a block.
	Rand io.Reader
}

// DefaultBonusShare pays 200‰ of every tier's lots through the bonus game,
// rounded to the nearest lot and at least one, so that every prize of the
// table can be won through the bonus. With the lots of Art. 3 this gives,
// from tier 1 down, 1, 2, 15, 50, 300, 1 500, 6 400 and 12 000 bonus lots
// per block (20 268 of the 101 338 lots).
var DefaultBonusShare = [game.NumTiers]uint16{200, 200, 200, 200, 200, 200, 200, 200}

// bonusFlag marks a via-bonus unit in the shuffled tier array.
const bonusFlag = 0x80

// Generate writes a new signed block to w: the lots of the stake's prize
// table and its losing units in a uniformly random order (Fisher–Yates with
// unbiased bounded draws), each with a random 64-bit reveal seed, and
// returns its header. It holds one byte per unit (350 kB), never the file.
// On error the output is incomplete and unsigned: the caller discards it.
func Generate(w io.Writer, p Params, priv ed25519.PrivateKey) (Header, error) {
	return generate(w, p, priv, officialSpec)
}

func generate(w io.Writer, p Params, priv ed25519.PrivateKey, specs specFunc) (Header, error) {
	h := Header{Version: FormatVersion, Emission: p.Emission, Number: p.Number, Stake: p.Stake, Created: p.Created}
	sp, ok := specs(p.Stake)
	if !ok {
		return Header{}, fmt.Errorf("%s: stake of %d cents is not a stake of the game: %w", h.Name(), int64(p.Stake), ErrHeader)
	}
	h.Units, h.TableDigest = sp.units, sp.digest
	share := p.BonusShare
	if share == ([game.NumTiers]uint16{}) {
		share = DefaultBonusShare
	}
	var err error
	if h.BonusLots, err = bonusLots(sp, share); err != nil {
		return Header{}, fmt.Errorf("%s: %w", h.Name(), err)
	}
	// Check everything before drawing anything.
	if _, err := h.check(specs); err != nil {
		return Header{}, err
	}
	src := p.Rand
	if src == nil {
		src = rand.Reader
	}
	g := newDrawer(src)
	tiers, err := shuffled(sp, h.BonusLots, g)
	if err != nil {
		return Header{}, fmt.Errorf("%s: shuffle: %w", h.Name(), err)
	}
	bw, err := newWriter(w, h, priv, specs)
	if err != nil {
		return Header{}, err
	}
	for i, t := range tiers {
		seed, err := g.uint64()
		if err != nil {
			return Header{}, fmt.Errorf("%s: seed of unit %d: %w", h.Name(), i, err)
		}
		u := Unit{Index: uint32(i), Tier: game.Tier(t &^ bonusFlag), ViaBonus: t&bonusFlag != 0, Seed: seed}
		if err := bw.Write(u); err != nil {
			return Header{}, err
		}
	}
	if err := bw.Close(); err != nil {
		return Header{}, err
	}
	return bw.Header(), nil
}

// bonusLots turns per-mille shares into lots: share × lots / 1000 rounded
// to nearest (halves up), at least one lot when the share is not zero.
func bonusLots(sp spec, share [game.NumTiers]uint16) ([game.NumTiers]uint32, error) {
	var out [game.NumTiers]uint32
	for i, s := range share {
		if s > 1000 {
			return out, fmt.Errorf("bonus share of tier %d is %d‰, at most 1000‰: %w", i+1, s, ErrHeader)
		}
		lots := uint64(sp.lots[i])
		n := (lots*uint64(s) + 500) / 1000
		if s > 0 && n == 0 && lots > 0 {
			n = 1
		}
		out[i] = uint32(n)
	}
	return out, nil
}

// shuffled returns the tiers of a block's units, bonusFlag set on the
// via-bonus ones, in uniformly random order. Every arrangement of the
// multiset is equally likely, so the bonus lots of a tier are as spread as
// the tier itself.
func shuffled(sp spec, bonus [game.NumTiers]uint32, g *drawer) ([]byte, error) {
	a := make([]byte, 0, sp.units)
	for t := 1; t <= game.NumTiers; t++ {
		for i := uint32(0); i < sp.lots[t-1]; i++ {
			b := byte(t)
			if i < bonus[t-1] {
				b |= bonusFlag
			}
			a = append(a, b)
		}
	}
	for uint32(len(a)) < sp.units {
		a = append(a, byte(game.TierLose))
	}
	if err := g.shuffle(a); err != nil {
		return nil, err
	}
	return a, nil
}

// drawer draws random numbers from a byte source.
type drawer struct {
	r   *bufio.Reader
	buf [8]byte
}

func newDrawer(src io.Reader) *drawer { return &drawer{r: bufio.NewReaderSize(src, 32<<10)} }

// uint64 is 8 bytes of the source, big-endian.
func (g *drawer) uint64() (uint64, error) {
	if _, err := io.ReadFull(g.r, g.buf[:]); err != nil {
		return 0, fmt.Errorf("random source: %w", err)
	}
	return binary.BigEndian.Uint64(g.buf[:]), nil
}

// uintn is a uniform integer in [0, n), n > 0, without modulo bias
// (Lemire, "Fast random integer generation in an interval", 2019): x·n is
// split into a high word, the result, and a low word; the x whose low word
// falls below 2⁶⁴ mod n are exactly those that would make some results more
// likely than others, and are drawn again.
func (g *drawer) uintn(n uint64) (uint64, error) {
	x, err := g.uint64()
	if err != nil {
		return 0, err
	}
	hi, lo := bits.Mul64(x, n)
	if lo < n {
		threshold := -n % n // 2⁶⁴ mod n
		for lo < threshold {
			if x, err = g.uint64(); err != nil {
				return 0, err
			}
			hi, lo = bits.Mul64(x, n)
		}
	}
	return hi, nil
}

// shuffle puts a in uniformly random order (Fisher–Yates, Durstenfeld's
// in-place version: each position from the end swaps with a uniformly
// chosen position at or before it).
func (g *drawer) shuffle(a []byte) error {
	for i := len(a) - 1; i > 0; i-- {
		j, err := g.uintn(uint64(i) + 1)
		if err != nil {
			return err
		}
		a[i], a[j] = a[j], a[i]
	}
	return nil
}
