package maint

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/store"
)

// The daily report (staff): a day's totals in the kiosk's zone, shown, and
// printed with the meters.

var _ = register(View{ID: "daily", Title: "rpt.daily.title", Need: kiosk.RoleStaff, Order: 42,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildDaily(env, o) }})

var _ = words(map[word]text{
	"rpt.daily.title":                           {"Rapport journalier", "Daily report"},
	"rpt.daily.day":                             {"Journée du %s", "Day of %s"},
	"rpt.daily.prev":                            {"Jour précédent", "Previous day"},
	"rpt.daily.next":                            {"Jour suivant", "Next day"},
	"rpt.daily.print":                           {"Imprimer le rapport", "Print the report"},
	"rpt.daily.printed":                         {"Rapport du %s imprimé.", "Report of %s printed."},
	"rpt.daily.stake":                           {"Mise", "Stake"},
	"rpt.daily.plays":                           {"Parties", "Games"},
	"rpt.daily.staked":                          {"Misé", "Staked"},
	"rpt.daily.won":                             {"Gagné", "Won"},
	"rpt.daily.total":                           {"Total", "Total"},
	"rpt.daily.notes":                           {"Billets acceptés", "Notes accepted"},
	"rpt.daily.vouchers":                        {"Bons de paiement imprimés", "Vouchers printed"},
	"rpt.daily.handpays":                        {"Paiements manuels", "Hand-pays"},
	"rpt.daily.counter":                         {"Payé au comptoir", "Paid out at the counter"},
	"rpt.daily.paid." + store.MeterVouchersPaid: {"Bons de paiement payés", "Vouchers paid"},
	"rpt.daily.paid." + store.MeterHandPays:     {"Paiements manuels", "Hand-pays"},
	"rpt.daily.paidtotal":                       {"Total payé au comptoir", "Total paid out at the counter"},
	"rpt.daily.collects":                        {"Relevés de caisse", "Cash box collections"},
	"rpt.daily.countamt":                        {"%d · %s", "%d · %s"},
})

// dailyDesk is what the daily report reads and prints.
type dailyDesk interface {
	DailyTotals(ctx context.Context, s *kiosk.Session, day time.Time) (store.Totals, error)
	PrintDaily(ctx context.Context, s *kiosk.Session, day time.Time) error
}

func buildDaily(env *Env, o dailyDesk) fyne.CanvasObject {
	tr := env.Tr
	loc := env.Loc
	if loc == nil {
		loc = time.Local
	}
	day, _ := kiosk.DayBounds(env.Now(), loc)
	title := widget.NewLabel("")
	title.TextStyle = fyne.TextStyle{Bold: true}
	body := container.NewVBox()
	note := newRptNote()
	load := func() {
		title.SetText(tr.F("rpt.daily.day", day.Format("02/01/2006")))
		var tot store.Totals
		rptRun(env, func() (err error) {
			tot, err = o.DailyTotals(env.Ctx, env.Session, day)
			return err
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			body.Objects = dailyRows(tr, tot)
			body.Refresh()
		})
	}
	move := func(days int) func() {
		return func() {
			note.clear()
			day = time.Date(day.Year(), day.Month(), day.Day()+days, 0, 0, 0, 0, loc)
			load()
		}
	}
	printIt := func() {
		note.clear()
		d := day
		rptRun(env, func() error { return o.PrintDaily(env.Ctx, env.Session, d) }, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			note.ok(tr.F("rpt.daily.printed", d.Format("02/01/2006")))
		})
	}
	load()
	top := container.NewVBox(rptTitle(tr.T("rpt.daily.title")), title, note.object())
	bottom := shFlow(
		rptSized(rptButton(env, tr.T("rpt.daily.prev"), move(-1))),
		rptSized(rptButton(env, tr.T("rpt.daily.next"), move(1))),
		rptSized(rptButton(env, tr.T("rpt.daily.print"), printIt)))
	return note.in(container.NewBorder(top, bottom, nil, nil, container.NewVScroll(body)))
}

// dailyRows shows a day's totals: games by stake, notes, payouts, and
// the cash paid out at the counter by kind (kiosk.PaidAtCounter, as the
// printed report).
func dailyRows(tr Tr, t store.Totals) []fyne.CanvasObject {
	cell := func(s string, bold bool) fyne.CanvasObject {
		l := widget.NewLabel(s)
		l.TextStyle = fyne.TextStyle{Bold: bold}
		l.Alignment = fyne.TextAlignTrailing
		return l
	}
	cells := []fyne.CanvasObject{cell(tr.T("rpt.daily.stake"), true), cell(tr.T("rpt.daily.plays"), true),
		cell(tr.T("rpt.daily.staked"), true), cell(tr.T("rpt.daily.won"), true)}
	var plays int64
	var staked, won game.Money
	for _, s := range game.Stakes {
		plays += t.Plays[s]
		staked += t.Staked[s]
		won += t.Won[s]
		cells = append(cells, cell(tr.Money(s.Money()), false), cell(fmt.Sprint(t.Plays[s]), false),
			cell(tr.Money(t.Staked[s]), false), cell(tr.Money(t.Won[s]), false))
	}
	cells = append(cells, cell(tr.T("rpt.daily.total"), true), cell(fmt.Sprint(plays), true),
		cell(tr.Money(staked), true), cell(tr.Money(won), true))
	row := func(label string, n int64, a game.Money) fyne.CanvasObject {
		return rptRow(label, tr.F("rpt.daily.countamt", n, tr.Money(a)), false)
	}
	out := []fyne.CanvasObject{
		container.NewGridWithColumns(4, cells...),
		widget.NewSeparator(),
		row(tr.T("rpt.daily.notes"), t.Count[store.KindBillIn], t.Amount[store.KindBillIn]),
		row(tr.T("rpt.daily.vouchers"), t.Count[store.KindVoucherOut], t.Amount[store.KindVoucherOut]),
		row(tr.T("rpt.daily.handpays"), t.Count[store.KindHandPay], t.Amount[store.KindHandPay]),
		row(tr.T("rpt.daily.collects"), t.Collections, t.CollectedCash),
		widget.NewSeparator(),
		widget.NewLabelWithStyle(tr.T("rpt.daily.counter"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
	}
	paid := kiosk.PaidAtCounter(t)
	for _, l := range paid.Lines {
		out = append(out, row(tr.T(word("rpt.daily.paid."+l.Kind)), l.Count, l.Amount))
	}
	return append(out, row(tr.T("rpt.daily.paidtotal"), paid.Count, paid.Amount))
}
