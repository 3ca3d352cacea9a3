package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"strings"

	"pharaon/game"
)

// Verify runs every check of the store on one snapshot, the boot check of
// DESIGN.md §7: SQLite's integrity and foreign key checks, the ledger
// (continuity, balances, chain), the hash chains of plays, play steps,
// events, the credentials and the PIN pad's lock, the plays against their units and their ledger rows, the units
// sold of every block, and the meters against the ledger. The first failure
// is an *IntegrityError (errors.Is ErrIntegrity).
func (s *Store) Verify(ctx context.Context) error {
	if err := s.AnchorErr(); err != nil {
		return err
	}
	return s.read(ctx, s.verifyAll)
}

// verifyAll runs every check of Verify in one read transaction.
func (s *Store) verifyAll(tx *rtx) error {
	for _, check := range []func(*rtx) error{
		integrityCheck, s.verifySchema, verifyLedger, verifyPlayChains, verifyEvents, s.verifyPlays, verifyCash, verifyMeters, verifySnapshots,
		verifyCredentials, verifyPINLock, verifySettings, verifyCollections,
	} {
		if err := check(tx); err != nil {
			return err
		}
	}
	return nil
}

// IntegrityCheck runs SQLite's PRAGMA integrity_check and foreign_key_check.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	return s.read(ctx, func(tx *rtx) error { return integrityCheck(tx) })
}

// VerifyChains recomputes the hash chains of the ledger, the plays, their
// state changes and the events: an edited, inserted or removed row is an
// *IntegrityError naming it.
func (s *Store) VerifyChains(ctx context.Context) error {
	return s.read(ctx, func(tx *rtx) error {
		for _, check := range []func(*rtx) error{verifyLedger, verifyPlayChains, verifyEvents, verifyVoucherChains,
			func(tx *rtx) error { return verifyIntentChains(tx, head{}, head{}) }, verifySnapshots, verifyCredentials, verifyPINLock, verifySettings, verifyCollections} {
			if err := check(tx); err != nil {
				return err
			}
		}
		return nil
	})
}

// VerifyPlays checks the sales: every block holds its table's lots and
// sold exactly its units 0 … next-1, once each; every play carries its
// unit's outcome and prize, has exactly one stake debit of its stake, and,
// once finished with a prize, exactly one win credit of that prize (none
// otherwise).
func (s *Store) VerifyPlays(ctx context.Context) error {
	return s.read(ctx, s.verifyPlays)
}

