package maint

import (
	"context"
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
)

// Test mode (technician): the bill validator recognises notes and gives
// them back; nothing is credited, no meter moves (kiosk.Office.SetTestMode).

var _ = register(View{ID: "testmode", Title: "rpt.test.title", Need: kiosk.RoleTechnician, Order: 63,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildTestMode(env, o) }})

var _ = words(map[word]text{
	"rpt.test.title": {"Mode test", "Test mode"},
	"rpt.test.about": {"En mode test, chaque billet inséré est reconnu puis rendu\u00a0: rien n’est crédité et aucun compteur ne bouge. Il ne démarre que sans crédit.", "In test mode every note inserted is recognised, then given back: nothing is credited and no meter moves. It starts only with no credit."},
	"rpt.test.on":    {"Mode test en marche", "Test mode on"},
	"rpt.test.off":   {"Mode test arrêté", "Test mode off"},
	"rpt.test.start": {"Démarrer le mode test", "Start test mode"},
	"rpt.test.stop":  {"Arrêter le mode test", "Stop test mode"},
	"rpt.test.busy":  {"Le mode test ne démarre que sans crédit ni partie en cours.", "Test mode starts only with no credit and no game."},
	"rpt.test.none":  {"Aucun billet inséré depuis le démarrage du mode test.", "No note inserted since test mode started."},
	"rpt.test.note":  {"%s\u00a0: billet de %s reconnu, rendu", "%s: note of %s recognised, given back"},
})

// testModeDesk is what the test mode view reads and switches.
type testModeDesk interface {
	TestMode(ctx context.Context, s *kiosk.Session) (bool, []kiosk.TestNote, error)
	SetTestMode(ctx context.Context, s *kiosk.Session, on bool) error
}

func buildTestMode(env *Env, o testModeDesk) fyne.CanvasObject {
	tr := env.Tr
	note := newRptNote()
	state := widget.NewLabel("")
	state.TextStyle = fyne.TextStyle{Bold: true}
	list := container.NewVBox()
	toggle := rptButton(env, "", nil)
	var on bool
	load := func() {
		var notes []kiosk.TestNote
		rptRun(env, func() (err error) {
			on, notes, err = o.TestMode(env.Ctx, env.Session)
			return err
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			if on {
				state.SetText(tr.T("rpt.test.on"))
				state.Importance = widget.WarningImportance
				toggle.SetText(tr.T("rpt.test.stop"))
			} else {
				state.SetText(tr.T("rpt.test.off"))
				state.Importance = widget.MediumImportance
				toggle.SetText(tr.T("rpt.test.start"))
			}
			state.Refresh()
			rows := []fyne.CanvasObject{}
			for _, n := range notes {
				rows = append(rows, widget.NewLabel(tr.F("rpt.test.note", tr.Time(n.At, env.Loc), tr.Money(n.Denom))))
			}
			if len(rows) == 0 && on {
				rows = append(rows, widget.NewLabel(tr.T("rpt.test.none")))
			}
			list.Objects = rows
			list.Refresh()
		})
	}
	toggle.OnTapped = func() {
		if env.Touch != nil {
			env.Touch()
		}
		note.clear()
		want := !on
		rptRun(env, func() error { return o.SetTestMode(env.Ctx, env.Session, want) }, func(err error) {
			switch {
			case errors.Is(err, kiosk.ErrBusy):
				rptErr(tr, err) // on stderr
				note.failText(tr.T("rpt.test.busy"))
			case err != nil:
				note.fail(tr, err)
			}
			load()
		})
	}
	load()
	about := widget.NewLabel(tr.T("rpt.test.about"))
	about.Wrapping = fyne.TextWrapWord
	top := container.NewVBox(rptTitle(tr.T("rpt.test.title")), about, state, note.object())
	bottom := shFlow(rptSized(toggle), rptSized(rptButton(env, tr.T("rpt.refresh"), func() { note.clear(); load() })))
	return note.in(container.NewBorder(top, bottom, nil, nil, container.NewVScroll(list)))
}
