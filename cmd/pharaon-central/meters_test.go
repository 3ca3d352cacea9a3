package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

// status shows each kiosk's latest meter snapshot.
func TestStatusShowsTheMeterSnapshot(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.Adjust(ctx, 20*game.Euro, "", "test credit")
	require.NoError(t, err)
	_, err = st.SnapshotMeters(ctx, store.SnapshotBoot)
	require.NoError(t, err)
	snap, err := st.SnapshotMeters(ctx, store.SnapshotReport)
	require.NoError(t, err)
	publish(t, c, "borne-7", st)

	out, err := c.cmd(t, time.Now(), "status")
	require.NoError(t, err, out)
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "COMPTEURS / METERS borne-7") {
			line = l
		}
	}
	require.NotEmpty(t, line, out)
	assert.Contains(t, line, "relevé / snapshot 2, "+snap.At.Format("2006-01-02 15:04:05")+" UTC")
	assert.Contains(t, line, "parties / plays 0")
}

// status -anchor-keys checks each kiosk's seals with its secret: the
// right one passes, another kiosk's is reported.
func TestStatusChecksTheSeals(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "pharaon.db")
	st, err := store.Open(path, store.WithAnchor(store.DefaultAnchor(path)))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.SnapshotMeters(ctx, store.SnapshotBoot)
	require.NoError(t, err)
	publish(t, c, "borne-7", st)

	keys := t.TempDir()
	key, err := store.AnchorKeyOf(store.DefaultAnchor(path))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(keys, "borne-7.key"), key, 0o600))
	out, err := c.cmd(t, time.Now(), "status", "-anchor-keys", keys)
	require.NoError(t, err, out)
	assert.NotContains(t, out, "PROBLÈME")

	key[0] ^= 1
	require.NoError(t, os.WriteFile(filepath.Join(keys, "borne-7.key"), key, 0o600))
	out, err = c.cmd(t, time.Now(), "status", "-anchor-keys", keys)
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "PROBLÈME / PROBLEM borne-7\u00a0: anchor record")
	assert.Contains(t, out, ": its seal is not the kiosk's")

	require.NoError(t, os.WriteFile(filepath.Join(keys, "borne-7.key"), key[:8], 0o600))
	_, err = c.cmd(t, time.Now(), "status", "-anchor-keys", keys)
	assert.ErrorContains(t, err, "is 8 bytes")
}
