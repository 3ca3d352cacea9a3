package authority

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The fleet's centre as a cluster (docs/fleet.md, The centre as a
// cluster): three nats-servers (or five) with JetStream clustered, the
// streams and buckets replicated on each, so that the kiosks keep
// publishing, the vouchers keep being paid and the claims answered while
// one server is down. The nodes speak to each other over TLS only, each
// presenting a certificate of the fleet's CA made for it (its node
// certificate) and verifying the other's with the same CA: a kiosk, which
// holds the CA but no certificate of it, cannot pose as a node, and a
// route is refused to whatever the CA did not sign.

// ClusterName is the name of the fleet's cluster: every node's.
const ClusterName = "pharaon"

// Node is a server's place in the fleet's cluster.
type Node struct {
	// Name is the server's name (server_name), unique in the cluster and
	// kept across its restarts: JetStream knows a node's replicas by it.
	Name string
	// Cluster is the host:port the other nodes' routes reach this one on.
	Cluster string
	// Routes are the other nodes' cluster addresses, host:port, by a name
	// their node certificates carry.
	Routes []string
}

// Size is how many nodes the cluster has, this one and its routes: the
// replicas of the streams and buckets.
func (n Node) Size() int { return 1 + len(n.Routes) }

var nodeNameRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// Check refuses a node the server could not run as.
func (n Node) Check() error {
	if !nodeNameRe.MatchString(n.Name) {
		return fmt.Errorf("node name %q: 1 to 32 ASCII letters, digits, - or _", n.Name)
	}
	if _, _, err := splitHostPort(n.Cluster); err != nil {
		return fmt.Errorf("node %s: cluster address: %w", n.Name, err)
	}
	if len(n.Routes) == 0 {
		return fmt.Errorf("node %s: no route to another node", n.Name)
	}
	for _, r := range n.Routes {
		if _, _, err := splitHostPort(r); err != nil {
			return fmt.Errorf("node %s: route: %w", n.Name, err)
		}
		if r == n.Cluster {
			return fmt.Errorf("node %s: route %s is its own cluster address", n.Name, r)
		}
	}
	return nil
}

func splitHostPort(addr string) (string, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("%q: %w", addr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return "", 0, fmt.Errorf("%q: port %q", addr, port)
	}
	return host, p, nil
}

// NodeCertFile and NodeKeyFile are node name's certificate and key, which
// it presents to the kiosks and to the other nodes.
func (m *Material) NodeCertFile(name string) string {
	return filepath.Join(m.Dir, "tls", "nodes", name+".pem")
}
func (m *Material) NodeKeyFile(name string) string {
	return filepath.Join(m.Dir, "tls", "nodes", name+"-key.pem")
}

// NodeConfigFile is node name's nats-server configuration
// (pharaon-central init -node NAME).
func (m *Material) NodeConfigFile(name string) string {
	return filepath.Join(m.Dir, "nats-server-"+name+".conf")
}

// ErrNoCAKey: the fleet's TLS came from the operator's own CA
// (init -tls-ca), whose key the centre does not hold, so it cannot make a
// node's certificate.
var ErrNoCAKey = errors.New("the fleet's CA key is not in the centre's directory (a CA of your own): no node certificate can be made")

// IssueNodeCert makes node name's certificate with the fleet's CA, for
// hosts (the names and addresses the kiosks and the other nodes reach it
// by), unless it has one: a node keeps its certificate across restarts,
// RenewNodeCert makes it again. Its certificate serves both ways, to the
// kiosks and the nodes connecting to it and to the nodes it connects to.
func (m *Material) IssueNodeCert(name string, hosts []string) error {
	if !nodeNameRe.MatchString(name) {
		return fmt.Errorf("node name %q: 1 to 32 ASCII letters, digits, - or _", name)
	}
	if _, err := os.Stat(m.NodeCertFile(name)); err == nil {
		return nil
	}
	return m.RenewNodeCert(name, hosts)
}

