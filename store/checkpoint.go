package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"pharaon/game"
)

// Checkpoints (DESIGN.md §4): the boot check's cost must not grow with the
// kiosk's history. A full verification (VerifyFull: every row re-hashed,
// every play against its unit, every meter re-derived, SQLite's integrity
// check) ends by writing what it found — the chains' heads, the meters,
// each block's units sold by tier — signed with the anchor's secret, into
// the checkpoints table. The boot check (VerifyBoot) then verifies the
// newest checkpoint whose signature holds and the rows written after it:
// the checkpointed rows are those (their hashes and content), the chains
// continue from them, the plays since carry their units' outcomes and
// their ledger rows, the blocks' sales and the meters are the checkpoint's
// plus what was written since. Anything older was verified by the full
// verification that wrote the checkpoint, and is verified again by the one
// the kiosk runs in the background after every start.
//
// A checkpoint is written only when the snapshot's last play is finished
// (a play under way straddles it) and only by an anchored store: without
// the secret anyone could sign one. Removing checkpoints only makes the
// next boot check a full one.

type cpHead struct {
	ID   int64  `json:"id"`
	Hash []byte `json:"hash"`
}

type cpBlock struct {
	Sold  int64                    `json:"sold"`
	Tiers [game.NumTiers + 1]int64 `json:"tiers"`
}

type checkpoint struct {
	Heads  [numChains]cpHead  `json:"heads"`
	Meters Meters             `json:"meters"`
	Blocks map[int64]*cpBlock `json:"blocks"`
}

func (cp *checkpoint) head(c chainID) head {
	var h head
	h.id = cp.Heads[c].ID
	copy(h.hash[:], cp.Heads[c].Hash)
	return h
}

func checkpointMAC(key, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("pharaon/checkpoint/v1"))
	m.Write(body)
	return m.Sum(nil)
}

// takeCheckpoint reads, in the verified snapshot, what a checkpoint keeps;
// nil when the last play is unfinished.
func takeCheckpoint(tx *rtx) (*checkpoint, error) {
	var state string
	err := tx.queryRow(`SELECT coalesce((SELECT state FROM plays ORDER BY id DESC LIMIT 1), 'finished')`).Scan(&state)
	if err != nil {
		return nil, err
	}
	if PlayState(state) != PlayFinished {
		return nil, nil
	}
	h, err := readHeads(func(q string) scanner { return tx.queryRow(q) })
	if err != nil {
		return nil, err
	}
	cp := &checkpoint{Blocks: map[int64]*cpBlock{}}
	for c := range h {
		cp.Heads[c] = cpHead{ID: h[c].id, Hash: append([]byte(nil), h[c].hash[:]...)}
	}
	if cp.Meters, err = readMeters(tx); err != nil {
		return nil, err
	}
	if err := addSales(tx, 0, cp.Blocks); err != nil {
		return nil, err
	}
	return cp, nil
}

// addSales adds the plays after sincePlay to the blocks' sales.
func addSales(tx *rtx, sincePlay int64, blocks map[int64]*cpBlock) error {
	// All plays: grouped along the (block, unit) index. The plays since a
	// checkpoint: read by their ids (the unary + keeps SQLite from scanning
	// the whole index to group them).
	q := `SELECT block_id, tier, count(*) FROM plays WHERE id > ? GROUP BY block_id, tier`
	if sincePlay > 0 {
		q = `SELECT block_id, tier, count(*) FROM plays WHERE id > ? GROUP BY +block_id, tier`
	}
	rows, err := tx.query(q, sincePlay)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, tier, n int64
		if err := rows.Scan(&id, &tier, &n); err != nil {
			return err
		}
		if tier < 0 || tier > game.NumTiers {
			return integrity("plays", "blocks", id, "tier %d is not one of the table's", tier)
		}
		b := blocks[id]
		if b == nil {
			b = &cpBlock{}
			blocks[id] = b
		}
		b.Sold += n
		b.Tiers[tier] += n
	}
	return rows.Err()
}

