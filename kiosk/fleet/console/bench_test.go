package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/fleet"
	"pharaon/store"
)

// generatedFleet is a fold as a year of 500 kiosks' records leaves it:
// each kiosk with two blocks at each stake and its credit, and a day cell
// for each kiosk, stake and day of the year (and its notes), 730 000 in
// all. The records themselves are not replayed (a year of a busy fleet is
// billions of rows): what a page reads is this state, and its size is the
// year's.
func generatedFleet(kiosks, days int, end time.Time) *Live {
	l := NewLive(nil, map[string][]string{})
	last := day(end)
	for i := range kiosks {
		id := fmt.Sprintf("borne-%03d", i)
		l.groups[id] = []string{fmt.Sprintf("region-%d", i%10)}
		seq := int64(0)
		add := func(kind string, payload any) {
			seq++
			b, _ := json.Marshal(payload)
			l.Add(fleet.Record{Kiosk: id, OutboxRecord: store.OutboxRecord{Seq: seq, At: end, Kind: kind, Payload: b}, Stored: end})
		}
		for j, st := range game.Stakes {
			for n := range 2 {
				add("event", map[string]any{"id": seq + 1, "level": "info", "source": "store", "code": store.EventBlockImported,
					"detail": fmt.Sprintf("block %d/%d at %s: id %d", 9, i*10+j*2+n, st, j*2+n+1)})
			}
		}
		add("ledger", map[string]any{"id": 1, "kind": "adjust", "amount": 5000 + i, "balance_after": 5000 + i})
		for d := last - int32(days) + 1; d <= last; d++ {
			for _, st := range game.Stakes {
				l.addCell(id, dayStake{d, int64(st)}, Cell{Plays: 300, Sales: 300 * int64(st), Wins: 300 * int64(st) * 7 / 10})
			}
			l.addCell(id, dayStake{d, 0}, Cell{Notes: 25000})
		}
	}
	return l
}

// BenchmarkPages times the pages on the generated fleet of 500 kiosks and
// a year, as the console serves them (the handler, its template and its
// session check; the network aside). The operator asked for under 300 ms.
func BenchmarkPages(b *testing.B) {
	end := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	accounts := OpenAccounts(filepath.Join(b.TempDir(), "operators.json"))
	require.NoError(b, accounts.Add("bench", Viewer, "a long bench password", end))
	// The console without its server: the pages read the fold and the
	// alarms in memory, and only actions and exports write the audit log.
	srv := &Server{cfg: Config{Accounts: accounts, Now: func() time.Time { return end }, Logf: b.Logf},
		live: generatedFleet(500, 365, end), alarms: &Alarms{list: map[string]*Alarm{}, Silence: 10 * time.Minute},
		ses: sessions{m: map[string]*session{}, fails: map[string][]time.Time{}}, subs: map[chan string]bool{}}
	srv.live.setReady()
	var err error
	srv.pages, err = parsePages()
	require.NoError(b, err)
	srv.routes()
	ses := srv.ses.start("bench", Viewer, end)
	cookie := &http.Cookie{Name: cookieName, Value: ses.token}

	h := srv.Handler()
	for _, p := range []string{"/", "/?sort=credit&desc=1", "/charts?span=all", "/charts?span=all&by=week", "/charts?span=all&group=region-3",
		"/report?day=2026-12-01", "/blocks"} {
		b.Run(p, func(b *testing.B) {
			for b.Loop() {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodGet, p, nil)
				req.AddCookie(cookie)
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", p, rec.Code, rec.Body.String()[:min(200, rec.Body.Len())])
				}
			}
		})
	}
}
