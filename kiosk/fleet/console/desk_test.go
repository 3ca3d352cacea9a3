package console

import (
	"bytes"
	"context"
	"crypto/ed25519"
	crand "crypto/rand"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/fleettest"
	"pharaon/store"
)

var testBlockKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, ed25519.SeedSize))

// blockFile is a signed block file.
func blockFile(t *testing.T, number uint32, stake game.Stake) []byte {
	t.Helper()
	var buf bytes.Buffer
	_, err := block.Generate(&buf, block.Params{Emission: 8, Number: number, Stake: stake,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Rand: rand.NewChaCha8([32]byte{byte(number)})}, testBlockKey)
	require.NoError(t, err)
	return buf.Bytes()
}

// busyKiosk is a kiosk's store with a block at 1 €, plays, and a voucher
// printed for its credit (its validation number returned).
func busyKiosk(t *testing.T, plays int) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	_, err = st.ImportBlock(ctx, bytes.NewReader(blockFile(t, 1, game.Stake100)), block.NewKeySet(testBlockKey.Public().(ed25519.PublicKey)))
	require.NoError(t, err)
	_, err = st.Adjust(ctx, 100*game.Euro, "", "test credit")
	require.NoError(t, err)
	for range plays {
		p, err := st.StartPlay(ctx, store.PlayRequest{Stake: game.Stake100, Mode: store.ModeAuto, LayoutVersion: 1})
		require.NoError(t, err)
		var c game.Counts
		switch {
		case p.ViaBonus:
			c[game.Snake] = 3
			require.NoError(t, st.EnterBonus(ctx, p.ID, nil))
		case p.Tier.Wins():
			comb := game.Table(p.Stake).Prizes[p.Tier-1].Combination
			c[comb.Symbol] = comb.Count
		}
		_, err = st.FinishPlay(ctx, p.ID, store.FinishInfo{Revealed: c, Shown: p.Prize})
		require.NoError(t, err)
	}
	val, err := kiosk.NewValidation(cryptoRand{})
	require.NoError(t, err)
	credit, err := st.Credit(ctx)
	require.NoError(t, err)
	v, err := st.IssueVoucher(ctx, store.VoucherRequest{Amount: credit, Validation: val, Expires: time.Now().Add(24 * time.Hour)})
	require.NoError(t, err)
	_, _, err = st.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	return st, val
}

type cryptoRand struct{}

func (cryptoRand) Read(p []byte) (int, error) { return crand.Read(p) }

// The charts' totals over every day are the report's: the same fold of
// the same records, as pharaon-central report reads them.
func TestChartTotalsAreTheReports(t *testing.T) {
	c := fleettest.Start(t)
	tc := startConsole(t, c, nil, map[string][]string{"borne-1": {"nord"}, "borne-2": {"sud"}})
	st1, _ := busyKiosk(t, 40)
	publish(t, c, "borne-1", st1)
	st2, _ := busyKiosk(t, 25)
	publish(t, c, "borne-2", st2)

	report := fleet.NewFleet()
	report.VoucherMaster, _ = c.Material.VoucherMaster()
	require.NoError(t, fleet.ReadRecords(context.Background(), c.JS(t), "", func(r fleet.Record) error { report.Add(r); return nil }))
	var want Cell
	for _, s := range report.Stakes() {
		want.Plays, want.Sales, want.Wins = want.Plays+s.Plays, want.Sales+s.Sales, want.Wins+s.Wins
	}
	require.Equal(t, int64(65), want.Plays)
	require.Eventually(t, func() bool {
		var n int64
		tc.srv.Live().Read(func(f *fleet.Fleet, _ map[string]*kioskExtra) {
			for _, k := range f.Kiosks {
				n += k.Records
			}
		})
		var m int64
		for _, k := range report.Kiosks {
			m += k.Records
		}
		return n == m
	}, 30*time.Second, 10*time.Millisecond)

	viewer := tc.login(t, Viewer)
	total := regexp.MustCompile(`id="total-plays">(\d+)<.*id="total-sales">([^<]+)<.*id="total-wins">([^<]+)<`)
	for _, by := range []string{"day", "week"} {
		code, body := viewer.get("/charts?span=all&by=" + by)
		require.Equal(t, http.StatusOK, code)
		m := total.FindStringSubmatch(body)
		require.NotNil(t, m, body)
		assert.Equal(t, []string{"65", game.Money(want.Sales).String(), game.Money(want.Wins).String()}, m[1:], by)
		assert.Contains(t, body, "<svg", "the chart")
		assert.Contains(t, body, "69,857\u202f%", "the regulation's ratio at 1 €")
	}
	_, body := viewer.get("/charts?span=all&group=sud")
	assert.Equal(t, "25", total.FindStringSubmatch(body)[1], "one group")
	_, body = viewer.get("/charts?span=all&kiosk=borne-1")
	assert.Equal(t, "40", total.FindStringSubmatch(body)[1], "one kiosk")
	code, body := viewer.get("/charts?from=2026-13-01")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, `from &#34;2026-13-01&#34;: a date as 2026-12-01`)
	_, body = viewer.get("/charts.csv?span=all")
	assert.Regexp(t, `(?m)^total,65,`+regexp.QuoteMeta(itoa(want.Sales))+`,`+itoa(want.Wins)+`,`, body)
	_, body = viewer.get("/report?day=" + time.Now().UTC().Format("2006-01-02"))
	assert.Contains(t, body, "<td>borne-1</td><td class=\"num\">40</td>")
}

