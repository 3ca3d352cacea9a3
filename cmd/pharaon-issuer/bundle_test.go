package main

import (
	"os"
	"path/filepath"
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
