package maint

import (
	"context"
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/kiosk"
)

// Test mode (technician): the bill validator recognises notes and gives
// them back; nothing is credited, no meter moves (kiosk.Office.SetTestMode).

var _ = register(View{ID: "testmode", Title: "rpt.test.title", Need: kiosk.RoleTechnician, Order: 63,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildTestMode(env, o) }})

var _ = words(map[word]text{
	"rpt.test.title":  {"Mode test", "Test mode"},
	"rpt.test.about":  {"En mode test, chaque billet inséré est reconnu puis rendu\u00a0: rien n’est crédité et aucun compteur ne bouge. Il ne démarre que sans crédit.", "In test mode every note inserted is recognised, then given back: nothing is credited and no meter moves. It starts only with no credit."},
	"rpt.test.on":     {"Mode test en marche", "Test mode on"},
	"rpt.test.off":    {"Mode test arrêté", "Test mode off"},
	"rpt.test.start":  {"Démarrer le mode test", "Start test mode"},
	"rpt.test.stop":   {"Arrêter le mode test", "Stop test mode"},
	"rpt.test.busy":   {"Le mode test ne démarre que sans crédit ni partie en cours.", "Test mode starts only with no credit and no game."},
	"rpt.test.none":   {"Aucun billet inséré depuis le démarrage du mode test.", "No note inserted since test mode started."},
	"rpt.test.note":   {"%s\u00a0: billet de %s reconnu, rendu", "%s: note of %s recognised, given back"},
	"rpt.test.dev":    {"Développement · valideur simulé\u00a0:", "Development · simulated validator:"},
	"rpt.test.fake":   {"Faux", "Fake"},
	"rpt.test.in":     {"Billet de %s inséré\u00a0: touchez Actualiser une fois rendu.", "Note of %s inserted: tap Refresh once given back."},
	"rpt.test.fakein": {"Faux billet inséré\u00a0: le valideur le rend sans le reconnaître.", "Fake note inserted: the validator gives it back unrecognised."},
	"rpt.test.devno":  {"Le valideur simulé n’a pas pris le billet\u00a0: voyez le journal.", "The simulated validator did not take the note: see the log."},
})

// DevNotes is the simulated bill validator of a development run, as the
// test mode view drives it (ui.DevDevices has it): the player's
// development panel is under the maintenance screen while test mode runs.
type DevNotes interface {
	Notes() []game.Money
	InsertNote(amount game.Money) error
	InsertCounterfeit() error
}

// testDevRow is a development run's notes, inserted into the simulated
// validator from the test mode view; said tells what the last one did.
func testDevRow(env *Env, said func(string, error)) fyne.CanvasObject {
	tr := env.Tr
	var keys []fyne.CanvasObject
	for _, n := range env.Dev.Notes() {
		keys = append(keys, rptSized(rptButton(env, tr.Money(n), func() {
			said(tr.F("rpt.test.in", tr.Money(n)), env.Dev.InsertNote(n))
		})))
	}
	keys = append(keys, rptSized(rptButton(env, tr.T("rpt.test.fake"), func() {
		said(tr.T("rpt.test.fakein"), env.Dev.InsertCounterfeit())
	})))
	return container.NewVBox(widget.NewLabel(tr.T("rpt.test.dev")), shFlow(keys...))
}

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
	// row holds the toggle: laid out again when its label changes, which
	// changes its width (a driver lays a row out only when told).
	var row *fyne.Container
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
			if env.TestMode != nil {
				env.TestMode(on)
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
			if row != nil {
				row.Refresh()
			}
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
	row = shFlow(rptSized(toggle), rptSized(rptButton(env, tr.T("rpt.refresh"), func() { note.clear(); load() })))
	bottom := fyne.CanvasObject(row)
	if env.Dev != nil {
		bottom = container.NewVBox(bottom, testDevRow(env, func(said string, err error) {
			if err != nil {
				rptErr(tr, err) // on stderr
				note.failText(tr.T("rpt.test.devno"))
				return
			}
			note.ok(said)
		}))
	}
	return note.in(container.NewBorder(top, bottom, nil, nil, container.NewVScroll(list)))
}
