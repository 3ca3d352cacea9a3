package store

import (
	"context"
	"crypto/cipher"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"pharaon/game"
	"pharaon/game/block"
)

// BlockState is where a block is in its life (DESIGN.md §5).
type BlockState string

const (
	BlockQueued    BlockState = "queued"    // imported, waiting for the open block of its stake to be exhausted
	BlockOpen      BlockState = "open"      // its units are being sold, strictly in order; one per stake
	BlockExhausted BlockState = "exhausted" // every unit sold
	BlockWithdrawn BlockState = "withdrawn" // taken out of sale by staff; its remaining units are never sold
)

// BlockInfo describes an imported block.
type BlockInfo struct {
	ID               int64
	Emission, Number uint32
	Stake            game.Stake
	Units            int
	State            BlockState
	Sold             int // units sold: the index of the next unit
	KeyID            block.KeyID
	TableDigest      [32]byte
	FileDigest       [32]byte
	Created          time.Time // by the issuer
	Imported         time.Time
	Opened, Closed   time.Time // zero until then
	Note             string    // why it was withdrawn
}

// Name is "block E/N", as package block names it.
func (b BlockInfo) Name() string { return fmt.Sprintf("block %d/%d", b.Emission, b.Number) }

// Remaining is the number of units not sold yet.
func (b BlockInfo) Remaining() int { return b.Units - b.Sold }

// EventBlockRefused is the event of an import refused: the reason in its
// detail (a file damaged or not signed by a trusted key, a block already
// imported, a full disk).
const EventBlockRefused = "block_refused"

// unitBatch is the number of units written by one INSERT statement during
// an import: one statement per unit would cost more in the driver than in
// SQLite.
const unitBatch = 500

// ImportBlock streams a block file through package block's verifying
// reader into the blocks and units tables, in one transaction committed
// only once the reader has checked the whole file (signature, lot counts,
// everything: DESIGN.md §5). Any failure leaves nothing behind but the
// event EventBlockRefused saying why. A file that fails verification is
// ErrBadBlock wrapping block's sentinel (block.ErrSignature,
// block.ErrCounts, …); a valid file of the same emission and number as a
// block imported, or the same file, is ErrDuplicateBlock.
//
// The block opens at once if its stake has no open block; otherwise it is
// queued behind the blocks of its stake imported before it. The import
// holds the write lock for the whole file (about a second): plays wait.
func (s *Store) ImportBlock(ctx context.Context, r io.Reader, keys block.Keys) (BlockInfo, error) {
	info, err := s.importBlock(ctx, r, keys)
	if err != nil && ctx.Err() == nil && !errors.Is(err, ErrClosed) {
		// The refusal is logged, apart from the import's transaction
		// (rolled back): a technician or an audit sees every file the
		// kiosk was given and why it was refused. A disk too full to log
		// it has said so in err already.
		_, _ = s.Log(context.WithoutCancel(ctx), Event{Level: LevelWarning, Source: sourceStore, Code: EventBlockRefused,
			Detail: err.Error()})
	}
	return info, err
}

func (s *Store) importBlock(ctx context.Context, r io.Reader, keys block.Keys) (BlockInfo, error) {
	br, err := block.NewReader(r, keys)
	if err != nil {
		return BlockInfo{}, fmt.Errorf("import block: %w: %w", ErrBadBlock, err)
	}
	h := br.Header()
	var info BlockInfo
	err = s.write(ctx, func(t *wtx) error {
		var err error
		info, err = t.importBlock(ctx, br)
		return err
	})
	if err != nil {
		return BlockInfo{}, fmt.Errorf("import %s: %w", h.Name(), err)
	}
	return info, nil
}

