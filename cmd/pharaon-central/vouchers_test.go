package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
	"pharaon/store"
)

// An entry made up with a kiosk's credentials, for a number of their
// choosing, is neither said payable nor paid at the centre's counter: its
// kiosk's records do not hold it. The refusal says so and reports the
// entry as a problem of its kiosk.
func TestCentralPayRefusesAnUnreportedEntry(t *testing.T) {
	c := startCentre(t)
	chosen, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	now := time.Now()
	key := writeEntry(t, c, chosen, fleet.VoucherEntry{Kiosk: "borne-7", ID: 1, Amount: int64(500 * game.Euro),
		ExpiresAt: now.Add(time.Hour).UnixNano(), State: "printed"})

	out, err := c.cmd(t, now, "voucher", chosen)
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "NON PAYABLE / NOT PAYABLE")
	assert.Contains(t, out, "not reported by its kiosk yet: pay it at the kiosk, or wait for its records")
	out, err = c.cmd(t, now, "pay", "-by", "counter-1", chosen)
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "REFUSÉ / REFUSED "+kiosk.MaskValidation(chosen)+"\u00a0: voucher 1 of kiosk borne-7: not reported by its kiosk yet")
	assert.Contains(t, out, "PROBLÈME / PROBLEM borne-7\u00a0: entrée / entry "+key+"\u00a0: ")
	out, err = c.cmd(t, now, "voucher", chosen)
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "état / state printed", "not paid")
}

// A kiosk's test voucher, printed at its first start, is known to the
// centre as what it is: its check says it is a void test voucher of no
// value, never "unknown", and its payment is refused saying so; the same
// voucher's entry rewritten with the kiosk's credentials (printed, with an
// amount) is not paid either. The kiosk's meters as the centre folds them
// count nothing for it.
func TestCentralKnowsATestVoucher(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	now := time.Now()
	val, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	_, err = st.RecordTestVoucher(ctx, val, now.Add(24*time.Hour))
	require.NoError(t, err)
	publish(t, c, "borne-7", st)

	out, err := c.cmd(t, now, "voucher", val)
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "BON D'ESSAI — ANNULÉ — SANS VALEUR / TEST VOUCHER — VOID — NO VALUE\u00a0: "+kiosk.MaskValidation(val)+
		", 0\u00a0€, borne / kiosk borne-7 (ticket / voucher 1), état / state void")
	out, err = c.cmd(t, now, "pay", "-by", "counter-1", val)
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "REFUSÉ / REFUSED "+kiosk.MaskValidation(val)+"\u00a0: voucher 1 of kiosk borne-7: test voucher, void, of no value")
	assert.Contains(t, out, "BON D'ESSAI — ANNULÉ — SANS VALEUR / TEST VOUCHER — VOID — NO VALUE")
	out, err = c.cmd(t, now, "status")
	require.NoError(t, err, out)
	assert.NotContains(t, out, "PROBLÈME", "its records and meters agree")

	// The kiosk's credentials rewrite its entry: printed, 500 €.
	writeEntry(t, c, val, fleet.VoucherEntry{Kiosk: "borne-7", ID: 1, Amount: int64(500 * game.Euro),
		ExpiresAt: now.Add(time.Hour).UnixNano(), State: "printed", Record: 1, StateRecord: 1})
	out, err = c.cmd(t, now, "pay", "-by", "counter-1", val)
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "voucher entry rewritten", "its history says its amount changed")
	assert.NotContains(t, out, "PAYÉ / PAID")
}

// kioskJS is a connection to the centre's server with kiosk id's
// credentials.
func kioskJS(t *testing.T, c *testCentre, id string) jetstream.JetStream {
	t.Helper()
	cfg := c.kiosk(t, id)
	opts, err := cfg.Options()
	require.NoError(t, err)
	nc, err := nats.Connect(cfg.URL, opts...)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

// writeEntry writes e as the fleet's entry of the voucher numbered val
// with e's kiosk's credentials (a kiosk writes its own entries), and
// returns the entry's key.
func writeEntry(t *testing.T, c *testCentre, val string, e fleet.VoucherEntry) string {
	t.Helper()
	m, err := authority.Open(c.dir)
	require.NoError(t, err)
	master, err := m.VoucherMaster()
	require.NoError(t, err)
	key, err := fleet.VoucherEntryKey(master, e.Kiosk, val)
	require.NoError(t, err)
	data, _ := json.Marshal(e)
	_, err = kioskJS(t, c, e.Kiosk).Publish(context.Background(), "$KV."+fleet.VoucherBucket+"."+key, data)
	require.NoError(t, err, "the kiosk writes its own entries")
	return key
}
