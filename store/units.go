package store

import (
	"context"
	"crypto/cipher"
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
// unit in the file moves a prize. They are sealed under the kiosk's key
// (units_seal.go), so an edit does not choose a tier; and at import the
// store keeps the issuer's signature and the header field the blocks row
// lacks (its bonus lots), so that VerifyBlocks rebuilds the signed message
// from the row and the stored units and verifies it with the trusted
// issuer keys, then the lots per tier against the prize table. A block
// without its signature is an integrity fault: there is no other way for
// a block to be on sale. The digest of the units in clear (SHA-256 over
// each unit's index, tier, via-bonus flag and seed, in block order) is
// kept with the block as a record of what was imported; nothing trusts it.

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

// VerifyBlocks checks the units of every block still selling (queued and
// open): their number, that each opens with the kiosk's key, that they are
// exactly those the issuer signed (the signed message rebuilt from the
// blocks row and the stored units, verified with keys, the kiosk's trusted
// issuer keys), and that they hold exactly the prize table's lots (Art. 3).
// A block whose key keys no longer trusts fails; so does a block with no
// signature.
// It reads every unit (BenchmarkBootCheck), so it is apart from Verify; the
// units of exhausted blocks are covered by the plays that copied them
// (Verify counts their lots). The kiosk runs both at boot. The blocks are
// read side by side, each on a reader connection of its own (units never
// change, so one snapshot for all is not needed). An *IntegrityError
// (ErrIntegrity) names the block, the first by id when several fail.
func (s *Store) VerifyBlocks(ctx context.Context, keys block.Keys) error {
	var bs []selling
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT id, emission, number, stake, units, table_digest, key_id,
			created_at, bonus_lots, signature FROM blocks WHERE state = 'queued' OR state = 'open' ORDER BY id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var b selling
			var stake, created int64
			var table, key, bonus []byte
			if err := rows.Scan(&b.id, &b.Emission, &b.Number, &stake, &b.Units, &table, &key,
				&created, &bonus, &b.sig); err != nil {
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
		return fmt.Errorf("verify blocks: %w", err)
	}
	errs := make([]error, len(bs))
	var wg sync.WaitGroup
	for i, b := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.read(ctx, func(tx *rtx) error { return verifyUnits(tx, b, s.units.block(b.Emission, b.Number), keys) })
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// selling is a block VerifyBlocks checks, as its row holds it.
type selling struct {
	block.Header
	id  int64
	sig []byte
}

func verifyUnits(tx *rtx, b selling, c cipher.Block, keys block.Keys) error {
	id := b.id
	if b.sig == nil {
		return integrity("units", "blocks", id, "no signature kept: every block is imported with its issuer's signature")
	}
	signed := block.NewSignedUnits(b.Header)
	rows, err := tx.query(`SELECT idx, sealed FROM units WHERE block_id = ? ORDER BY idx`, id)
	if err != nil {
		return fmt.Errorf("verify block %d: %w", id, err)
	}
	defer rows.Close()
	var n int64
	var tiers [game.NumTiers + 1]int
	var sealed []byte
	for rows.Next() {
		var idx int64
		if err := rows.Scan(&idx, &sealed); err != nil {
			return fmt.Errorf("verify block %d: %w", id, err)
		}
		if idx != n {
			return integrity("units", "blocks", id, "unit %d where unit %d was due", idx, n)
		}
		u, err := openUnit(c, id, uint32(idx), sealed)
		if err != nil {
			return err
		}
		signed.Add(block.Unit{Index: u.idx, Tier: u.tier, ViaBonus: u.viaBonus, Seed: u.seed})
		tiers[u.tier]++
		n++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify block %d: %w", id, err)
	}
	if n != int64(b.Units) {
		return integrity("units", "blocks", id, "%d units stored, the block has %d", n, b.Units)
	}
	if err := signed.Verify(keys, b.sig); err != nil {
		// The store's own words for the key no longer trusted; the
		// package's for the rest (which field, which unit).
		if errors.Is(err, block.ErrUnknownKey) {
			return integrity("units", "blocks", id, "signed by issuer key %s, which the kiosk no longer trusts: %v", b.KeyID, err)
		}
		return integrity("units", "blocks", id, "units or block differ from those the issuer signed: %v", err)
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
