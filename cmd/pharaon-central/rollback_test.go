package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/fleet"
	"pharaon/store"
)

// status shows a kiosk gone back to an earlier copy (an anchor record's
// trust-root counter below one it sent before) and a record claiming
// another kiosk, and fails; the other kiosk is untouched. The records go
// out with the kiosk's own credentials on its own subject, as its
// publisher sends them.
func TestStatusReportsRolledBackAndForeignClaims(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	js := kioskJS(t, c, "borne-3")
	c.kiosk(t, "borne-4")
	send := func(seq int64, kind, payload string, claim string) {
		t.Helper()
		data, err := json.Marshal(store.OutboxRecord{Seq: seq, At: time.Now(), Kind: kind, RefID: seq, Payload: json.RawMessage(payload)})
		require.NoError(t, err)
		m := nats.NewMsg(fleet.RecordsSubject + "borne-3")
		m.Data = data
		if claim != "" {
			m.Header.Set(fleet.HeaderKiosk, claim)
		}
		_, err = js.PublishMsg(ctx, m, jetstream.WithMsgID(fleet.MsgID("borne-3", seq)))
		require.NoError(t, err)
	}
	anchor := func(counter int) string {
		return fmt.Sprintf(`{"heads":[{"table":"ledger","kind":"ledger","id":0,"hash":""}],"mac":"00","counter":%d}`, counter)
	}
	now := time.Now()
	out, err := c.cmd(t, now, "status")
	require.NoError(t, err, out)

	send(1, "anchor", anchor(41), "")
	send(2, "anchor", anchor(42), "")
	out, err = c.cmd(t, now, "status")
	require.NoError(t, err, out)
	assert.NotContains(t, out, "ROLLED BACK")

	send(3, "anchor", anchor(40), "borne-4")
	out, err = c.cmd(t, now, "status")
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "RETOUR EN ARRIÈRE / ROLLED BACK borne-3\u00a0: la borne est revenue à une copie antérieure")
	assert.Contains(t, out, "PROBLÈME / PROBLEM borne-3\u00a0: rolled back: anchor record 3 carries counter 40, anchor record 2 carried 42")
	assert.Contains(t, out, `PROBLÈME / PROBLEM borne-3`+"\u00a0"+`: record 3 (stream 3) names kiosk "borne-4" in its header Pharaon-Kiosk: credited to borne-3`)
	assert.NotContains(t, out, "PROBLEM borne-4")
	assert.NotContains(t, out, "ROLLED BACK borne-4")
}
