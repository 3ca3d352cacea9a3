package console

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"pharaon/game"
	"pharaon/kiosk/fleet"
)

// KioskRow is one kiosk on the fleet page.
type KioskRow struct {
	Kiosk     string
	Groups    []string
	State     string // in_service, out_of_service, offline
	Fault     string
	Since     time.Time // out of service or offline since
	Credit    int64
	Paper     string
	Validator string
	Left      []int64 // units left by stake, game.Stakes' order
	Version   string
	LastSeq   int64
	LastSeen  time.Time
	Problems  int
}

// FleetQuery is the fleet page's filter and order.
type FleetQuery struct {
	Text  string // part of the kiosk's id
	State string // "", in_service, out_of_service, offline, problems
	Group string
	Sort  string // kiosk, state, credit, last, problems, left0…
	Desc  bool
}

// Rows are the kiosks the query selects, in its order.
func (l *Live) Rows(q FleetQuery, now time.Time, silence time.Duration) []KioskRow {
	var out []KioskRow
	l.Read(func(f *fleet.Fleet, extra map[string]*kioskExtra) {
		out = make([]KioskRow, 0, len(f.Kiosks))
		for id, k := range f.Kiosks {
			x := extra[id]
			if x == nil {
				x = &kioskExtra{}
			}
			row := KioskRow{Kiosk: id, Groups: l.groups[id], State: "in_service", Credit: k.Credit, Paper: x.Paper,
				Validator: x.Validator, Version: x.Version, LastSeq: k.LastSeq, LastSeen: k.LastSeen, Problems: len(k.Problems)}
			switch {
			case now.Sub(k.LastSeen) > silence:
				row.State, row.Since = "offline", k.LastSeen
			case x.OutOfOrder:
				row.State, row.Since, row.Fault = "out_of_service", x.FaultAt, x.Fault
			}
			if q.Text != "" && !strings.Contains(strings.ToLower(id), strings.ToLower(q.Text)) ||
				q.Group != "" && !slices.Contains(row.Groups, q.Group) ||
				q.State == "problems" && row.Problems == 0 ||
				q.State != "" && q.State != "problems" && q.State != row.State {
				continue
			}
			for _, s := range k.Stock() {
				row.Left = append(row.Left, s.Left)
			}
			out = append(out, row)
		}
	})
	by := func(a, b KioskRow) int {
		switch q.Sort {
		case "state":
			return strings.Compare(a.State, b.State)
		case "credit":
			return cmp.Compare(a.Credit, b.Credit)
		case "last":
			return a.LastSeen.Compare(b.LastSeen)
		case "problems":
			return cmp.Compare(a.Problems, b.Problems)
		case "left0", "left1", "left2":
			i := int(q.Sort[4] - '0')
			return cmp.Compare(at(a.Left, i), at(b.Left, i))
		}
		return 0
	}
	slices.SortFunc(out, func(a, b KioskRow) int {
		c := by(a, b)
		if q.Desc {
			c = -c
		}
		return cmp.Or(c, strings.Compare(a.Kiosk, b.Kiosk))
	})
	return out
}

func at(xs []int64, i int) int64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

// ChartQuery selects the records a chart sums: days from From to To
// included (UTC), cut by day or by week (weeks from Monday), of one kiosk,
// group or stake or all.
type ChartQuery struct {
	From, To time.Time
	Week     bool
	Kiosk    string
	Group    string
	Stake    int64 // 0: every stake
}

// Period is one bar of a chart: the sums of its days.
type Period struct {
	Start time.Time
	Cell
}

// StakeTotal is a stake's sums over the query, with the regulation's
// payout ratio at that stake.
type StakeTotal struct {
	Stake     int64
	Regulated float64 // the prize table's payout ratio (69,857 %)
	Cell
}

// Chart is what the charts page shows.
type Chart struct {
	Periods []Period
	Stakes  []StakeTotal
	Total   Cell
	Blocks  []fleet.BlockReport // the blocks of the kiosk or group selected, whole (not cut by day)
}

// Ratio is wins over sales; 0 without sales.
func (c Cell) Ratio() float64 {
	if c.Sales == 0 {
		return 0
	}
	return float64(c.Wins) / float64(c.Sales)
}

// weekOf is the first day (a Monday) of d's week; 1970-01-01 was a
// Thursday.
func weekOf(d int32) int32 {
	return d - ((d+3)%7+7)%7
}

