package console

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
)

// parsePages parses each page with the layout.
func parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"t":       func(l Lang, key string) string { return T(l, key) },
		"money":   func(l Lang, c int64) string { return Money(l, c) },
		"percent": func(l Lang, r float64) string { return Percent(l, r) },
		"date":    func(l Lang, t time.Time) string { return Date(l, t) },
		"count":   func(n int64) string { return game.Count(int(n)) },
		"day":     func(t time.Time) string { return t.UTC().Format("2006-01-02") },
		"alarm":   func(l Lang, k AlarmKind) string { return T(l, "alarm_"+string(k)) },
		"join":    strings.Join,
		"list":    func(xs ...string) []string { return xs },
		// French puts a non-breaking space before the colon, English none.
		"colon": func(l Lang) string {
			if l == English {
				return ": "
			}
			return "\u00a0: "
		},
		"stakes": func() []int64 {
			var out []int64
			for _, s := range game.Stakes {
				out = append(out, int64(s))
			}
			return out
		},
		"atLeast": func(r Role, name string) bool { m, _ := ParseRole(name); return r >= m },
	}
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", n)
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

// page is what every page's template gets.
type page struct {
	Lang    Lang
	Page    string
	Path    string
	Name    string
	Role    Role
	CSRF    string
	Ready   bool
	Alarms  int // open ones
	Partial bool
	Data    map[string]any
}

