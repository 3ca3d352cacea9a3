package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game/block"
	"pharaon/kiosk/update"
)

// dpkgFake is a kiosk's package manager for the update command's tests:
// a package file is "pharaon VERSION amd64".
type dpkgFake struct {
	installed string
	installs  int
}

func (d *dpkgFake) Installed(context.Context, string) (string, error) { return d.installed, nil }
func (d *dpkgFake) Inspect(_ context.Context, deb string) (update.DebInfo, error) {
	b, err := os.ReadFile(deb)
	if err != nil {
		return update.DebInfo{}, err
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return update.DebInfo{}, errors.New("not a package")
	}
	return update.DebInfo{Package: f[0], Version: f[1], Arch: f[2], Files: []string{"/usr/bin/pharaon"}}, nil
}
func (d *dpkgFake) Install(ctx context.Context, deb string) error {
	info, err := d.Inspect(ctx, deb)
	d.installs++
	d.installed = info.Version
	return err
}
func (d *dpkgFake) Check(context.Context) error { return nil }

// A technician runs pharaon update: a tampered bundle, one signed by
// another key and an older one are refused on stderr with exit status 1
// and install nothing; a good one is installed.
func TestUpdateCommand(t *testing.T) {
	dir := t.TempDir()
	keysDir, state := filepath.Join(dir, "update-keys"), filepath.Join(dir, "state")
	require.NoError(t, os.MkdirAll(keysDir, 0o755))
	require.NoError(t, os.MkdirAll(state, 0o700))
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	pem, err := block.MarshalPublicKey(pub)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(keysDir, "update.pub"), pem, 0o644))
	const old = "0.1.0+git10.aaa"
	require.NoError(t, os.WriteFile(filepath.Join(state, update.InstalledDeb), []byte("pharaon "+old+" amd64"), 0o644))

	sys := &dpkgFake{installed: old}
	defer func(s func(io.Writer) update.System, e func() int, ro func() (bool, error)) {
		updateSystem, geteuid, systemReadOnly = s, e, ro
	}(updateSystem, geteuid, systemReadOnly)
	updateSystem = func(io.Writer) update.System { return sys }
	euid := 0
	geteuid = func() int { return euid }
	readOnly := false
	systemReadOnly = func() (bool, error) { return readOnly, nil }

	bundle := func(name, version string, key ed25519.PrivateKey) string {
		var buf bytes.Buffer
		_, err := update.Write(&buf, update.Manifest{Kind: update.KindDeb, Package: "pharaon", Version: version, Arch: "amd64",
			Payload: "pharaon_" + version + "_amd64.deb", Created: time.Now()},
			strings.NewReader("pharaon "+version+" amd64"), key)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		return p
	}
	cmd := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"update", "-update-keys", keysDir, "-state", state}, args...),
			osEnv{}, &out, &errb, time.Now())
		return exitCode(err), out.String(), errb.String()
	}

	good := bundle("good.update", "0.1.0+git12.bbb", priv)
	tampered := bundle("tampered.update", "0.1.0+git12.bbb", priv)
	b, _ := os.ReadFile(tampered)
	i := bytes.LastIndex(b, []byte("pharaon 0.1.0+git12.bbb amd64"))
	b[i] ^= 0x20 // "Pharaon": the payload's SHA-256 is not the manifest's
	require.NoError(t, os.WriteFile(tampered, b, 0o644))
	_, other, _ := ed25519.GenerateKey(nil)
	otherKey := bundle("other.update", "0.1.0+git12.bbb", other)
	older := bundle("older.update", "0.1.0+git9.ccc", priv)

	for _, tc := range []struct{ path, says string }{
		{tampered, "le contenu n’est pas celui du manifeste (paquet modifié ou tronqué)"},
		{otherKey, "signé par une clé qui n’est pas une clé de mise à jour de confiance"},
		{older, "version pas plus récente que celle installée"},
	} {
		status, out, stderr := cmd(tc.path)
		assert.Equal(t, exitFailure, status, stderr)
		assert.Contains(t, stderr, filepath.Base(tc.path)+"\u00a0: "+tc.says)
		assert.Empty(t, out)
		assert.Zero(t, sys.installs, "a refused bundle installs nothing")
	}
	status, _, stderr := cmd("-lang", "en", tampered)
	assert.Equal(t, exitFailure, status)
	assert.Contains(t, stderr, "tampered.update: the payload is not the manifest's (tampered or truncated bundle)")

	euid = 1000
	status, _, stderr = cmd(good)
	assert.Equal(t, exitFailure, status)
	assert.Contains(t, stderr, "à lancer en root")
	status, out, stderr := cmd("-check", good)
	assert.Equal(t, exitOK, status, stderr)
	assert.Contains(t, out, "paquet vérifié")
	assert.Zero(t, sys.installs)

	euid = 0
	// The disk image's read-only system takes whole systems only: the
	// technician is told which update to bring.
	readOnly = true
	for _, args := range [][]string{{good}, {"-check", good}} {
		status, out, stderr = cmd(args...)
		assert.Equal(t, exitFailure, status, stderr)
		assert.Contains(t, stderr, "good.update\u00a0: le système de cette borne est en lecture seule\u00a0: elle prend une mise à jour du système entier")
		assert.Empty(t, out)
		assert.Zero(t, sys.installs)
	}
	readOnly = false
	status, out, stderr = cmd(good)
	assert.Equal(t, exitOK, status, stderr)
	assert.Contains(t, out, fmt.Sprintf("pharaon 0.1.0+git12.bbb installée (avant\u00a0: %s)", old))
	assert.Equal(t, 1, sys.installs)
	assert.Equal(t, "0.1.0+git12.bbb", sys.installed)

	status, _, stderr = cmd("-update-keys", filepath.Join(dir, "none"), good)
	assert.Equal(t, exitKeys, status, stderr)
}

// Every reason the update package gives a refusal has the command's words
// in both languages.
func TestUpdateCommandSaysEveryReason(t *testing.T) {
	for _, code := range update.ReasonCodes() {
		r, ok := updateReasons[code]
		if assert.True(t, ok, code) {
			assert.NotEmpty(t, r.fr, code)
			assert.NotEmpty(t, r.en, code)
		}
	}
	assert.Len(t, updateReasons, len(update.ReasonCodes()))
}
