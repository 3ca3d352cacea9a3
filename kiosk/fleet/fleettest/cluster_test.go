package fleettest_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/fleettest"
	"pharaon/store"
)

// A kiosk publishes to the cluster's three nodes; one node is rebuilt
// empty (Wipe) and the kiosk goes on; the stream holds each record once,
// provisioned with three copies.
func TestStartCluster(t *testing.T) {
	c := fleettest.StartCluster(t, 3)
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	p, err := fleet.NewPublisher(c.Kiosk(t, "PH-1"), st)
	require.NoError(t, err)
	p.MinBackoff, p.MaxBackoff, p.Poll = 10*time.Millisecond, 100*time.Millisecond, 20*time.Millisecond
	var acked atomic.Int64
	p.OnAck = func(upTo int64) { acked.Store(upTo) }
	pctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { p.Run(pctx); close(done) }()
	defer func() { stop(); <-done }()
	log := func(n int) {
		for i := range n {
			_, err := st.Log(ctx, store.Event{Level: store.LevelInfo, Source: "test", Code: "tick", Detail: fmt.Sprint(i)})
			require.NoError(t, err)
		}
	}
	log(20)
	require.Eventually(t, func() bool { return acked.Load() == 20 }, time.Minute, 10*time.Millisecond)
	require.NoError(t, c.Wipe(1))
	log(20)
	require.Eventually(t, func() bool { return acked.Load() == 40 }, time.Minute, 10*time.Millisecond)

	js := c.JS(t)
	s, err := js.Stream(ctx, fleet.RecordsStream)
	require.NoError(t, err)
	info := s.CachedInfo()
	assert.Equal(t, 3, info.Config.Replicas)
	assert.Equal(t, uint64(40), info.State.Msgs)
}
