package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"sync"
	"time"

	"pharaon/game"
	"pharaon/game/block"
)

// The units of a block are its prizes to come: whoever edits an unsold
// unit's tier in the file moves a prize. A digest kept in the same file
// proves nothing against that (whoever edits the units recomputes it), so
// at import the store keeps the issuer's signature and the header field
// the blocks row lacks (its bonus lots), and VerifyBlocks rebuilds the
// signed message from the row and the stored units and verifies it with
// the trusted issuer keys, then the lots per tier against the prize table.
// The digest of the units as stored (SHA-256 over each unit's index, tier,
// via-bonus flag and seed, in block order) is still taken at import: it is
// all there is to check for a block imported before signatures were kept.

const domainUnits = "pharaon/units/v1"

type unitsHash struct {
	h   hash.Hash
	buf [14]byte
}

func newUnitsHash() *unitsHash {
	u := &unitsHash{h: sha256.New()}
	u.h.Write([]byte(domainUnits))
	return u
}

func (u *unitsHash) add(idx uint32, tier game.Tier, viaBonus bool, seed uint64) {
	binary.BigEndian.PutUint32(u.buf[0:], idx)
	u.buf[4] = byte(tier)
	u.buf[5] = 0
	if viaBonus {
		u.buf[5] = 1
	}
	binary.BigEndian.PutUint64(u.buf[6:], seed)
	u.h.Write(u.buf[:])
}

func (u *unitsHash) sum() []byte { return u.h.Sum(nil) }

// EventBlockUnsigned is the warning of a boot check that verified a block
// imported before the store kept signatures (schemaV5BlockSignatures)
// against its units digest only, which whoever holds the file can
// recompute: the block's id in its detail.
const EventBlockUnsigned = "block_unsigned"

// VerifyBlocks checks the units of every block still selling (queued and
// open): their number, that they are exactly those the issuer signed (the
// signed message rebuilt from the blocks row and the stored units, verified
// with keys, the kiosk's trusted issuer keys), and that they hold exactly
// the prize table's lots (Art. 3). A block whose key keys no longer trusts
// fails. A block imported before signatures were kept (blocks_unsigned) is
// checked against its units digest taken at import instead, and each such
// block is logged as EventBlockUnsigned once the check passed.
// It reads every unit (BenchmarkBootCheck), so it is apart from Verify; the
// units of exhausted blocks are covered by the plays that copied them
// (Verify counts their lots). The kiosk runs both at boot. The blocks are
// read side by side, each on a reader connection of its own (units never
// change, so one snapshot for all is not needed). An *IntegrityError
// (ErrIntegrity) names the block, the first by id when several fail.
func (s *Store) VerifyBlocks(ctx context.Context, keys block.Keys) error {
	unsigned, err := s.verifyBlocks(ctx, keys, false)
	if err != nil {
		return err
	}
	for _, b := range unsigned {
		if _, err := s.Log(ctx, Event{Level: LevelWarning, Source: sourceStore, Code: EventBlockUnsigned,
			Detail: fmt.Sprintf("%s: id %d, imported before signatures were kept: units checked against their digest only",
				b.Name(), b.id)}); err != nil {
			return fmt.Errorf("verify blocks: %w", err)
		}
	}
	return nil
}

// selling is a block VerifyBlocks checks, as its row holds it.
type selling struct {
	block.Header
	id          int64
	digest, sig []byte
	legacy      bool // listed in blocks_unsigned
}

