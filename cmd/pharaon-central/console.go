package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
	"pharaon/kiosk/fleet/console"
)

// stdin is where operator add reads the password (a test's reader).
var stdin io.Reader = os.Stdin

const consoleUsage = `pharaon-central: la console web / the web console
  operator add -name N -role R   un compte (mot de passe lu sur l'entrée standard) / an account (password read from standard input)
                                 rôles / roles: viewer, cashier, operator, administrator
  console -http ADDR [-tls-cert F -tls-key F]   servir la console / serve the console
          [-webhook KIND=URL …] [-webhook-secret F] [-units-low N] [-silence D]
toutes / all: -fleet DIR (défaut / default $PHARAON_FLEET) -nats URL (défaut / default ` + defaultURL + `)
`

// webhookFlags are the -webhook KIND=URL flags, repeated.
type webhookFlags map[console.AlarmKind][]string

func (w webhookFlags) String() string { return fmt.Sprint(map[console.AlarmKind][]string(w)) }

func (w webhookFlags) Set(s string) error {
	kind, u, ok := strings.Cut(s, "=")
	if !ok || !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return fmt.Errorf("%q: KIND=URL (KIND one of %v, or *)", s, console.AlarmKinds)
	}
	k := console.AlarmKind(kind)
	if kind != "*" && !containsKind(k) {
		return fmt.Errorf("%q: no alarm kind %q (%v, or *)", s, kind, console.AlarmKinds)
	}
	w[k] = append(w[k], u)
	return nil
}

func containsKind(k console.AlarmKind) bool {
	for _, x := range console.AlarmKinds {
		if x == k {
			return true
		}
	}
	return false
}

// runConsole runs the console's commands: operator add, console.
func runConsole(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer, now func() time.Time) error {
	if cmd == "operator" {
		if len(args) == 0 || args[0] != "add" {
			fmt.Fprint(stderr, consoleUsage)
			return errUsage
		}
		args = args[1:]
	}
	fs := flag.NewFlagSet("pharaon-central "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, consoleUsage); fs.PrintDefaults() }
	dir := fs.String("fleet", os.Getenv("PHARAON_FLEET"), "the centre's `directory` (pharaon-central init)")
	url := fs.String("nats", defaultURL, "the fleet's NATS `URL`")
	name := fs.String("name", "", "the operator's `name` (operator add)")
	role := fs.String("role", "", "viewer, cashier, operator or administrator (operator add)")
	addr := fs.String("http", "", "the `address` to serve the console on (console)")
	cert := fs.String("tls-cert", "", "the console's certificate `file`, for HTTPS (console)")
	key := fs.String("tls-key", "", "its key `file` (console)")
	hooks := webhookFlags{}
	fs.Var(hooks, "webhook", "`KIND=URL`: send the alarms of KIND (or * for all) to URL, repeated (console)")
	secretFile := fs.String("webhook-secret", "", "`file` of the secret the webhooks are signed with (console)")
	unitsLow := fs.Int64("units-low", 10_000, "an alarm when a kiosk's units left at a stake fall under `N` (console)")
	silence := fs.Duration("silence", 10*time.Minute, "an alarm when a kiosk sends no record for `D` (console)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *dir == "" {
		fmt.Fprintln(stderr, "pharaon-central: -fleet DIR manque / is missing (or PHARAON_FLEET)")
		return errUsage
	}
	accounts := console.OpenAccounts(console.AccountsFile(*dir))
	if cmd == "operator" {
		r, err := console.ParseRole(*role)
		if *name == "" || err != nil {
			fmt.Fprintln(stderr, "operator add: -name N -role viewer|cashier|operator|administrator")
			return errUsage
		}
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if err := accounts.Add(*name, r, strings.TrimRight(line, "\r\n"), now()); err != nil {
			fmt.Fprintf(stdout, "REFUSÉ / REFUSED\u00a0: %v\n", err)
			return errFound
		}
		fmt.Fprintf(stdout, "COMPTE / ACCOUNT\u00a0: %s, %s (%s)\n", *name, r, console.AccountsFile(*dir))
		return nil
	}
	if *addr == "" || (*cert == "") != (*key == "") {
		fmt.Fprintln(stderr, "console: -http ADDR [-tls-cert F -tls-key F]")
		return errUsage
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("-http %q: %w", *addr, err)
	}
	// Passwords and session cookies in clear only on the machine itself
	// (a TLS proxy in front): elsewhere the console wants its certificate.
	if ip := net.ParseIP(host); *cert == "" && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(stderr, "console: -http %s sans / without -tls-cert et / and -tls-key\u00a0: HTTPS hors de la machine / HTTPS beyond this machine\n", *addr)
		return errUsage
	}
	var secret []byte
	if len(hooks) > 0 {
		if *secretFile == "" {
			fmt.Fprintln(stderr, "console: -webhook sans / without -webhook-secret F")
			return errUsage
		}
		if secret, err = os.ReadFile(*secretFile); err != nil {
			return err
		}
		if secret = []byte(strings.TrimSpace(string(secret))); len(secret) < 16 {
			return fmt.Errorf("%s: a secret of 16 characters at least", *secretFile)
		}
	}
	m, err := authority.Open(*dir)
	if err != nil {
		return err
	}
	return serveConsole(ctx, m, *url, *addr, *cert, *key, accounts, hooks, secret, *unitsLow, *silence, stdout, now)
}

