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

// TestTopPrizeCannotBeMoved is the attack on the block of someone holding
// the database file who wants the next play to win: with the units in
// clear and a fallback for "unsigned" blocks, they dropped the triggers,
// cleared the block's signature, listed it as unsigned, swapped the next
// unit with a top-prize unit and recomputed the digest, and every check
// passed. Now there is no unsigned block and the units are sealed: the
// same edits (the unit to sell replaced by the sealed bytes of another)
// are refused by the boot check and by the draw itself, and the list of
// unsigned blocks is a table the schema does not have.
func TestTopPrizeCannotBeMoved(t *testing.T) {
	dir := t.TempDir()
	template := filepath.Join(dir, "template.db")
	history(t, template)
	path := filepath.Join(dir, "pharaon.db")
	copyFile(t, template, path)
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=0")
	require.NoError(t, err)
	triggers := map[string]string{}
	for _, name := range []string{"units_no_update", "blocks_signature_fixed"} {
		var q string
		require.NoError(t, db.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, name).Scan(&q))
		triggers[name] = q
		_, err := db.Exec(`DROP TRIGGER ` + name)
		require.NoError(t, err)
	}
	var id, next int64
	require.NoError(t, db.QueryRow(`SELECT id, next_index FROM blocks WHERE state = 'open'`).Scan(&id, &next))
	for _, q := range []string{
		`UPDATE blocks SET signature = NULL, bonus_lots = NULL WHERE id = ?1`,
		`CREATE TABLE blocks_unsigned (block_id INTEGER PRIMARY KEY)`,
		`INSERT INTO blocks_unsigned VALUES (?1)`,
		`UPDATE units SET sealed = (SELECT sealed FROM units WHERE block_id = ?1 AND idx = 340000) WHERE block_id = ?1 AND idx = ?2`,
	} {
		_, err = db.Exec(q, id, next)
		require.NoError(t, err, q)
	}
	for _, q := range triggers {
		_, err := db.Exec(q)
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())

	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	err = s.VerifySchema(ctx)
	require.ErrorIs(t, err, ErrIntegrity)
	assert.Contains(t, err.Error(), "blocks_unsigned")
	err = s.VerifyBlocks(ctx, trusted())
	var ie *IntegrityError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "units", ie.Check)
	assert.EqualValues(t, id, ie.ID)
	_, err = s.BillIn(ctx, 10*game.Euro, "attack")
	require.NoError(t, err)
	_, err = s.StartPlay(ctx, PlayRequest{Stake: game.Stake050, Mode: ModeAuto, LayoutVersion: 1})
	require.ErrorIs(t, err, ErrIntegrity, "the unit replaced is never drawn")
	assert.Contains(t, err.Error(), "does not open")
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
