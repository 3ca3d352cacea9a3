package update

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game/block"
)

// The binary's self-test passes on the signed manifest of the binary, and
// refuses a changed binary, an unsigned manifest, a manifest signed by a
// key that is not trusted, a manifest changed after signing, and a
// binary the manifest does not list.
func TestCheckBinary(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "pharaon")
	require.NoError(t, os.WriteFile(exe, []byte("the kiosk"), 0o755))
	sum := sha256.Sum256([]byte("the kiosk"))
	manifest := filepath.Join(dir, "MANIFEST.sha256")
	text := []byte(hex.EncodeToString(sum[:]) + "  /usr/bin/pharaon\n")
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	_, other, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	keys := block.NewKeySet(pub)
	write := func(m []byte, k ed25519.PrivateKey) {
		require.NoError(t, os.WriteFile(manifest, m, 0o644))
		os.Remove(manifest + SignatureSuffix)
		if k != nil {
			sig, err := SignManifest(m, k)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(manifest+SignatureSuffix, sig, 0o644))
		}
	}

	write(text, priv)
	require.NoError(t, CheckBinary(manifest, keys, exe, "/usr/bin/pharaon"))
	assert.ErrorIs(t, CheckBinary(manifest, keys, exe, "/usr/bin/other"), ErrBinaryChanged, "not listed")

	require.NoError(t, os.WriteFile(exe, []byte("the kiosk, patched"), 0o755))
	assert.ErrorIs(t, CheckBinary(manifest, keys, exe, "/usr/bin/pharaon"), ErrBinaryChanged)
	require.NoError(t, os.WriteFile(exe, []byte("the kiosk"), 0o755))

	write(text, nil)
	assert.ErrorIs(t, CheckBinary(manifest, keys, exe, "/usr/bin/pharaon"), ErrManifestUnsigned)
	write(text, other)
	assert.ErrorIs(t, CheckBinary(manifest, keys, exe, "/usr/bin/pharaon"), ErrManifestBad, "untrusted key")
	write(text, priv)
	require.NoError(t, os.WriteFile(manifest, append(text, "00  /usr/bin/x\n"...), 0o644))
	assert.ErrorIs(t, CheckBinary(manifest, keys, exe, "/usr/bin/pharaon"), ErrManifestBad, "changed after signing")
	assert.Error(t, CheckBinary(filepath.Join(dir, "absent"), keys, exe, "/usr/bin/pharaon"))
}