// Chart sums the days the query selects. Its totals over every day are
// the report's (pharaon-central report): each day holds what its records
// changed in the fleet's fold.
func (l *Live) Chart(q ChartQuery) Chart {
	from, to := day(q.From), day(q.To)
	var ch Chart
	l.Read(func(f *fleet.Fleet, _ map[string]*kioskExtra) {
		periods := map[int32]*Cell{}
		stakes := map[int64]*Cell{}
		sum := func(cells map[dayStake]*Cell) {
			for k, c := range cells {
				if k.Day < from || k.Day > to || q.Stake != 0 && k.Stake != q.Stake { // notes have no stake: not in one stake's chart
					continue
				}
				p := k.Day
				if q.Week {
					p = weekOf(p)
				}
				add(periods, p, c)
				if c.Plays != 0 || c.Sales != 0 || c.Wins != 0 {
					s := stakes[k.Stake]
					if s == nil {
						s = &Cell{}
						stakes[k.Stake] = s
					}
					s.Plays, s.Sales, s.Wins = s.Plays+c.Plays, s.Sales+c.Sales, s.Wins+c.Wins
				}
				ch.Total.add(c)
			}
		}
		switch {
		case q.Kiosk != "":
			if q.Group == "" || slices.Contains(l.groups[q.Kiosk], q.Group) {
				sum(l.days[q.Kiosk])
			}
		case q.Group != "":
			for k, cells := range l.days {
				if slices.Contains(l.groups[k], q.Group) {
					sum(cells)
				}
			}
		default:
			sum(l.total)
		}
		first := from
		if q.Week {
			first = weekOf(from)
		}
		step := int32(1)
		if q.Week {
			step = 7
		}
		for d := first; d <= to; d += step {
			p := Period{Start: dayTime(d)}
			if c := periods[d]; c != nil {
				p.Cell = *c
			}
			ch.Periods = append(ch.Periods, p)
		}
		for s, c := range stakes {
			st := StakeTotal{Stake: s, Cell: *c}
			for _, gs := range game.Stakes {
				if int64(gs) == s {
					st.Regulated = game.Table(gs).PayoutRatio()
				}
			}
			ch.Stakes = append(ch.Stakes, st)
		}
		slices.SortFunc(ch.Stakes, func(a, b StakeTotal) int { return cmp.Compare(a.Stake, b.Stake) })
		// Blocks of one kiosk or one group: the fleet's are thousands of
		// rows (pharaon-central report prints them; the CSV of the stock
		// has them).
		if q.Kiosk == "" && q.Group == "" {
			return
		}
		for _, b := range f.Blocks() {
			if q.Kiosk != "" && b.Kiosk != q.Kiosk || q.Group != "" && !slices.Contains(l.groups[b.Kiosk], q.Group) ||
				q.Stake != 0 && b.Stake != q.Stake {
				continue
			}
			ch.Blocks = append(ch.Blocks, b)
		}
	})
	return ch
}

func add(m map[int32]*Cell, k int32, c *Cell) {
	x := m[k]
	if x == nil {
		x = &Cell{}
		m[k] = x
	}
	x.add(c)
}

func (c *Cell) add(o *Cell) {
	c.Plays += o.Plays
	c.Sales += o.Sales
	c.Wins += o.Wins
	c.Notes += o.Notes
}

// Span is the first and last day the records reach (zero without any).
func (l *Live) Span() (first, last time.Time) {
	l.Read(func(*fleet.Fleet, map[string]*kioskExtra) {
		var lo, hi int32
		n := 0
		for k := range l.total {
			if n == 0 || k.Day < lo {
				lo = k.Day
			}
			if n == 0 || k.Day > hi {
				hi = k.Day
			}
			n++
		}
		if n > 0 {
			first, last = dayTime(lo), dayTime(hi)
		}
	})
	return first, last
}

// KioskTotals sums the days the query selects by kiosk, in one pass (the
// daily report).
func (l *Live) KioskTotals(q ChartQuery) map[string]Cell {
	from, to := day(q.From), day(q.To)
	out := map[string]Cell{}
	l.Read(func(*fleet.Fleet, map[string]*kioskExtra) {
		for kiosk, cells := range l.days {
			var x Cell
			for d := from; d <= to; d++ {
				if c := cells[dayStake{d, 0}]; c != nil {
					x.add(c)
				}
				for _, st := range game.Stakes {
					if c := cells[dayStake{d, int64(st)}]; c != nil {
						x.add(c)
					}
				}
			}
			out[kiosk] = x
		}
	})
	return out
}
