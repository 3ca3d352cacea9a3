package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
	"pharaon/store"
)

// freeAddrs are n loopback addresses free when it is called.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		out = append(out, ln.Addr().String())
	}
	return out
}

// The centre on three nodes, each pharaon-central serve -node: they form
// the cluster, each provisions the fleet with three copies once the
// three run; a kiosk given the three URLs publishes; with a node stopped,
// status and report answer through the two others, and a payment goes
// through.
func TestCentralCluster(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fleet")
	out, err := central(t, time.Now(), "init", "-fleet", dir)
	require.NoError(t, err, out)
	addrs := freeAddrs(t, 6)
	clients, routes := addrs[:3], addrs[3:]
	var urls []string
	for _, a := range clients {
		urls = append(urls, "tls://"+a)
	}
	logs := make([]*lockedBuffer, 3)
	cancels := make([]context.CancelFunc, 3)
	served := make([]chan error, 3)
	for i := range 3 {
		var others []string
		for j, r := range routes {
			if j != i {
				others = append(others, r)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		logs[i], cancels[i], served[i] = &lockedBuffer{}, cancel, make(chan error, 1)
		args := []string{"serve", "-fleet", dir, "-listen", clients[i], "-store", t.TempDir(),
			"-node", fmt.Sprintf("n%d", i+1), "-cluster", routes[i], "-routes", strings.Join(others, ",")}
		go func() { served[i] <- run(ctx, args, logs[i], logs[i], time.Now) }()
		t.Cleanup(func() {
			cancel()
			require.NoError(t, <-served[i], logs[i].String())
		})
	}
	for i := range 3 {
		if !assert.Eventually(t, func() bool { return strings.Contains(logs[i].String(), "PROVISIONNÉ / PROVISIONED") },
			90*time.Second, 50*time.Millisecond) {
			t.Fatalf("n%d not provisioned:\n%s\n%s\n%s", i+1, logs[0].String(), logs[1].String(), logs[2].String())
		}
		assert.Contains(t, logs[i].String(), fmt.Sprintf("nœud / node n%d de / of pharaon", i+1))
	}
	c := &testCentre{dir: dir, url: strings.Join(urls, ",")}
	js := c.js(t)
	for _, name := range []string{fleet.RecordsStream, fleet.BlocksStream, "KV_" + fleet.VoucherBucket, "KV_" + fleet.ClaimsBucket} {
		s, err := js.Stream(context.Background(), name)
		require.NoError(t, err)
		assert.Equal(t, 3, s.CachedInfo().Config.Replicas, name)
	}

	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.BillIn(context.Background(), 20*game.Euro, "note-1")
	require.NoError(t, err)
	publish(t, c, "PH-1", st)
	out, err = c.cmd(t, time.Now(), "status")
	require.NoError(t, err, out)
	assert.Contains(t, out, "PH-1")

	// A node stopped: the two others answer.
	cancels[0]()
	require.NoError(t, <-served[0], logs[0].String())
	served[0] <- nil // for the cleanup
	c.url = strings.Join(urls[1:], ",")
	_, err = st.BillIn(context.Background(), 10*game.Euro, "note-2")
	require.NoError(t, err)
	publish(t, c, "PH-1", st)
	out, err = c.cmd(t, time.Now(), "status")
	require.NoError(t, err, out)
	assert.Contains(t, out, "30\u00a0€", "the credit of both notes")
	out, err = c.cmd(t, time.Now(), "report")
	require.NoError(t, err, out)
}

// init -node writes the node's configuration for the operator's own
// nats-server, and its certificate for its names; flags that do not make
// a node are refused and nothing is written.
func TestCentralInitNode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fleet")
	out, err := central(t, time.Now(), "init", "-fleet", dir, "-listen", "0.0.0.0:4222", "-hosts", "n2.centre.example,10.0.0.2",
		"-node", "n2", "-cluster", "0.0.0.0:6222", "-routes", "n1.centre.example:6222,n3.centre.example:6222")
	require.NoError(t, err, out)
	assert.Contains(t, out, "nats-server-n2.conf")
	assert.Contains(t, out, "provision -replicas 3")
	m, err := authority.Open(dir)
	require.NoError(t, err)
	opts, err := server.ProcessConfigFile(m.NodeConfigFile("n2"))
	require.NoError(t, err)
	assert.Equal(t, "n2", opts.ServerName)
	assert.Len(t, opts.Routes, 2)
	assert.FileExists(t, m.NodeCertFile("n2"))

	for _, bad := range [][]string{
		{"-node", "n4"},
		{"-node", "n4", "-cluster", "0.0.0.0:6222"},
		{"-node", "n 4", "-cluster", "0.0.0.0:6222", "-routes", "h:1"},
		{"-node", "n4", "-cluster", "0.0.0.0:6222", "-routes", "nohost"},
	} {
		out, err := central(t, time.Now(), append([]string{"init", "-fleet", dir}, bad...)...)
		assert.ErrorIs(t, err, errUsage, "%v: %s", bad, out)
		_, err = os.Stat(m.NodeConfigFile("n4"))
		assert.ErrorIs(t, err, os.ErrNotExist, "%v", bad)
		_, err = os.Stat(m.NodeCertFile("n4"))
		assert.ErrorIs(t, err, os.ErrNotExist, "%v", bad)
	}
	out, err = central(t, time.Now(), "status", "-fleet", dir, "-node", "n2", "-cluster", "h:1", "-routes", "g:1")
	assert.ErrorIs(t, err, errUsage, out)
}
