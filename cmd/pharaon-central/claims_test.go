package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
)

// The claim service beside the operator's own nats-server
// (pharaon-central claims): without it a kiosk is told that the fleet
// does not answer its claim; while it runs, the kiosk's claim is written,
// in the kiosk's name.
func TestCentralClaims(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fleet")
	out, err := central(t, time.Now(), "init", "-fleet", dir)
	require.NoError(t, err, out)
	m, err := authority.Open(dir)
	require.NoError(t, err)
	srv := m.NewServer("127.0.0.1", -1, t.TempDir())
	require.NoError(t, srv.Start())
	t.Cleanup(srv.Stop)
	c := &testCentre{dir: dir, url: srv.URL()}
	out, err = c.cmd(t, time.Now(), "provision")
	require.NoError(t, err, out)
	cl, err := fleet.NewClaimer(c.kiosk(t, "borne-1"))
	require.NoError(t, err)
	defer cl.Close()
	b := kiosk.BlockClaim{Emission: 7, Number: 3, At: time.Now(), Via: "local"}
	_, err = cl.Claim(context.Background(), b)
	assert.ErrorIs(t, err, kiosk.ErrFleetOffline, "no claim service")
	assert.ErrorContains(t, err, "pharaon-central claims")

	ctx, cancel := context.WithCancel(context.Background())
	var logs lockedBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"claims", "-fleet", dir, "-nats", c.url}, &logs, &logs, time.Now) }()
	require.Eventually(t, func() bool { return logs.String() != "" }, 30*time.Second, 10*time.Millisecond)
	assert.Contains(t, logs.String(), "revendications / claims: "+c.url)
	_, err = cl.Claim(context.Background(), b)
	require.NoError(t, err, logs.String())
	claim, err := fleet.ReadClaim(context.Background(), fleet.NewBucket(c.js(t), fleet.ClaimsBucket), 7, 3)
	require.NoError(t, err)
	assert.Equal(t, "borne-1", claim.Kiosk)
	cancel()
	require.NoError(t, <-done)
}
