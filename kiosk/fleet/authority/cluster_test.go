package authority

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startCluster starts a LocalCluster of n nodes, stopped at the test's end.
func startCluster(t *testing.T, m *Material, n int) []*Server {
	t.Helper()
	stores := make([]string, n)
	for i := range stores {
		stores[i] = t.TempDir()
	}
	nodes, err := m.LocalCluster("127.0.0.1", stores)
	require.NoError(t, err)
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
	return nodes
}

// remoteNames are the names of the nodes s has a route to.
func remoteNames(t *testing.T, s *server.Server) map[string]bool {
	t.Helper()
	rz, err := s.Routez(nil)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, r := range rz.Routes {
		names[r.RemoteName] = true
	}
	return names
}

// Three nodes made from the fleet's material form one cluster over TLS,
// JetStream clustered across them (an R3 stream is made and answers from
// any node); a server whose certificate another CA signed, though it
// trusts the fleet's CA and names a node's cluster address, gets no
// route: the nodes verify each other with the fleet's CA.
func TestClusterRoutesOnlyTheFleetsNodes(t *testing.T) {
	m, err := Init(t.TempDir(), TLSInput{})
	require.NoError(t, err)
	nodes := startCluster(t, m, 3)
	require.Eventually(t, func() bool {
		for _, s := range nodes {
			if len(remoteNames(t, s.NATS())) != 2 {
				return false
			}
		}
		return true
	}, 20*time.Second, 50*time.Millisecond, "every node routes to the two others")
	assert.Equal(t, map[string]bool{"n2": true, "n3": true}, remoteNames(t, nodes[0].NATS()))

	// The kiosks' side is TLS with the node's certificate, verified with
	// the fleet's CA.
	nc, err := m.Connect(nodes[2].URL(), AccountName, CentralUser)
	require.NoError(t, err)
	defer nc.Close()
	state, err := nc.TLSConnectionState()
	require.NoError(t, err)
	assert.Equal(t, "n3", state.PeerCertificates[0].Subject.CommonName)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := js.CreateStream(t.Context(), jetstream.StreamConfig{Name: "R3", Subjects: []string{"r3.>"}, Replicas: 3})
		return err == nil
	}, 30*time.Second, 200*time.Millisecond, "an R3 stream once JetStream has its leader")
	s, err := js.Stream(t.Context(), "R3")
	require.NoError(t, err)
	info := s.CachedInfo()
	require.NotNil(t, info.Cluster)
	assert.Equal(t, ClusterName, info.Cluster.Name)
	assert.Len(t, info.Cluster.Replicas, 2, "two replicas beside the leader")

	// Another fleet's node, its certificate of another CA, trusting ours.
	other, err := Init(t.TempDir(), TLSInput{})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port for its routes (0 would be no cluster)
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	rogue := Node{Name: "n9", Cluster: addr, Routes: []string{nodes[0].Node().Cluster}}
	require.NoError(t, other.IssueNodeCert(rogue.Name, []string{"127.0.0.1"}))
	ca, err := os.ReadFile(m.CAFile())
	require.NoError(t, err)
	require.NoError(t, WriteFile(other.CAFile(), ca, 0o644))
	rs := other.NewNode("127.0.0.1", -1, t.TempDir(), rogue)
	require.NoError(t, rs.Start())
	defer rs.Stop()
	time.Sleep(3 * time.Second) // its route is tried at once, then every second
	assert.Zero(t, rs.NATS().NumRoutes(), "the rogue node has no route")
	assert.Equal(t, map[string]bool{"n2": true, "n3": true}, remoteNames(t, nodes[0].NATS()), "n1 refused it")
}

// A node's configuration for the operator's own nats-server parses, says
// the node's name, the cluster's routes with TLS verified both ways and
// JetStream; a kiosk added afterwards (RefreshServerConfig) leaves it the
// same node.
func TestNodeConfigFileParses(t *testing.T) {
	m, err := Init(t.TempDir(), TLSInput{Hosts: []string{"centre.example"}})
	require.NoError(t, err)
	node := Node{Name: "n2", Cluster: "0.0.0.0:6222", Routes: []string{"n1.centre.example:6222", "n3.centre.example:6222"}}
	require.NoError(t, m.IssueNodeCert(node.Name, NodeHosts(node, "0.0.0.0:4222", []string{"n2.centre.example"})))
	require.NoError(t, m.WriteNodeConfig(node, "0.0.0.0:4222", filepath.Join(m.Dir, "jetstream-n2")))
	before, err := os.ReadFile(m.NodeConfigFile("n2"))
	require.NoError(t, err)
	opts, err := server.ProcessConfigFile(m.NodeConfigFile("n2"))
	require.NoError(t, err)
	assert.Equal(t, "n2", opts.ServerName)
	assert.Equal(t, ClusterName, opts.Cluster.Name)
	assert.Equal(t, 6222, opts.Cluster.Port)
	require.Len(t, opts.Routes, 2)
	assert.Equal(t, "n1.centre.example:6222", opts.Routes[0].Host)
	require.NotNil(t, opts.Cluster.TLSConfig)
	assert.Equal(t, tls.RequireAndVerifyClientCert, opts.Cluster.TLSConfig.ClientAuth)
	assert.NotNil(t, opts.Cluster.TLSConfig.RootCAs)
	assert.True(t, opts.JetStream)
	assert.NotNil(t, opts.TLSConfig)

	cert, err := tls.LoadX509KeyPair(m.NodeCertFile("n2"), m.NodeKeyFile("n2"))
	require.NoError(t, err)
	leaf := cert.Leaf
	assert.ElementsMatch(t, []string{"n2", "n2.centre.example"}, leaf.DNSNames, "0.0.0.0 is no name")

	require.NoError(t, m.RefreshServerConfig())
	after, err := os.ReadFile(m.NodeConfigFile("n2"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))

	_, err = m.NodeConfig(Node{Name: "n 1", Cluster: "h:1", Routes: []string{"g:1"}}, "0.0.0.0:4222", "js")
	assert.ErrorContains(t, err, "node name")
	_, err = m.NodeConfig(Node{Name: "n1", Cluster: "h:1"}, "0.0.0.0:4222", "js")
	assert.ErrorContains(t, err, "no route")
}

// The nodes' certificates need the fleet's CA key: a fleet on a company
// CA is told so and nothing is written.
func TestNodeCertNeedsTheCAKey(t *testing.T) {
	company, err := Init(t.TempDir(), TLSInput{Hosts: []string{"127.0.0.1"}})
	require.NoError(t, err)
	m, err := Init(t.TempDir(), TLSInput{CAFile: company.CAFile(), CertFile: company.ServerCertFile(), KeyFile: company.ServerKeyFile()})
	require.NoError(t, err)
	require.ErrorIs(t, m.IssueNodeCert("n1", []string{"n1"}), ErrNoCAKey)
	_, err = os.Stat(m.NodeCertFile("n1"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
