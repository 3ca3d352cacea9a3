package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	cryptorand "crypto/rand"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet/console"
	"pharaon/store"
)

// chromiumPath is Debian's chromium, which make test installs.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Skip("no chromium: make test installs Debian's chromium package")
	return ""
}

// shot saves the page as docs/screenshots/<name>.png when
// PHARAON_CONSOLE_SCREENSHOTS names the directory (docs/screenshots/README.md).
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("PHARAON_CONSOLE_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// The console in a real browser, as each role uses it: a viewer reads
// the fleet and cannot pay nor send, even by posting the forms itself; the
// charts' totals are pharaon-central report's; an operator acknowledges
// the alarm of a kiosk put out of service, and sees the next one come
// without a reload; a cashier pays a voucher; an operator sends a block.
func TestConsoleInABrowser(t *testing.T) {
	chromium := chromiumPath(t)
	c := startCentre(t)
	ctx := context.Background()

	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	keys := block.NewKeySet(key.Public().(ed25519.PublicKey))
	blockFile := func(number uint32, stake game.Stake) []byte {
		var buf bytes.Buffer
		_, err := block.Generate(&buf, block.Params{Emission: 8, Number: number, Stake: stake,
			Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Rand: rand.NewChaCha8([32]byte{byte(number)})}, key)
		require.NoError(t, err)
		return buf.Bytes()
	}
	stores := map[string]*store.Store{}
	var val string
	for i, id := range []string{"borne-1", "borne-2", "borne-3"} {
		st, err := store.Open(filepath.Join(t.TempDir(), id+".db"))
		require.NoError(t, err)
		defer st.Close()
		stores[id] = st
		for j, stake := range []game.Stake{game.Stake050, game.Stake100} {
			_, err = st.ImportBlock(ctx, bytes.NewReader(blockFile(uint32(10*i+j+1), stake)), keys)
			require.NoError(t, err)
		}
		_, err = st.Adjust(ctx, 100*game.Euro, "", "test credit")
		require.NoError(t, err)
		for n := range 20 + 15*i {
			stake := game.Stake100
			if n%3 == 0 {
				stake = game.Stake050
			}
			p, err := st.StartPlay(ctx, store.PlayRequest{Stake: stake, Mode: store.ModeAuto, LayoutVersion: 1})
			require.NoError(t, err)
			var cs game.Counts
			switch {
			case p.ViaBonus:
				cs[game.Snake] = 3
				require.NoError(t, st.EnterBonus(ctx, p.ID, nil))
			case p.Tier.Wins():
				comb := game.Table(p.Stake).Prizes[p.Tier-1].Combination
				cs[comb.Symbol] = comb.Count
			}
			_, err = st.FinishPlay(ctx, p.ID, store.FinishInfo{Revealed: cs, Shown: p.Prize})
			require.NoError(t, err)
		}
		if id == "borne-1" {
			val, err = kiosk.NewValidation(cryptorand.Reader)
			require.NoError(t, err)
			credit, err := st.Credit(ctx)
			require.NoError(t, err)
			v, err := st.IssueVoucher(ctx, store.VoucherRequest{Amount: credit, Validation: val, Expires: time.Now().Add(24 * time.Hour)})
			require.NoError(t, err)
			_, _, err = st.ConfirmVoucher(ctx, v.ID)
			require.NoError(t, err)
		}
		if id == "borne-2" {
			// Put out of service: its store refused a write.
			_, err = st.Log(ctx, store.Event{Level: store.LevelCritical, Source: "kiosk", Code: "store", Detail: "disk I/O error"})
			require.NoError(t, err)
		}
		c.kiosk(t, id, map[string]string{"borne-1": "nord", "borne-2": "nord", "borne-3": "sud"}[id])
		publish(t, c, id, st)
	}

	accounts := console.OpenAccounts(console.AccountsFile(c.dir))
	for _, r := range []console.Role{console.Viewer, console.Cashier, console.Operator, console.Administrator} {
		require.NoError(t, accounts.Add(r.String(), r, "le mot de passe de "+r.String(), time.Now()))
	}
	runCtx, cancel := context.WithCancel(ctx)
	var logs lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, []string{"console", "-fleet", c.dir, "-nats", c.url, "-http", "127.0.0.1:0"}, &logs, &logs, time.Now)
	}()
	defer func() {
		cancel()
		require.NoError(t, <-done, logs.String())
	}()
	addr := regexp.MustCompile(`console: (http://127\.0\.0\.1:\d+)`)
	require.Eventually(t, func() bool { return addr.MatchString(logs.String()) }, 30*time.Second, 10*time.Millisecond, logs.String())
	base := addr.FindStringSubmatch(logs.String())[1]

	alloc, stopAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.WindowSize(1400, 900))...)
	defer stopAlloc()
	browser, stopBrowser := chromedp.NewContext(alloc)
	defer stopBrowser()
	require.NoError(t, chromedp.Do(browser, chromedp.Navigate("about:blank")))
	// A live page fetches its live part once its event stream opens: a
	// click waits for that, or it could land on a row being replaced.
	settled := chromedp.WaitVisible(chromedp.CSS("body[data-refreshed]"))
	// Each role in a browser context of its own: its own cookies.
	as := func(r console.Role) context.Context {
		tab, stop := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
		t.Cleanup(stop)
		tab, stopTimeout := context.WithTimeout(tab, 2*time.Minute)
		t.Cleanup(stopTimeout)
		require.NoError(t, chromedp.Do(tab,
			chromedp.EmulateViewport(1400, 900),
			chromedp.Navigate(base+"/login"),
			chromedp.SendKeys(chromedp.ID("name"), r.String()),
			chromedp.SendKeys(chromedp.ID("password"), "le mot de passe de "+r.String()),
			chromedp.Click(chromedp.ID("login")),
			chromedp.WaitVisible(chromedp.CSS(`tr[data-kiosk="borne-3"]`)),
			settled,
		), r.String())
		return tab
	}
	text := func(tab context.Context, sel string) string {
		t.Helper()
		s, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err, sel)
		return strings.TrimSpace(s)
	}
	// post sends a form as the page's own script could, with the
	// session's CSRF token: what a viewer who edits the page can do.
	post := func(tab context.Context, path string) int {
		t.Helper()
		status, err := chromedp.Run(tab, chromedp.Evaluate[int](`(async () => {
			const csrf = document.querySelector('input[name=csrf]').value;
			const r = await fetch('`+path+`', {method: 'POST', body: new URLSearchParams({csrf, validation: '`+val+`', name: 'borne-1', to: 'kiosk', id: 'x'})});
			return r.status; })()`, chromedp.EvalAwaitPromise))
		require.NoError(t, err)
		return status
	}

	t.Run("viewer", func(t *testing.T) {
		tab := as(console.Viewer)
		assert.Contains(t, text(tab, `tr[data-kiosk="borne-2"] td.state`), "Hors service\u00a0: store: disk I/O error")
		assert.Equal(t, "En service", text(tab, `tr[data-kiosk="borne-1"] td.state`))
		assert.Equal(t, "3", text(tab, "#kiosk-count"))
		shot(t, tab, "console-fleet")
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/?group=sud"), chromedp.WaitVisible(chromedp.CSS("#fleet"))))
		assert.Equal(t, "1", text(tab, "#kiosk-count"), "filtered by group")
		nav, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("header nav")))
		require.NoError(t, err)
		assert.NotContains(t, nav, "Tickets", "no voucher page for a viewer")
		assert.Equal(t, 403, post(tab, "/vouchers/pay"), "the server refuses a viewer's payment")
		assert.Equal(t, 403, post(tab, "/blocks/send"), "and a viewer's block")
	})

	t.Run("charts", func(t *testing.T) {
		tab := as(console.Viewer)
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/charts?span=all"), chromedp.WaitVisible(chromedp.ID("total-sales"))))
		out, err := c.cmd(t, time.Now(), "report")
		require.NoError(t, err, out)
		total := regexp.MustCompile(`(?m)^ *total +(\d+) +(\S+\x{a0}€) +(\S+\x{a0}€) *$`).FindStringSubmatch(out)
		require.NotNil(t, total, out)
		assert.Equal(t, total[1:], []string{text(tab, "#total-plays"), text(tab, "#total-sales"), text(tab, "#total-wins")},
			"the chart's totals are the report's")
		shot(t, tab, "console-charts")
	})

	t.Run("acknowledge", func(t *testing.T) {
		tab := as(console.Operator)
		open := `tr.open.out_of_service[data-kiosk="borne-2"]`
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/alarms"), settled, chromedp.WaitVisible(chromedp.CSS(open))))
		shot(t, tab, "console-alarms")
		require.NoError(t, chromedp.Do(tab, chromedp.Click(chromedp.CSS(open+" .ack-button")),
			chromedp.WaitVisible(chromedp.CSS(`tr.acked.out_of_service[data-kiosk="borne-2"]`))))
		assert.Contains(t, text(tab, `tr.acked.out_of_service[data-kiosk="borne-2"] .ack`), "operator, ")
		// Live: borne-3 goes out of service while the page is open.
		_, err := stores["borne-3"].Log(ctx, store.Event{Level: store.LevelCritical, Source: "kiosk", Code: "reveal_mismatch", Detail: "play 7"})
		require.NoError(t, err)
		publish(t, c, "borne-3", stores["borne-3"])
		require.NoError(t, chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`tr.open.out_of_service[data-kiosk="borne-3"]`))),
			"shown without a reload")
	})

	t.Run("pay", func(t *testing.T) {
		tab := as(console.Cashier)
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/vouchers"),
			chromedp.SendKeys(chromedp.ID("validation"), kiosk.FormatValidation(val)),
			chromedp.Click(chromedp.ID("lookup")), chromedp.WaitVisible(chromedp.ID("pay"))))
		assert.Equal(t, "PAYABLE "+kiosk.MaskValidation(val), text(tab, "#verdict"))
		shot(t, tab, "console-voucher")
		require.NoError(t, chromedp.Do(tab, chromedp.Click(chromedp.ID("pay")), chromedp.WaitNotPresent(chromedp.ID("pay"))))
		assert.Equal(t, "PAYÉ "+kiosk.MaskValidation(val), text(tab, "#verdict"))
		e, err := c.cmd(t, time.Now(), "voucher", val)
		assert.ErrorIs(t, err, errFound, e)
		assert.Contains(t, e, "payé / paid\u00a0: centre, console:cashier, ")
	})

	t.Run("send", func(t *testing.T) {
		tab := as(console.Operator)
		file := filepath.Join(t.TempDir(), "bloc-8-99.pharaon")
		require.NoError(t, os.WriteFile(file, blockFile(99, game.Stake200), 0o600))
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/blocks"),
			chromedp.SetUploadFiles(chromedp.ID("block-file"), []string{file}),
			chromedp.SendKeys(chromedp.ID("send-name"), "borne-1"),
			chromedp.Click(chromedp.ID("send")), chromedp.WaitVisible(chromedp.ID("sent"))))
		assert.Contains(t, text(tab, "#sent"), "ENVOYÉ\u00a0: 8/99 (2\u00a0€) → kiosk:borne-1")
		out, err := c.cmd(t, time.Now(), "blocks", "-kiosk", "borne-1")
		assert.Contains(t, out, "8/99", err)
		shot(t, tab, "console-blocks")
	})

	t.Run("rollout", func(t *testing.T) {
		// The staged rollout (start one, see it go, stop it) is the update
		// work's, in pharaon-central updates: its page is this one, and its
		// steps in the browser belong here.
		tab := as(console.Operator)
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/updates"), chromedp.WaitVisible(chromedp.ID("updates"))))
		assert.Contains(t, text(tab, "#updates"), "pharaon-central updates")
	})

	t.Run("english", func(t *testing.T) {
		tab := as(console.Administrator)
		require.NoError(t, chromedp.Do(tab, chromedp.Click(chromedp.ID("lang-en")), chromedp.WaitVisible(chromedp.ID("lang-fr"))))
		assert.Contains(t, text(tab, `tr[data-kiosk="borne-2"] td.state`), "Out of service: store: disk I/O error")
		shot(t, tab, "console-fleet-english")
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/audit"), chromedp.WaitVisible(chromedp.ID("audit"))))
		audit := text(tab, "#audit")
		for _, want := range []string{"viewer\tviewer\tdenied\tPOST /vouchers/pay", "cashier\tcashier\tpay\t" + kiosk.MaskValidation(val),
			"operator\toperator\tack\t", "operator\toperator\tsend_block\tkiosk:borne-1 bloc-8-99.pharaon"} {
			assert.Contains(t, audit, want)
		}
	})
}
