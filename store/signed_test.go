package store

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
)

// moveTopPrizeForward is what someone holding the database file does to
// sell the top prize next: the first unsold losing unit of the open block
// becomes a top-tier unit and a top-tier unit further on becomes a loser (so
// the lots per tier still match the table), the units digest kept in the
// blocks row is recomputed over the edited units, and the triggers that
// refuse both edits are dropped and recreated as they were.
func moveTopPrizeForward(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=0")
	require.NoError(t, err)
	defer db.Close()
	triggers := map[string]string{}
	for _, name := range []string{"units_no_update", "blocks_fixed"} {
		var q string
		require.NoError(t, db.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, name).Scan(&q))
		triggers[name] = q
		_, err := db.Exec(`DROP TRIGGER ` + name)
		require.NoError(t, err)
	}
	var id, next, loser, top int64
	require.NoError(t, db.QueryRow(`SELECT id, next_index FROM blocks WHERE state = 'open'`).Scan(&id, &next))
	require.NoError(t, db.QueryRow(`SELECT min(idx) FROM units WHERE block_id = ? AND idx >= ? AND tier = 0`, id, next).Scan(&loser))
	require.NoError(t, db.QueryRow(`SELECT max(idx) FROM units WHERE block_id = ? AND tier = 1`, id).Scan(&top))
	require.Greater(t, top, loser)
	_, err = db.Exec(`UPDATE units SET tier = CASE idx WHEN ? THEN 1 ELSE 0 END,
		via_bonus = CASE idx WHEN ? THEN (SELECT via_bonus FROM units WHERE block_id = ? AND idx = ?) ELSE 0 END
		WHERE block_id = ? AND idx IN (?, ?)`, loser, loser, id, top, id, loser, top)
	require.NoError(t, err)

	rows, err := db.Query(`SELECT idx, tier, via_bonus, seed FROM units WHERE block_id = ? ORDER BY idx`, id)
	require.NoError(t, err)
	h := newUnitsHash()
	for rows.Next() {
		var idx, tier, seed int64
		var via bool
		require.NoError(t, rows.Scan(&idx, &tier, &via, &seed))
		h.add(uint32(idx), game.Tier(tier), via, uint64(seed))
	}
	require.NoError(t, rows.Err())
	rows.Close()
	_, err = db.Exec(`UPDATE blocks SET units_digest = ? WHERE id = ?`, h.sum(), id)
	require.NoError(t, err)
	for _, q := range triggers {
		_, err := db.Exec(q)
		require.NoError(t, err)
	}
	var tier int64
	require.NoError(t, db.QueryRow(`SELECT tier FROM units WHERE block_id = ? AND idx = ?`, id, loser).Scan(&tier))
	require.EqualValues(t, 1, tier, "the unit to sell is now the top prize")
}

// TestBootCheckRefusesUnitsRedigested: an unsold unit moved to the top
// tier with the units digest recomputed to match is an integrity error of
// the boot check, which trusts only the issuer's signature.
func TestBootCheckRefusesUnitsRedigested(t *testing.T) {
	dir := t.TempDir()
	template := filepath.Join(dir, "template.db")
	history(t, template)
	path := filepath.Join(dir, "pharaon.db")
	copyFile(t, template, path)
	moveTopPrizeForward(t, path)

	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	require.NoError(t, s.Verify(ctx), "the edit leaves the plays, ledger and chains as they were")
	err = s.VerifyBlocks(ctx, trusted())
	require.ErrorIs(t, err, ErrIntegrity)
	var ie *IntegrityError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "units", ie.Check)
	assert.Equal(t, "blocks", ie.Table)
	assert.EqualValues(t, 1, ie.ID)
}

// TestBootCheckRefusesUntrustedKey: a block whose issuer key the kiosk no
// longer trusts is an integrity error saying so.
func TestBootCheckRefusesUntrustedKey(t *testing.T) {
	s := openWith(t, block050)
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize))
	err := s.VerifyBlocks(context.Background(), block.NewKeySet(other.Public().(ed25519.PublicKey)))
	var ie *IntegrityError
	require.ErrorAs(t, err, &ie)
	assert.EqualValues(t, 1, ie.ID)
	assert.Contains(t, ie.Reason, "no longer trusts")
	require.NoError(t, s.VerifyBlocks(context.Background(), trusted()))
}

