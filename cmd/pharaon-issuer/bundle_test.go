package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game/block"
	"pharaon/kiosk/update"
)

// update-bundle signs the package make deb built; the kiosk's check
// (kiosk/update) accepts it with the update key and refuses it with
// another one.
func TestUpdateBundle(t *testing.T) {
	dir := t.TempDir()
	key, pub := keys(t, dir, "update")
	_, otherPub := keys(t, dir, "issuer")
	deb := filepath.Join(dir, "pharaon_0.1.0+git12.abc_amd64.deb")
	require.NoError(t, os.WriteFile(deb, []byte("a package"), 0o644))
	out := filepath.Join(dir, "pharaon.update")

	code, _, stderr := cli(t, "update-bundle", "-key", key, "-out", out)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-deb PAQUET.deb")
	assert.NoFileExists(t, out)

	code, stdout, stderr := cli(t, "update-bundle", "-key", key, "-deb", deb, "-out", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "pharaon 0.1.0+git12.abc (amd64)")
	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "a bundle is public, as a block file is")

	trusted := func(p string) block.KeySet {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		k, err := block.ParsePublicKey(b)
		require.NoError(t, err)
		return block.NewKeySet(k)
	}
	open := func(keys block.KeySet) (*update.Verified, error) {
		f, err := os.Open(out)
		require.NoError(t, err)
		defer f.Close()
		return update.Open(f, keys, t.TempDir())
	}
	v, err := open(trusted(pub))
	require.NoError(t, err)
	assert.Equal(t, "0.1.0+git12.abc", v.Manifest.Version)
	assert.Equal(t, "amd64", v.Manifest.Arch)
	assert.Equal(t, filepath.Base(deb), v.Manifest.Payload)
	b, err := os.ReadFile(v.Path)
	require.NoError(t, err)
	assert.Equal(t, "a package", string(b))

	_, err = open(trusted(otherPub))
	assert.ErrorIs(t, err, update.ErrUntrusted)
}

// sign-manifest and verify-manifest: the disk image's SHA-256 file signed
// with the update key is checked before flashing; a changed sum, another
// key, or no signature at all is refused, saying which.
func TestManifestSignedAndVerified(t *testing.T) {
	dir := t.TempDir()
	key, pub := keys(t, dir, "update")
	_, otherPub := keys(t, dir, "issuer")
	sums := filepath.Join(dir, "pharaon.img.xz.sha256")
	text := "3f2a0c7e3b8d9e1f00112233445566778899aabbccddeeff0011223344556677  pharaon.img.xz\n"
	require.NoError(t, os.WriteFile(sums, []byte(text), 0o644))

	code, _, stderr := cli(t, "verify-manifest", "-key", pub, sums)
	assert.Equal(t, 1, code, "not signed yet")
	assert.Contains(t, stderr, "manifeste non signé")

	code, _, stderr = cli(t, "sign-manifest", "-key", key, sums)
	require.Equal(t, 0, code, stderr)
	assert.FileExists(t, sums+update.SignatureSuffix)

	code, stdout, stderr := cli(t, "verify-manifest", "-key", otherPub, "-key", pub, sums)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "ok "+sums+" : signé par la clé ")

	code, _, stderr = cli(t, "verify-manifest", "-key", otherPub, sums)
	assert.Equal(t, 1, code, "another key")
	assert.Contains(t, stderr, "clé non reconnue")

	require.NoError(t, os.WriteFile(sums, []byte(strings.Replace(text, "3f2a", "3f2b", 1)), 0o644))
	code, _, stderr = cli(t, "-lang", "en", "verify-manifest", "-key", pub, sums)
	assert.Equal(t, 1, code, "a sum changed after signing")
	assert.Contains(t, stderr, "signature does not match")

	code, _, stderr = cli(t, "verify-manifest", sums)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-key FICHIER.pub")
}
