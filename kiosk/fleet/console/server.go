package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/kiosk/fleet"
)

// VoucherDesk is what the console needs of the fleet's vouchers: the
// centre's counter, fleet.Vouchers, as pharaon-central pay uses it.
type VoucherDesk interface {
	Find(ctx context.Context, validation string) (fleet.VoucherEntry, error)
	Reported(ctx context.Context, e fleet.VoucherEntry, validation string) error
	Pay(ctx context.Context, validation, by string, now time.Time) (fleet.VoucherEntry, error)
}

// Config is what a console is made of.
type Config struct {
	JS       jetstream.JetStream
	Accounts *Accounts
	Vouchers VoucherDesk
	// SendBlock sends a block file: fleet.SendBlockFile on the centre's
	// connection, as pharaon-central send-block.
	SendBlock func(ctx context.Context, file []byte, to fleet.Address, now time.Time) (fleet.Delivery, error)
	// Deliveries lists the blocks sent (fleet.ReadDeliveries).
	Deliveries    func(ctx context.Context) ([]fleet.Delivery, error)
	VoucherMaster []byte
	Groups        map[string][]string // each kiosk's groups
	Webhooks      *Webhooks           // nil: none
	Now           func() time.Time
	// Secure: served over HTTPS, the session's cookie is sent over HTTPS
	// only.
	Secure   bool
	UnitsLow int64         // 0: 10 000
	Silence  time.Duration // 0: 10 minutes
	Logf     func(format string, args ...any)
}

// Server is the console: its fold of the records, its alarms, its
// sessions and its pages.
type Server struct {
	cfg    Config
	live   *Live
	alarms *Alarms
	audit  *Audit
	ses    sessions
	pages  map[string]*template.Template
	mux    *http.ServeMux

	subMu sync.Mutex
	subs  map[chan string]bool
}

//go:embed templates/*.html static/*
var files embed.FS

// New makes a console on cfg's connection: its audit stream and alarms'
// bucket opened (made at the first start), its fold empty until Run.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	s := &Server{cfg: cfg, live: NewLive(cfg.VoucherMaster, cfg.Groups), subs: map[chan string]bool{},
		ses: sessions{m: map[string]*session{}, fails: map[string][]time.Time{}}}
	var err error
	if s.audit, err = OpenAudit(ctx, cfg.JS); err != nil {
		return nil, err
	}
	if s.alarms, err = OpenAlarms(ctx, cfg.JS, cfg.Now, cfg.Webhooks); err != nil {
		return nil, err
	}
	s.alarms.Logf = cfg.Logf
	if cfg.UnitsLow > 0 {
		s.alarms.UnitsLow = cfg.UnitsLow
	}
	if cfg.Silence > 0 {
		s.alarms.Silence = cfg.Silence
	}
	s.alarms.onChange = func(Alarm) { s.notify("alarm") }
	if s.pages, err = parsePages(); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// Live is the console's fold (for a test's or a benchmark's look).
func (s *Server) Live() *Live { return s.live }

// Alarms are the console's alarms.
func (s *Server) Alarms() *Alarms { return s.alarms }

