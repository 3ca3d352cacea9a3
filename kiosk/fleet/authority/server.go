package authority

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// ServerConfigFile is the nats-server configuration pharaon-central init
// writes for the operator's own server (nats-server -c FILE).
func (m *Material) ServerConfigFile() string { return filepath.Join(m.Dir, "nats-server.conf") }

// ServerConfig is the configuration of a nats-server for the fleet:
// operator mode trusting the fleet's operator, its two accounts preloaded
// (no account server to run), JetStream storing in storeDir, TLS with the
// centre's certificate (clients must speak TLS), listening on listen.
func (m *Material) ServerConfig(listen, storeDir string) (string, error) {
	return m.serverConfig(listen, storeDir, nil)
}

// NodeConfig is ServerConfig for node of the fleet's cluster (cluster.go):
// its name, its routes to the other nodes over TLS verified with the
// fleet's CA both ways, JetStream clustered, and its own certificate
// (IssueNodeCert makes it) for the kiosks too.
func (m *Material) NodeConfig(node Node, listen, storeDir string) (string, error) {
	if err := node.Check(); err != nil {
		return "", err
	}
	return m.serverConfig(listen, storeDir, &node)
}

func (m *Material) serverConfig(listen, storeDir string, node *Node) (string, error) {
	accJWT, err := m.AccountJWT()
	if err != nil {
		return "", err
	}
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The fleet's nats-server, written by pharaon-central (docs/fleet.md).\n")
	fmt.Fprintf(&b, "# Operator mode: only the users the centre issued connect, each with its permissions.\n")
	fmt.Fprintf(&b, "listen: %s\n", strconv.Quote(listen))
	fmt.Fprintf(&b, "operator: %s\n", strconv.Quote(abs(m.OperatorJWTFile())))
	fmt.Fprintf(&b, "system_account: %s\n", m.operatorClaims.SystemAccount)
	fmt.Fprintf(&b, "resolver: MEMORY\n")
	fmt.Fprintf(&b, "resolver_preload: {\n  %s: %s\n  %s: %s\n}\n",
		m.accountClaims.Subject, strconv.Quote(strings.TrimSpace(accJWT)),
		m.operatorClaims.SystemAccount, strconv.Quote(strings.TrimSpace(m.systemJWT)))
	fmt.Fprintf(&b, "jetstream: {\n  store_dir: %s\n}\n", strconv.Quote(abs(storeDir)))
	cert, key := m.ServerCertFile(), m.ServerKeyFile()
	if node != nil {
		m.clusterConfig(&b, *node, abs)
		cert, key = m.NodeCertFile(node.Name), m.NodeKeyFile(node.Name)
	}
	fmt.Fprintf(&b, "tls: {\n  cert_file: %s\n  key_file: %s\n  timeout: 5\n}\n",
		strconv.Quote(abs(cert)), strconv.Quote(abs(key)))
	return b.String(), nil
}

// WriteNodeConfig writes NodeConfig to NodeConfigFile.
func (m *Material) WriteNodeConfig(node Node, listen, storeDir string) error {
	conf, err := m.NodeConfig(node, listen, storeDir)
	if err != nil {
		return err
	}
	return WriteFile(m.NodeConfigFile(node.Name), []byte(conf), 0o644)
}

// WriteServerConfig writes ServerConfig to ServerConfigFile.
func (m *Material) WriteServerConfig(listen, storeDir string) error {
	conf, err := m.ServerConfig(listen, storeDir)
	if err != nil {
		return err
	}
	return WriteFile(m.ServerConfigFile(), []byte(conf), 0o644)
}