// RenewNodeCert makes node name's certificate again for hosts.
func (m *Material) RenewNodeCert(name string, hosts []string) error {
	if len(hosts) == 0 {
		return fmt.Errorf("node %s: no host for its certificate", name)
	}
	if _, err := os.Stat(m.caKeyFile()); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("node %s: %w", name, ErrNoCAKey)
	}
	caKey, caCert, err := loadCA(m.CAFile(), m.caKeyFile())
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: name, Organization: []string{OperatorName}, OrganizationalUnit: []string{ClusterName}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(serverValidity),
		KeyUsage: x509.KeyUsageDigitalSignature,
		// Server for the kiosks and the routes it accepts, client for
		// the routes it opens: the other node verifies it as a client.
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := WriteFile(m.NodeKeyFile(name), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return err
	}
	return WriteFile(m.NodeCertFile(name), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

// NodeHosts are the names a node's certificate carries: its name, the
// hosts of its addresses that are not "any" (0.0.0.0, ::, empty), and
// extra (pharaon-central's -hosts).
func NodeHosts(node Node, listen string, extra []string) []string {
	all := []string{node.Name}
	for _, addr := range []string{listen, node.Cluster} {
		if h, _, err := net.SplitHostPort(addr); err == nil && h != "" && !net.ParseIP(h).IsUnspecified() {
			all = append(all, h)
		}
	}
	var hosts []string
	for _, h := range append(all, extra...) {
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// clusterConfig is the configuration's part for a node: its name, the
// cluster's routes over TLS verified both ways with the fleet's CA, and
// the kiosks' connections served with the node's certificate. The nodes
// do not advertise their addresses to the clients: a kiosk reaches the
// nodes its configuration names (nats-url), by the names their
// certificates carry.
func (m *Material) clusterConfig(b *strings.Builder, node Node, abs func(string) string) {
	fmt.Fprintf(b, "server_name: %s\n", strconv.Quote(node.Name))
	fmt.Fprintf(b, "cluster: {\n  name: %s\n  listen: %s\n  no_advertise: true\n", strconv.Quote(ClusterName), strconv.Quote(node.Cluster))
	fmt.Fprintf(b, "  routes: [\n")
	for _, r := range node.Routes {
		fmt.Fprintf(b, "    %s\n", strconv.Quote("nats-route://"+r))
	}
	fmt.Fprintf(b, "  ]\n")
	fmt.Fprintf(b, "  tls: {\n    cert_file: %s\n    key_file: %s\n    ca_file: %s\n    verify: true\n    timeout: 5\n  }\n}\n",
		strconv.Quote(abs(m.NodeCertFile(node.Name))), strconv.Quote(abs(m.NodeKeyFile(node.Name))), strconv.Quote(abs(m.CAFile())))
}

// LocalCluster is the fleet's cluster of len(stores) nodes on host
// (loopback), node i storing in stores[i], named n1, n2, …: each on two
// ports (the kiosks', the routes') free when it is called, which it keeps
// across its restarts. For the tests (kiosk/fleet/fleettest) and a
// development centre; none is started.
func (m *Material) LocalCluster(host string, stores []string) ([]*Server, error) {
	if len(stores) < 2 {
		return nil, fmt.Errorf("a cluster of %d node", len(stores))
	}
	ports := make([]int, 2*len(stores))
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for i := range ports {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	cluster := func(i int) string { return net.JoinHostPort(host, strconv.Itoa(ports[2*i+1])) }
	out := make([]*Server, len(stores))
	for i, store := range stores {
		node := Node{Name: "n" + strconv.Itoa(i+1), Cluster: cluster(i)}
		for j := range stores {
			if j != i {
				node.Routes = append(node.Routes, cluster(j))
			}
		}
		if err := m.IssueNodeCert(node.Name, NodeHosts(node, "", []string{"localhost"})); err != nil {
			return nil, err
		}
		out[i] = m.NewNode(host, ports[2*i], store, node)
	}
	return out, nil
}
