package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
)

// connects reports whether c's credentials are let in, and its consumer
// read.
func connects(t *testing.T, c fleet.Config) error {
	t.Helper()
	opts, err := c.Options()
	require.NoError(t, err)
	nc, err := nats.Connect(c.URL, opts...)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = js.Consumer(ctx, fleet.BlocksStream, fleet.BlocksConsumer(c.KioskID))
	return err
}

// The operator adds a kiosk (its bundle: what goes to the kiosk, readable
// by its owner where secret), gives it new credentials (the old refused at
// once), and revokes it (refused at once and after the server's restart);
// the centre's list says so.
func TestKioskAddAndRevoke(t *testing.T) {
	c := startCentre(t)
	first := c.kiosk(t, "PH-1", "nord")
	require.NoError(t, connects(t, first))
	d := kioskDir(c.dir, "PH-1")
	for name, mode := range map[string]os.FileMode{bundleCreds: 0o600, bundleVoucherKey: 0o600, bundleCA: 0o644, bundleConf: 0o644} {
		info, err := os.Stat(filepath.Join(d, name))
		require.NoError(t, err, name)
		assert.Equal(t, mode, info.Mode().Perm(), name)
	}
	conf, err := os.ReadFile(filepath.Join(d, bundleConf))
	require.NoError(t, err)
	for _, line := range []string{"kiosk-id = PH-1", "nats-url = " + c.url, "nats-creds = kiosk.creds", "nats-ca = ca.pem",
		"nats-voucher-key = voucher.key"} {
		assert.Contains(t, string(conf), line+"\n")
	}
	m, err := authority.Open(c.dir)
	require.NoError(t, err)
	master, err := m.VoucherMaster()
	require.NoError(t, err)
	assert.Equal(t, fleet.KioskVoucherKey(master, "PH-1"), first.VoucherKey, "derived from the fleet's, never the fleet's")
	old, err := os.ReadFile(first.CredsFile)
	require.NoError(t, err)
	stale := filepath.Join(t.TempDir(), "old.creds")
	require.NoError(t, os.WriteFile(stale, old, 0o600))

	// New credentials (another group): the old file is refused.
	out, err := c.cmd(t, time.Now(), "kiosk", "add", "-id", "PH-1", "-groups", "nord,sud", "-url", c.url)
	require.NoError(t, err, out)
	assert.NotContains(t, out, "injoignable", "the server answered")
	second := c.kiosk(t, "PH-1")
	require.NoError(t, connects(t, second))
	staleCfg := second
	staleCfg.CredsFile = stale
	assert.Error(t, connects(t, staleCfg), "the replaced credentials")
	info, err := c.js(t).Consumer(context.Background(), fleet.BlocksStream, fleet.BlocksConsumer("PH-1"))
	require.NoError(t, err)
	assert.Equal(t, []string{fleet.ToKiosk("PH-1").Subject(), fleet.ToGroup("nord").Subject(), fleet.ToGroup("sud").Subject()},
		info.CachedInfo().Config.FilterSubjects)

	out, err = c.cmd(t, time.Now(), "kiosk", "revoke", "-id", "PH-1")
	require.NoError(t, err, out)
	assert.Contains(t, out, "RÉVOQUÉE / REVOKED PH-1")
	assert.Error(t, connects(t, second), "revoked")
	_, err = c.js(t).Consumer(context.Background(), fleet.BlocksStream, fleet.BlocksConsumer("PH-1"))
	assert.ErrorIs(t, err, jetstream.ErrConsumerNotFound)
	out, err = c.cmd(t, time.Now(), "kiosk", "list")
	require.NoError(t, err, out)
	assert.Regexp(t, `(?m)^PH-1 +nord,sud +U[A-Z0-9]+ +\S+ +RÉVOQUÉE/REVOKED$`, out)

	// The server's configuration has the revocation: a server started
	// from it refuses the kiosk.
	opts, err := os.ReadFile(m.ServerConfigFile())
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(opts), "resolver_preload"))
	m2, err := authority.Open(c.dir)
	require.NoError(t, err)
	s := m2.NewServer("127.0.0.1", -1, t.TempDir())
	require.NoError(t, s.Start())
	defer s.Stop()
	again := second
	again.URL = s.URL()
	err = connects(t, again)
	require.Error(t, err)
	assert.Contains(t, strings.ToLower(err.Error()), "authorization")

	_, err = c.cmd(t, time.Now(), "kiosk", "add", "-id", "central")
	assert.ErrorContains(t, err, "not \"central\"")
	for _, id := range []string{"PH.9", strings.Repeat("9", kiosk.KioskIDMaxLen+1)} {
		_, err = c.cmd(t, time.Now(), "kiosk", "add", "-id", id)
		require.ErrorIs(t, err, kiosk.ErrKioskID, "the kiosk id's one rule: %q", id)
	}
	_, err = c.cmd(t, time.Now(), "kiosk", "add", "-id", "PH-9", "-groups", "nord.est")
	require.ErrorIs(t, err, kiosk.ErrKioskID, "a group is named as a kiosk is")
	_, err = c.cmd(t, time.Now(), "kiosk", "revoke", "-id", "PH-9")
	assert.ErrorContains(t, err, "not one of this centre's")
}
