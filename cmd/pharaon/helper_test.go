package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
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
	"pharaon/kiosk"
	"pharaon/kiosk/helper"
	"pharaon/kiosk/update"
)

// The maintenance screen asks the helper command to install a bundle from
// a stick: the helper trusts only the keys of its own directory, so a
// bundle signed by another key, or tampered with, is refused with the same
// reasons as pharaon update, and a good one is installed.
func TestHelperCommandInstallsOnlyWhatPharaonUpdateWould(t *testing.T) {
	dir := t.TempDir()
	keysDir, state := filepath.Join(dir, "update-keys"), filepath.Join(dir, "state")
	media := filepath.Join(dir, "media")
	stick := filepath.Join(media, "sda1")
	for _, d := range []string{keysDir, state, stick} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	pem, err := block.MarshalPublicKey(pub)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(keysDir, "update.pub"), pem, 0o644))
	const old = "0.1.0+git10.aaa"
	require.NoError(t, os.WriteFile(filepath.Join(state, update.InstalledDeb), []byte("pharaon "+old+" amd64"), 0o644))
	mountinfo := filepath.Join(dir, "mountinfo")
	require.NoError(t, os.WriteFile(mountinfo, []byte(fmt.Sprintf(
		"26 1 254:2 / / rw - ext4 /dev/vda2 rw\n97 26 8:1 / %s ro,nosuid,nodev,noexec - vfat /dev/sda1 ro\n", stick)), 0o644))

	sys := &dpkgFake{installed: old}
	defer func(s func(io.Writer) update.System, e func() int, h func() helper.System, ro func() (bool, error)) {
		updateSystem, geteuid, helperSystem, systemReadOnly = s, e, h, ro
	}(updateSystem, geteuid, helperSystem, systemReadOnly)
	updateSystem = func(io.Writer) update.System { return sys }
	systemReadOnly = func() (bool, error) { return false, nil }
	helperSystem = func() helper.System { return helper.Machine{MountInfo: mountinfo} }
	euid := 1000
	geteuid = func() int { return euid }

	bundle := func(name, version string, key ed25519.PrivateKey) {
		var buf bytes.Buffer
		_, err := update.Write(&buf, update.Manifest{Kind: update.KindDeb, Package: "pharaon", Version: version, Arch: "amd64",
			Payload: "pharaon_" + version + "_amd64.deb", Created: time.Now()},
			strings.NewReader("pharaon "+version+" amd64"), key)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(stick, name), buf.Bytes(), 0o644))
	}
	bundle("good.update", "0.1.0+git12.bbb", priv)
	_, other, _ := ed25519.GenerateKey(nil)
	bundle("other.update", "0.1.0+git12.bbb", other)

	sockDir, err := os.MkdirTemp("", "ph")
	require.NoError(t, err)
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "h.sock")
	args := []string{"helper", "-socket", sock, "-media", media, "-update-keys", keysDir, "-state", state, "-user", "root", "-idle", "0"}

	var stderr syncBuffer
	err = run(context.Background(), args, osEnv{}, io.Discard, &stderr, time.Now())
	assert.Equal(t, exitFailure, exitCode(err))
	assert.Contains(t, stderr.String(), "must run as root")

	euid = 0
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, osEnv{}, io.Discard, &stderr, time.Now()) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()
	c := &helper.Client{Socket: sock}
	require.Eventually(t, func() bool { _, err := os.Stat(sock); return err == nil }, 10*time.Second, 10*time.Millisecond)

	sticks, err := c.Sticks(ctx)
	require.NoError(t, err)
	require.Len(t, sticks, 1)
	assert.Equal(t, []string{"good.update", "other.update"}, sticks[0].Updates)

	_, err = c.Install(ctx, "sda1", "other.update", nil)
	assert.Equal(t, "untrusted", helper.CodeOf(err))
	u, err := c.Check(ctx, "sda1", "good.update")
	require.NoError(t, err)
	assert.Equal(t, helper.Update{Package: "pharaon", Version: "0.1.0+git12.bbb", From: old, Key: block.KeyIDOf(pub).String()}, u)
	assert.Zero(t, sys.installs)

	u, err = c.Install(ctx, "sda1", "good.update", nil)
	require.NoError(t, err)
	assert.Equal(t, old, u.From)
	assert.Equal(t, 1, sys.installs)
	assert.Equal(t, "0.1.0+git12.bbb", sys.installed)
	_, err = c.Install(ctx, "sda1", "good.update", nil)
	assert.Equal(t, "downgrade", helper.CodeOf(err), "the same version again")

	require.NoError(t, os.Remove(filepath.Join(keysDir, "update.pub")))
	_, err = c.Check(ctx, "sda1", "good.update")
	assert.Equal(t, "nokeys", helper.CodeOf(err))
	assert.Contains(t, stderr.String(), "pharaon helper: install sda1 good.update: done")
}

// The helper names an export's folder by the kiosk's time zone, not the
// system's.
func TestHelperClockIsTheKiosks(t *testing.T) {
	t.Setenv("TZ", "America/New_York")
	now := kioskNow()
	assert.Equal(t, kiosk.DefaultZone, now.Location().String())
	assert.WithinDuration(t, time.Now(), now, time.Minute)
}