// verifyBlocks checks the selling blocks and returns those checked against
// their digest. With digestOnly it checks every block against its digest,
// as the boot check did before signatures were kept: the baseline of
// BenchmarkBootCheck.
func (s *Store) verifyBlocks(ctx context.Context, keys block.Keys, digestOnly bool) ([]selling, error) {
	var bs []selling
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT b.id, b.emission, b.number, b.stake, b.units, b.table_digest, b.key_id,
			b.created_at, b.units_digest, b.bonus_lots, b.signature, u.block_id IS NOT NULL
			FROM blocks b LEFT JOIN blocks_unsigned u ON u.block_id = b.id
			WHERE b.state = 'queued' OR b.state = 'open' ORDER BY b.id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var b selling
			var stake, created int64
			var table, key, bonus []byte
			if err := rows.Scan(&b.id, &b.Emission, &b.Number, &stake, &b.Units, &table, &key,
				&created, &b.digest, &bonus, &b.sig, &b.legacy); err != nil {
				return err
			}
			b.Version = block.FormatVersion // the only version the store ever imported
			b.Stake = game.Stake(stake)
			copy(b.TableDigest[:], table)
			copy(b.KeyID[:], key)
			b.Created = time.Unix(created, 0).UTC()
			if len(bonus) == 4*game.NumTiers {
				for i := range b.BonusLots {
					b.BonusLots[i] = binary.BigEndian.Uint32(bonus[4*i:])
				}
			}
			bs = append(bs, b)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("verify blocks: %w", err)
	}
	errs := make([]error, len(bs))
	var wg sync.WaitGroup
	for i, b := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.read(ctx, func(tx *rtx) error { return verifyUnits(tx, b, keys, digestOnly) })
		}()
	}
	wg.Wait()
	var unsigned []selling
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		if digestOnly || bs[i].sig == nil {
			unsigned = append(unsigned, bs[i])
		}
	}
	return unsigned, nil
}

func verifyUnits(tx *rtx, b selling, keys block.Keys, digestOnly bool) error {
	id := b.id
	var signed *block.SignedUnits
	var h *unitsHash
	switch {
	case digestOnly:
		h = newUnitsHash()
	case b.sig != nil:
		signed = block.NewSignedUnits(b.Header)
	case b.legacy:
		h = newUnitsHash()
	default:
		return integrity("units", "blocks", id, "no signature kept, and not a block imported before signatures were kept")
	}
	// Two columns a unit rather than four: the driver's calls per column
	// cost more than SQLite's reading (BenchmarkBootCheck). A tier or flag
	// out of its byte shows in the unpacking below.
	rows, err := tx.query(`SELECT (idx << 16) | (tier << 8) | via_bonus, seed FROM units WHERE block_id = ? ORDER BY idx`, id)
	if err != nil {
		return fmt.Errorf("verify block %d: %w", id, err)
	}
	defer rows.Close()
	var n int64
	var tiers [game.NumTiers + 1]int
	for rows.Next() {
		var packed, seed int64
		if err := rows.Scan(&packed, &seed); err != nil {
			return fmt.Errorf("verify block %d: %w", id, err)
		}
		idx, tier, via := packed>>16, packed>>8&0xff, packed&0xff
		switch {
		case idx != n:
			return integrity("units", "blocks", id, "unit %d where unit %d was due", idx, n)
		case tier > game.NumTiers || via > 1 || packed < 0:
			return integrity("units", "blocks", id, "unit %d: tier or bonus flag out of range", n)
		}
		if signed != nil {
			signed.Add(block.Unit{Index: uint32(idx), Tier: game.Tier(tier), ViaBonus: via == 1, Seed: uint64(seed)})
		} else {
			h.add(uint32(idx), game.Tier(tier), via == 1, uint64(seed))
		}
		tiers[tier]++
		n++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify block %d: %w", id, err)
	}
	if n != int64(b.Units) {
		return integrity("units", "blocks", id, "%d units stored, the block has %d", n, b.Units)
	}
	if signed != nil {
		if err := signed.Verify(keys, b.sig); err != nil {
			// The store's own words for the key no longer trusted; the
			// package's for the rest (which field, which unit).
			if errors.Is(err, block.ErrUnknownKey) {
				return integrity("units", "blocks", id, "signed by issuer key %s, which the kiosk no longer trusts: %v", b.KeyID, err)
			}
			return integrity("units", "blocks", id, "units or block differ from those the issuer signed: %v", err)
		}
	} else if string(h.sum()) != string(b.digest) {
		return integrity("units", "blocks", id, "units differ from those imported")
	}
	table := game.Table(b.Stake)
	for t, got := range tiers {
		if want := table.LotsOf(game.Tier(t)); got != want {
			return integrity("units", "blocks", id, "%d units of tier %d, the table has %d", got, t, want)
		}
	}
	return nil
}

// marshalBonusLots encodes a header's bonus lots as the blocks row keeps
// them: 8 × 4 bytes big-endian, tier 1 first, as in the block file.
func marshalBonusLots(lots [game.NumTiers]uint32) []byte {
	b := make([]byte, 4*len(lots))
	for i, n := range lots {
		binary.BigEndian.PutUint32(b[4*i:], n)
	}
	return b
}
