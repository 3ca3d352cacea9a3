package maint

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
)

// The settings (technician): each with its value, what it may be, and its
// own Enregistrer; a bad value is refused with the reason and nothing
// changes; every change is logged with its old and new value. They apply
// at the next start.

var _ = register(View{ID: "settings", Title: "rpt.settings.title", Need: kiosk.RoleTechnician, Order: 60, Build: buildSettings})

var _ = words(map[word]text{
	"rpt.settings.title":   {"Réglages", "Settings"},
	"rpt.settings.save":    {"Enregistrer", "Save"},
	"rpt.settings.saved":   {"«\u00a0%s\u00a0» enregistré\u00a0: %s. Appliqué au prochain démarrage.", "“%s” saved: %s. Applied at the next start."},
	"rpt.settings.refused": {"%s\u00a0: %s", "%s: %s"},
	"rpt.settings.next":    {"Les réglages s’appliquent au prochain démarrage de la borne.", "Settings apply at the kiosk’s next start."},
})

func buildSettings(env *Env) fyne.CanvasObject {
	tr := env.Tr
	note := newRptNote()
	list := container.NewVBox()
	var load func()
	load = func() {
		var ss []kiosk.Setting
		rptRun(env, func() (err error) {
			ss, err = env.Office.Settings(env.Ctx, env.Session)
			return err
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			rows := make([]fyne.CanvasObject, 0, len(ss))
			for _, s := range ss {
				rows = append(rows, settingRow(env, s, note, load))
			}
			list.Objects = rows
			list.Refresh()
		})
	}
	load()
	next := widget.NewLabel(tr.T("rpt.settings.next"))
	top := container.NewVBox(rptTitle(tr.T("rpt.settings.title")), next, note.object())
	return note.in(container.NewBorder(top, nil, nil, nil, container.NewVScroll(list)))
}

// settingRow is one setting: its name, an entry with its value, what it
// may be, and a button that saves it.
func settingRow(env *Env, s kiosk.Setting, note *rptNote, reload func()) fyne.CanvasObject {
	tr := env.Tr
	entry := widget.NewEntry()
	entry.SetText(s.Value)
	label := rptMsg(tr, s.Label)
	save := rptButton(env, tr.T("rpt.settings.save"), func() {
		note.clear()
		value := entry.Text
		rptRun(env, func() error { return env.Office.SetSetting(env.Ctx, env.Session, s.Key, value) }, func(err error) {
			if err != nil {
				note.failText(tr.F("rpt.settings.refused", label, rptErr(tr, err)))
				return
			}
			reload()
			kept, _ := kiosk.CheckSetting(s.Key, value) // as the store now keeps it
			note.ok(tr.F("rpt.settings.saved", label, kept))
		})
	})
	save.Importance = widget.HighImportance
	hint := widget.NewLabel(rptMsg(tr, s.Hint))
	hint.Importance = widget.LowImportance
	name := container.NewGridWrap(fyne.NewSize(360, 60), widget.NewLabel(label))
	button := rptSized(save)
	line := container.New(layout.NewBorderLayout(nil, nil, name, button), name, button, entry)
	return container.NewVBox(line, container.NewPadded(hint))
}