// serveConsole serves the console on addr until ctx ends, on a connection
// of its own to the fleet's server as the centre.
func serveConsole(ctx context.Context, m *authority.Material, url, addr, cert, key string, accounts *console.Accounts,
	hooks webhookFlags, secret []byte, unitsLow int64, silence time.Duration, w io.Writer, now func() time.Time) error {
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "console: "+format+"\n", args...)
	}
	nc, err := m.Connect(url, authority.AccountName, authority.CentralUser, nats.Name("pharaon-central console"),
		nats.MaxReconnects(-1),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { logf("disconnected: %v", err) }),
		nats.ReconnectHandler(func(nc *nats.Conn) { logf("connected again to %s", nc.ConnectedUrlRedacted()) }))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	master, err := m.VoucherMaster()
	if err != nil {
		return err
	}
	ks, err := readKiosks(m.Dir)
	if err != nil {
		return err
	}
	groups := map[string][]string{}
	var ids []string
	for _, k := range ks {
		groups[k.ID] = k.Groups
		ids = append(ids, k.ID)
	}
	vs, err := fleet.NewVouchers(ctx, js, master, ids)
	if err != nil {
		return err
	}
	var wh *console.Webhooks
	if len(hooks) > 0 {
		wh = console.NewWebhooks(hooks, secret, now)
		wh.Logf = logf
		defer wh.Close()
	}
	srv, err := console.New(ctx, console.Config{JS: js, Accounts: accounts, Vouchers: vs, VoucherMaster: master, Groups: groups,
		Webhooks: wh, Now: now, Secure: cert != "", UnitsLow: unitsLow, Silence: silence, Logf: logf,
		SendBlock: func(ctx context.Context, file []byte, to fleet.Address, now time.Time) (fleet.Delivery, error) {
			return fleet.SendBlockFile(ctx, js, file, to, now)
		},
		Deliveries: func(ctx context.Context) ([]fleet.Delivery, error) { return fleet.ReadDeliveries(ctx, js) },
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	scheme := "http"
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			ln.Close()
			return fmt.Errorf("console: %w", err)
		}
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, hs.TLSConfig)
		scheme = "https"
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(runCtx) }()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(w, "console: %s://%s (fleet %s)\n", scheme, ln.Addr(), url)
	select {
	case <-ctx.Done():
	case err = <-ran:
		err = fmt.Errorf("console: records: %w", err)
	case err = <-served:
	}
	shut, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	hs.Shutdown(shut)
	cancel()
	if ctx.Err() != nil {
		return nil
	}
	return err
}
