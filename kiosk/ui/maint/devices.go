package maint

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
)

// The devices (technician): the bill validator and the voucher printer,
// their state, the paths they are opened on, the notes taken, what the
// validator says it is (its protocol family, model, serial number and
// version: how a technician tells which unit a kiosk has); a test of each
// (the validator answers; the printer prints its test page).

var _ = register(View{ID: "devices", Title: "rpt.dev.title", Need: kiosk.RoleTechnician, Order: 61, Diagnosis: true,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildDevices(env, o) }})

var _ = words(map[word]text{
	"rpt.dev.title":     {"Périphériques", "Devices"},
	"rpt.dev.validator": {"Lecteur de billets", "Bill validator"},
	"rpt.dev.family":    {"Protocole", "Protocol"},
	"rpt.dev.model":     {"Modèle", "Model"},
	"rpt.dev.serial":    {"Numéro de l’appareil", "Serial number"},
	"rpt.dev.untold":    {"non indiqué par l’appareil", "not given by the unit"},
	"rpt.dev.printer":   {"Imprimante (ESC/POS)", "Printer (ESC/POS)"},
	"rpt.dev.state":     {"État", "State"},
	"rpt.dev.path":      {"Port", "Port"},
	"rpt.dev.nopath":    {"aucun", "none"},
	"rpt.dev.notes":     {"Billets acceptés", "Notes accepted"},
	"rpt.dev.version":   {"Version", "Version"},
	"rpt.dev.polls":     {"Interrogations", "Polls"},
	"rpt.dev.testval":   {"Tester le lecteur", "Test the validator"},
	"rpt.dev.testprn":   {"Tester l’imprimante", "Test the printer"},
	"rpt.dev.valOK":     {"Le lecteur répond (%s).", "The validator answers (%s)."},
	"rpt.dev.prnOK":     {"Page de test imprimée.", "Test page printed."},
	"rpt.dev.unknown":   {"inconnue", "unknown"},
})

// devicesDesk is what the devices view reads and tests.
type devicesDesk interface {
	Devices(ctx context.Context, s *kiosk.Session) (kiosk.Devices, error)
	TestValidator(ctx context.Context, s *kiosk.Session) (kiosk.Devices, error)
	TestPrint(ctx context.Context, s *kiosk.Session) error
}

func buildDevices(env *Env, o devicesDesk) fyne.CanvasObject {
	tr := env.Tr
	note := newRptNote()
	body := container.NewVBox()
	show := func(d kiosk.Devices) {
		body.Objects = devicesRows(tr, d)
		body.Refresh()
	}
	load := func() {
		var d kiosk.Devices
		rptRun(env, func() (err error) {
			d, err = o.Devices(env.Ctx, env.Session)
			return err
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			show(d)
		})
	}
	testVal := func() {
		note.clear()
		var d kiosk.Devices
		rptRun(env, func() (err error) {
			d, err = o.TestValidator(env.Ctx, env.Session)
			return err
		}, func(err error) {
			if d.ValidatorPath != "" || d.Printer.Configured {
				show(d)
			}
			if err != nil {
				note.fail(tr, err)
				return
			}
			note.ok(tr.F("rpt.dev.valOK", tr.Count(int64(d.Polls), "n.poll")))
		})
	}
	testPrn := func() {
		note.clear()
		rptRun(env, func() error { return o.TestPrint(env.Ctx, env.Session) }, func(err error) {
			load()
			if err != nil {
				note.fail(tr, err)
				return
			}
			note.ok(tr.T("rpt.dev.prnOK"))
		})
	}
	load()
	top := container.NewVBox(rptTitle(tr.T("rpt.dev.title")), note.object())
	bottom := shFlow(
		rptSized(rptButton(env, tr.T("rpt.dev.testval"), testVal)),
		rptSized(rptButton(env, tr.T("rpt.dev.testprn"), testPrn)),
		rptSized(rptButton(env, tr.T("rpt.refresh"), func() { note.clear(); load() })))
	return note.in(container.NewBorder(top, bottom, nil, nil, container.NewVScroll(body)))
}

func devicesRows(tr Tr, d kiosk.Devices) []fyne.CanvasObject {
	path := func(p string) string {
		if p == "" {
			return tr.T("rpt.dev.nopath")
		}
		return p
	}
	head := func(s string) fyne.CanvasObject {
		l := widget.NewLabel(s)
		l.TextStyle = fyne.TextStyle{Bold: true}
		return l
	}
	notes := make([]string, len(d.Accepted))
	for i, n := range d.Accepted {
		notes[i] = tr.Money(n)
	}
	u := d.ValidatorUnit
	version := u.Version
	if version == "" {
		version = tr.T("rpt.dev.unknown")
	}
	told := func(s string) string {
		if s == "" {
			return tr.T("rpt.dev.untold")
		}
		return s
	}
	family := d.ValidatorFamily
	if u.Family != "" {
		family = u.Family
	}
	return []fyne.CanvasObject{
		head(tr.T("rpt.dev.validator")),
		rptRow(tr.T("rpt.dev.state"), rptStatus(tr, d.Validator), false),
		rptRow(tr.T("rpt.dev.path"), path(d.ValidatorPath), false),
		rptRow(tr.T("rpt.dev.notes"), strings.Join(notes, ", "), false),
		rptRow(tr.T("rpt.dev.family"), family.Label(), false),
		rptRow(tr.T("rpt.dev.model"), told(u.Model), u.Model != ""),
		rptRow(tr.T("rpt.dev.serial"), told(u.Serial), u.Serial != ""),
		rptRow(tr.T("rpt.dev.version"), version, true),
		rptRow(tr.T("rpt.dev.polls"), fmt.Sprint(d.Polls), true),
		widget.NewSeparator(),
		head(tr.T("rpt.dev.printer")),
		rptRow(tr.T("rpt.dev.state"), rptStatus(tr, d.Printer), false),
		rptRow(tr.T("rpt.dev.path"), path(d.PrinterPath), false),
	}
}