func (t *wtx) importBlock(ctx context.Context, br *block.Reader) (BlockInfo, error) {
	h := br.Header()
	var id int64
	if err := t.rowQ(`SELECT coalesce(max(id), 0) + 1 FROM blocks`).Scan(&id); err != nil {
		return BlockInfo{}, err
	}
	// The whole file is read and its signature checked before the
	// duplicate checks: a damaged copy of a block imported is a damaged
	// file, and says so, not "already imported".
	unitsDigest, err := t.insertUnits(ctx, id, t.s.units.block(h.Emission, h.Number), br)
	if err != nil {
		return BlockInfo{}, err
	}
	var dup int64
	err = t.rowQ(`SELECT id FROM blocks WHERE emission = ? AND number = ?`, h.Emission, h.Number).Scan(&dup)
	switch {
	case err == nil:
		return BlockInfo{}, fmt.Errorf("emission %d, block %d is block id %d: %w", h.Emission, h.Number, dup, ErrDuplicateBlock)
	case !errors.Is(err, sql.ErrNoRows):
		return BlockInfo{}, err
	}
	digest := br.FileDigest()
	err = t.rowQ(`SELECT id FROM blocks WHERE file_digest = ?`, digest[:]).Scan(&dup)
	switch {
	case err == nil:
		return BlockInfo{}, fmt.Errorf("the same file is block id %d: %w", dup, ErrDuplicateBlock)
	case !errors.Is(err, sql.ErrNoRows):
		return BlockInfo{}, err
	}
	state := BlockQueued
	var opened any
	var open int
	if err := t.rowQ(`SELECT count(*) FROM blocks WHERE stake = ? AND state = 'open'`, int64(h.Stake)).Scan(&open); err != nil {
		return BlockInfo{}, err
	}
	if open == 0 {
		state, opened = BlockOpen, t.now
	}
	// The signature and the header's bonus lots (the only header field
	// the row lacks) let the boot check verify the stored units against
	// what the issuer signed (VerifyBlocks).
	sig := br.Signature()
	_, err = t.execQ(`INSERT INTO blocks(id, emission, number, stake, units, table_digest, key_id,
		created_at, file_digest, units_digest, imported_at, state, opened_at, bonus_lots, signature)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, h.Emission, h.Number, int64(h.Stake), h.Units, h.TableDigest[:], h.KeyID[:],
		h.Created.Unix(), digest[:], unitsDigest, t.now, string(state), opened, marshalBonusLots(h.BonusLots), sig[:])
	if err != nil {
		return BlockInfo{}, fmt.Errorf("insert block: %w", err)
	}
	if _, err := t.logEvent(LevelInfo, sourceStore, EventBlockImported, fmt.Sprintf("%s at %s: id %d, key %s, file %x",
		h.Name(), h.Stake, id, h.KeyID, digest[:8])); err != nil {
		return BlockInfo{}, err
	}
	if state == BlockOpen {
		if _, err := t.logEvent(LevelInfo, sourceStore, EventBlockOpened, fmt.Sprintf("%s at %s: id %d", h.Name(), h.Stake, id)); err != nil {
			return BlockInfo{}, err
		}
	}
	return t.block(id)
}

// insertUnits streams the units into the units table, sealed with c,
// unitBatch per statement, and returns the digest of the units in clear
// (kept with the block as a record of what was imported; the boot check
// verifies the units against the issuer's signature). It succeeds only
// when the reader reported io.EOF: the whole file checked.
func (t *wtx) insertUnits(ctx context.Context, id int64, c cipher.Block, br *block.Reader) ([]byte, error) {
	full, err := t.prepareQ(unitsInsert(unitBatch))
	if err != nil {
		return nil, err
	}
	defer full.Close()
	args := make([]driver.NamedValue, 0, 3*unitBatch)
	add := func(v driver.Value) {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
	}
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		st := full
		if len(args) < cap(args) {
			part, err := t.prepareQ(unitsInsert(len(args) / 3))
			if err != nil {
				return err
			}
			defer part.Close()
			st = part
		}
		if _, err := st.ExecContext(t.ctx, args); err != nil {
			return fmt.Errorf("insert units: %w", err)
		}
		args = args[:0]
		return nil
	}
	digest := newUnitsHash()
	for n := 0; ; n++ {
		u, err := br.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadBlock, err)
		}
		if n%(64*unitBatch) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		digest.add(u.Index, u.Tier, u.ViaBonus, u.Seed)
		add(id)
		add(int64(u.Index))
		add(sealUnit(c, sealedUnit{idx: u.Index, tier: u.Tier, viaBonus: u.ViaBonus, seed: u.Seed}))
		if len(args) == cap(args) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return digest.sum(), nil
}

func unitsInsert(n int) string {
	return `INSERT INTO units(block_id, idx, sealed) VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", n), ", ")
}

const blockColumns = `id, emission, number, stake, units, state, next_index, key_id, table_digest, file_digest,
	created_at, imported_at, coalesce(opened_at, 0), coalesce(closed_at, 0), note`

func scanBlock(sc interface{ Scan(...any) error }) (BlockInfo, error) {
	var b BlockInfo
	var stake, created, imported, opened, closed int64
	var state string
	var key, table, file []byte
	err := sc.Scan(&b.ID, &b.Emission, &b.Number, &stake, &b.Units, &state, &b.Sold, &key, &table, &file,
		&created, &imported, &opened, &closed, &b.Note)
	if err != nil {
		return BlockInfo{}, err
	}
	b.Stake, b.State = game.Stake(stake), BlockState(state)
	copy(b.KeyID[:], key)
	copy(b.TableDigest[:], table)
	copy(b.FileDigest[:], file)
	b.Created = time.Unix(created, 0).UTC()
	b.Imported = time.Unix(0, imported).UTC()
	if opened != 0 {
		b.Opened = time.Unix(0, opened).UTC()
	}
	if closed != 0 {
		b.Closed = time.Unix(0, closed).UTC()
	}
	return b, nil
}

func (t *wtx) block(id int64) (BlockInfo, error) {
	b, err := scanBlock(t.rowQ(`SELECT `+blockColumns+` FROM blocks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return BlockInfo{}, fmt.Errorf("block id %d: %w", id, ErrNotFound)
	}
	return b, err
}

// openNext opens the oldest queued block of the stake, if any.
func (t *wtx) openNext(stake game.Stake) error {
	var id int64
	var emission, number uint32
	err := t.rowQ(`SELECT id, emission, number FROM blocks WHERE stake = ? AND state = 'queued' ORDER BY id LIMIT 1`,
		int64(stake)).Scan(&id, &emission, &number)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := t.execQ(`UPDATE blocks SET state = 'open', opened_at = ? WHERE id = ?`, t.now, id); err != nil {
		return fmt.Errorf("open block %d: %w", id, err)
	}
	_, err = t.logEvent(LevelInfo, sourceStore, EventBlockOpened, fmt.Sprintf("block %d/%d at %s: id %d", emission, number, stake, id))
	return err
}

// WithdrawBlock takes a queued or open block out of sale for good (staff,
// with the reason in note); its remaining units are never sold. The next
// queued block of its stake opens if it was the open one.
func (s *Store) WithdrawBlock(ctx context.Context, id int64, note string) (BlockInfo, error) {
	if note == "" {
		return BlockInfo{}, fmt.Errorf("withdraw block id %d: no reason given: %w", id, ErrBadRequest)
	}
	var out BlockInfo
	err := s.write(ctx, func(t *wtx) error {
		b, err := t.block(id)
		if err != nil {
			return err
		}
		if b.State != BlockQueued && b.State != BlockOpen {
			return fmt.Errorf("%s is %s: %w", b.Name(), b.State, ErrBlockState)
		}
		if b.State == BlockOpen {
			if err := t.noUnfinishedPlay(); err != nil {
				return err
			}
		}
		if _, err := t.execQ(`UPDATE blocks SET state = 'withdrawn', closed_at = ?, note = ? WHERE id = ?`,
			t.now, note, id); err != nil {
			return err
		}
		if _, err := t.logEvent(LevelWarning, sourceStore, EventBlockWithdrawn, fmt.Sprintf("%s at %s: id %d, %d of %d units sold: %s",
			b.Name(), b.Stake, id, b.Sold, b.Units, note)); err != nil {
			return err
		}
		if b.State == BlockOpen {
			if err := t.openNext(b.Stake); err != nil {
				return err
			}
		}
		out, err = t.block(id)
		return err
	})
	if err != nil {
		return BlockInfo{}, fmt.Errorf("withdraw block id %d: %w", id, err)
	}
	return out, nil
}

// Blocks lists every imported block, oldest first.
func (s *Store) Blocks(ctx context.Context) ([]BlockInfo, error) {
	var out []BlockInfo
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT ` + blockColumns + ` FROM blocks ORDER BY id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			b, err := scanBlock(rows)
			if err != nil {
				return err
			}
			out = append(out, b)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("blocks: %w", err)
	}
	return out, nil
}

// Block returns one block by id (ErrNotFound if none).
func (s *Store) Block(ctx context.Context, id int64) (BlockInfo, error) {
	var b BlockInfo
	err := s.read(ctx, func(tx *rtx) error {
		var err error
		b, err = scanBlock(tx.queryRow(`SELECT `+blockColumns+` FROM blocks WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("block id %d: %w", id, ErrNotFound)
		}
		return err
	})
	if err != nil {
		return BlockInfo{}, fmt.Errorf("block: %w", err)
	}
	return b, nil
}