// Run follows the records and looks for silent kiosks every half minute
// until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	s.live.changed = func(kiosk string) {
		s.alarms.Check(ctx, s.live, kiosk)
		if s.live.Ready() {
			s.notify("fleet")
		}
	}
	go func() {
		t := time.NewTicker(30 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if s.live.Ready() {
					s.alarms.CheckSilence(ctx, s.live)
				}
			}
		}
	}()
	err := fleet.FollowRecords(ctx, s.cfg.JS, func() {
		s.live.setReady()
		s.alarms.CheckSilence(ctx, s.live)
		s.alarms.startSending()
		s.notify("fleet")
	}, func(r fleet.Record) error {
		s.live.Add(r)
		return nil
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// Handler is the console's pages.
func (s *Server) Handler() http.Handler { return s.mux }

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /login", s.loginPage)
	m.HandleFunc("POST /login", s.login)
	m.HandleFunc("POST /logout", s.with(Viewer, s.logout))
	m.HandleFunc("GET /lang", s.lang)
	m.Handle("GET /static/", http.FileServerFS(files))
	m.HandleFunc("GET /{$}", s.with(Viewer, s.fleetPage))
	m.HandleFunc("GET /fleet.csv", s.with(Viewer, s.fleetCSV))
	m.HandleFunc("GET /charts", s.with(Viewer, s.chartsPage))
	m.HandleFunc("GET /charts.csv", s.with(Viewer, s.chartsCSV))
	m.HandleFunc("GET /alarms", s.with(Viewer, s.alarmsPage))
	m.HandleFunc("GET /alarms.csv", s.with(Viewer, s.alarmsCSV))
	m.HandleFunc("POST /alarms/ack", s.with(Operator, s.ack))
	m.HandleFunc("GET /vouchers", s.with(Cashier, s.vouchersPage))
	m.HandleFunc("POST /vouchers/lookup", s.with(Cashier, s.lookup))
	m.HandleFunc("POST /vouchers/pay", s.with(Cashier, s.pay))
	m.HandleFunc("GET /blocks", s.with(Viewer, s.blocksPage))
	m.HandleFunc("GET /blocks.csv", s.with(Viewer, s.stockCSV))
	m.HandleFunc("POST /blocks/send", s.with(Operator, s.send))
	m.HandleFunc("GET /updates", s.with(Viewer, s.updatesPage))
	m.HandleFunc("GET /audit", s.with(Administrator, s.auditPage))
	m.HandleFunc("GET /audit.csv", s.with(Administrator, s.auditCSV))
	m.HandleFunc("GET /report", s.with(Viewer, s.reportPage))
	m.HandleFunc("GET /events", s.with(Viewer, s.events))
	s.mux = m
}

// request is what a handler knows of its request.
type request struct {
	ses  *session
	lang Lang
}

// with checks the session, the role and, for a POST, the CSRF token,
// before h: a role too low is refused here, on the server, whatever the
// page showed, and the refusal is audited.
func (s *Server) with(min Role, h func(w http.ResponseWriter, r *http.Request, q request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		header(w)
		now := s.cfg.Now()
		ses := s.ses.get(r, now)
		lang := langOf(r)
		if ses == nil {
			if r.Method == http.MethodGet && !strings.HasSuffix(r.URL.Path, ".csv") && r.URL.Path != "/events" {
				http.Redirect(w, r, "/login", http.StatusSeeOther)
				return
			}
			http.Error(w, T(lang, "login"), http.StatusUnauthorized)
			return
		}
		q := request{ses: ses, lang: lang}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 16<<20)
			if !ses.csrfOK(r) {
				s.record(r, q, "denied", r.URL.Path, "no CSRF token or a wrong one")
				s.fail(w, q, http.StatusForbidden, T(lang, "bad_request")+": CSRF")
				return
			}
		}
		if ses.role < min {
			s.record(r, q, "denied", r.Method+" "+r.URL.Path, "role "+ses.role.String()+", needs "+min.String())
			s.fail(w, q, http.StatusForbidden, T(lang, "denied"))
			return
		}
		h(w, r, q)
	}
}

// header: no page is cached (a voucher's state, an operator's session),
// none is framed, none runs a script from elsewhere.
func header(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; form-action 'self'")
}

func langOf(r *http.Request) Lang {
	if c, err := r.Cookie("lang"); err == nil && c.Value == string(English) {
		return English
	}
	return French
}

