package maint

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/golden"
)

// fitState is a state of a view the fit test reaches from the view as it
// opens: a confirmation asked, a refusal said, a replay.
type fitState struct {
	name string
	// reach taps its way there; leave, if any, goes back (a replay's
	// pump stops).
	reach, leave func(f *shFix, o *fitOffice, paid string, tr Tr)
}

// fitStates are the states of each view the test looks at, besides the
// view as it opens.
var fitStates = map[string][]fitState{
	"voucher": {
		{name: "refused", reach: func(f *shFix, _ *fitOffice, paid string, _ Tr) { f.scan(paid) }},
		{name: "above the limit", reach: func(f *shFix, o *fitOffice, _ string, _ Tr) { f.scan(o.above) }},
	},
	// reprint: its last voucher is paid here, so the view opens with the
	// state that says why and its print key off; there is nothing to tap.
	"held": {
		{name: "credit", reach: func(f *shFix, _ *fitOffice, _ string, tr Tr) { f.tap(tr.T("held.credit")) }},
		{name: "close", reach: func(f *shFix, _ *fitOffice, _ string, tr Tr) { f.tap(tr.T("held.close")) }},
	},
	"handpay": {{name: "confirm", reach: func(f *shFix, _ *fitOffice, _ string, tr Tr) {
		f.tap(tr.F("handpay.pay", tr.Money(15_000*game.Euro)))
	}}},
	"cashbox": {{name: "confirm", reach: func(f *shFix, _ *fitOffice, _ string, tr Tr) { f.tap(tr.T("rpt.cash.collect")) }}},
	"recall": {{name: "replay",
		reach: func(f *shFix, _ *fitOffice, _ string, tr Tr) { f.tap(tr.T("recall.replay")) },
		leave: func(f *shFix, _ *fitOffice, _ string, tr Tr) { f.tap(tr.T("recall.back")) }}},
	"testmode": {{name: "off",
		reach: func(f *shFix, o *fitOffice, _ string, _ Tr) { o.testOff = true; f.sh.Show("testmode") },
		leave: func(_ *shFix, o *fitOffice, _ string, _ Tr) { o.testOff = false }}},
	"blocks": {{name: "withdraw", reach: func(f *shFix, _ *fitOffice, _ string, tr Tr) { f.tap(tr.T("blocks.withdraw")) }}},
	"usb": {
		{name: "confirm", reach: func(f *shFix, _ *fitOffice, _ string, tr Tr) {
			f.usbCheck("pharaon/2026-11/pharaon_1.12.0-rc.3+git1234.0123456789ab_amd64.update")
		}, leave: func(f *shFix, _ *fitOffice, _ string, tr Tr) { f.tap(tr.T("usb.cancel")) }},
		{name: "not ejected", reach: func(f *shFix, _ *fitOffice, _ string, tr Tr) { f.tap(tr.T("usb.eject")) }},
	},
	"settings": {{name: "refused", reach: func(f *shFix, _ *fitOffice, _ string, tr Tr) {
		f.saveSetting(tr, "200,00", "3 000")
	}}},
	"pins": {{name: "revoke", reach: func(f *shFix, _ *fitOffice, _ string, tr Tr) {
		if f.button(tr.T("pins.role.staff")) != nil {
			f.tap(tr.T("pins.role.staff"))
		}
		f.tap(tr.T("pins.revoke"))
	}}},
}