// OpenBlock returns the open block of the stake, or ErrNoOpenBlock: the
// stake is then unavailable (DESIGN.md §5).
func (s *Store) OpenBlock(ctx context.Context, stake game.Stake) (BlockInfo, error) {
	var b BlockInfo
	err := s.read(ctx, func(tx *rtx) error {
		var err error
		b, err = scanBlock(tx.queryRow(`SELECT `+blockColumns+` FROM blocks WHERE stake = ? AND state = 'open'`, int64(stake)))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("stake %s: %w", stake, ErrNoOpenBlock)
		}
		return err
	})
	if err != nil {
		return BlockInfo{}, fmt.Errorf("open block: %w", err)
	}
	return b, nil
}

// TierProgress is how far a block is through the lots of one tier.
type TierProgress struct {
	Lots      int        // units of this tier in the block (the prize table's lots; losers for tier 0)
	Sold      int        // units of this tier sold
	Remaining int        // Lots - Sold
	Won       game.Money // prizes credited for this tier (finished plays)
}

// Progress is how far a block is through its units.
type Progress struct {
	Block     BlockInfo
	Sold      int
	Remaining int
	Won       game.Money                      // prizes credited so far
	Tiers     [game.NumTiers + 1]TierProgress // index = tier, 0 = losing units
}

