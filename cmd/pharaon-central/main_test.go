package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
	"pharaon/store"
)

// testCentre is a centre as an operator runs it: its directory made by
// pharaon-central init, its server by pharaon-central serve (operator
// mode, TLS), its kiosks added by pharaon-central kiosk add.
type testCentre struct {
	dir string // -fleet
	url string // -nats
}

func startCentre(t *testing.T) *testCentre {
	t.Helper()
	c := &testCentre{dir: filepath.Join(t.TempDir(), "fleet")}
	out, err := central(t, time.Now(), "init", "-fleet", c.dir)
	require.NoError(t, err, out)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	c.url = "tls://" + addr
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	var logs lockedBuffer
	go func() {
		served <- run(ctx, []string{"serve", "-fleet", c.dir, "-listen", addr, "-store", t.TempDir()}, &logs, &logs, time.Now)
	}()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-served, logs.String())
	})
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "nats-server JetStream: "+c.url) },
		30*time.Second, 10*time.Millisecond, "serve: %s", logs.String())
	return c
}

// lockedBuffer is a bytes.Buffer written by serve's goroutine and read by
// the test's.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// cmd runs a command of the centre with its -fleet and -nats.
func (c *testCentre) cmd(t *testing.T, now time.Time, args ...string) (string, error) {
	t.Helper()
	n := 1
	if args[0] == "kiosk" || args[0] == "updates" {
		n = 2
	}
	full := append(append(slices.Clone(args[:n]), "-fleet", c.dir, "-nats", c.url), args[n:]...)
	return central(t, now, full...)
}

// kiosk adds kiosk id in groups (pharaon-central kiosk add) and returns
// its configuration, read from the bundle the command wrote.
func (c *testCentre) kiosk(t *testing.T, id string, groups ...string) fleet.Config {
	t.Helper()
	if _, err := os.Stat(filepath.Join(kioskDir(c.dir, id), bundleCreds)); err != nil {
		out, err := c.cmd(t, time.Now(), "kiosk", "add", "-id", id, "-groups", strings.Join(groups, ","), "-url", c.url)
		require.NoError(t, err, out)
	}
	d := kioskDir(c.dir, id)
	key, err := os.ReadFile(filepath.Join(d, bundleVoucherKey))
	require.NoError(t, err)
	return fleet.Config{URL: c.url, KioskID: id, CredsFile: filepath.Join(d, bundleCreds), CAFile: filepath.Join(d, bundleCA), VoucherKey: key}
}

// js is a connection as the centre.
func (c *testCentre) js(t *testing.T) jetstream.JetStream {
	t.Helper()
	m, err := authority.Open(c.dir)
	require.NoError(t, err)
	cc, err := connectCentre(m, c.url)
	require.NoError(t, err)
	t.Cleanup(cc.nc.Close)
	return cc.js
}

// publish runs a publisher of s as kiosk id until its outbox is published.
func publish(t *testing.T, c *testCentre, id string, s *store.Store) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o, err := s.OutboxState(ctx)
	require.NoError(t, err)
	p, err := fleet.NewPublisher(c.kiosk(t, id), s)
	require.NoError(t, err)
	p.MinBackoff, p.Poll = 10*time.Millisecond, 10*time.Millisecond
	done := make(chan struct{})
	p.OnAck = func(upTo int64) {
		if upTo == o.Last {
			close(done)
		}
	}
	go p.Run(ctx)
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("not published")
	}
}

func central(t *testing.T, now time.Time, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut, func() time.Time { return now })
	return out.String() + errOut.String(), err
}

