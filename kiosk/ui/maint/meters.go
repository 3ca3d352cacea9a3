package maint

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/store"
)

// The meters (staff): every counter on at least ten digits, per stake and
// in total; they are never reset (kiosk.MeterLines).

var _ = register(View{ID: "meters", Title: "rpt.meters.title", Need: kiosk.RoleStaff, Order: 40, Diagnosis: true,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildMeters(env, o) }})

var _ = words(map[word]text{
	"rpt.meters.title": {"Compteurs", "Meters"},
	"rpt.meters.total": {"Total", "Total"},
	"rpt.meters.note":  {"Les compteurs ne sont jamais remis à zéro. Montants en euros.", "The meters are never reset. Amounts in euros."},
	"rpt.meters.stake": {"mise de %s", "stake of %s"},

	"rpt.meter.plays":                  {"Parties jouées", "Games played"},
	"rpt.meter.staked":                 {"Montant misé", "Amount staked"},
	"rpt.meter.wins":                   {"Parties gagnantes", "Games won"},
	"rpt.meter.won":                    {"Montant gagné", "Amount won"},
	"rpt.meter.bills_in_count":         {"Billets acceptés", "Bank notes accepted"},
	"rpt.meter.bills_in":               {"Montant des billets", "Amount of bank notes"},
	"rpt.meter.vouchers_out_count":     {"Bons imprimés", "Vouchers printed"},
	"rpt.meter.vouchers_out":           {"Montant des bons", "Amount of vouchers"},
	"rpt.meter.vouchers_paid_count":    {"Bons payés", "Vouchers paid"},
	"rpt.meter.vouchers_paid":          {"Montant des bons payés", "Amount of vouchers paid"},
	"rpt.meter.vouchers_expired_count": {"Bons expirés", "Vouchers expired"},
	"rpt.meter.vouchers_expired":       {"Montant des bons expirés", "Amount of vouchers expired"},
	"rpt.meter.voucher_reprints":       {"Duplicatas", "Duplicates"},
	"rpt.meter.hand_pays_count":        {"Paiements manuels", "Hand-pays"},
	"rpt.meter.hand_pays":              {"Montant payé à la main", "Amount paid by hand"},
	"rpt.meter.adjust_in":              {"Corrections en plus", "Adjustments in"},
	"rpt.meter.adjust_out":             {"Corrections en moins", "Adjustments out"},
	"rpt.meter.test_count":             {"Mouvements de test", "Test movements"},

	"rpt.protect.title":                {"Protection des joueurs", "Player protection"},
	"rpt.protect.note":                 {"Depuis la mise en service, jamais remis à zéro.", "Since the kiosk's start, never reset."},
	"rpt.protect.player.reality_check": {"Points sur le jeu présentés", "Reality checks shown"},
	"rpt.protect.player.limit":         {"Limites fixées par les joueurs", "Limits set by players"},
	"rpt.protect.player.limit_reached": {"Limites de session atteintes", "Session limits reached"},
})

// meterWords are the words of each meter (kiosk.MeterLine.Name, a
// store.Meter… total); the test checks every meter shown has its own.
var meterWords = map[string]word{
	store.MeterPlays:                word("rpt.meter.plays"),
	store.MeterStaked:               word("rpt.meter.staked"),
	store.MeterWins:                 word("rpt.meter.wins"),
	store.MeterWon:                  word("rpt.meter.won"),
	store.MeterBillsInCount:         word("rpt.meter.bills_in_count"),
	store.MeterBillsIn:              word("rpt.meter.bills_in"),
	store.MeterVouchersOutCount:     word("rpt.meter.vouchers_out_count"),
	store.MeterVouchersOut:          word("rpt.meter.vouchers_out"),
	store.MeterVouchersPaidCount:    word("rpt.meter.vouchers_paid_count"),
	store.MeterVouchersPaid:         word("rpt.meter.vouchers_paid"),
	store.MeterVouchersExpiredCount: word("rpt.meter.vouchers_expired_count"),
	store.MeterVouchersExpired:      word("rpt.meter.vouchers_expired"),
	store.MeterVoucherReprints:      word("rpt.meter.voucher_reprints"),
	store.MeterHandPaysCount:        word("rpt.meter.hand_pays_count"),
	store.MeterHandPays:             word("rpt.meter.hand_pays"),
	store.MeterAdjustIn:             word("rpt.meter.adjust_in"),
	store.MeterAdjustOut:            word("rpt.meter.adjust_out"),
	store.MeterTestCount:            word("rpt.meter.test_count"),
}

