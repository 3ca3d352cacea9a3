package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/store"
)

func TestConfigFleet(t *testing.T) {
	dir := t.TempDir()
	var c Config
	require.NoError(t, ParseConfigFile(bytes.NewBufferString("kiosk-id = PH-0042\nnats-url = tls://centre.example:4222\n"+
		"nats-nkey-seed = kiosk.nk\nnats-ca = ca.pem\n"), dir, &c))
	assert.Equal(t, fleet.Config{URL: "tls://centre.example:4222", NKeySeedFile: filepath.Join(dir, "kiosk.nk"),
		CAFile: filepath.Join(dir, "ca.pem")}, c.Fleet)

	c, err := loadConfig([]string{"-dev", "-nats-url", "nats://127.0.0.1:4222", "-nats-user", "k", "-nats-password", "p"}, mapEnv{"HOME": "/h"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, fleet.Config{URL: "nats://127.0.0.1:4222", KioskID: devKioskID, User: "k", Password: "p"}, c.Fleet,
		"the kiosk is known in the fleet by its id")

	c, err = loadConfig([]string{"-dev"}, mapEnv{"HOME": "/h"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Empty(t, c.Fleet.URL, "no centre by default")

	for _, args := range [][]string{
		{"-nats-url", "http://centre:4222", "-kiosk-id", "PH-1"},
		{"-nats-url", "centre:4222", "-kiosk-id", "PH-1"},
		{"-nats-url", "nats://centre:4222"},                      // no kiosk id
		{"-nats-url", "nats://centre:4222", "-kiosk-id", "PH 1"}, // not one subject token
		{"-nats-url", "nats://centre:4222", "-kiosk-id", "PH-1", "-nats-user", "u", "-nats-nkey-seed", "s.nk"},
	} {
		_, err := loadConfig(args, mapEnv{"HOME": "/h"}, &bytes.Buffer{})
		assert.Equal(t, exitUsage, exitCode(err), "%q: %v", args, err)
	}
}

// A kiosk given a NATS URL publishes its records; closing it stops the
// publisher before the store.
func TestOpenKioskJoinsTheFleet(t *testing.T) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go ns.Start()
	require.True(t, ns.ReadyForConnections(10*time.Second))
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()

	dir := t.TempDir()
	cfg := Config{DB: filepath.Join(dir, "pharaon.db"), FirstInstall: true, Installed: filepath.Join(dir, installedMarker),
		KioskID: "PH-9", Fleet: fleet.Config{URL: fmt.Sprintf("nats://127.0.0.1:%d", ns.Addr().(*net.TCPAddr).Port), KioskID: "PH-9"}}
	var logs bytes.Buffer
	p, err := openKiosk(context.Background(), cfg, testNow, log.New(&logs, "", 0))
	require.NoError(t, err)
	require.NotNil(t, p.stopFleet)
	ctx := context.Background()
	// The first start's setup, before any history.
	setup, err := p.bo.access.SetupSession(ctx)
	require.NoError(t, err)
	require.NoError(t, p.bo.access.Setup(ctx, setup, "246800", "135700"))
	_, err = p.st.Log(ctx, fleetEvent)
	require.NoError(t, err)
	o, err := p.st.OutboxState(ctx)
	require.NoError(t, err)
	require.Positive(t, o.Last)
	require.Eventually(t, func() bool {
		s, err := p.st.OutboxState(ctx)
		return err == nil && s.Published >= o.Last
	}, 30*time.Second, 10*time.Millisecond)

	// The counter pays through the fleet's vouchers bucket: a voucher the
	// centre paid is refused at the maintenance screen.
	_, err = p.st.BillIn(ctx, 10*game.Euro, "note-1")
	require.NoError(t, err)
	val, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	v, err := p.st.IssueVoucher(ctx, store.VoucherRequest{Amount: 10 * game.Euro, Validation: val, Expires: time.Now().Add(72 * time.Hour)})
	require.NoError(t, err)
	_, _, err = p.st.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	nc, err := nats.Connect(cfg.Fleet.URL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, kv, err := fleet.Ensure(ctx, js, 1)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		e, err := fleet.LookupVoucher(ctx, kv, val)
		return err == nil && e.State == "printed"
	}, 30*time.Second, 10*time.Millisecond, "the voucher reaches the bucket")
	_, err = fleet.PayVoucher(ctx, kv, val, "guichet-1", testNow.Now())
	require.NoError(t, err)
	staff, err := p.bo.office.Login(ctx, "135700")
	require.NoError(t, err)
	_, err = p.bo.office.PayVoucher(ctx, staff, val)
	require.ErrorIs(t, err, kiosk.ErrPaidElsewhere)
	got, err := p.st.Voucher(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, store.VoucherPrinted, got.State)

	require.NoError(t, p.Close())
	assert.Contains(t, logs.String(), "fleet: kiosk PH-9 publishes its records to nats://127.0.0.1:")
}

var fleetEvent = store.Event{Level: store.LevelInfo, Source: "test", Code: "tick"}