// lang sets the language's cookie and goes back to the page (a path of
// this console only).
func (s *Server) lang(w http.ResponseWriter, r *http.Request) {
	l := French
	if r.URL.Query().Get("to") == string(English) {
		l = English
	}
	http.SetCookie(w, &http.Cookie{Name: "lang", Value: string(l), Path: "/", MaxAge: 365 * 86400, SameSite: http.SameSiteLaxMode,
		Secure: s.cfg.Secure})
	back := r.URL.Query().Get("back")
	if !strings.HasPrefix(back, "/") || strings.HasPrefix(back, "//") || strings.Contains(back, "\\") {
		back = "/"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

func remote(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}

// record writes an audit event of the request's operator; false when the
// log could not take it (the action must then not be done).
func (s *Server) record(r *http.Request, q request, action, object, outcome string) bool {
	e := AuditEvent{At: s.cfg.Now().UTC(), Action: action, Object: object, Outcome: outcome, Remote: remote(r)}
	if q.ses != nil {
		e.Operator, e.Role = q.ses.name, q.ses.role.String()
	}
	if err := s.audit.Write(r.Context(), e); err != nil {
		s.cfg.Logf("%v", err)
		return false
	}
	return true
}

// errNotAudited: the audit log did not take the action's event, so the
// action was not done.
var errNotAudited = errors.New("the audit log is unavailable: nothing was done")

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	header(w)
	s.render(w, r, "login", request{lang: langOf(r)}, map[string]any{})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	header(w)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	q := request{lang: langOf(r)}
	name, password := r.PostFormValue("name"), r.PostFormValue("password")
	now := s.cfg.Now()
	if s.ses.locked(name, now) {
		s.record(r, request{}, "login_refused", name, "locked: too many tries")
		w.WriteHeader(http.StatusTooManyRequests)
		s.render(w, r, "login", q, map[string]any{"Error": T(q.lang, "login_locked"), "Name": name})
		return
	}
	role, err := s.cfg.Accounts.Check(name, password)
	if err != nil {
		s.ses.failed(name, now)
		s.record(r, request{}, "login_refused", name, err.Error())
		w.WriteHeader(http.StatusUnauthorized)
		s.render(w, r, "login", q, map[string]any{"Error": T(q.lang, "login_refused"), "Name": name})
		return
	}
	ses := s.ses.start(name, role, now)
	if !s.record(r, request{ses: ses}, "login", name, role.String()) {
		s.ses.end(ses.token)
		s.fail(w, q, http.StatusServiceUnavailable, errNotAudited.Error())
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: ses.token, Path: "/", HttpOnly: true, Secure: s.cfg.Secure,
		SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request, q request) {
	s.record(r, q, "logout", q.ses.name, "")
	s.ses.end(q.ses.token)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: s.cfg.Secure,
		SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// fail answers with a page saying why.
func (s *Server) fail(w http.ResponseWriter, q request, code int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, "<!doctype html><html lang=%q><meta charset=utf-8><title>%d</title><link rel=stylesheet href=/static/console.css>"+
		"<main class=fail><h1>%d</h1><p>%s</p><p><a href=/>%s</a></p></main></html>",
		string(q.lang), code, code, template.HTMLEscapeString(msg), T(q.lang, "fleet"))
}

// notify tells the live pages that what kind names changed.
func (s *Server) notify(kind string) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	for c := range s.subs {
		select {
		case c <- kind:
		default: // that page has a change to fetch already
		}
	}
}

// events is the pages' server-sent events: a line per change, at most one
// a second, so a busy fleet does not make 500 pages reload 500 times a
// second; the page fetches itself again on each.
func (s *Server) events(w http.ResponseWriter, r *http.Request, q request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "no streaming", http.StatusInternalServerError)
		return
	}
	c := make(chan string, 1)
	s.subMu.Lock()
	s.subs[c] = true
	s.subMu.Unlock()
	defer func() {
		s.subMu.Lock()
		delete(s.subs, c)
		s.subMu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, ": live\n\n")
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case kind := <-c:
			fmt.Fprintf(w, "event: change\ndata: %s\n\n", kind)
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
		}
	}
}
