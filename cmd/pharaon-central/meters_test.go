package main

import (
	"context"
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
	url := startNATS(t)
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
	publish(t, url, "borne-7", st)

	out, err := central(t, time.Now(), "status", "-nats", url)
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
