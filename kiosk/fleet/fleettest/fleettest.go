// Package fleettest is a fleet's centre for the tests of the commands
// (cmd/pharaon), on one server (Start) or on a cluster (StartCluster): an embedded nats-server in operator mode with TLS and
// the fleet's material as pharaon-central makes it (kiosk/fleet/authority),
// the streams and buckets provisioned, the centre's claim service, and each kiosk's configuration with
// its own credentials and permissions, as in production. It is for tests
// only.
package fleettest

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
)

// Centre is the fleet's server and the centre's material.
type Centre struct {
	*authority.Server
	Material *authority.Material
	master   []byte

	mu     sync.Mutex
	kiosks map[string]fleet.Config
}

// Start starts a centre, stopped at the test's end; Stop and Start stop
// it and start it again on the same port and store.
func Start(t *testing.T) *Centre {
	t.Helper()
	m, err := authority.Init(filepath.Join(t.TempDir(), "fleet"), authority.TLSInput{})
	require.NoError(t, err)
	master, err := m.VoucherMaster()
	require.NoError(t, err)
	c := &Centre{Server: m.NewServer("127.0.0.1", -1, t.TempDir()), Material: m, master: master, kiosks: map[string]fleet.Config{}}
	require.NoError(t, c.Server.Start())
	t.Cleanup(c.Stop)
	require.NoError(t, fleet.Provision(context.Background(), c.JS(t), 1))
	// The centre's claim service, on a connection that follows the
	// server through Stop and Start.
	nc, err := m.Connect(c.URL(), authority.AccountName, authority.CentralUser,
		nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	require.NoError(t, err)
	stop, err := fleet.ServeClaims(nc, nil)
	require.NoError(t, err)
	t.Cleanup(func() { stop(); nc.Close() })
	return c
}

// JS is a connection as the centre, closed at the test's end.
func (c *Centre) JS(t *testing.T) jetstream.JetStream {
	t.Helper()
	nc, err := c.Material.Connect(c.URL(), authority.AccountName, authority.CentralUser)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

// Kiosk is kiosk id's configuration in groups, as pharaon-central kiosk
// add makes it: its user with fleet.KioskPermissions, its consumer of the
// deliveries, its voucher key. Asked again, the same.
func (c *Centre) Kiosk(t *testing.T, id string, groups ...string) fleet.Config {
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

// issueKiosk issues kiosk id's user in groups with its permissions, makes
// its consumer of the deliveries, and returns its configuration reaching
// url.
func issueKiosk(t *testing.T, m *authority.Material, js jetstream.JetStream, master []byte, url, id string, groups []string) fleet.Config {
	t.Helper()
	p := authority.Permissions(fleet.KioskPermissions(id, groups))
	creds, err := m.IssueUser(authority.AccountName, id, &p, time.Time{})
	require.NoError(t, err)
	require.NoError(t, fleet.ProvisionKiosk(context.Background(), js, id, groups))
	return fleet.Config{URL: url, KioskID: id, CredsFile: creds, CAFile: m.CAFile(), VoucherKey: fleet.KioskVoucherKey(master, id)}
}

// Vouchers is the centre's voucher bucket for the kiosks configured.
func (c *Centre) Vouchers(t *testing.T) *fleet.Vouchers {
	t.Helper()
	c.mu.Lock()
	ids := slices.Sorted(maps.Keys(c.kiosks))
	c.mu.Unlock()
	v, err := fleet.NewVouchers(context.Background(), c.JS(t), c.master, ids)
	require.NoError(t, err)
	return v
}
