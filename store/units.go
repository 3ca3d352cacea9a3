package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"sync"

	"pharaon/game"
)

// The units of a block are its prizes to come: whoever edits an unsold
// unit's tier in the file moves a prize. At import the store keeps a
// digest of the units as stored (SHA-256 over each unit's index, tier,
// via-bonus flag and seed, in block order); VerifyBlocks recomputes it and
// the lots per tier against the prize table.

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
// open): their number, their digest taken at import, and that they hold
// exactly the prize table's lots (Art. 3) with the bonus lots of the block.
// It reads every unit (BenchmarkBootCheck), so it is apart from Verify; the
// units of exhausted blocks are covered by the plays that copied them
// (Verify counts their lots). The kiosk runs both at boot. The blocks are
// read side by side, each on a reader connection of its own (units never
// change, so one snapshot for all is not needed). An *IntegrityError
// (ErrIntegrity) names the block, the first by id when several fail.
func (s *Store) VerifyBlocks(ctx context.Context) error {
	type blk struct {
		id, stake, units int64
		digest           []byte
	}
	var bs []blk
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT id, stake, units, units_digest FROM blocks
			WHERE state = 'queued' OR state = 'open' ORDER BY id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var b blk
			if err := rows.Scan(&b.id, &b.stake, &b.units, &b.digest); err != nil {
				return err
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
			errs[i] = s.read(ctx, func(tx *rtx) error {
				return verifyUnits(tx, b.id, game.Stake(b.stake), b.units, b.digest)
			})
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

func verifyUnits(tx *rtx, id int64, stake game.Stake, units int64, digest []byte) error {
	// Two columns a unit rather than four: the driver's calls per column
	// cost more than SQLite's reading (BenchmarkBootCheck). A tier or flag
	// out of its byte shows in the unpacking below.
	rows, err := tx.query(`SELECT (idx << 16) | (tier << 8) | via_bonus, seed FROM units WHERE block_id = ? ORDER BY idx`, id)
	if err != nil {
		return fmt.Errorf("verify block %d: %w", id, err)
	}
	defer rows.Close()
	h := newUnitsHash()
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
		h.add(uint32(idx), game.Tier(tier), via == 1, uint64(seed))
		tiers[tier]++
		n++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify block %d: %w", id, err)
	}
	if n != units {
		return integrity("units", "blocks", id, "%d units stored, the block has %d", n, units)
	}
	if string(h.sum()) != string(digest) {
		return integrity("units", "blocks", id, "units differ from those imported")
	}
	table := game.Table(stake)
	for t, got := range tiers {
		if want := table.LotsOf(game.Tier(t)); got != want {
			return integrity("units", "blocks", id, "%d units of tier %d, the table has %d", got, t, want)
		}
	}
	return nil
}
