package console

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/fleettest"
	"pharaon/store"
)

// clock is the tests' injected time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// publish runs a publisher of st as kiosk id until its outbox is out.
func publish(t *testing.T, c *fleettest.Centre, id string, st *store.Store) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o, err := st.OutboxState(ctx)
	require.NoError(t, err)
	p, err := fleet.NewPublisher(c.Kiosk(t, id), st)
	require.NoError(t, err)
	p.MinBackoff, p.Poll = 10*time.Millisecond, 10*time.Millisecond
	done := make(chan struct{})
	var once sync.Once
	p.OnAck = func(upTo int64) {
		if upTo == o.Last {
			once.Do(func() { close(done) })
		}
	}
	go p.Run(ctx)
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("not published")
	}
}

// testConsole is a console on a test centre, its accounts one per role
// (each's password its name twice and "-pass"), served by httptest.
type testConsole struct {
	centre *fleettest.Centre
	srv    *Server
	http   *httptest.Server
	clock  *clock
	cancel context.CancelFunc
	done   chan error
}

func startConsole(t *testing.T, c *fleettest.Centre, hooks *Webhooks, groups map[string][]string) *testConsole {
	t.Helper()
	clk := &clock{t: time.Now()}
	accounts := OpenAccounts(filepath.Join(t.TempDir(), "operators.json"))
	for _, r := range []Role{Viewer, Cashier, Operator, Administrator} {
		require.NoError(t, accounts.Add(r.String(), r, r.String()+r.String()+"-pass", clk.now()))
	}
	js := c.JS(t)
	master, err := c.Material.VoucherMaster()
	require.NoError(t, err)
	srv, err := New(context.Background(), Config{JS: js, Accounts: accounts, VoucherMaster: master, Groups: groups,
		Webhooks: hooks, Now: clk.now, Logf: t.Logf,
		Vouchers: c.Vouchers(t),
		SendBlock: func(ctx context.Context, file []byte, to fleet.Address, now time.Time) (fleet.Delivery, error) {
			return fleet.SendBlockFile(ctx, js, file, to, now)
		},
		Deliveries: func(ctx context.Context) ([]fleet.Delivery, error) { return fleet.ReadDeliveries(ctx, js) }})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	tc := &testConsole{centre: c, srv: srv, http: httptest.NewServer(srv.Handler()), clock: clk, cancel: cancel, done: make(chan error, 1)}
	go func() { tc.done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		tc.http.Close()
		cancel()
		require.NoError(t, <-tc.done)
	})
	require.Eventually(t, srv.Live().Ready, 30*time.Second, 10*time.Millisecond)
	return tc
}

// browser is an HTTP client with its cookies, logged in as role.
type browser struct {
	t    *testing.T
	c    *http.Client
	base string
	csrf string
}

func (tc *testConsole) login(t *testing.T, role Role) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	b := &browser{t: t, c: &http.Client{Jar: jar}, base: tc.http.URL}
	code, body := b.post("/login", url.Values{"name": {role.String()}, "password": {role.String() + role.String() + "-pass"}})
	require.Equal(t, http.StatusOK, code, body)
	b.readCSRF(body)
	require.NotEmpty(t, b.csrf, body)
	return b
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) readCSRF(body string) {
	if m := csrfField.FindStringSubmatch(body); m != nil {
		b.csrf = m[1]
	}
}

func (b *browser) get(path string) (int, string) {
	b.t.Helper()
	resp, err := b.c.Get(b.base + path)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	b.readCSRF(string(body))
	return resp.StatusCode, string(body)
}

func (b *browser) post(path string, v url.Values) (int, string) {
	b.t.Helper()
	resp, err := b.c.PostForm(b.base+path, v)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	return resp.StatusCode, string(body)
}

// withCSRF adds the session's token to a form.
func (b *browser) form(v url.Values) url.Values {
	v.Set("csrf", b.csrf)
	return v
}

