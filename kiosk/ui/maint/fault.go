package maint

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
)

// The fault (technician): why the kiosk is out of service, in the words of
// its code (eventwords.go), its code and detail kept under them as a
// technical detail, and the clear. The clear is never a reset: the
// kiosk runs its self-test, its boot check and the full verification again
// and returns to service only if they pass (kiosk.Office.ClearFault);
// docs/technician.md says what to repair first for each fault.

var _ = register(View{ID: "fault", Title: "fault.title", Need: kiosk.RoleTechnician, Order: 64, Diagnosis: true,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildFault(env, o) }})

var _ = words(map[word]text{
	"fault.title":   {"Hors service", "Out of service"},
	"fault.none":    {"La borne est en service\u00a0: aucun défaut.", "The kiosk is in service: no fault."},
	"fault.is":      {"Défaut\u00a0: %s", "Fault: %s"},
	"fault.help":    {"Réparez d’abord la cause (voir la notice du technicien), puis revérifiez\u00a0: la borne refait toutes ses vérifications et ne revient en service que si elles réussissent.", "Repair the cause first (see the technician’s guide), then verify again: the kiosk runs all its checks again and returns to service only if they pass."},
	"fault.clear":   {"Revérifier et remettre en service", "Verify again and return to service"},
	"fault.cleared": {"Vérifications réussies\u00a0: la borne est de nouveau en service.", "Checks passed: the kiosk is back in service."},
	"fault.failed":  {"Les vérifications échouent encore\u00a0: la borne reste hors service.", "The checks still fail: the kiosk stays out of service."},
})

// faultDesk is what the fault view reads, and the technician's clear.
type faultDesk interface {
	Fault(ctx context.Context, s *kiosk.Session) (kiosk.Fault, error)
	ClearFault(ctx context.Context, s *kiosk.Session) error
}

func buildFault(env *Env, o faultDesk) fyne.CanvasObject {
	tr := env.Tr
	note := newRptNote()
	body := container.NewVBox()
	var clear *widget.Button
	load := func() {
		var f kiosk.Fault
		rptRun(env, func() (err error) {
			f, err = o.Fault(env.Ctx, env.Session)
			return err
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			if f.Code == "" {
				body.Objects = []fyne.CanvasObject{widget.NewLabel(tr.T("fault.none"))}
				clear.Disable()
			} else {
				what := widget.NewLabelWithStyle(tr.F("fault.is", tr.Event(f.Code)), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
				what.Wrapping = fyne.TextWrapWord
				detail := widget.NewLabel(tr.Detail(techDetail(f.Code, f.Detail)))
				detail.Wrapping = fyne.TextWrapWord
				help := widget.NewLabel(tr.T("fault.help"))
				help.Wrapping = fyne.TextWrapWord
				body.Objects = []fyne.CanvasObject{what, detail, widget.NewSeparator(), help}
				clear.Enable()
			}
			body.Refresh()
		})
	}
	clear = rptButton(env, tr.T("fault.clear"), func() {
		note.clear()
		rptRun(env, func() error { return o.ClearFault(env.Ctx, env.Session) }, func(err error) {
			load()
			if err != nil {
				note.failText(tr.T("fault.failed"))
				return
			}
			note.ok(tr.T("fault.cleared"))
		})
	})
	load()
	top := container.NewVBox(rptTitle(tr.T("fault.title")), note.object())
	bottom := shFlow(rptSized(clear), rptSized(rptButton(env, tr.T("rpt.refresh"), func() { note.clear(); load() })))
	return note.in(container.NewBorder(top, bottom, nil, nil, container.NewVScroll(body)))
}
