package console

import (
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"time"

	"pharaon/kiosk/fleet"
	"pharaon/store"
)

// Live is the fleet as the console shows it: a fleet.Fleet that folds
// every record the stream holds, then each record as it comes
// (fleet.FollowRecords), so a page reads memory and never the stream.
// What the fleet's fold does not keep and the pages show (a kiosk's
// state, its paper, its software, the sales by day) is folded beside it
// from the same records, and judges nothing: a kiosk's problems are the
// fleet's.
type Live struct {
	mu     sync.RWMutex
	fleet  *fleet.Fleet
	kiosks map[string]*kioskExtra
	// days are each kiosk's days (kiosk → day and stake → sums), total
	// the fleet's: a chart of the fleet reads a year's 1 460 cells, not
	// its 500 kiosks' 730 000.
	days   map[string]map[dayStake]*Cell
	total  map[dayStake]*Cell
	ready  bool
	last   uint64 // the stream sequence of the last record folded
	groups map[string][]string

	// changed is called, outside the lock, after each record folded with
	// its kiosk's id; the alarms and the live pages follow it.
	changed func(kiosk string)
}

// kioskExtra is what the console reads of a kiosk's records besides the
// fleet's fold.
type kioskExtra struct {
	Fault      string    // the code and detail of its last critical event
	FaultAt    time.Time // the kiosk's time of it
	FaultSeq   int64     // the record that carried it
	OutOfOrder bool      // a critical event and no play since: out of service
	LastPlay   time.Time
	Paper      string // "", "ok", "out": from its printer's events
	PaperSeq   int64  // the record of the last paper event
	PaperWhy   string
	Validator  string // "", "ok", "fault": from its validator's events
	Version    string // the software its last identity or system event named
	PaidTwice  int    // its voucher_paid_twice events
	PaidTwiceD string // the detail of the last
}

// dayStake is one day at one stake (0: notes, and plays whose record was
// not received).
type dayStake struct {
	Day   int32 // days since 1970-01-01 in UTC
	Stake int64
}

// Cell is what a kiosk did in one day at one stake: the same sums as the
// report's, cut by day.
type Cell struct {
	Plays, Sales, Wins, Notes int64
}

// NewLive is an empty fold; groups are each kiosk's groups, from the
// centre's notes of its kiosks.
func NewLive(voucherMaster []byte, groups map[string][]string) *Live {
	f := fleet.NewFleet()
	f.VoucherMaster = voucherMaster
	return &Live{fleet: f, kiosks: map[string]*kioskExtra{}, days: map[string]map[dayStake]*Cell{},
		total: map[dayStake]*Cell{}, groups: groups}
}

// day is the day of t, in days since the epoch, in UTC: the console's
// charts cut days in UTC, as the records' times are written.
func day(t time.Time) int32 { return int32(t.UTC().Unix() / 86400) }

func dayTime(d int32) time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// Add folds one record.
func (l *Live) Add(rec fleet.Record) {
	l.mu.Lock()
	f := l.fleet
	var before struct{ sales, wins, bills int64 }
	if k := f.Kiosks[rec.Kiosk]; k != nil {
		before.sales, before.wins, before.bills = k.Sales, k.Wins, k.BillsIn
	}
	stakes := map[int64]fleet.StakeReport{}
	for s, r := range f.ByStake {
		stakes[s] = *r
	}
	f.Add(rec)
	// What the record changed in the report is what its day gets: the
	// charts' totals are the report's by construction.
	at := rec.At
	if at.IsZero() {
		at = rec.Stored
	}
	d := day(at)
	for s, r := range f.ByStake {
		was := stakes[s]
		if r.Plays != was.Plays || r.Sales != was.Sales || r.Wins != was.Wins {
			l.addCell(rec.Kiosk, dayStake{d, s}, Cell{Plays: r.Plays - was.Plays, Sales: r.Sales - was.Sales, Wins: r.Wins - was.Wins})
		}
	}
	if k := f.Kiosks[rec.Kiosk]; k != nil && k.BillsIn != before.bills {
		l.addCell(rec.Kiosk, dayStake{d, 0}, Cell{Notes: k.BillsIn - before.bills})
	}
	l.extra(rec)
	l.last = rec.StreamSeq
	changed := l.changed
	l.mu.Unlock()
	if changed != nil {
		changed(rec.Kiosk)
	}
}

// addCell adds c to kiosk's day and stake and to the fleet's.
func (l *Live) addCell(kiosk string, k dayStake, c Cell) {
	m := l.days[kiosk]
	if m == nil {
		m = map[dayStake]*Cell{}
		l.days[kiosk] = m
	}
	for _, to := range []map[dayStake]*Cell{m, l.total} {
		x := to[k]
		if x == nil {
			x = &Cell{}
			to[k] = x
		}
		x.add(&c)
	}
}

// extra reads the facts of a record the fleet's fold does not keep.
func (l *Live) extra(rec fleet.Record) {
	x := l.kiosks[rec.Kiosk]
	if x == nil {
		x = &kioskExtra{}
		l.kiosks[rec.Kiosk] = x
	}
	switch rec.Kind {
	case "play":
		x.LastPlay = rec.At
		x.OutOfOrder = false // it sells again
	case "event":
		var e struct {
			Level                store.Level
			Source, Code, Detail string
		}
		if json.Unmarshal(rec.Payload, &e) != nil {
			return
		}
		switch {
		case e.Level == store.LevelCritical:
			x.Fault, x.FaultAt, x.FaultSeq, x.OutOfOrder = e.Code+": "+e.Detail, rec.At, rec.Seq, true
		case e.Code == "maintenance_off":
			x.OutOfOrder = false
		}
		switch {
		case e.Code == "paper_out" || e.Code == "paper_not_confirmed" || e.Source == "printer" && e.Level == store.LevelError:
			x.Paper, x.PaperSeq, x.PaperWhy = "out", rec.Seq, e.Code+": "+e.Detail
		case e.Code == "paper_refilled":
			x.Paper = "ok"
		}
		switch {
		case e.Source == "validator" && (e.Level == store.LevelError || e.Level == store.LevelCritical):
			x.Validator = "fault"
		case e.Source == "validator":
			x.Validator = "ok"
		}
		if e.Code == "identity" || e.Code == "system_switch" {
			x.Version = versionOf(e.Detail)
		}
		if e.Code == fleet.EventVoucherPaidTwice {
			x.PaidTwice++
			x.PaidTwiceD = e.Detail
		}
	}
}

// versionOf reads the version an identity event names ("software identity
// read by R: VERSION REVISION sha256 …") or a system switch ("system
// VERSION waits …").
func versionOf(detail string) string {
	if _, rest, ok := strings.Cut(detail, ": "); ok && strings.HasPrefix(detail, "software identity") {
		if f := strings.Fields(rest); len(f) > 0 {
			return f[0]
		}
	}
	if f := strings.Fields(detail); len(f) > 1 && f[0] == "system" {
		return f[1]
	}
	return ""
}

// Ready says whether the fold has reached the stream's end as it was at
// the start.
func (l *Live) Ready() bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.ready
}

func (l *Live) setReady() {
	l.mu.Lock()
	l.ready = true
	l.mu.Unlock()
}

// Read calls fn with the fold, locked for reading: fn must not keep it.
func (l *Live) Read(fn func(f *fleet.Fleet, extra map[string]*kioskExtra)) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	fn(l.fleet, l.kiosks)
}

// Groups are each kiosk's groups.
func (l *Live) Groups() map[string][]string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return maps.Clone(l.groups)
}
