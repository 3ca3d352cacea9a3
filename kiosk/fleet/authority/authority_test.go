package authority

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func startServer(t *testing.T, m *Material) string {
	t.Helper()
	s := m.NewServer("127.0.0.1", -1, t.TempDir())
	require.NoError(t, s.Start())
	t.Cleanup(s.Stop)
	return s.URL()
}

// connect connects with creds, verifying the server with the fleet's CA;
// errs receives what the server refuses asynchronously.
func connect(t *testing.T, m *Material, url, creds string) (*nats.Conn, chan error) {
	t.Helper()
	errs := make(chan error, 16)
	nc, err := nats.Connect(url, nats.UserCredentials(creds), nats.RootCAs(m.CAFile()), nats.MaxReconnects(0),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			select {
			case errs <- err:
			default:
			}
		}))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc, errs
}

// The material is made once and kept: a second Init changes no key, and
// the files holding secrets are readable by their owner only.
func TestInitKeepsTheMaterial(t *testing.T) {
	dir := t.TempDir()
	m, err := Init(dir, TLSInput{})
	require.NoError(t, err)
	acc := m.AccountPublicKey()
	master, err := m.VoucherMaster()
	require.NoError(t, err)
	ca, err := os.ReadFile(m.CAFile())
	require.NoError(t, err)

	m2, err := Init(dir, TLSInput{Hosts: []string{"centre.example"}})
	require.NoError(t, err)
	assert.Equal(t, acc, m2.AccountPublicKey())
	master2, err := m2.VoucherMaster()
	require.NoError(t, err)
	assert.Equal(t, master, master2)
	ca2, err := os.ReadFile(m2.CAFile())
	require.NoError(t, err)
	assert.Equal(t, ca, ca2)

	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		require.NoError(t, err)
		if strings.HasSuffix(p, ".nk") || strings.HasSuffix(p, ".creds") || strings.HasSuffix(p, "-key.pem") || strings.HasSuffix(p, ".key") {
			assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), p)
		}
		return nil
	}))
	// nsc's layout: the operator's store and the keys by kind and shard.
	assert.FileExists(t, filepath.Join(dir, "nsc", "stores", "pharaon", "pharaon.jwt"))
	assert.FileExists(t, filepath.Join(dir, "nsc", "stores", "pharaon", "accounts", "FLEET", "FLEET.jwt"))
	assert.FileExists(t, filepath.Join(dir, "nsc", "keys", "keys", "A", acc[1:3], acc+".nk"))
	assert.FileExists(t, filepath.Join(dir, "nsc", "keys", "creds", "pharaon", "FLEET", "central.creds"))
}

// A user is held to its permissions; the centre is not; a revoked user is
// refused once the server has the account's new JWT, and is dropped at
// once when it is pushed.
func TestUsersAndRevocation(t *testing.T) {
	m, err := Init(t.TempDir(), TLSInput{})
	require.NoError(t, err)
	creds, err := m.IssueUser(AccountName, "PH-1", &Permissions{Publish: []string{"allowed.PH-1"}, Subscribe: []string{"_INBOX.PH-1.>"}}, time.Time{})
	require.NoError(t, err)
	url := startServer(t, m)

	central, _ := connect(t, m, url, m.CredsFile(AccountName, CentralUser))
	sub, err := central.SubscribeSync(">")
	require.NoError(t, err)
	require.NoError(t, central.Flush())

	kiosk, errs := connect(t, m, url, creds)
	require.NoError(t, kiosk.Publish("allowed.PH-1", []byte("ok")))
	require.NoError(t, kiosk.Publish("allowed.PH-2", []byte("no")))
	require.NoError(t, kiosk.Flush())
	msg, err := sub.NextMsg(5 * time.Second)
	require.NoError(t, err)
	assert.Equal(t, "allowed.PH-1", msg.Subject)
	select {
	case err := <-errs:
		assert.True(t, errors.Is(err, nats.ErrPermissionViolation), "%v", err)
		assert.Contains(t, err.Error(), "allowed.PH-2")
	case <-time.After(5 * time.Second):
		t.Fatal("the publish on another kiosk's subject was not refused")
	}
	_, err = sub.NextMsg(200 * time.Millisecond)
	assert.ErrorIs(t, err, nats.ErrTimeout, "nothing else reached the centre")

	// Revoked and pushed: dropped, and refused when it connects again.
	closed := make(chan struct{})
	kiosk.SetClosedHandler(func(*nats.Conn) { close(closed) })
	u, err := m.Revoke("PH-1", time.Now())
	require.NoError(t, err)
	assert.True(t, u.Revoked)
	require.NoError(t, m.PushAccount(context.Background(), url))
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the revoked kiosk stayed connected")
	}
	_, err = nats.Connect(url, nats.UserCredentials(creds), nats.RootCAs(m.CAFile()), nats.MaxReconnects(0))
	require.Error(t, err)
	assert.Contains(t, strings.ToLower(err.Error()), "authorization")

	users, err := m.Users()
	require.NoError(t, err)
	require.Len(t, users, 2)
	assert.Equal(t, "PH-1", users[0].Name)
	assert.True(t, users[0].Revoked)
	assert.Equal(t, "central", users[1].Name)
	assert.Nil(t, users[1].Permissions, "the centre has no limits")
}