// meterLabel is a meter line's label: its meter's words, or the stake's
// line under its total; a meter without words shows its store name.
func meterLabel(tr Tr, l kiosk.MeterLine) string {
	if l.Stake != 0 {
		return tr.F("rpt.meters.stake", tr.Money(l.Stake.Money()))
	}
	if k, ok := meterWords[l.Name]; ok {
		return tr.T(k)
	}
	return l.Name
}

// meterTable lays the meters out with a column per stake after the total;
// on a narrow screen each meter's name goes on a line of its own, above
// its figures.
func meterTable(tr Tr, lines []kiosk.MeterLine) fyne.CanvasObject {
	cell := func(s string, bold bool) fyne.CanvasObject {
		l := widget.NewLabel(s)
		l.TextStyle = fyne.TextStyle{Monospace: !bold, Bold: bold}
		l.Alignment = fyne.TextAlignTrailing
		return l
	}
	columns := 1 + len(game.Stakes)
	t := newFoldTable(true, 12)
	rowOf := func(label fyne.CanvasObject, values []fyne.CanvasObject) fyne.CanvasObject {
		for len(values) < columns {
			values = append(values, widget.NewLabel(""))
		}
		return t.row(append([]fyne.CanvasObject{label}, values...), nil)
	}
	head := []fyne.CanvasObject{cell(tr.T("rpt.meters.total"), true)}
	for _, s := range game.Stakes {
		head = append(head, cell(tr.Money(s.Money()), true))
	}
	rows := []fyne.CanvasObject{rowOf(nil, head)}
	var label string
	var values []fyne.CanvasObject
	for i, l := range lines {
		if l.Stake == 0 {
			label, values = meterLabel(tr, l), nil
		}
		values = append(values, cell(kiosk.FormatMeter(l), false))
		if i+1 == len(lines) || lines[i+1].Stake == 0 {
			rows = append(rows, rowOf(widget.NewLabel(label), values))
		}
	}
	// a meter a line, the figures a column apart
	return shTight(container.NewVBox(rows...), 8)
}

// metersDesk is what the meters view reads.
type metersDesk interface {
	Meters(ctx context.Context, s *kiosk.Session) (store.Meters, error)
	PlayerFacts(ctx context.Context, s *kiosk.Session) (map[string]int64, error)
}

// protectionTable is the player-protection counts (kiosk.PlayerFactLines).
func protectionTable(tr Tr, counts map[string]int64) fyne.CanvasObject {
	rows := []fyne.CanvasObject{rptTitle(tr.T("rpt.protect.title")), widget.NewLabel(tr.T("rpt.protect.note"))}
	for _, f := range kiosk.PlayerFactLines {
		v := widget.NewLabel(kiosk.FormatMeter(kiosk.MeterLine{Name: f.Key, Value: counts[f.Key]}))
		v.TextStyle = fyne.TextStyle{Monospace: true}
		rows = append(rows, container.NewBorder(nil, nil, widget.NewLabel(tr.T(word("rpt.protect."+f.Key))), v))
	}
	return container.NewVBox(rows...)
}

func buildMeters(env *Env, o metersDesk) fyne.CanvasObject {
	tr := env.Tr
	list := container.NewVBox()
	note := newRptNote()
	load := func() {
		note.clear()
		var lines []kiosk.MeterLine
		var facts map[string]int64
		rptRun(env, func() error {
			m, err := o.Meters(env.Ctx, env.Session)
			if err != nil {
				return err
			}
			lines = kiosk.MeterLines(m)
			facts, err = o.PlayerFacts(env.Ctx, env.Session)
			return err
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			list.Objects = []fyne.CanvasObject{meterTable(tr, lines), protectionTable(tr, facts)}
			list.Refresh()
		})
	}
	load()
	top := container.NewVBox(rptTitle(tr.T("rpt.meters.title")), widget.NewLabel(tr.T("rpt.meters.note")), note.object())
	return note.in(container.NewBorder(top, shFlow(rptSized(rptButton(env, tr.T("rpt.refresh"), load))), nil, nil,
		container.NewVScroll(list)))
}