// Every maintenance view, of both roles, fits the kiosks' screens in both
// languages with a busy kiosk's figures: no text drawn narrower than it
// needs or out of sight, no scroller that scrolls sideways, no screen
// asking for more than the window; and so do the states a view reaches (a
// confirmation, a refusal, a replay), the PIN pad and the first start's
// setup.
func TestEveryViewFits(t *testing.T) {
	var check fitCheck
	for _, lang := range []ui.Lang{ui.French, ui.English} {
		f := newShFix(t, true)
		o, paid := newFitFix(t, f)
		tr := Tr{Lang: lang}
		for _, pin := range []string{shStaffPIN, shTechPIN} {
			f.sh = Open(f.w, Config{Office: o, Lock: f.m.SetMaintenance, Lang: lang, Now: f.clock.Now, Loc: f.m.Location(),
				PollEvery: -1, Go: func(g func()) { g() }, Do: func(g func()) { g() }, BlockDir: f.blockDir})
			for _, size := range fitSizes {
				check.window(fitWhere(lang, "", size, "PIN pad"), f.w, size)
			}
			f.pin(pin)
			role := string(f.sh.Session().Role())
			ids := []string{""}
			for _, v := range viewsOf(f.sh.Session()) {
				ids = append(ids, v.ID)
			}
			for _, size := range fitSizes {
				for _, id := range ids {
					f.w.Resize(size)
					f.sh.Show(id)
					check.window(fitWhere(lang, role, size, id), f.w, size)
					for _, st := range fitStates[id] {
						f.w.Resize(size)
						f.sh.Show(id)
						st.reach(f, o, paid, tr)
						check.window(fitWhere(lang, role, size, id+" ("+st.name+")"), f.w, size)
						if st.leave != nil {
							st.leave(f, o, paid, tr)
						}
					}
				}
			}
			f.sh.Quit()
		}
		for _, size := range fitSizes {
			f.w.Resize(size)
			s := NewSetup(f.w, SetupConfig{Access: f.a, KioskID: "PH-LYON-PART-DIEU-07-CENTRE-0042", Lang: lang,
				Go: func(g func()) { g() }, Do: func(g func()) { g() }})
			check.window(fitWhere(lang, "", size, "setup"), f.w, size)
			s.activate(setupIDRow)
			s.fail(setupIDRow, "setup.err.id", s.tr.F("rpt.set.kiosk_id.refused", 1, kiosk.KioskIDMaxLen))
			check.window(fitWhere(lang, "", size, "setup (letter keyboard)"), f.w, size)
			fitFirstStart(t, &check, f, o, lang, size)
		}
	}
	if p := check.list(); len(p) > 0 {
		t.Errorf("%d things do not fit:\n%s", len(p), strings.Join(p, "\n"))
	}
}

// The busiest views at the smallest screen, in French, with a busy
// kiosk's figures (golden images, looked at): the technician's menu
// beside each.
func TestBusiestViewsAt1024(t *testing.T) {
	f := newShFix(t, true)
	o, paid := newFitFix(t, f)
	tr := Tr{Lang: ui.French}
	size := fitSizes[0]
	f.w.Resize(size)
	f.sh = Open(f.w, Config{Office: o, Lock: f.m.SetMaintenance, Lang: ui.French, Now: f.clock.Now, Loc: f.m.Location(),
		PollEvery: -1, Go: func(g func()) { g() }, Do: func(g func()) { g() }, BlockDir: f.blockDir})
	f.pin(shTechPIN)
	// in sight: what the state shows, scrolled to
	in := func(match func(fyne.CanvasObject) bool) func() fyne.CanvasObject {
		return func() fyne.CanvasObject {
			var found fyne.CanvasObject
			shWalk(f.w.Content(), func(o fyne.CanvasObject) {
				if found == nil && match(o) {
					found = o
				}
			})
			return found
		}
	}
	for _, c := range []struct {
		view, state string
		in          func() fyne.CanvasObject
	}{
		{"voucher", "above the limit", nil}, {"recall", "", nil}, {"recall", "replay", nil}, {"meters", "", nil}, {"events", "", nil},
		{"blocks", "withdraw", in(func(o fyne.CanvasObject) bool {
			e, ok := o.(*widget.Entry)
			return ok && e.PlaceHolder == tr.T("blocks.reason")
		})},
		{"settings", "refused", in(func(o fyne.CanvasObject) bool {
			l, ok := o.(*widget.Label)
			return ok && strings.HasPrefix(l.Text, tr.T("rpt.set.max_credit")+"\u00a0: ")
		})},
		{"cashbox", "confirm", nil}, {"devices", "", nil}, {"pins", "", nil},
	} {
		f.w.Resize(size)
		require.True(t, f.sh.Show(c.view))
		var leave func(*shFix, *fitOffice, string, Tr)
		for _, st := range fitStates[c.view] {
			if st.name == c.state {
				st.reach(f, o, paid, tr)
				leave = st.leave
			}
		}
		f.w.Resize(size)
		if c.in != nil {
			settle(f.w)
			o := c.in()
			require.NotNil(t, o, "%s (%s) shows nothing to look at", c.view, c.state)
			scrollTo(f.w, o)
		}
		name := "fit1024-" + c.view
		if c.state != "" {
			name += "-" + strings.ReplaceAll(c.state, " ", "-")
		}
		settle(f.w)
		golden.AssertWithin(t, name+".png", f.w.Canvas().Capture(), golden.Antialiased)
		if leave != nil {
			leave(f, o, paid, tr)
		}
	}
}