// Without the fleet's CA a client does not trust the server, and a client
// that does not speak TLS is refused.
func TestServerRequiresTLS(t *testing.T) {
	m, err := Init(t.TempDir(), TLSInput{})
	require.NoError(t, err)
	url := startServer(t, m)
	creds := m.CredsFile(AccountName, CentralUser)
	_, err = nats.Connect(url, nats.UserCredentials(creds), nats.MaxReconnects(0))
	require.Error(t, err, "the system's roots do not know the fleet's CA")
	plain := strings.Replace(url, "tls://", "nats://", 1)
	_, err = nats.Connect(plain, nats.UserCredentials(creds), nats.MaxReconnects(0))
	require.Error(t, err)

	other, err := Init(t.TempDir(), TLSInput{})
	require.NoError(t, err)
	_, err = nats.Connect(url, nats.UserCredentials(creds), nats.RootCAs(other.CAFile()), nats.MaxReconnects(0))
	require.Error(t, err, "another fleet's CA")
	_, err = nats.Connect(url, nats.UserCredentials(other.CredsFile(AccountName, CentralUser)), nats.RootCAs(m.CAFile()), nats.MaxReconnects(0))
	require.Error(t, err, "another fleet's credentials")
}

// The configuration written for the operator's own server is the one the
// embedded server runs.
func TestServerConfigFileParses(t *testing.T) {
	m, err := Init(t.TempDir(), TLSInput{Hosts: []string{"centre.example", "10.0.0.5"}})
	require.NoError(t, err)
	require.NoError(t, m.WriteServerConfig("0.0.0.0:4222", filepath.Join(m.Dir, "jetstream")))
	opts, err := server.ProcessConfigFile(m.ServerConfigFile())
	require.NoError(t, err)
	require.Len(t, opts.TrustedOperators, 1)
	assert.Equal(t, "pharaon", opts.TrustedOperators[0].Name)
	assert.True(t, opts.JetStream)
	assert.NotNil(t, opts.TLSConfig)
	assert.Equal(t, 4222, opts.Port)
}

// The operator's own CA and server certificate are taken instead of the
// centre's, once checked: a certificate its CA did not sign is refused
// and nothing is written.
func TestInitTakesTheOperatorsTLS(t *testing.T) {
	company, err := Init(t.TempDir(), TLSInput{Hosts: []string{"127.0.0.1"}}) // stands for a company's CA
	require.NoError(t, err)
	other, err := Init(t.TempDir(), TLSInput{})
	require.NoError(t, err)
	in := TLSInput{CAFile: company.CAFile(), CertFile: company.ServerCertFile(), KeyFile: company.ServerKeyFile()}

	bad := in
	bad.CAFile = other.CAFile()
	dir := t.TempDir()
	_, err = Init(dir, bad)
	require.ErrorContains(t, err, "is not signed by")
	_, err = os.Stat(filepath.Join(dir, "tls", "server.pem"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = Init(t.TempDir(), TLSInput{CAFile: company.CAFile()})
	require.ErrorContains(t, err, "all three or none")

	m, err := Init(t.TempDir(), in)
	require.NoError(t, err)
	ca, err := os.ReadFile(m.CAFile())
	require.NoError(t, err)
	want, err := os.ReadFile(company.CAFile())
	require.NoError(t, err)
	assert.Equal(t, want, ca)
	_, err = os.Stat(filepath.Join(m.Dir, "tls", "ca-key.pem"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the company keeps its CA's key")
	url := startServer(t, m)
	nc, _ := connect(t, m, url, m.CredsFile(AccountName, CentralUser))
	assert.True(t, nc.IsConnected())
}
