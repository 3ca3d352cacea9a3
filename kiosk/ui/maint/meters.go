package maint

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/kiosk"
)

// The meters (staff): every counter on at least ten digits, per stake and
// in total; they are never reset (kiosk.MeterLines).

var _ = register(View{ID: "meters", Title: "rpt.meters.title", Need: kiosk.RoleStaff, Order: 40, Build: buildMeters})

var _ = words(map[word]text{
	"rpt.meters.title": {"Compteurs", "Meters"},
	"rpt.meters.total": {"Total", "Total"},
	"rpt.meters.note":  {"Les compteurs ne sont jamais remis à zéro. Montants en euros.", "The meters are never reset. Amounts in euros."},
})

// meterTable lays the meters out with a column per stake after the total.
func meterTable(tr Tr, lines []kiosk.MeterLine) fyne.CanvasObject {
	cell := func(s string, bold bool) fyne.CanvasObject {
		l := widget.NewLabel(s)
		l.TextStyle = fyne.TextStyle{Monospace: !bold, Bold: bold}
		l.Alignment = fyne.TextAlignTrailing
		return l
	}
	columns := 1 + len(game.Stakes)
	rowOf := func(label string, values []fyne.CanvasObject) fyne.CanvasObject {
		for len(values) < columns {
			values = append(values, widget.NewLabel(""))
		}
		left := container.NewGridWrap(fyne.NewSize(330, 36), widget.NewLabel(label))
		return container.New(layout.NewBorderLayout(nil, nil, left, nil), left, container.NewGridWithColumns(columns, values...))
	}
	head := []fyne.CanvasObject{cell(tr.T("rpt.meters.total"), true)}
	for _, s := range game.Stakes {
		head = append(head, cell(tr.Money(s.Money()), true))
	}
	rows := []fyne.CanvasObject{rowOf("", head)}
	var label string
	var values []fyne.CanvasObject
	for i, l := range lines {
		if l.Stake == 0 {
			label, values = rptMsg(tr, l.Label), nil
		}
		values = append(values, cell(kiosk.FormatMeter(l), false))
		if i+1 == len(lines) || lines[i+1].Stake == 0 {
			rows = append(rows, rowOf(label, values))
		}
	}
	return container.NewVBox(rows...)
}

func buildMeters(env *Env) fyne.CanvasObject {
	tr := env.Tr
	list := container.NewVBox()
	note := newRptNote()
	load := func() {
		note.clear()
		var lines []kiosk.MeterLine
		rptRun(env, func() error {
			m, err := env.Office.Meters(env.Ctx, env.Session)
			lines = kiosk.MeterLines(m)
			return err
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			list.Objects = []fyne.CanvasObject{meterTable(tr, lines)}
			list.Refresh()
		})
	}
	load()
	top := container.NewVBox(rptTitle(tr.T("rpt.meters.title")), widget.NewLabel(tr.T("rpt.meters.note")), note.object())
	return note.in(container.NewBorder(top, container.NewHBox(rptSized(rptButton(env, tr.T("rpt.refresh"), load))), nil, nil,
		container.NewVScroll(list)))
}