func TestCentral(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.Adjust(ctx, 70*game.Euro, "", "test credit")
	require.NoError(t, err)
	_, err = st.Log(ctx, store.Event{Level: store.LevelError, Source: "printer", Code: "jam"})
	require.NoError(t, err)
	now := time.Now()
	val, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	masked := kiosk.MaskValidation(val)
	v, err := st.IssueVoucher(ctx, store.VoucherRequest{Amount: 70 * game.Euro, Validation: val, Expires: now.Add(24 * time.Hour)})
	require.NoError(t, err)
	_, _, err = st.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	publish(t, c, "borne-7", st)

	out, err := c.cmd(t, now, "status")
	require.NoError(t, err, out)
	table, stock, _ := strings.Cut(out, "\n\n") // the kiosks, then their block stock
	lines := strings.Split(strings.TrimSpace(table), "\n")
	require.Len(t, lines, 2, out)
	assert.Contains(t, stock, "STOCK borne-7\u00a0: plus de billets à 1\u00a0€ / no units left at €1", "no block imported")
	fields := strings.Fields(lines[1])
	assert.Equal(t, "borne-7", fields[0])
	o, err := st.OutboxState(ctx)
	require.NoError(t, err)
	assert.Contains(t, lines[1], fmt.Sprintf(" %d ", o.Last), "its last sequence")
	assert.Contains(t, lines[1], " 0\u00a0€ ", "its credit after the voucher")
	assert.Contains(t, lines[1], " 70\u00a0€ ", "the voucher printed")
	assert.True(t, strings.HasSuffix(lines[1], " 1"), "one fault: %q", lines[1])
	assert.NotContains(t, out, "PROBLÈME", "its sealed voucher rows opened and checked")

	out, err = c.cmd(t, now, "report")
	require.NoError(t, err, out)
	assert.Contains(t, out, "total")

	// Typed as on the ticket, in groups of four.
	out, err = c.cmd(t, now, "voucher", kiosk.FormatValidation(val))
	require.NoError(t, err, out)
	assert.Contains(t, out, "PAYABLE\u00a0: "+masked+", 70\u00a0€, borne / kiosk borne-7 (ticket / voucher 1), état / state printed")
	assert.NotContains(t, out, val, "the number is never printed whole")
	other, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	out, err = c.cmd(t, now, "voucher", other)
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "INCONNU / UNKNOWN")
	out, err = c.cmd(t, now, "voucher", "123456789012345678")
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "NUMÉRO INVALIDE / INVALID NUMBER", "its check digits are wrong")

	out, err = c.cmd(t, now, "pay", "-by", "counter-1", val)
	require.NoError(t, err, out)
	assert.Contains(t, out, "PAYÉ / PAID\u00a0: "+masked)
	out, err = c.cmd(t, now, "pay", "-by", "counter-2", val)
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "REFUSÉ / REFUSED "+masked+"\u00a0: voucher 1 of kiosk borne-7 is paid")
	out, err = c.cmd(t, now, "voucher", val)
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "NON PAYABLE / NOT PAYABLE")
	assert.Contains(t, out, "payé / paid\u00a0: centre, counter-1, ", "who paid it")

	_, err = c.cmd(t, now, "pay", val)
	assert.ErrorIs(t, err, errUsage, "no -by")
	_, err = central(t, now)
	assert.ErrorIs(t, err, errUsage)
	_, err = c.cmd(t, now, "frobnicate")
	assert.ErrorIs(t, err, errUsage)
	_, err = central(t, now, "status")
	assert.ErrorIs(t, err, errUsage, "no -fleet")
}

// status prints the players' protection of each kiosk that recorded any,
// as docs/fleet.md shows it, and nothing for the others.
func TestCentralStatusPrintsThePlayersProtection(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.PlayerFact(ctx, store.FactLimitSet, 0, "5000", "limit 50,00 EUR")
	require.NoError(t, err)
	_, err = st.PlayerFact(ctx, store.FactRealityCheck, 0, "1", "reality check 1")
	require.NoError(t, err)
	publish(t, c, "borne-8", st)
	quiet, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer quiet.Close()
	_, err = quiet.Adjust(ctx, 5*game.Euro, "", "test credit")
	require.NoError(t, err)
	publish(t, c, "borne-9", quiet)

	out, err := c.cmd(t, time.Now(), "status")
	require.NoError(t, err, out)
	assert.Contains(t, out, "PROTECTION borne-8\u00a0: points sur le jeu / reality checks 1, limites fixées / limits set 1, "+
		"limites atteintes / limits reached 0\n")
	assert.NotContains(t, out, "PROTECTION borne-9", "nothing recorded, no line")
}