// TestBootCheckSignedBlockTampering: what the signature covers and the
// row keeps, edited behind the store's back.
func TestBootCheckSignedBlockTampering(t *testing.T) {
	dir := t.TempDir()
	template := filepath.Join(dir, "template.db")
	history(t, template)
	for _, c := range []struct{ name, sql, reason string }{
		{"the signature removed", `DROP TRIGGER blocks_signature_fixed; UPDATE blocks SET signature = NULL WHERE id = 1`,
			"no signature kept"},
		{"the bonus lots changed", `DROP TRIGGER blocks_signature_fixed; UPDATE blocks SET bonus_lots = zeroblob(32) WHERE id = 1`,
			"differ from those the issuer signed"},
		{"the creation time changed", `DROP TRIGGER blocks_fixed; UPDATE blocks SET created_at = created_at + 1 WHERE id = 1`,
			"differ from those the issuer signed"},
		{"the signature replaced", `DROP TRIGGER blocks_signature_fixed; UPDATE blocks SET signature = zeroblob(64) WHERE id = 1`,
			"differ from those the issuer signed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ie := verifyTampered(t, template, c.sql)
			assert.Equal(t, "units", ie.Check, ie.Error())
			assert.EqualValues(t, 1, ie.ID, ie.Error())
			assert.Contains(t, ie.Reason, c.reason)
		})
	}
}

// TestBootCheckUnsignedLegacyBlock: a block imported before the store kept
// signatures (schema 4) is checked against its units digest, with a
// warning event; its units edited without the digest are still found, and
// a block cannot be made legacy by plain SQL.
func TestBootCheckUnsignedLegacyBlock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	s, err := Open(path, func(c *config) error { c.migrations = migrations[:4]; return nil })
	require.NoError(t, err)
	require.NoError(t, s.Close())
	// The block as an import of schema 4 wrote it: the v1 columns of a
	// block imported today, copied row for row.
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=1")
	require.NoError(t, err)
	_, err = db.Exec(`ATTACH DATABASE ? AS src`, templateWith(t, block050))
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO blocks(id, emission, number, stake, units, table_digest, key_id, created_at,
		file_digest, units_digest, imported_at, state, next_index, opened_at, closed_at, note)
		SELECT id, emission, number, stake, units, table_digest, key_id, created_at,
		file_digest, units_digest, imported_at, state, next_index, opened_at, closed_at, note FROM src.blocks;
		INSERT INTO units SELECT * FROM src.units`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	s, err = Open(path, WithClock(newClock().now))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.VerifyBlocks(ctx, trusted()))
	evs, err := s.EventsWhere(ctx, EventQuery{Source: sourceStore})
	require.NoError(t, err)
	var unsigned []Event
	for _, e := range evs {
		if e.Code == EventBlockUnsigned {
			unsigned = append(unsigned, e)
		}
	}
	require.Len(t, unsigned, 1)
	assert.Equal(t, LevelWarning, unsigned[0].Level)
	assert.Contains(t, unsigned[0].Detail, "block 1/1")

	raw, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=1")
	require.NoError(t, err)
	defer raw.Close()
	_, err = raw.Exec(`INSERT INTO blocks_unsigned(block_id) VALUES (2)`)
	assert.ErrorContains(t, err, "only blocks imported before")
	_, err = raw.Exec(`UPDATE blocks SET signature = zeroblob(64) WHERE id = 1`)
	assert.ErrorContains(t, err, "signature never changes")
	_, err = raw.Exec(`DROP TRIGGER units_no_update; UPDATE units SET seed = seed + 1 WHERE block_id = 1 AND idx = 200000`)
	require.NoError(t, err)
	err = s.VerifyBlocks(ctx, trusted())
	var ie *IntegrityError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, ie.Reason, "differ from those imported")
}
