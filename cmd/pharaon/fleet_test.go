package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"log"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/fleettest"
	"pharaon/store"
)

func TestConfigFleet(t *testing.T) {
	dir := t.TempDir()
	var c Config
	require.NoError(t, ParseConfigFile(bytes.NewBufferString("kiosk-id = PH-0042\nnats-url = tls://centre.example:4222\n"+
		"nats-creds = kiosk.creds\nnats-ca = ca.pem\nnats-voucher-key = voucher.key\n"), dir, &c))
	assert.Equal(t, fleet.Config{URL: "tls://centre.example:4222", CredsFile: filepath.Join(dir, "kiosk.creds"),
		CAFile: filepath.Join(dir, "ca.pem")}, c.Fleet)
	assert.Equal(t, filepath.Join(dir, "voucher.key"), c.FleetVoucherKey)

	key := filepath.Join(dir, "voucher.key")
	require.NoError(t, os.WriteFile(key, bytes.Repeat([]byte{9}, fleet.VoucherKeySize), 0o600))
	c, err := loadConfig([]string{"-dev", "-nats-url", "tls://127.0.0.1:4222", "-nats-creds", "k.creds", "-nats-voucher-key", key},
		mapEnv{"HOME": "/h"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, fleet.Config{URL: "tls://127.0.0.1:4222", KioskID: devKioskID, CredsFile: "k.creds",
		VoucherKey: bytes.Repeat([]byte{9}, fleet.VoucherKeySize)}, c.Fleet, "the kiosk is known in the fleet by its id")

	c, err = loadConfig([]string{"-dev"}, mapEnv{"HOME": "/h"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Empty(t, c.Fleet.URL, "no centre by default")

	short := filepath.Join(dir, "short.key")
	require.NoError(t, os.WriteFile(short, []byte("0123"), 0o600))
	fleetArgs := []string{"-nats-creds", "k.creds", "-nats-voucher-key", key}
	for _, args := range [][]string{
		append([]string{"-nats-url", "http://centre:4222", "-kiosk-id", "PH-1"}, fleetArgs...),
		append([]string{"-nats-url", "centre:4222", "-kiosk-id", "PH-1"}, fleetArgs...),
		append([]string{"-nats-url", "tls://centre:4222"}, fleetArgs...),                      // no kiosk id
		append([]string{"-nats-url", "tls://centre:4222", "-kiosk-id", "PH 1"}, fleetArgs...), // not one subject token
		{"-nats-url", "tls://centre:4222", "-kiosk-id", "PH-1", "-nats-voucher-key", key},     // no credentials
		{"-nats-url", "tls://centre:4222", "-kiosk-id", "PH-1", "-nats-creds", "k.creds"},     // no voucher key
		{"-nats-url", "tls://centre:4222", "-kiosk-id", "PH-1", "-nats-creds", "k.creds", "-nats-voucher-key", short},
		{"-nats-url", "tls://centre:4222", "-kiosk-id", "PH-1", "-nats-creds", "k.creds", "-nats-voucher-key", filepath.Join(dir, "none")},
	} {
		_, err := loadConfig(args, mapEnv{"HOME": "/h"}, &bytes.Buffer{})
		assert.Equal(t, exitUsage, exitCode(err), "%q: %v", args, err)
	}
}

// The keys of an older fleet (a user and password, a bare nkey seed, the
// groups at the kiosk) are refused, saying what replaced them: no kiosk
// keeps a password in its configuration, nor chooses its own groups.
func TestConfigRefusesTheOldFleetKeys(t *testing.T) {
	for key, want := range map[string]string{
		"nats-user": "nats-creds", "nats-password": "nats-creds", "nats-nkey-seed": "nats-creds",
		"nats-groups": "pharaon-central kiosk add -groups",
	} {
		var c Config
		err := ParseConfigFile(bytes.NewBufferString("kiosk-id = PH-1\n"+key+" = x\n"), t.TempDir(), &c)
		require.ErrorIs(t, err, ErrConfig, key)
		assert.Contains(t, err.Error(), "config line 2: "+key+" is no longer taken", key)
		assert.Contains(t, err.Error(), want, key)
	}
}

// A kiosk given a NATS URL publishes its records with its own
// credentials; closing it stops the publisher before the store. Its
// counter pays through the fleet's voucher bucket.
func TestOpenKioskJoinsTheFleet(t *testing.T) {
	centre := fleettest.Start(t)
	dir := t.TempDir()
	cfg := Config{DB: filepath.Join(dir, "pharaon.db"), FirstInstall: true, Installed: filepath.Join(dir, installedMarker),
		KioskID: "PH-9", Fleet: centre.Kiosk(t, "PH-9")}
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
	vs := centre.Vouchers(t)
	require.Eventually(t, func() bool {
		e, err := vs.Find(ctx, val)
		return err == nil && e.State == "printed"
	}, 30*time.Second, 10*time.Millisecond, "the voucher reaches the bucket")
	_, err = vs.Pay(ctx, val, "guichet-1", testNow.Now())
	require.NoError(t, err)
	staff, err := p.bo.office.Login(ctx, "135700")
	require.NoError(t, err)
	_, err = p.bo.office.PayVoucher(ctx, staff, val)
	require.ErrorIs(t, err, kiosk.ErrPaidElsewhere)
	got, err := p.st.Voucher(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, store.VoucherPrinted, got.State)

	require.NoError(t, p.Close())
	assert.Contains(t, logs.String(), "fleet: kiosk PH-9 publishes its records to tls://127.0.0.1:")
}

var fleetEvent = store.Event{Level: store.LevelInfo, Source: "test", Code: "tick"}