// render writes page name; a request with X-Partial asks for its live
// part only (the script's refresh).
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, q request, data map[string]any) {
	p := page{Lang: q.lang, Page: name, Path: r.URL.RequestURI(), Ready: s.live.Ready(), Data: data,
		Partial: r.Header.Get("X-Partial") == "1"}
	if q.ses != nil {
		p.Name, p.Role, p.CSRF = q.ses.name, q.ses.role, q.ses.csrf
		for _, a := range s.alarms.List() {
			if a.AckBy == "" {
				p.Alarms++
			}
		}
	}
	t := s.pages[name]
	tmpl := "layout.html"
	if p.Partial {
		tmpl = "live"
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, tmpl, p); err != nil {
		s.cfg.Logf("page %s: %v", name, err)
		s.fail(w, q, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func fleetQuery(r *http.Request) FleetQuery {
	v := r.URL.Query()
	return FleetQuery{Text: v.Get("q"), State: v.Get("state"), Group: v.Get("group"), Sort: v.Get("sort"), Desc: v.Get("desc") == "1"}
}

func (s *Server) silence() time.Duration { return s.alarms.Silence }

func (s *Server) fleetPage(w http.ResponseWriter, r *http.Request, q request) {
	fq := fleetQuery(r)
	rows := s.live.Rows(fq, s.cfg.Now(), s.silence())
	groups := map[string]bool{}
	for _, gs := range s.live.Groups() {
		for _, g := range gs {
			groups[g] = true
		}
	}
	var gl []string
	for g := range groups {
		gl = append(gl, g)
	}
	sortStrings(gl)
	s.render(w, r, "fleet", q, map[string]any{"Rows": rows, "Q": fq, "Groups": gl})
}

func sortStrings(xs []string) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// csvOut starts a CSV download, audited as an export.
func (s *Server) csvOut(w http.ResponseWriter, r *http.Request, q request, name string) (*csv.Writer, bool) {
	if !s.record(r, q, "export", name, "") {
		s.fail(w, q, http.StatusServiceUnavailable, errNotAudited.Error())
		return nil, false
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	return csv.NewWriter(w), true
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

func (s *Server) fleetCSV(w http.ResponseWriter, r *http.Request, q request) {
	cw, ok := s.csvOut(w, r, q, "fleet.csv")
	if !ok {
		return
	}
	head := []string{"kiosk", "groups", "state", "since", "fault", "credit_cents", "paper", "validator"}
	for _, st := range game.Stakes {
		head = append(head, "units_left_"+i64(int64(st)))
	}
	cw.Write(append(head, "version", "last_seq", "last_seen", "problems"))
	for _, k := range s.live.Rows(fleetQuery(r), s.cfg.Now(), s.silence()) {
		row := []string{k.Kiosk, strings.Join(k.Groups, " "), k.State, stamp(k.Since), k.Fault, i64(k.Credit), k.Paper, k.Validator}
		for i := range game.Stakes {
			row = append(row, i64(at(k.Left, i)))
		}
		cw.Write(append(row, k.Version, i64(k.LastSeq), stamp(k.LastSeen), strconv.Itoa(k.Problems)))
	}
	cw.Flush()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// chartQuery reads the charts' form; bad dates are a message, not a
// chart of something else.
func (s *Server) chartQuery(r *http.Request) (ChartQuery, error) {
	v := r.URL.Query()
	now := s.cfg.Now().UTC()
	q := ChartQuery{To: now, From: now.AddDate(0, 0, -29), Week: v.Get("by") == "week", Kiosk: v.Get("kiosk"), Group: v.Get("group")}
	if v.Get("span") == "all" {
		if first, last := s.live.Span(); !first.IsZero() {
			q.From, q.To = first, last
		}
	}
	var err error
	if f := v.Get("from"); f != "" {
		if q.From, err = time.Parse("2006-01-02", f); err != nil {
			return q, fmt.Errorf("from %q: a date as 2026-12-01", f)
		}
	}
	if t := v.Get("to"); t != "" {
		if q.To, err = time.Parse("2006-01-02", t); err != nil {
			return q, fmt.Errorf("to %q: a date as 2026-12-01", t)
		}
	}
	if q.To.Before(q.From) {
		return q, errors.New("the first day is after the last")
	}
	if q.To.Sub(q.From) > 3*366*24*time.Hour {
		return q, errors.New("three years at most")
	}
	if st := v.Get("stake"); st != "" {
		if q.Stake, err = strconv.ParseInt(st, 10, 64); err != nil {
			return q, fmt.Errorf("stake %q: cents", st)
		}
	}
	return q, nil
}

func (s *Server) chartsPage(w http.ResponseWriter, r *http.Request, q request) {
	cq, err := s.chartQuery(r)
	data := map[string]any{"Q": cq}
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		data["Error"] = err.Error()
	} else {
		ch := s.live.Chart(cq)
		data["Chart"] = ch
		data["SVG"] = barChart(q.lang, ch.Periods)
	}
	data["Kiosks"] = s.kioskIDs()
	s.render(w, r, "charts", q, data)
}

func (s *Server) kioskIDs() []string {
	var out []string
	s.live.Read(func(f *fleet.Fleet, _ map[string]*kioskExtra) {
		for _, k := range f.Sorted() {
			out = append(out, k.Kiosk)
		}
	})
	return out
}

func (s *Server) chartsCSV(w http.ResponseWriter, r *http.Request, q request) {
	cq, err := s.chartQuery(r)
	if err != nil {
		s.fail(w, q, http.StatusBadRequest, err.Error())
		return
	}
	cw, ok := s.csvOut(w, r, q, "sales.csv")
	if !ok {
		return
	}
	cw.Write([]string{"period", "plays", "sales_cents", "wins_cents", "notes_cents"})
	ch := s.live.Chart(cq)
	for _, p := range ch.Periods {
		cw.Write([]string{p.Start.Format("2006-01-02"), i64(p.Plays), i64(p.Sales), i64(p.Wins), i64(p.Notes)})
	}
	cw.Write([]string{"total", i64(ch.Total.Plays), i64(ch.Total.Sales), i64(ch.Total.Wins), i64(ch.Total.Notes)})
	cw.Flush()
}

func (s *Server) alarmsPage(w http.ResponseWriter, r *http.Request, q request) {
	s.render(w, r, "alarms", q, map[string]any{"Alarms": s.alarms.List(), "Message": r.URL.Query().Get("m")})
}

func (s *Server) alarmsCSV(w http.ResponseWriter, r *http.Request, q request) {
	cw, ok := s.csvOut(w, r, q, "alarms.csv")
	if !ok {
		return
	}
	cw.Write([]string{"id", "kind", "kiosk", "detail", "raised", "ack_by", "ack_at"})
	for _, a := range s.alarms.List() {
		cw.Write([]string{a.ID, string(a.Kind), a.Kiosk, a.Detail, stamp(a.Raised), a.AckBy, stamp(a.AckAt)})
	}
	cw.Flush()
}

func (s *Server) ack(w http.ResponseWriter, r *http.Request, q request) {
	id := r.PostFormValue("id")
	if !s.record(r, q, "ack", id, "asked") {
		s.fail(w, q, http.StatusServiceUnavailable, errNotAudited.Error())
		return
	}
	_, err := s.alarms.Ack(r.Context(), id, q.ses.name)
	outcome := "acknowledged"
	if err != nil {
		outcome = err.Error()
	}
	s.record(r, q, "ack", id, outcome)
	if err != nil {
		s.fail(w, q, http.StatusConflict, err.Error())
		return
	}
	http.Redirect(w, r, "/alarms", http.StatusSeeOther)
}

func (s *Server) vouchersPage(w http.ResponseWriter, r *http.Request, q request) {
	s.render(w, r, "vouchers", q, map[string]any{})
}

// voucherView is a voucher as the page shows it: never its number whole.
type voucherView struct {
	Verdict    string // payable, not_payable, unknown_v, invalid_v, paid, refused
	Masked     string
	Entry      fleet.VoucherEntry
	Expires    time.Time
	PaidAt     time.Time
	Why        string
	Validation string // the number typed, for the payment's form only when payable
}

func (s *Server) lookup(w http.ResponseWriter, r *http.Request, q request) {
	typed := r.PostFormValue("validation")
	val, err := kiosk.ParseValidation(typed)
	if err != nil {
		s.record(r, q, "voucher_lookup", "", "invalid number")
		s.render(w, r, "vouchers", q, map[string]any{"V": voucherView{Verdict: "invalid_v", Why: err.Error()}})
		return
	}
	masked := kiosk.MaskValidation(val)
	if !s.record(r, q, "voucher_lookup", masked, "") {
		s.fail(w, q, http.StatusServiceUnavailable, errNotAudited.Error())
		return
	}
	v := voucherView{Masked: masked}
	e, err := s.cfg.Vouchers.Find(r.Context(), val)
	if err != nil {
		v.Verdict, v.Why = "unknown_v", err.Error()
		s.render(w, r, "vouchers", q, map[string]any{"V": v})
		return
	}
	now := s.cfg.Now()
	v.Entry, v.Expires = e, e.Expires()
	if e.PaidAt != 0 {
		v.PaidAt = time.Unix(0, e.PaidAt)
	}
	// Payable as the command judges it: printed, not expired, and held by
	// its kiosk's own published records.
	payable := e.State == "printed" && now.Before(e.Expires()) && !e.Test()
	if payable {
		if err := s.cfg.Vouchers.Reported(r.Context(), e, val); err != nil {
			payable, v.Why = false, err.Error()
		}
	}
	v.Verdict = "not_payable"
	if payable {
		v.Verdict, v.Validation = "payable", val
	}
	if e.Test() {
		v.Why = "test voucher: void, no value"
	}
	s.render(w, r, "vouchers", q, map[string]any{"V": v})
}

func (s *Server) pay(w http.ResponseWriter, r *http.Request, q request) {
	val, err := kiosk.ParseValidation(r.PostFormValue("validation"))
	if err != nil {
		s.record(r, q, "pay_refused", "", "invalid number")
		s.render(w, r, "vouchers", q, map[string]any{"V": voucherView{Verdict: "invalid_v", Why: err.Error()}})
		return
	}
	masked := kiosk.MaskValidation(val)
	// Audited before the payment: a payment the log does not hold is not
	// made.
	if !s.record(r, q, "pay", masked, "asked") {
		s.fail(w, q, http.StatusServiceUnavailable, errNotAudited.Error())
		return
	}
	by := "console:" + q.ses.name
	e, err := s.cfg.Vouchers.Pay(r.Context(), val, by, s.cfg.Now())
	v := voucherView{Masked: masked, Entry: e, Expires: e.Expires()}
	if err != nil {
		v.Verdict, v.Why = "refused", err.Error()
		s.record(r, q, "pay_refused", masked, err.Error())
		w.WriteHeader(http.StatusConflict)
	} else {
		v.Verdict = "paid"
		v.PaidAt = time.Unix(0, e.PaidAt)
		s.record(r, q, "pay", masked, fmt.Sprintf("paid %d cents, kiosk %s voucher %d", e.Amount, e.Kiosk, e.ID))
	}
	s.render(w, r, "vouchers", q, map[string]any{"V": v})
}

func (s *Server) blocksData(r *http.Request, q request) map[string]any {
	data := map[string]any{}
	if s.cfg.Deliveries != nil {
		ds, err := s.cfg.Deliveries(r.Context())
		if err != nil {
			data["DeliveriesError"] = err.Error()
		}
		if len(ds) > 50 {
			ds = ds[len(ds)-50:]
		}
		for i, j := 0, len(ds)-1; i < j; i, j = i+1, j-1 {
			ds[i], ds[j] = ds[j], ds[i]
		}
		data["Deliveries"] = ds
	}
	data["Stock"] = s.stock()
	return data
}

// stockRow is a kiosk's units left at a stake.
type stockRow struct {
	Kiosk  string
	Stake  int64
	Left   int64
	Open   string
	Queued string
}

func (s *Server) stock() []stockRow {
	var out []stockRow
	names := func(bs []fleet.BlockReport) string {
		var n []string
		for _, b := range bs {
			n = append(n, b.Name())
		}
		return strings.Join(n, ", ")
	}
	s.live.Read(func(f *fleet.Fleet, _ map[string]*kioskExtra) {
		for _, k := range f.Sorted() {
			for _, st := range k.Stock() {
				out = append(out, stockRow{k.Kiosk, st.Stake, st.Left, names(st.Open), names(st.Queued)})
			}
		}
	})
	return out
}

func (s *Server) blocksPage(w http.ResponseWriter, r *http.Request, q request) {
	s.render(w, r, "blocks", q, s.blocksData(r, q))
}

func (s *Server) stockCSV(w http.ResponseWriter, r *http.Request, q request) {
	cw, ok := s.csvOut(w, r, q, "stock.csv")
	if !ok {
		return
	}
	cw.Write([]string{"kiosk", "stake_cents", "units_left", "open", "queued"})
	for _, st := range s.stock() {
		cw.Write([]string{st.Kiosk, i64(st.Stake), i64(st.Left), st.Open, st.Queued})
	}
	cw.Flush()
}

func (s *Server) send(w http.ResponseWriter, r *http.Request, q request) {
	data := s.blocksData(r, q)
	name := strings.TrimSpace(r.PostFormValue("name"))
	to := fleet.ToKiosk(name)
	if r.PostFormValue("to") == "group" {
		to = fleet.ToGroup(name)
	}
	f, hdr, err := r.FormFile("file")
	var file []byte
	if err == nil {
		file, err = io.ReadAll(io.LimitReader(f, 8<<20))
		f.Close()
	}
	if err != nil {
		s.record(r, q, "send_refused", to.String(), "no file: "+err.Error())
		data["Error"] = "file: " + err.Error()
		w.WriteHeader(http.StatusBadRequest)
		s.render(w, r, "blocks", q, data)
		return
	}
	object := to.String() + " " + hdr.Filename
	if !s.record(r, q, "send_block", object, "asked") {
		s.fail(w, q, http.StatusServiceUnavailable, errNotAudited.Error())
		return
	}
	d, err := s.cfg.SendBlock(r.Context(), file, to, s.cfg.Now())
	if err != nil {
		s.record(r, q, "send_refused", object, err.Error())
		data["Error"] = err.Error()
		w.WriteHeader(http.StatusConflict)
		s.render(w, r, "blocks", q, data)
		return
	}
	s.record(r, q, "send_block", object, fmt.Sprintf("block %d/%d delivery %d", d.Emission, d.Number, d.Seq))
	data = s.blocksData(r, q)
	data["Sent"] = d
	s.render(w, r, "blocks", q, data)
}

func (s *Server) updatesPage(w http.ResponseWriter, r *http.Request, q request) {
	s.render(w, r, "updates", q, map[string]any{})
}

func (s *Server) auditPage(w http.ResponseWriter, r *http.Request, q request) {
	es, err := s.audit.Last(r.Context(), 200)
	data := map[string]any{"Events": es}
	if err != nil {
		data["Error"] = err.Error()
	}
	s.render(w, r, "audit", q, data)
}

func (s *Server) auditCSV(w http.ResponseWriter, r *http.Request, q request) {
	es, err := s.audit.Last(r.Context(), 100000)
	if err != nil {
		s.fail(w, q, http.StatusServiceUnavailable, err.Error())
		return
	}
	cw, ok := s.csvOut(w, r, q, "audit.csv")
	if !ok {
		return
	}
	cw.Write([]string{"seq", "at", "operator", "role", "action", "object", "outcome", "remote"})
	for _, e := range es {
		cw.Write([]string{strconv.FormatUint(e.Seq, 10), stamp(e.At), e.Operator, e.Role, e.Action, e.Object, e.Outcome, e.Remote})
	}
	cw.Flush()
}

// reportPage is the printable daily report: each kiosk's day, the
// fleet's, and the alarms raised that day.
func (s *Server) reportPage(w http.ResponseWriter, r *http.Request, q request) {
	d := s.cfg.Now().UTC().Truncate(24 * time.Hour)
	if v := r.URL.Query().Get("day"); v != "" {
		var err error
		if d, err = time.Parse("2006-01-02", v); err != nil {
			s.fail(w, q, http.StatusBadRequest, fmt.Sprintf("day %q: a date as 2026-12-01", v))
			return
		}
	}
	type line struct {
		Kiosk string
		Cell
	}
	var lines []line
	var total Cell
	byKiosk := s.live.KioskTotals(ChartQuery{From: d, To: d})
	for _, k := range s.kioskIDs() {
		c := byKiosk[k]
		lines = append(lines, line{k, c})
		total.add(&c)
	}
	var alarms []Alarm
	for _, a := range s.alarms.List() {
		if a.Raised.UTC().Truncate(24 * time.Hour).Equal(d) {
			alarms = append(alarms, a)
		}
	}
	s.render(w, r, "report", q, map[string]any{"Day": d, "Lines": lines, "Total": total, "Alarms": alarms,
		"Rows": s.live.Rows(FleetQuery{}, s.cfg.Now(), s.silence())})
}
