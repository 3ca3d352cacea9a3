package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/fleet"
	"pharaon/store"
)

func startNATS(t *testing.T) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go s.Start()
	require.True(t, s.ReadyForConnections(10*time.Second))
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return fmt.Sprintf("nats://127.0.0.1:%d", s.Addr().(*net.TCPAddr).Port)
}

// publish runs a publisher of s as kiosk id until its outbox is published.
func publish(t *testing.T, url, id string, s *store.Store) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o, err := s.OutboxState(ctx)
	require.NoError(t, err)
	p, err := fleet.NewPublisher(fleet.Config{URL: url, KioskID: id}, s)
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
	url := startNATS(t)
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.Adjust(ctx, 70*game.Euro, "", "test credit")
	require.NoError(t, err)
	_, err = st.Log(ctx, store.Event{Level: store.LevelError, Source: "printer", Code: "jam"})
	require.NoError(t, err)
	now := time.Now()
	const val = "123456789012345678"
	v, err := st.IssueVoucher(ctx, store.VoucherRequest{Amount: 70 * game.Euro, Validation: val, Expires: now.Add(24 * time.Hour)})
	require.NoError(t, err)
	_, _, err = st.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	publish(t, url, "borne-7", st)

	out, err := central(t, now, "status", "-nats", url)
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

	out, err = central(t, now, "report", "-nats", url)
	require.NoError(t, err, out)
	assert.Contains(t, out, "total")

	out, err = central(t, now, "voucher", "-nats", url, val)
	require.NoError(t, err, out)
	assert.Contains(t, out, "PAYABLE\u00a0: "+val+", 70\u00a0€, borne / kiosk borne-7, état / state printed")
	out, err = central(t, now, "voucher", "-nats", url, "999999999999999999")
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "INCONNU / UNKNOWN")

	out, err = central(t, now, "pay", "-nats", url, "-by", "counter-1", val)
	require.NoError(t, err, out)
	assert.Contains(t, out, "PAYÉ / PAID\u00a0: "+val)
	out, err = central(t, now, "pay", "-nats", url, "-by", "counter-2", val)
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "REFUSÉ / REFUSED\u00a0: voucher "+val+" is paid")
	out, err = central(t, now, "voucher", "-nats", url, val)
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "NON PAYABLE / NOT PAYABLE")
	assert.Contains(t, out, "payé / paid\u00a0: centre, counter-1, ", "who paid it")

	_, err = central(t, now, "pay", "-nats", url, val)
	assert.ErrorIs(t, err, errUsage, "no -by")
	_, err = central(t, now)
	assert.ErrorIs(t, err, errUsage)
	_, err = central(t, now, "frobnicate", "-nats", url)
	assert.ErrorIs(t, err, errUsage)
}