func integrityCheck(tx *rtx) error {
	rows, err := tx.query(`PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			rows.Close()
			return fmt.Errorf("integrity check: %w", err)
		}
		msgs = append(msgs, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if len(msgs) != 1 || msgs[0] != "ok" {
		return integrity("sqlite", "", 0, "integrity_check: %s", strings.Join(msgs, "; "))
	}
	rows, err = tx.query(`PRAGMA foreign_key_check`)
	if err != nil {
		return fmt.Errorf("foreign key check: %w", err)
	}
	defer rows.Close()
	if rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fkid int
		if err := rows.Scan(&table, &rowid, &parent, &fkid); err != nil {
			return fmt.Errorf("foreign key check: %w", err)
		}
		return integrity("sqlite", table, rowid.Int64, "foreign key to %s broken", parent)
	}
	return rows.Err()
}

// verifyPlayChains walks the plays and their steps together: steps come
// in play order (one play is unfinished at a time), each play's steps move
// its state forward, and the play's mutable columns are those of its last
// step (the finished step fixes the revealed counts, the mismatch flag and
// the recording's digest).
func verifyPlayChains(tx *rtx) error { return verifyPlayChainsFrom(tx, head{}, head{}) }

// verifyPlayChainsFrom walks them from a checkpoint's play and step (the
// zero heads: from the first), taken when its last play was finished: the
// rows checkpointed are those, and the plays and steps after them follow.
func verifyPlayChainsFrom(tx *rtx, fromPlay, fromStep head) error {
	plays, err := tx.query(`SELECT id, at, stake, mode, layout_version, block_id, unit_idx, tier, via_bonus,
		seed, prize, prev_hash, hash, state, coalesce(revealed, ''), mismatch, recording FROM plays WHERE id >= ? ORDER BY id`, fromPlay.id)
	if err != nil {
		return fmt.Errorf("verify plays chain: %w", err)
	}
	defer plays.Close()
	steps, err := tx.query(`SELECT id, play_id, at, state, coalesce(revealed, ''), mismatch, rec_digest,
		prev_hash, hash FROM play_steps WHERE id >= ? ORDER BY id`, fromStep.id)
	if err != nil {
		return fmt.Errorf("verify play steps chain: %w", err)
	}
	defer steps.Close()

	var step *stepRow
	var stepID int64
	prevStep := genesis
	nextStep := func() error {
		step = nil
		if !steps.Next() {
			return steps.Err()
		}
		var s stepRow
		if err := steps.Scan(&s.id, &s.playID, &s.at, &s.state, &s.revealed, &s.mismatch, &s.recDigest, &s.prevHash, &s.hash); err != nil {
			return err
		}
		if fromStep.id != 0 && stepID == 0 {
			if err := checkpointRow("play_steps", fromStep, s.id, s.hash, stepHash(s.prevHash, &s)); err != nil {
				return err
			}
			stepID, prevStep = s.id, s.hash
			if !steps.Next() {
				return steps.Err()
			}
			if err := steps.Scan(&s.id, &s.playID, &s.at, &s.state, &s.revealed, &s.mismatch, &s.recDigest, &s.prevHash, &s.hash); err != nil {
				return err
			}
		}
		switch {
		case s.id != stepID+1:
			return integrity("chain", "play_steps", s.id, "follows step %d", stepID)
		case string(s.prevHash) != string(prevStep):
			return integrity("chain", "play_steps", s.id, "previous hash does not match step %d", stepID)
		case string(stepHash(prevStep, &s)) != string(s.hash):
			return integrity("chain", "play_steps", s.id, "content does not match its hash")
		}
		stepID, prevStep, step = s.id, s.hash, &s
		return nil
	}
	if err := nextStep(); err != nil {
		return err
	}
	if fromStep.id != 0 && stepID == 0 {
		return integrity("chain", "play_steps", fromStep.id, "the step checkpointed is missing")
	}

	var id, unfinished int64
	prev := genesis
	for plays.Next() {
		var p playRow
		var state, revealed string
		var mismatch bool
		var rec []byte
		if err := plays.Scan(&p.id, &p.at, &p.stake, &p.mode, &p.layout, &p.blockID, &p.unit, &p.tier, &p.viaBonus,
			&p.seed, &p.prize, &p.prevHash, &p.hash, &state, &revealed, &mismatch, &rec); err != nil {
			return fmt.Errorf("verify plays chain: %w", err)
		}
		if fromPlay.id != 0 && id == 0 {
			// The play checkpointed: finished then, and a finished play
			// never changes (its steps are before the step checkpointed).
			if err := checkpointRow("plays", fromPlay, p.id, p.hash, playHash(p.prevHash, &p)); err != nil {
				return err
			}
			if PlayState(state) != PlayFinished {
				return integrity("chain", "plays", p.id, "finished when checkpointed, now %s", state)
			}
			id, prev = p.id, p.hash
			continue
		}
		switch {
		case p.id != id+1:
			return integrity("chain", "plays", p.id, "follows play %d", id)
		case string(p.prevHash) != string(prev):
			return integrity("chain", "plays", p.id, "previous hash does not match play %d", id)
		case string(playHash(prev, &p)) != string(p.hash):
			return integrity("chain", "plays", p.id, "content does not match its hash")
		}
		if unfinished != 0 {
			return integrity("plays", "plays", unfinished, "unfinished, and play %d was started after it", p.id)
		}
		id, prev = p.id, p.hash
		if step != nil && step.playID < p.id {
			return integrity("chain", "play_steps", step.id, "step of play %d after play %d started", step.playID, p.id)
		}
		last := stepRow{state: string(PlayStarted)}
		for step != nil && step.playID == p.id {
			if PlayState(step.state).rank() <= PlayState(last.state).rank() {
				return integrity("chain", "play_steps", step.id, "play %d goes from %s to %s", p.id, last.state, step.state)
			}
			if PlayState(step.state) == PlayBonus && !p.viaBonus {
				return integrity("chain", "play_steps", step.id, "play %d has no bonus game", p.id)
			}
			last = *step
			if err := nextStep(); err != nil {
				return err
			}
		}
		if state != last.state {
			return integrity("chain", "plays", p.id, "state %s, its steps say %s", state, last.state)
		}
		if PlayState(state) == PlayFinished {
			var digest []byte
			if rec != nil {
				sum := sha256.Sum256(rec)
				digest = sum[:]
			}
			switch {
			case revealed != last.revealed || mismatch != last.mismatch:
				return integrity("chain", "plays", p.id, "revealed %q mismatch %v, its finish step says %q %v",
					revealed, mismatch, last.revealed, last.mismatch)
			case string(digest) != string(last.recDigest):
				return integrity("chain", "plays", p.id, "recording does not match its finish step")
			}
		} else if revealed != "" || mismatch {
			return integrity("chain", "plays", p.id, "unfinished play with a reveal")
		} else {
			unfinished = p.id
		}
	}
	if err := plays.Err(); err != nil {
		return fmt.Errorf("verify plays chain: %w", err)
	}
	if fromPlay.id != 0 && id == 0 {
		return integrity("chain", "plays", fromPlay.id, "the play checkpointed is missing")
	}
	if step != nil {
		return integrity("chain", "play_steps", step.id, "step of play %d, which does not exist", step.playID)
	}
	return nil
}

// soldLots counts the units of a block its plays sold, by tier.
type soldLots struct {
	stake     game.Stake
	exhausted bool
	tiers     [game.NumTiers + 1]int
}

func (s *Store) verifyPlays(tx *rtx) error {
	// The plays of a block are its units 0 … next_index-1, each once
	// (UNIQUE(block_id, unit_idx) makes them distinct): none sold twice,
	// none skipped.
	blocks, err := tx.query(`SELECT b.id, b.stake, b.state, b.next_index,
		(SELECT count(*) FROM plays p WHERE p.block_id = b.id),
		(SELECT coalesce(max(unit_idx), -1) FROM plays p WHERE p.block_id = b.id)
		FROM blocks b ORDER BY b.id`)
	if err != nil {
		return fmt.Errorf("verify plays: %w", err)
	}
	defer blocks.Close()
	sold := map[int64]*soldLots{}
	for blocks.Next() {
		var id, stake, next, plays, maxIdx int64
		var state string
		if err := blocks.Scan(&id, &stake, &state, &next, &plays, &maxIdx); err != nil {
			return fmt.Errorf("verify plays: %w", err)
		}
		if plays != next || maxIdx != next-1 {
			return integrity("units", "blocks", id, "next unit %d, but %d plays up to unit %d", next, plays, maxIdx)
		}
		sold[id] = &soldLots{stake: game.Stake(stake), exhausted: BlockState(state) == BlockExhausted}
	}
	if err := blocks.Err(); err != nil {
		return fmt.Errorf("verify plays: %w", err)
	}

	plays, wins, err := verifyPlayRows(tx, s.units, 0, func(blockID, tier int64) {
		if b := sold[blockID]; b != nil {
			b.tiers[tier]++
		}
	})
	if err != nil {
		return err
	}
	// The plays copied their units (checked above), so the plays of a
	// block count its lots sold: never more of a tier than the table has
	// (Art. 3), and for an exhausted block exactly the table's. This covers
	// the units VerifyBlocks does not read, at no extra read.
	for id, b := range sold {
		table := game.Table(b.stake)
		for t, got := range b.tiers {
			want := table.LotsOf(game.Tier(t))
			switch {
			case got > want:
				return integrity("units", "blocks", id, "%d units of tier %d sold, the table has %d", got, t, want)
			case b.exhausted && got != want:
				return integrity("units", "blocks", id, "exhausted with %d units of tier %d sold, the table has %d", got, t, want)
			}
		}
	}
	// Each play has its own stake row and, if it won, its own win row (the
	// rows name their play, checked above); no other row is a stake or a
	// win, and no cash movement names a play.
	return verifyPlayMovements(tx, 0, plays, wins, "")
}

// verifyPlayMovements checks the ledger rows after sinceEntry (0: all of
// them) against the plays and the plays won counted over the same span
// (named in the fault by span): each play has its own stake row and, if it
// won, its own win row; no other row is a stake or a win, and no cash
// movement names a play.
func verifyPlayMovements(tx *rtx, sinceEntry, plays, wins int64, span string) error {
	var stakes, credits, orphan int64
	err := tx.queryRow(`SELECT
		(SELECT count(*) FROM ledger WHERE id > ?1 AND kind = 'stake'),
		(SELECT count(*) FROM ledger WHERE id > ?1 AND kind = 'win'),
		(SELECT coalesce(min(id), 0) FROM ledger WHERE id > ?1 AND (kind = 'stake' OR kind = 'win') <> (play_id IS NOT NULL))`, sinceEntry).
		Scan(&stakes, &credits, &orphan)
	if err != nil {
		return fmt.Errorf("verify plays: %w", err)
	}
	switch {
	case orphan != 0:
		return integrity("plays", "ledger", orphan, "play movement without a play, or a play on a cash movement")
	case stakes != plays:
		return integrity("plays", "ledger", 0, "%d stake rows for %d plays%s", stakes, plays, span)
	case credits != wins:
		return integrity("plays", "ledger", 0, "%d win rows for %d plays won%s", credits, wins, span)
	}
	return nil
}

// verifyPlayRows checks the plays after since against their units and
// their ledger rows (the outcome, the prize, one stake debit of the stake,
// one win credit of the prize once finished with one), calling tally for
// each, and counts them and their wins.
func verifyPlayRows(tx *rtx, seal *unitSeal, since int64, tally func(blockID, tier int64)) (plays, wins int64, err error) {
	rows, err := tx.query(`SELECT p.id, p.block_id, p.unit_idx, p.stake, p.tier, p.via_bonus, p.seed, p.prize, p.state,
		b.emission, b.number, u.sealed, s.kind, s.play_id, s.amount, p.win_entry, w.kind, w.play_id, w.amount
		FROM plays p LEFT JOIN units u ON u.block_id = p.block_id AND u.idx = p.unit_idx
		LEFT JOIN blocks b ON b.id = p.block_id
		LEFT JOIN ledger s ON s.id = p.stake_entry LEFT JOIN ledger w ON w.id = p.win_entry WHERE p.id > ? ORDER BY p.id`, since)
	if err != nil {
		return 0, 0, fmt.Errorf("verify plays: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, blockID, unitIdx, stake, tier, seed, prize int64
		var viaBonus bool
		var state string
		var emission, number, sPlay, sAmount, winEntry, wPlay, wAmount sql.NullInt64
		var sealed []byte
		var sKind, wKind sql.NullString
		if err := rows.Scan(&id, &blockID, &unitIdx, &stake, &tier, &viaBonus, &seed, &prize, &state, &emission, &number, &sealed,
			&sKind, &sPlay, &sAmount, &winEntry, &wKind, &wPlay, &wAmount); err != nil {
			return 0, 0, fmt.Errorf("verify plays: %w", err)
		}
		plays++
		if tier < 0 || tier > game.NumTiers {
			return 0, 0, integrity("plays", "plays", id, "tier %d is not one of the table's", tier)
		}
		if tally != nil {
			tally(blockID, tier)
		}
		wantWin := PlayState(state) == PlayFinished && prize > 0
		if sealed == nil || !emission.Valid {
			return 0, 0, integrity("plays", "plays", id, "its unit does not exist")
		}
		u, err := openUnit(seal.block(uint32(emission.Int64), uint32(number.Int64)), blockID, uint32(unitIdx), sealed)
		if err != nil {
			return 0, 0, err
		}
		switch {
		case int64(u.tier) != tier || u.viaBonus != viaBonus || int64(u.seed) != seed:
			return 0, 0, integrity("plays", "plays", id, "outcome differs from its unit's")
		case game.Money(prize) != game.Table(game.Stake(stake)).Amount(game.Tier(tier)):
			return 0, 0, integrity("plays", "plays", id, "prize %s is not tier %d's", game.Money(prize), tier)
		case sKind.String != string(KindStake) || sPlay.Int64 != id || sAmount.Int64 != -stake:
			return 0, 0, integrity("plays", "plays", id, "its stake row is not a debit of its stake %d", stake)
		case wantWin != winEntry.Valid:
			return 0, 0, integrity("plays", "plays", id, "%s with a prize of %d, win row %v", state, prize, winEntry.Valid)
		case wantWin && (wKind.String != string(KindWin) || wPlay.Int64 != id || wAmount.Int64 != prize):
			return 0, 0, integrity("plays", "plays", id, "its win row is not a credit of its prize %d", prize)
		}
		if wantWin {
			wins++
		}
	}
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("verify plays: %w", err)
	}
	return plays, wins, nil
}

func (s *Store) verifySchema(tx *rtx) error { return verifySchema(tx, s.schema) }

// VerifySchema checks that the tables, indexes and triggers are exactly
// those the migrations create (schema_check.go).
func (s *Store) VerifySchema(ctx context.Context) error {
	return s.read(ctx, s.verifySchema)
}

// checkpointRow checks the first row of an incremental walk: the one a
// checkpoint names, with the hash it names, and its content that hash's.
func checkpointRow(table string, from head, id int64, stored, computed []byte) error {
	switch {
	case id != from.id:
		return integrity("chain", table, from.id, "the row checkpointed is missing (row %d found)", id)
	case string(stored) != string(from.hash[:]):
		return integrity("chain", table, id, "not the row checkpointed")
	case string(computed) != string(stored):
		return integrity("chain", table, id, "content does not match its hash")
	}
	return nil
}
