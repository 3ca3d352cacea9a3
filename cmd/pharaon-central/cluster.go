package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"pharaon/kiosk/fleet/authority"
)

// The centre as a cluster (docs/fleet.md, The centre as a cluster): each
// node is a nats-server of its own, run from its configuration
// (init -node NAME writes nats-server-NAME.conf) or by serve -node NAME;
// the streams and buckets are replicated on every node.

// clusterNode is the node the flags name, nil when none of them is given.
func clusterNode(name, cluster, routes string) (*authority.Node, error) {
	if name == "" && cluster == "" && routes == "" {
		return nil, nil
	}
	if name == "" || cluster == "" || routes == "" {
		return nil, errors.New("-node, -cluster et / and -routes, les trois ou aucun / all three or none")
	}
	n := &authority.Node{Name: name, Cluster: cluster, Routes: splitList(routes)}
	if err := n.Check(); err != nil {
		return nil, err
	}
	return n, nil
}

// initNode writes node's configuration for the operator's own nats-server
// and its certificate, made with the fleet's CA for its names (hosts, its
// name, the hosts of listen and of its cluster address).
func initNode(w io.Writer, m *authority.Material, listen, store string, node authority.Node, hosts []string) error {
	if err := m.IssueNodeCert(node.Name, authority.NodeHosts(node, listen, hosts)); err != nil {
		return err
	}
	if err := m.WriteNodeConfig(node, listen, store); err != nil {
		return err
	}
	fmt.Fprintf(w, "NŒUD / NODE %s de la grappe / of the cluster %s\u00a0: %d nœuds / nodes, routes %v\n", node.Name,
		authority.ClusterName, node.Size(), node.Routes)
	fmt.Fprintf(w, "  serveur / server: nats-server -c %s (ou / or pharaon-central serve -fleet %s -node %s …)\n",
		m.NodeConfigFile(node.Name), m.Dir, node.Name)
	fmt.Fprintf(w, "  certificat du nœud / the node's certificate: %s\n", m.NodeCertFile(node.Name))
	fmt.Fprintf(w, "  ensuite / then: pharaon-central provision -replicas %d\n", node.Size())
	return nil
}

// serveNode runs node of the fleet's cluster until ctx ends, as serve runs
// a server alone: the claim service beside it, and the streams and
// buckets provisioned with one copy a node. Provisioning waits for the
// cluster: JetStream answers once a majority of the nodes run, and a
// stream of three copies is made once the three do; meanwhile it says
// why, every provisionEvery.
func serveNode(ctx context.Context, dir, listen, store string, node authority.Node, hosts []string, w io.Writer) error {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", listen, err)
	}
	if store == "" {
		return errors.New("serve: -store DIR is missing")
	}
	m, err := authority.Open(dir)
	if err != nil {
		return err
	}
	w = &lockedWriter{w: w} // the claim service and the provisioning write to it
	if err := m.IssueNodeCert(node.Name, authority.NodeHosts(node, listen, hosts)); err != nil {
		return err
	}
	s := m.NewNode(host, p, store, node)
	if err := s.Start(); err != nil {
		return err
	}
	defer s.Stop()
	url := s.URL()
	stop, err := startClaims(m, url, w)
	if err != nil {
		return err
	}
	defer stop()
	// The rollouts' stop rule, as the kiosks report (updates.go), as a
	// server alone runs it.
	defer startRolloutWatch(m, url, w)()
	fmt.Fprintf(w, "nats-server JetStream: %s, nœud / node %s de / of %s (store %s, fleet %s)\n", url, node.Name,
		authority.ClusterName, store, dir)
	provisioned := make(chan struct{})
	go func() {
		defer close(provisioned)
		provisionNode(ctx, m, url, node.Size(), w)
	}()
	<-ctx.Done()
	<-provisioned
	return nil
}

// provisionEvery is how often a node tries again to provision, and says
// why it could not.
const provisionEvery = 2 * time.Second

// provisionNode provisions the fleet on the cluster at url with replicas
// copies, trying again until it is done or ctx ends.
func provisionNode(ctx context.Context, m *authority.Material, url string, replicas int, w io.Writer) {
	t := time.NewTicker(provisionEvery)
	defer t.Stop()
	for {
		err := func() error {
			c, err := connectCentre(m, url)
			if err != nil {
				return err
			}
			defer c.nc.Close()
			// No deadline of its own: each request has the client's
			// (5 s), so that one the cluster dropped while it had no
			// leader is soon tried again.
			return provision(ctx, w, c, replicas)
		}()
		if err == nil {
			return
		}
		fmt.Fprintf(w, "provision (%d copies): la grappe n’est pas prête / the cluster is not ready: %v\n", replicas, err)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// lockedWriter is a writer for several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