// BlockProgress counts a block's units sold and won so far, by tier.
func (s *Store) BlockProgress(ctx context.Context, id int64) (Progress, error) {
	var p Progress
	err := s.read(ctx, func(tx *rtx) error {
		b, err := scanBlock(tx.queryRow(`SELECT `+blockColumns+` FROM blocks WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("block id %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		p = Progress{Block: b, Sold: b.Sold, Remaining: b.Remaining()}
		table := game.Table(b.Stake)
		for t := range p.Tiers {
			p.Tiers[t].Lots = table.LotsOf(game.Tier(t))
		}
		// The units sold are the block's plays, which keep their outcome in
		// clear (the unsold units are sealed).
		rows, err := tx.query(`SELECT tier, count(*) FROM plays WHERE block_id = ? GROUP BY tier`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var tier, n int
			if err := rows.Scan(&tier, &n); err != nil {
				return err
			}
			p.Tiers[tier].Sold = n
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.query(`SELECT p.tier, sum(l.amount) FROM plays p JOIN ledger l ON l.id = p.win_entry
			WHERE p.block_id = ? GROUP BY p.tier`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var tier int
			var won int64
			if err := rows.Scan(&tier, &won); err != nil {
				return err
			}
			p.Tiers[tier].Won = game.Money(won)
			p.Won += game.Money(won)
		}
		for t := range p.Tiers {
			p.Tiers[t].Remaining = p.Tiers[t].Lots - p.Tiers[t].Sold
		}
		return rows.Err()
	})
	if err != nil {
		return Progress{}, fmt.Errorf("block progress: %w", err)
	}
	return p, nil
}
