package maint

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
)

// The printer (staff): its state, the acknowledgement of a new roll
// (which the printer must confirm) and a test page.

var _ = register(View{ID: "printer", Title: "rpt.printer.title", Need: kiosk.RoleStaff, Order: 30,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildPrinter(env, o) }})

var _ = words(map[word]text{
	"rpt.printer.title":  {"Imprimante", "Printer"},
	"rpt.printer.state":  {"État", "State"},
	"rpt.printer.refill": {"Papier remis", "Paper refilled"},
	"rpt.printer.test":   {"Page de test", "Test page"},
	"rpt.printer.howto":  {"Après avoir remis un rouleau et fermé le capot, touchez «\u00a0Papier remis\u00a0»\u00a0: l’imprimante doit le confirmer.", "After putting a new roll in and closing the cover, touch “Paper refilled”: the printer must confirm it."},
	"rpt.printer.refOK":  {"Papier confirmé par l’imprimante.", "Paper confirmed by the printer."},
	"rpt.printer.testOK": {"Page de test imprimée.", "Test page printed."},
})

// printerDesk is what the printer view reads and asks of the printer.
type printerDesk interface {
	PrinterStatus(ctx context.Context, s *kiosk.Session) (kiosk.DeviceStatus, error)
	PaperRefilled(ctx context.Context, s *kiosk.Session) (kiosk.DeviceStatus, error)
	TestPrint(ctx context.Context, s *kiosk.Session) error
}

func buildPrinter(env *Env, o printerDesk) fyne.CanvasObject {
	tr := env.Tr
	state := widget.NewLabel("")
	state.TextStyle = fyne.TextStyle{Bold: true}
	note := newRptNote()
	show := func(d kiosk.DeviceStatus) {
		state.SetText(rptStatus(tr, d))
		switch {
		case !d.OK:
			state.Importance = widget.DangerImportance
		case !d.Warning.IsZero():
			state.Importance = widget.WarningImportance
		default:
			state.Importance = widget.SuccessImportance
		}
		state.Refresh()
	}
	reload := func() {
		var d kiosk.DeviceStatus
		rptRun(env, func() (err error) {
			d, err = o.PrinterStatus(env.Ctx, env.Session)
			return err
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			show(d)
		})
	}
	refill := func() {
		note.clear()
		var d kiosk.DeviceStatus
		rptRun(env, func() (err error) {
			d, err = o.PaperRefilled(env.Ctx, env.Session)
			return err
		}, func(err error) {
			if d.Configured {
				show(d)
			}
			if err != nil {
				note.fail(tr, err)
				return
			}
			note.ok(tr.T("rpt.printer.refOK"))
		})
	}
	testPage := func() {
		note.clear()
		rptRun(env, func() error { return o.TestPrint(env.Ctx, env.Session) }, func(err error) {
			reload()
			if err != nil {
				note.fail(tr, err)
				return
			}
			note.ok(tr.T("rpt.printer.testOK"))
		})
	}
	reload()
	howto := widget.NewLabel(tr.T("rpt.printer.howto"))
	howto.Wrapping = fyne.TextWrapWord
	return note.in(container.NewVBox(
		rptTitle(tr.T("rpt.printer.title")),
		rptLabelled(tr.T("rpt.printer.state"), state),
		howto,
		shFlow(
			rptSized(rptButton(env, tr.T("rpt.printer.refill"), refill)),
			rptSized(rptButton(env, tr.T("rpt.printer.test"), testPage)),
			rptSized(rptButton(env, tr.T("rpt.refresh"), func() { note.clear(); reload() }))),
		note.object()))
}