func TestAccounts(t *testing.T) {
	a := OpenAccounts(filepath.Join(t.TempDir(), "console", "operators.json"))
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	require.NoError(t, a.Add("Jeanne", Cashier, "correct horse battery", now))
	role, err := a.Check("Jeanne", "correct horse battery")
	require.NoError(t, err)
	assert.Equal(t, Cashier, role)
	_, err = a.Check("Jeanne", "correct horse batterY")
	assert.ErrorIs(t, err, ErrNoAccount)
	_, err = a.Check("Paul", "correct horse battery")
	assert.ErrorIs(t, err, ErrNoAccount)
	assert.Error(t, a.Add("Paul", Viewer, "short", now), "a short password")
	assert.Error(t, a.Add("<b>", Viewer, "long enough password", now), "a name the pages would have to escape")
	_, err = a.Check("Paul", "short")
	assert.ErrorIs(t, err, ErrNoAccount, "nothing was added")

	b, err := readFile(a.path)
	require.NoError(t, err)
	assert.NotContains(t, b, "correct horse", "never the password")
	assert.Contains(t, b, `"hash": "argon2id$v=19$m=65536,t=1,p=2$`)
	// A new password replaces the old.
	require.NoError(t, a.Add("Jeanne", Operator, "another long password", now))
	_, err = a.Check("Jeanne", "correct horse battery")
	assert.ErrorIs(t, err, ErrNoAccount)
	role, err = a.Check("Jeanne", "another long password")
	require.NoError(t, err)
	assert.Equal(t, Operator, role)
}

// The roles are the server's: a viewer's POST to pay or to send is
// refused (and audited) even with a valid session and CSRF token; a POST
// without the token is refused whoever sends it.
func TestRolesAndCSRF(t *testing.T) {
	tc := startConsole(t, fleettest.Start(t), nil, nil)
	viewer := tc.login(t, Viewer)
	code, _ := viewer.get("/")
	assert.Equal(t, http.StatusOK, code)
	for _, p := range []string{"/vouchers/pay", "/vouchers/lookup", "/blocks/send", "/alarms/ack"} {
		code, body := viewer.post(p, viewer.form(url.Values{"validation": {"123456789012345678"}, "id": {"x"}}))
		assert.Equal(t, http.StatusForbidden, code, p)
		assert.Contains(t, body, "Votre rôle ne permet pas cette action.", p)
	}
	code, _ = viewer.get("/audit")
	assert.Equal(t, http.StatusForbidden, code, "the audit log is the administrator's")

	op := tc.login(t, Operator)
	code, body := op.post("/alarms/ack", url.Values{"id": {"x"}})
	assert.Equal(t, http.StatusForbidden, code, "no CSRF token")
	assert.Contains(t, body, "CSRF")
	code, _ = op.post("/alarms/ack", url.Values{"id": {"x"}, "csrf": {viewer.csrf}})
	assert.Equal(t, http.StatusForbidden, code, "another session's token")

	// Logged out, a GET goes to the login page, a POST is refused.
	anon := &browser{t: t, c: &http.Client{}, base: tc.http.URL}
	code, body = anon.get("/")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `action="/login"`)
	code, _ = anon.post("/vouchers/pay", url.Values{"validation": {"1"}})
	assert.Equal(t, http.StatusUnauthorized, code)

	// A wrong password five times locks the name, the right one too.
	for range loginTries {
		code, _ := anon.post("/login", url.Values{"name": {"cashier"}, "password": {"wrong password!"}})
		assert.Equal(t, http.StatusUnauthorized, code)
	}
	code, _ = anon.post("/login", url.Values{"name": {"cashier"}, "password": {"cashiercashier-pass"}})
	assert.Equal(t, http.StatusTooManyRequests, code)
	tc.clock.set(tc.clock.now().Add(loginWindow + time.Second))
	tc.login(t, Cashier)

	admin := tc.login(t, Administrator)
	code, body = admin.get("/audit")
	require.Equal(t, http.StatusOK, code)
	for _, want := range []string{"<td>viewer</td><td>viewer</td><td>denied</td><td>POST /vouchers/pay</td>",
		"<td>operator</td><td>operator</td><td>denied</td><td>/alarms/ack</td><td>no CSRF token or a wrong one</td>",
		"<td>login_refused</td><td>cashier</td><td>locked: too many tries</td>", "<td>administrator</td><td>administrator</td><td>login</td>"} {
		assert.Contains(t, body, want)
	}
}