// RefreshServerConfig writes ServerConfigFile again, with the listen
// address and store it has, after the account's JWT changed (a kiosk
// added or revoked): a server started from it has the revocations. No
// file, nothing written.
func (m *Material) RefreshServerConfig() error {
	if _, err := os.Stat(m.ServerConfigFile()); err == nil {
		opts, err := server.ProcessConfigFile(m.ServerConfigFile())
		if err != nil {
			return fmt.Errorf("%s: %w", m.ServerConfigFile(), err)
		}
		if err := m.WriteServerConfig(net.JoinHostPort(opts.Host, strconv.Itoa(opts.Port)), opts.StoreDir); err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// Each node's of the cluster too: every node must refuse a revoked
	// kiosk when it starts again.
	nodes, err := filepath.Glob(filepath.Join(m.Dir, "nats-server-*.conf"))
	if err != nil {
		return err
	}
	for _, f := range nodes {
		opts, err := server.ProcessConfigFile(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		node := Node{Name: opts.ServerName, Cluster: net.JoinHostPort(opts.Cluster.Host, strconv.Itoa(opts.Cluster.Port))}
		for _, r := range opts.Routes {
			node.Routes = append(node.Routes, r.Host)
		}
		if err := m.WriteNodeConfig(node, net.JoinHostPort(opts.Host, strconv.Itoa(opts.Port)), opts.StoreDir); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// ServerOptions are ServerConfig's options for an embedded nats-server
// (pharaon-central serve, the tests) on host:port (port -1: any).
func (m *Material) ServerOptions(host string, port int, storeDir string) (*server.Options, error) {
	return m.serverOptions(host, port, storeDir, nil)
}

func (m *Material) serverOptions(host string, port int, storeDir string, node *Node) (*server.Options, error) {
	conf, err := m.serverConfig("127.0.0.1:4222", storeDir, node)
	if err != nil {
		return nil, err
	}
	opts := &server.Options{}
	if err := opts.ProcessConfigString(conf); err != nil {
		return nil, fmt.Errorf("the fleet's server configuration: %w", err)
	}
	opts.Host, opts.Port, opts.NoSigs = host, port, true
	return opts, nil
}

// Server is an embedded nats-server run from the material
// (ServerOptions): pharaon-central serve's, and the tests'. It can be
// stopped and started again on the same address and store.
type Server struct {
	m     *Material
	host  string
	port  int
	store string
	node  *Node // a node of the fleet's cluster; nil: a server alone
	s     *server.Server
}

// NewServer is a server on host:port (port -1: any, kept after its first
// start) storing in store; Start starts it.
func (m *Material) NewServer(host string, port int, store string) *Server {
	return &Server{m: m, host: host, port: port, store: store}
}

// NewNode is node of the fleet's cluster on host:port storing in store
// (NewServer); its certificate is made first (IssueNodeCert).
func (m *Material) NewNode(host string, port int, store string, node Node) *Server {
	return &Server{m: m, host: host, port: port, store: store, node: &node}
}

// Node is the server's place in the cluster, nil for a server alone.
func (s *Server) Node() *Node { return s.node }

// startWait bounds a start: the server recovers its JetStream store before
// it takes connections, which took more than 10 s for the fleet test's 50
// kiosks on a machine running two test suites. A bound for a server that
// will not start, not for a slow one.
const startWait = 2 * time.Minute

// Start starts the server, ready for connections. It logs nothing.
func (s *Server) Start() error {
	opts, err := s.m.serverOptions(s.host, s.port, s.store, s.node)
	if err != nil {
		return err
	}
	opts.NoLog = true
	srv, err := server.NewServer(opts)
	if err != nil {
		return err
	}
	go srv.Start()
	if !srv.ReadyForConnections(startWait) {
		srv.Shutdown()
		return fmt.Errorf("nats-server did not start within %v", startWait)
	}
	s.s, s.port = srv, srv.Addr().(*net.TCPAddr).Port
	return nil
}

// NATS is the running server (nil when stopped), for what the tests read
// of it (its JetStream's state).
func (s *Server) NATS() *server.Server { return s.s }

// Stop stops the server and waits for it.
func (s *Server) Stop() {
	if s.s != nil {
		s.s.Shutdown()
		s.s.WaitForShutdown()
		s.s = nil
	}
}

// Port is the port it listens on (its first start's, for port -1).
func (s *Server) Port() int { return s.port }

// Store is its JetStream store directory.
func (s *Server) Store() string { return s.store }

// URL is its URL: TLS, always.
func (s *Server) URL() string { return "tls://" + net.JoinHostPort(s.host, strconv.Itoa(s.port)) }

// Connect connects to url as user of account, verifying the server with
// the fleet's CA. Its replies come to _INBOX_<user>, a prefix no kiosk's
// (_INBOX.<kiosk>) can match.
func (m *Material) Connect(url, account, user string, opts ...nats.Option) (*nats.Conn, error) {
	opts = append([]nats.Option{nats.UserCredentials(m.CredsFile(account, user)), nats.RootCAs(m.CAFile()),
		nats.MaxReconnects(0), nats.Timeout(5 * time.Second), nats.CustomInboxPrefix("_INBOX_" + user)}, opts...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect %s as %s: %w", url, user, err)
	}
	return nc, nil
}

// PushAccount sends the fleet account's JWT (its revocations) to the
// running server at url through the system account: the server applies
// it at once and drops the connections of revoked users. A server
// restarted later reads it from its configuration.
func (m *Material) PushAccount(ctx context.Context, url string) error {
	token, err := m.AccountJWT()
	if err != nil {
		return err
	}
	nc, err := m.Connect(url, SystemName, SystemUser, nats.Name("pharaon-central system"))
	if err != nil {
		return err
	}
	defer nc.Close()
	reply, err := nc.RequestWithContext(ctx, "$SYS.REQ.ACCOUNT."+m.AccountPublicKey()+".CLAIMS.UPDATE", []byte(strings.TrimSpace(token)))
	if err != nil {
		return fmt.Errorf("push the account: %w", err)
	}
	var resp struct {
		Error *struct {
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply.Data, &resp); err != nil {
		return fmt.Errorf("push the account: %w", err)
	}
	if resp.Error != nil {
		return fmt.Errorf("push the account: %s", resp.Error.Description)
	}
	return nil
}