func itoa(n int64) string { return i64(n) }

// A cashier pays a voucher once, through the centre's counter; a block
// file is sent by an operator, a file that is not a block is refused and
// nothing is sent.
func TestPayAndSend(t *testing.T) {
	c := fleettest.Start(t)
	st, val := busyKiosk(t, 3)
	publish(t, c, "borne-1", st)
	tc := startConsole(t, c, nil, nil)

	cashier := tc.login(t, Cashier)
	cashier.get("/vouchers")
	code, body := cashier.post("/vouchers/lookup", cashier.form(url.Values{"validation": {kiosk.FormatValidation(val)}}))
	require.Equal(t, http.StatusOK, code)
	masked := kiosk.MaskValidation(val)
	assert.Contains(t, body, `<h2 id="verdict">PAYABLE `+masked+`</h2>`)
	assert.Contains(t, body, `<button id="pay" class="primary">Payer `)
	code, body = cashier.post("/vouchers/pay", cashier.form(url.Values{"validation": {val}}))
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, `<h2 id="verdict">PAYÉ `+masked+`</h2>`)
	assert.Contains(t, body, "console:cashier")
	code, body = cashier.post("/vouchers/pay", cashier.form(url.Values{"validation": {val}}))
	assert.Equal(t, http.StatusConflict, code)
	assert.Contains(t, body, "REFUSÉ "+masked)
	e, err := c.Vouchers(t).Find(context.Background(), val)
	require.NoError(t, err)
	assert.Equal(t, "paid", e.State)
	assert.Equal(t, "console:cashier", e.PaidBy)
	code, body = cashier.post("/vouchers/lookup", cashier.form(url.Values{"validation": {"123456789012345678"}}))
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "NUMÉRO INVALIDE")
	code, _ = cashier.post("/blocks/send", cashier.form(url.Values{}))
	assert.Equal(t, http.StatusForbidden, code, "a cashier does not send blocks")

	op := tc.login(t, Operator)
	send := func(file []byte, to, name string) (int, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("csrf", op.csrf)
		mw.WriteField("to", to)
		mw.WriteField("name", name)
		fw, _ := mw.CreateFormFile("file", "bloc.pharaon")
		fw.Write(file)
		mw.Close()
		resp, err := op.c.Post(op.base+"/blocks/send", mw.FormDataContentType(), &buf)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body = send([]byte("not a block"), "kiosk", "borne-1")
	assert.Equal(t, http.StatusConflict, code)
	assert.Contains(t, body, "not a block file")
	code, body = send(blockFile(t, 2, game.Stake200), "kiosk", "borne/1")
	assert.Equal(t, http.StatusConflict, code)
	assert.Contains(t, body, "not a kiosk id or group name")
	ds, err := fleet.ReadDeliveries(context.Background(), c.JS(t))
	require.NoError(t, err)
	assert.Empty(t, ds, "nothing sent")
	code, body = send(blockFile(t, 2, game.Stake200), "kiosk", "borne-1")
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, "<p class=\"done\" id=\"sent\">ENVOYÉ\u00a0: 8/2 (2")
	ds, err = fleet.ReadDeliveries(context.Background(), c.JS(t))
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, "kiosk:borne-1", ds[0].To)

	admin := tc.login(t, Administrator)
	_, body = admin.get("/audit")
	for _, want := range []string{"<td>pay</td><td>" + masked + "</td><td>paid " + itoa(int64(e.Amount)) + " cents, kiosk borne-1 voucher 1</td>",
		"<td>pay_refused</td><td>" + masked + "</td>", "<td>send_block</td><td>kiosk:borne-1 bloc.pharaon</td><td>block 8/2 delivery 1</td>"} {
		assert.Contains(t, body, want)
	}
	assert.NotContains(t, body, val, "never the number whole")
}