func fitWhere(lang ui.Lang, role string, size fyne.Size, view string) string {
	if view == "" {
		view = "menu"
	}
	if role != "" {
		view = role + " " + view
	}
	return fmt.Sprintf("%s %.0f×%.0f %s", lang, size.Width, size.Height, view)
}

// saveSetting types value into the setting's entry that shows now, then
// taps the Enregistrer of its row.
func (f *shFix) saveSetting(tr Tr, now, value string) {
	f.t.Helper()
	e, save := settingField(f.t, f.w, tr, now)
	e.SetText(value)
	test.Tap(save)
}

// settingField is the entry of w that shows now, and the Enregistrer of
// its row.
func settingField(t testing.TB, w fyne.Window, tr Tr, now string) (*widget.Entry, *widget.Button) {
	t.Helper()
	var entry *widget.Entry
	shWalk(w.Content(), func(o fyne.CanvasObject) {
		if x, ok := o.(*widget.Entry); ok && x.Text == now && entry == nil {
			entry = x
		}
	})
	if entry == nil {
		t.Fatalf("no setting shows %q", now)
	}
	return entry, rowSave(t, w, tr, entry)
}

// rowSave is the Enregistrer of the setting's row that holds o: the one
// level with it.
func rowSave(t testing.TB, w fyne.Window, tr Tr, o fyne.CanvasObject) *widget.Button {
	t.Helper()
	var saves []*widget.Button
	shWalk(w.Content(), func(o fyne.CanvasObject) {
		if x, ok := o.(*widget.Button); ok && x.Text == tr.T("rpt.settings.save") {
			saves = append(saves, x)
		}
	})
	if len(saves) == 0 {
		t.Fatalf("no %s", tr.T("rpt.settings.save"))
	}
	d := fyne.CurrentApp().Driver()
	y := d.AbsolutePositionForObject(o).Y + o.Size().Height/2
	best, dist := saves[0], float32(math.MaxFloat32)
	for _, b := range saves {
		c := d.AbsolutePositionForObject(b).Y + b.Size().Height/2
		if dd := float32(math.Abs(float64(c - y))); dd < dist {
			best, dist = b, dd
		}
	}
	return best
}

// fitFirstStarter is the core's first start at a chosen step whose check
// fails with a chosen finding: the screens with the most to say.
type fitFirstStarter struct {
	*kiosk.Office
	step  kiosk.FirstStep
	found kiosk.FirstCheck
}

func (o fitFirstStarter) FirstStart(context.Context, *kiosk.Session) (kiosk.FirstStep, error) {
	return o.step, nil
}

func (o fitFirstStarter) PassFirstStep(_ context.Context, _ *kiosk.Session, step kiosk.FirstStep) (kiosk.FirstStep, kiosk.FirstCheck, error) {
	if o.step == kiosk.StepVoucher && o.found.OK {
		return kiosk.StepDone, o.found, nil
	}
	return step, o.found, nil
}

// fitFirstStart checks the first start's sequence at size: its PIN entry,
// each step with a failed check's finding and what to do, and its end.
func fitFirstStart(t *testing.T, check *fitCheck, f *shFix, o Office, lang ui.Lang, size fyne.Size) {
	t.Helper()
	fails := []kiosk.FirstCheck{
		{Step: kiosk.StepKeys, Code: "keys.none"},
		{Step: kiosk.StepDevices, Code: "devices.printer_fault"},
		{Step: kiosk.StepBlock, Code: "block.none"},
		{Step: kiosk.StepVoucher, Code: "voucher.failed", N: 1, Printer: kiosk.Message{Code: kiosk.MsgPaperOut}},
		{Step: kiosk.StepVoucher, Code: "voucher.again", N: 1, Validation: "123456789012345678", OK: true},
	}
	for i, found := range fails {
		f.w.Resize(size)
		NewFirstStart(f.w, FirstStartConfig{Steps: fitFirstStarter{Office: f.o, step: found.Step, found: found}, Office: o,
			BlockDir: f.blockDir, Lang: lang, Now: f.clock.Now, Loc: f.m.Location(), Go: func(g func()) { g() }, Do: func(g func()) { g() }})
		if i == 0 {
			check.window(fitWhere(lang, "", size, "first start (PIN)"), f.w, size)
		}
		for _, r := range shTechPIN {
			f.tap(string(r))
		}
		f.tap(Tr{Lang: lang}.T("pin.ok"))
		test.Tap(f.button(Tr{Lang: lang}.T(word("first." + string(found.Step) + ".do"))))
		check.window(fitWhere(lang, "", size, "first start ("+found.Code+")"), f.w, size)
	}
}
