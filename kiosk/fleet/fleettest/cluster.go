package fleettest

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
)

// Cluster is the fleet's centre on n nodes of a cluster
// (authority.LocalCluster, docs/fleet.md The centre as a cluster): each
// an embedded nats-server on loopback with its own store, routes over TLS
// verified with the fleet's CA, JetStream clustered, the streams and
// buckets provisioned with one copy a node, the centre's claim service,
// and each kiosk configured with every node's URL. A node can be stopped
// and started again (Nodes[i].Stop, Start) or rebuilt empty (Wipe).
type Cluster struct {
	Material *authority.Material
	Nodes    []*authority.Server
	master   []byte

	mu     sync.Mutex
	kiosks map[string]fleet.Config
}

// StartCluster starts a cluster of n nodes (3 for a centre that keeps
// running when one dies), provisioned, stopped at the test's end.
func StartCluster(t *testing.T, n int) *Cluster {
	t.Helper()
	m, err := authority.Init(t.TempDir(), authority.TLSInput{})
	require.NoError(t, err)
	master, err := m.VoucherMaster()
	require.NoError(t, err)
	stores := make([]string, n)
	for i := range stores {
		stores[i] = t.TempDir()
	}
	nodes, err := m.LocalCluster("127.0.0.1", stores)
	require.NoError(t, err)
	c := &Cluster{Material: m, Nodes: nodes, master: master, kiosks: map[string]fleet.Config{}}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, s := range nodes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = s.Start() }()
		t.Cleanup(s.Stop)
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	// JetStream answers once the nodes elected their leader.
	js := c.JS(t)
	var perr error
	require.Eventually(t, func() bool {
		perr = fleet.Provision(context.Background(), js, n)
		return perr == nil
	}, time.Minute, 100*time.Millisecond, "provision: %v", &perr)
	nc := c.Connect(t)
	stop, err := fleet.ServeClaims(nc, nil)
	require.NoError(t, err)
	t.Cleanup(stop)
	return c
}

// URL is every node's URL, comma-separated: the kiosks' and the centre's.
func (c *Cluster) URL() string {
	urls := make([]string, len(c.Nodes))
	for i, s := range c.Nodes {
		urls[i] = s.URL()
	}
	return strings.Join(urls, ",")
}

// Connect is a connection as the centre that goes from node to node as
// they stop and start, closed at the test's end.
func (c *Cluster) Connect(t *testing.T) *nats.Conn {
	t.Helper()
	nc, err := c.Material.Connect(c.URL(), authority.AccountName, authority.CentralUser,
		nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// JS is JetStream on Connect's connection.
func (c *Cluster) JS(t *testing.T) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(c.Connect(t))
	require.NoError(t, err)
	return js
}

// Kiosk is kiosk id's configuration in groups, as Centre.Kiosk, reaching
// every node.
func (c *Cluster) Kiosk(t *testing.T, id string, groups ...string) fleet.Config {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.kiosks[id]; ok {
		return k
	}
	k := issueKiosk(t, c.Material, c.JS(t), c.master, c.URL(), id, groups)
	c.kiosks[id] = k
	return k
}

// Vouchers is the centre's voucher bucket for the kiosks configured.
func (c *Cluster) Vouchers(t *testing.T) *fleet.Vouchers {
	t.Helper()
	c.mu.Lock()
	ids := slices.Sorted(maps.Keys(c.kiosks))
	c.mu.Unlock()
	v, err := fleet.NewVouchers(context.Background(), c.JS(t), c.master, ids)
	require.NoError(t, err)
	return v
}

// Wipe stops node i, deletes its store and starts it again empty: the
// cluster rebuilds its replicas from the other nodes.
func (c *Cluster) Wipe(i int) error {
	c.Nodes[i].Stop()
	if err := os.RemoveAll(c.Nodes[i].Store()); err != nil {
		return err
	}
	return c.Nodes[i].Start()
}