// newestCheckpoint is the newest checkpoint whose signature holds, nil if
// none (or no anchor).
func (s *Store) newestCheckpoint(tx *rtx, key []byte) (*checkpoint, error) {
	if key == nil {
		return nil, nil
	}
	rows, err := tx.query(`SELECT body, mac FROM checkpoints ORDER BY id DESC LIMIT 8`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var body, mac []byte
		if err := rows.Scan(&body, &mac); err != nil {
			return nil, err
		}
		if !hmac.Equal(mac, checkpointMAC(key, body)) {
			continue
		}
		var cp checkpoint
		if err := json.Unmarshal(body, &cp); err != nil || cp.Blocks == nil {
			continue
		}
		if cp.Meters == nil {
			cp.Meters = Meters{}
		}
		return &cp, nil
	}
	return nil, rows.Err()
}

// anchorKey is the anchor's secret, nil without a usable anchor.
func (s *Store) anchorKey() []byte {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.anc == nil || s.anc.err != nil {
		return nil
	}
	return s.anc.key
}

// VerifyFull is the full verification: Verify, on one snapshot, then a
// checkpoint of what it verified for the next boot checks (an anchored
// store, the last play finished). The kiosk runs it in the background
// after every start and on demand from maintenance.
func (s *Store) VerifyFull(ctx context.Context) error {
	if err := s.AnchorErr(); err != nil {
		return err
	}
	var cp *checkpoint
	err := s.read(ctx, func(tx *rtx) error {
		if err := s.verifyAll(tx); err != nil {
			return err
		}
		var err error
		cp, err = takeCheckpoint(tx)
		return err
	})
	if err != nil || cp == nil {
		return err
	}
	key := s.anchorKey()
	if key == nil {
		return nil
	}
	body, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	mac := checkpointMAC(key, body)
	return s.write(ctx, func(t *wtx) error {
		res, err := t.execQ(`INSERT INTO checkpoints(at, body, mac) VALUES (?, ?, ?)`, t.now, body, mac)
		if err != nil {
			return fmt.Errorf("write checkpoint: %w", err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		_, err = t.execQ(`DELETE FROM checkpoints WHERE id <= ?`, id-4)
		return err
	})
}

// VerifyBoot is the boot check: the schema, the anchor, then the newest
// checkpoint and what was written after it (see above); with no
// checkpoint, everything (Verify). It reports whether it was the full
// verification. SQLite's integrity check of the whole file is left to
// VerifyFull.
func (s *Store) VerifyBoot(ctx context.Context) (full bool, err error) {
	if err := s.AnchorErr(); err != nil {
		return false, err
	}
	key := s.anchorKey()
	err = s.read(ctx, func(tx *rtx) error {
		cp, err := s.newestCheckpoint(tx, key)
		if err != nil {
			return fmt.Errorf("read checkpoint: %w", err)
		}
		if cp == nil {
			full = true
			return s.verifyAll(tx)
		}
		for _, check := range []func() error{
			func() error { return s.verifySchema(tx) },
			func() error { return verifyLedgerFrom(tx, cp.head(chLedger)) },
			func() error { return verifyPlayChainsFrom(tx, cp.head(chPlays), cp.head(chPlaySteps)) },
			func() error { return verifyEvents(tx) }, // the newest kept, however old the checkpoint
			func() error { return s.verifyPlaysFrom(tx, cp) },
			func() error { return verifyVoucherChainsFrom(tx, cp.head(chVouchers), cp.head(chVoucherSteps)) },
			func() error { return verifyVoucherMoneyFrom(tx, cp) },
			func() error { return verifyIntentChains(tx, cp.head(chIntents), cp.head(chIntentSteps)) },
			func() error { return verifyIntentsFrom(tx, cp) },
			func() error { return verifyMetersFrom(tx, cp) },
			func() error { return verifySnapshotsFrom(tx, cp.head(chMeterSnapshots)) },
			// Short chains (a row per change of PIN, per wrong PIN, per
			// setting changed): walked whole, however old the checkpoint.
			func() error { return verifyCredentials(tx) },
			func() error { return verifyPINLock(tx) },
			func() error { return verifySettings(tx) },
			func() error { return verifyCollections(tx) },
		} {
			if err := check(); err != nil {
				return err
			}
		}
		return nil
	})
	return full, err
}

// verifyPlaysFrom checks the plays after a checkpoint: each against its
// unit and ledger rows, the blocks' sales (the checkpoint's plus the
// plays since) against their next unit and their tables, and the stake
// and win rows since against the plays since.
func (s *Store) verifyPlaysFrom(tx *rtx, cp *checkpoint) error {
	since, sinceEntry := cp.Heads[chPlays].ID, cp.Heads[chLedger].ID
	sold := map[int64]*cpBlock{}
	for id, b := range cp.Blocks {
		c := *b
		sold[id] = &c
	}
	if err := addSales(tx, since, sold); err != nil {
		return err
	}
	blocks, err := tx.query(`SELECT b.id, b.stake, b.state, b.next_index,
		(SELECT coalesce(max(unit_idx), -1) FROM plays p WHERE p.block_id = b.id) FROM blocks b ORDER BY b.id`)
	if err != nil {
		return fmt.Errorf("verify plays: %w", err)
	}
	defer blocks.Close()
	for blocks.Next() {
		var id, stake, next, maxIdx int64
		var state string
		if err := blocks.Scan(&id, &stake, &state, &next, &maxIdx); err != nil {
			return fmt.Errorf("verify plays: %w", err)
		}
		b := sold[id]
		if b == nil {
			b = &cpBlock{}
		}
		delete(sold, id)
		if b.Sold != next || maxIdx != next-1 {
			return integrity("units", "blocks", id, "next unit %d, but %d plays up to unit %d", next, b.Sold, maxIdx)
		}
		table := game.Table(game.Stake(stake))
		for t, got := range b.Tiers {
			want := int64(table.LotsOf(game.Tier(t)))
			switch {
			case got > want:
				return integrity("units", "blocks", id, "%d units of tier %d sold, the table has %d", got, t, want)
			case BlockState(state) == BlockExhausted && got != want:
				return integrity("units", "blocks", id, "exhausted with %d units of tier %d sold, the table has %d", got, t, want)
			}
		}
	}
	if err := blocks.Err(); err != nil {
		return fmt.Errorf("verify plays: %w", err)
	}
	for id := range sold {
		return integrity("units", "blocks", id, "plays of a block that does not exist")
	}
	plays, wins, err := verifyPlayRows(tx, s.units, since, nil)
	if err != nil {
		return err
	}
	return verifyPlayMovements(tx, sinceEntry, plays, wins, " since the checkpoint")
}

// verifyVoucherChainsFrom walks the vouchers' and their steps' chains
// from a checkpoint and replays every voucher written or moved since from
// all its steps.
func verifyVoucherChainsFrom(tx *rtx, from, fromStep head) error {
	if from.id == 0 && fromStep.id == 0 {
		return verifyVoucherChains(tx)
	}
	touched := map[int64]bool{}
	if from.id != 0 {
		var v voucherRow
		if err := tx.queryRow(`SELECT id, at, validation, amount, expires_at, prev_hash, hash FROM vouchers WHERE id = ?`, from.id).
			Scan(&v.id, &v.at, &v.validation, &v.amount, &v.expires, &v.prevHash, &v.hash); err != nil {
			return integrity("chain", "vouchers", from.id, "the voucher checkpointed is missing")
		}
		if err := checkpointRow("vouchers", from, v.id, v.hash, voucherHash(v.prevHash, &v)); err != nil {
			return err
		}
	}
	rows, err := tx.query(`SELECT id, at, validation, amount, expires_at, prev_hash, hash FROM vouchers WHERE id > ? ORDER BY id`, from.id)
	if err != nil {
		return fmt.Errorf("verify vouchers chain: %w", err)
	}
	id, prev := from.id, hashOrGenesis(from)
	for rows.Next() {
		var v voucherRow
		if err := rows.Scan(&v.id, &v.at, &v.validation, &v.amount, &v.expires, &v.prevHash, &v.hash); err != nil {
			rows.Close()
			return fmt.Errorf("verify vouchers chain: %w", err)
		}
		switch {
		case v.id != id+1:
			rows.Close()
			return integrity("chain", "vouchers", v.id, "follows voucher %d", id)
		case string(v.prevHash) != string(prev) || string(voucherHash(prev, &v)) != string(v.hash):
			rows.Close()
			return integrity("chain", "vouchers", v.id, "content or previous hash does not match its hash")
		}
		id, prev = v.id, v.hash
		touched[v.id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify vouchers chain: %w", err)
	}
	if fromStep.id != 0 {
		var s voucherStepRow
		if err := tx.queryRow(`SELECT id, voucher_id, at, state, coalesce(entry_id, 0), detail, prev_hash, hash FROM voucher_steps WHERE id = ?`, fromStep.id).
			Scan(&s.id, &s.voucherID, &s.at, &s.state, &s.entryID, &s.detail, &s.prevHash, &s.hash); err != nil {
			return integrity("chain", "voucher_steps", fromStep.id, "the step checkpointed is missing")
		}
		if err := checkpointRow("voucher_steps", fromStep, s.id, s.hash, voucherStepHash(s.prevHash, &s)); err != nil {
			return err
		}
	}
	steps, err := tx.query(`SELECT id, voucher_id, at, state, coalesce(entry_id, 0), detail, prev_hash, hash FROM voucher_steps WHERE id > ? ORDER BY id`, fromStep.id)
	if err != nil {
		return fmt.Errorf("verify voucher steps chain: %w", err)
	}
	id, prev = fromStep.id, hashOrGenesis(fromStep)
	for steps.Next() {
		var s voucherStepRow
		if err := steps.Scan(&s.id, &s.voucherID, &s.at, &s.state, &s.entryID, &s.detail, &s.prevHash, &s.hash); err != nil {
			steps.Close()
			return fmt.Errorf("verify voucher steps chain: %w", err)
		}
		switch {
		case s.id != id+1:
			steps.Close()
			return integrity("chain", "voucher_steps", s.id, "follows step %d", id)
		case string(s.prevHash) != string(prev) || string(voucherStepHash(prev, &s)) != string(s.hash):
			steps.Close()
			return integrity("chain", "voucher_steps", s.id, "content or previous hash does not match its hash")
		}
		id, prev = s.id, s.hash
		touched[s.voucherID] = true
	}
	steps.Close()
	if err := steps.Err(); err != nil {
		return fmt.Errorf("verify voucher steps chain: %w", err)
	}
	for vid := range touched {
		if err := replayVoucher(tx, vid); err != nil {
			return err
		}
	}
	return nil
}

// replayVoucher checks one voucher's state against all its steps, as
// verifyVoucherChains does for every voucher.
func replayVoucher(tx *rtx, vid int64) error {
	w := &verifiedVoucher{replayed: string(VoucherIssued)}
	err := tx.queryRow(`SELECT state, coalesce(entry_id, 0), coalesce(printed_at, 0), coalesce(paid_at, 0), reprints,
		void_reason <> '' FROM vouchers WHERE id = ?`, vid).Scan(&w.state, &w.entryID, &w.printed, &w.paid, &w.reprints, &w.hasVoidReason)
	if errors.Is(err, sql.ErrNoRows) {
		return integrity("chain", "voucher_steps", 0, "step of voucher %d, which does not exist", vid)
	}
	if err != nil {
		return fmt.Errorf("verify voucher %d: %w", vid, err)
	}
	rows, err := tx.query(`SELECT id, at, state, coalesce(entry_id, 0), detail FROM voucher_steps WHERE voucher_id = ? ORDER BY id`, vid)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s voucherStepRow
		if err := rows.Scan(&s.id, &s.at, &s.state, &s.entryID, &s.detail); err != nil {
			return err
		}
		if err := w.step(&s); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return w.check(vid)
}