// A kiosk's critical event is an alarm of the kiosk out of service, on
// the page, sent to its webhook signed, tried again until taken, and
// acknowledged once by a named operator; its fleet row says why.
func TestAlarmOutOfServiceAcknowledgedAndSent(t *testing.T) {
	secret := []byte("the operator's shared secret")
	var mu sync.Mutex
	var got []Hook
	tries := 0
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		tries++
		if tries <= 2 {
			http.Error(w, "down", http.StatusBadGateway) // the first tries fail
			return
		}
		m := hmac.New(sha256.New, secret)
		io.WriteString(m, r.Header.Get("X-Pharaon-Timestamp")+".")
		m.Write(body)
		if r.Header.Get("X-Pharaon-Signature") != "sha256="+hex.EncodeToString(m.Sum(nil)) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var h Hook
		if json.Unmarshal(body, &h) == nil {
			got = append(got, h)
		}
	}))
	defer hook.Close()
	c := fleettest.Start(t)
	hooks := NewWebhooks(map[AlarmKind][]string{AlarmOutOfService: {hook.URL}}, secret, time.Now)
	hooks.Backoff = 10 * time.Millisecond
	defer hooks.Close()
	tc := startConsole(t, c, hooks, map[string][]string{"borne-1": {"paris"}})

	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.Adjust(ctx, 20*game.Euro, "", "test credit")
	require.NoError(t, err)
	_, err = st.Log(ctx, store.Event{Level: store.LevelCritical, Source: "kiosk", Code: "store", Detail: "disk full"})
	require.NoError(t, err)
	publish(t, c, "borne-1", st)

	var al Alarm
	require.Eventually(t, func() bool {
		for _, a := range tc.srv.Alarms().List() {
			if a.Kind == AlarmOutOfService && a.Kiosk == "borne-1" {
				al = a
				return true
			}
		}
		return false
	}, 30*time.Second, 10*time.Millisecond)
	assert.Equal(t, "store: disk full", al.Detail)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) > 0 }, 30*time.Second, 10*time.Millisecond)
	mu.Lock()
	require.Len(t, got, 1, "taken at the third try")
	assert.Equal(t, al.ID, got[0].ID)
	assert.Equal(t, 3, tries)
	mu.Unlock()

	viewer := tc.login(t, Viewer)
	_, body := viewer.get("/?group=paris")
	assert.Contains(t, body, `<tr class="out_of_service" data-kiosk="borne-1">`)
	assert.Contains(t, body, "Hors service\u00a0: store: disk full")
	assert.Contains(t, body, "20\u00a0€", "its credit")
	_, body = viewer.get("/?group=lyon")
	assert.NotContains(t, body, `data-kiosk="borne-1"`, "filtered out")
	_, body = viewer.get("/alarms")
	assert.Contains(t, body, `data-id="`+al.ID+`"`)
	assert.NotContains(t, body, "ack-button", "a viewer has no button")

	op := tc.login(t, Operator)
	_, body = op.get("/alarms")
	assert.Contains(t, body, "ack-button")
	code, _ := op.post("/alarms/ack", op.form(url.Values{"id": {al.ID}}))
	assert.Equal(t, http.StatusOK, code)
	_, body = op.get("/alarms")
	assert.Regexp(t, `<span class="ack">operator, \d\d/\d\d/\d{4}`, body)
	code, _ = op.post("/alarms/ack", op.form(url.Values{"id": {al.ID}}))
	assert.Equal(t, http.StatusConflict, code, "acknowledged once")

	// Kept: a console started again reads it back, acknowledged.
	again, err := OpenAlarms(ctx, c.JS(t), time.Now, nil)
	require.NoError(t, err)
	require.Len(t, again.List(), 1)
	assert.Equal(t, "operator", again.List()[0].AckBy)

	// Silent past the threshold: an alarm, once.
	tc.clock.set(tc.clock.now().Add(11 * time.Minute))
	tc.srv.Alarms().CheckSilence(ctx, tc.srv.Live())
	tc.srv.Alarms().CheckSilence(ctx, tc.srv.Live())
	n := 0
	for _, a := range tc.srv.Alarms().List() {
		if a.Kind == AlarmSilent {
			n++
		}
	}
	assert.Equal(t, 1, n)
	_, body = viewer.get("/alarms.csv")
	assert.Contains(t, body, "id,kind,kiosk,detail,raised,ack_by,ack_at\n")
	assert.Contains(t, body, ","+string(AlarmOutOfService)+",borne-1,store: disk full,")
}

func readFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}
