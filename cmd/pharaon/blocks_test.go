package main

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk/kiosktest"
)

// issuerKeyFile writes the tests' issuer public key (kiosktest.Key) in
// dir, made if need be, and returns its path.
func issuerKeyFile(t *testing.T, dir string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	pub, err := block.MarshalPublicKey(kiosktest.Key.Public().(ed25519.PublicKey))
	require.NoError(t, err)
	path := filepath.Join(dir, "issuer.pub")
	require.NoError(t, os.WriteFile(path, pub, 0o644))
	return path
}

// A technician imports blocks into a stopped kiosk from the command line:
// a tampered file is refused and changes nothing, the good ones are
// imported once, and the list shows them.
func TestBinaryImportsBlocks(t *testing.T) {
	dir := t.TempDir()
	etc := filepath.Join(dir, "etc")
	keyFile := issuerKeyFile(t, etc)
	db := filepath.Join(dir, "data", "pharaon.db")
	conf := filepath.Join(etc, "pharaon.conf")
	require.NoError(t, os.WriteFile(conf, []byte("db = "+db+"\nkeys = "+keyFile+"\n"), 0o600))

	blockFile := func(name string, stake game.Stake, number uint32, tamper bool) string {
		var buf bytes.Buffer
		require.NoError(t, kiosktest.WriteBlock(&buf, stake, number, nil))
		b := buf.Bytes()
		if tamper {
			b[len(b)/2] ^= 0x40
		}
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, b, 0o644))
		return path
	}
	good1 := blockFile("b1.blk", game.Stake050, 11, false)
	good2 := blockFile("b2.blk", game.Stake200, 12, false)
	bad := blockFile("bad.blk", game.Stake100, 13, true)

	r := runBinary(t, dir, "import", "-config", conf, good1)
	assert.Equal(t, exitNoDatabase, r.status, "no database, not a first install: %s", r.stderr)
	assert.NoFileExists(t, db)

	r = runBinary(t, dir, "import", "-config", conf, "-first-install", bad, good1, good2)
	assert.Equal(t, exitFailure, r.status, r.stderr)
	assert.Contains(t, r.stderr, "bad.blk refusé\u00a0:")
	assert.Contains(t, r.stdout, "b1.blk\u00a0: bloc 7/11, 0,50\u00a0€, 350\u00a0000 unités de jeu, en vente")
	assert.Contains(t, r.stdout, "b2.blk\u00a0: bloc 7/12, 2\u00a0€")

	r = runBinary(t, dir, "import", "-config", conf, "-lang", "en", good1)
	assert.Equal(t, exitFailure, r.status)
	assert.Contains(t, r.stderr, "b1.blk refused: ", "imported once")

	r = runBinary(t, dir, "blocks", "-config", conf)
	require.Equal(t, exitOK, r.status, r.stderr)
	assert.Contains(t, r.stdout, "Bloc 7/11  0,50\u00a0€  en vente  vendus 0  restants 350\u00a0000")
	assert.Contains(t, r.stdout, "Bloc 7/12  2\u00a0€")
	assert.NotContains(t, r.stdout, "7/13", "the tampered file changed nothing")
	assert.Contains(t, r.stdout, "lots vendus\u00a0: 3\u00a0750\u00a0€ 0/5")

	r = runBinary(t, dir, "import", "-config", conf)
	assert.Equal(t, exitUsage, r.status)
	assert.Contains(t, r.stderr, "aucun fichier de bloc")
}
