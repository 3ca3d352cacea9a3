package ui

import (
	"context"
	"errors"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"pharaon/game"
	"pharaon/kiosk/ui/art"
)

// The development panel drives the simulated cash devices of a development
// run: it inserts bank notes and counterfeits into the simulated bill
// validator and causes the faults of both devices, so every path of the
// money flow runs through the kiosk's real drivers on any machine (DESIGN.md
// §9). The kiosk gives no credit of its own: the panel's notes are credited
// like any note, once the validator reports them stacked.
//
// It exists only when the machine says it is a development build
// (Snapshot.Dev, cmd/pharaon's -dev flag alone) and the screens were given
// the devices (Options.Dev); the screens never import the simulators.

// DevDevices are the simulated cash devices of a development run, as the
// development panel drives them (cmd/pharaon fills it from kiosk/devsim).
type DevDevices interface {
	// Notes are the notes the panel offers, in its order.
	Notes() []game.Money
	// Faults are the faults the panel offers, in its order.
	Faults() []DevFault
	// InsertNote puts a genuine note in the validator's slot (it fails
	// while the kiosk does not take notes, or a note is in the slot).
	InsertNote(amount game.Money) error
	// InsertCounterfeit puts in a note the validator rejects.
	InsertCounterfeit() error
	// Cause puts a device in the fault named by DevFault.ID.
	Cause(fault string) error
	// Repair is staff fixing every fault (the panel then resets the
	// validator through the machine).
	Repair() error
}

// DevFault is a fault the development panel offers; its name is the
// catalogue's (devFaultWords).
type DevFault struct{ ID string }

// devStatusHold is how long the panel's line says what its last action
// did; then it says the way to maintenance and the demo PINs again.
const devStatusHold = 8 * time.Second

// devPanel is the panel's state: what its last action did, kept as words
// to say in the language shown, so that the language toggle changes it too.
type devPanel struct {
	say    func(Tr) string // nil: no action yet, or an old one
	failed bool
	at     time.Time // when the action was done
}

// status is what the last action did, in tr's language ("" before any).
func (d devPanel) status(tr Tr) string {
	if d.say == nil {
		return ""
	}
	return d.say(tr)
}

// devReason is what a DevDevices error returned as its short reason's code
// (kiosk/devsim's Refusal; the catalogue's devRefusalWords).
type devReason interface{ RefusalCode() string }

// hazard colours of the development panel: a striped band no player
// could take for part of the game.
var (
	devYellow = color.NRGBA{R: 0xF2, G: 0xC2, B: 0x1B, A: 0xFF}
	devBlack  = color.NRGBA{R: 0x14, G: 0x12, B: 0x10, A: 0xFF}
)

// devDone records the outcome of an action of the panel. A refusal shows
// its short reason, any other error a short word, the error itself going
// to the log: a device's raw error is English and long.
func (s *Screens) devDone(ok func(Tr) string, err error) {
	s.activity()
	s.message = nil
	s.dev = devPanel{say: ok, at: s.now()}
	if err != nil {
		var r devReason
		reason := func(tr Tr) string { return tr.T(msgDevError) }
		if errors.As(err, &r) {
			code := r.RefusalCode()
			reason = func(tr Tr) string { return tr.DevRefusal(code) }
		} else {
			fyne.LogError("development panel", err)
		}
		s.dev = devPanel{say: func(tr Tr) string { return tr.F(msgDevFailed, reason(tr)) }, failed: true, at: s.now()}
	}
	s.refreshHomeLive()
}

// expireDevStatus forgets the panel's last action once devStatusHold has
// passed (Poll), so that its line shows the demo PINs again.
func (s *Screens) expireDevStatus(now time.Time) {
	if s.dev.say == nil || now.Sub(s.dev.at) < devStatusHold {
		return
	}
	s.dev = devPanel{}
	if s.screen == scrHome { // elsewhere the home is drawn afresh when shown
		s.refreshHomeLive()
	}
}

// checkPrinter has the kiosk read the printer now, off the Fyne goroutine:
// the faults panel then shows what the device says, not what it said at
// the kiosk's last routine read (up to kiosk.DefaultPrinterCheck ago).
func (s *Screens) checkPrinter() {
	go s.m.CheckPrinter(context.Background())
}

func (s *Screens) devInsert(amount game.Money) {
	s.devDone(func(tr Tr) string { return tr.F(msgDevInserted, tr.Money(amount)) }, s.opt.Dev.InsertNote(amount))
}

func (s *Screens) devCounterfeit() {
	s.devDone(func(tr Tr) string { return tr.T(msgDevFakeIn) }, s.opt.Dev.InsertCounterfeit())
}

func (s *Screens) devCause(f DevFault) {
	err := s.opt.Dev.Cause(f.ID)
	s.checkPrinter()
	s.devDone(func(tr Tr) string { return tr.F(msgDevCaused, devFaultName(tr, f)) }, err)
}

// devRepair is staff fixing everything, then the validator reset the
// kiosk sends once a fault is cleared, and a fresh look at the printer.
func (s *Screens) devRepair() {
	err := s.opt.Dev.Repair()
	if err == nil {
		s.m.ResetValidator()
	}
	s.checkPrinter()
	s.devDone(func(tr Tr) string { return tr.T(msgDevRepaired) }, err)
}

func devFaultName(tr Tr, f DevFault) string { return tr.DevFault(f.ID) }

// stripes is the hazard band's texture.
func stripes() *canvas.Raster {
	return canvas.NewRasterWithPixels(func(px, py, _, _ int) color.Color {
		if ((px+py)/14)%2 == 0 {
			return devYellow
		}
		return devBlack
	})
}

// buildDevPanel is the striped band under the home screen's buttons: a
// button per note, a counterfeit, and the faults.
func (s *Screens) buildDevPanel(v view) []fyne.CanvasObject {
	x, w := float32(actionsX), float32(actionsW)
	band := stripes()
	v.place(band, x, devY, w, devH)
	plate := canvas.NewRectangle(devBlack)
	v.place(plate, x+4, devY+6, w-8, 24)
	line := s.tr.T(msgDevBadge) + "  ·  " + s.tr.T(msgDevHint)
	if pins := s.devPINsLine(); pins != "" {
		line = s.tr.T(msgDevBadge) + "  ·  " + pins
	}
	colour := color.Color(devYellow)
	if st := s.dev.status(s.tr); st != "" {
		line = s.tr.T(msgDevBadge) + "  ·  " + st
		if s.dev.failed {
			colour = art.Alert
		}
	}
	// A long fault's name shrinks the line to fit the plate, and what is
	// still too long is cut short.
	size := float32(sizeCaption - 1)
	for size > 11 && art.MeasureText(line, size*v.k, fyne.TextStyle{Bold: true}).Width > (w-20)*v.k {
		size -= 0.5
	}
	line = v.fit(line, size, true, w-20)
	title := v.textAt(line, size, colour, true, fyne.TextAlignCenter, x+8, devY+8+(sizeCaption-1-size)/2, w-16)
	objs := []fyne.CanvasObject{band, plate, title}
	type action struct {
		label string
		tap   func()
	}
	var acts []action
	for _, n := range s.opt.Dev.Notes() {
		acts = append(acts, action{s.tr.Money(n), func() { s.devInsert(n) }})
	}
	acts = append(acts, action{s.tr.T(msgDevFake), s.devCounterfeit}, action{s.tr.T(msgDevFaults), s.showDevFaults})
	gap := float32(4)
	bw := (w - 8 - gap*float32(len(acts)-1)) / float32(len(acts))
	for i, a := range acts {
		objs = append(objs, v.button(a.label, buttonSecondary, sizeCaption-2, a.tap,
			x+4+float32(i)*(bw+gap), devY+devH-devButtonsH-6, bw, devButtonsH))
	}
	return objs
}

// showDevFaults opens the faults of the simulated devices.
func (s *Screens) showDevFaults() {
	s.activity()
	s.setOverlay(ovDevFaults, s.buildDevFaults)
}

// buildDevFaults: the devices' state as the kiosk sees it, a button per
// fault, and Tout réparer.
func (s *Screens) buildDevFaults(v view) fyne.CanvasObject {
	tr, c := s.tr, s.snap.Cash
	const x, y, w, h = 100, 110, designW - 2*100, 570
	catcher := newTapCatcher(func() { s.activity(); s.closeCashOverlay() })
	v.full(catcher)
	band := stripes()
	v.place(band, x-10, y-10, w+20, h+20)
	objs := []fyne.CanvasObject{v.dim(-designW, -designH, 3*designW, 3*designH), catcher, band, v.panelAlpha(x, y, w, h, 0xFC)}
	objs = append(objs, v.textAt(tr.T(msgDevFaultsTitle), sizeHeading-2, devYellow, true, fyne.TextAlignCenter, x, y+16, w))
	device := func(k msg, st string, warn string, ok bool, yy float32) {
		colour := color.Color(art.Sand)
		if !ok {
			colour = art.Alert
		}
		if warn != "" {
			st += "  ·  " + warn
		}
		objs = append(objs, v.textAt(tr.F(k, st), sizeBody, colour, true, fyne.TextAlignCenter, x, yy, w))
	}
	device(msgDevValidator, tr.Message(c.Validator.Message), tr.Message(c.Validator.Warning), c.Validator.OK, y+62)
	device(msgDevPrinter, tr.Message(c.Printer.Message), tr.Message(c.Printer.Warning), c.Printer.OK, y+90)
	if st := s.dev.status(tr); st != "" {
		colour := color.Color(devYellow)
		if s.dev.failed {
			colour = art.Alert
		}
		objs = append(objs, v.textAt(v.fit(st, sizeSmall, false, w-40), sizeSmall, colour, false, fyne.TextAlignCenter, x, y+120, w))
	}
	const cols, gap, bh = 3, 12, 62
	bw := float32(w-48-gap*(cols-1)) / cols
	for i, f := range s.opt.Dev.Faults() {
		bx := x + 24 + float32(i%cols)*(bw+gap)
		by := y + 156 + float32(i/cols)*(bh+gap)
		objs = append(objs, v.button(devFaultName(tr, f), buttonSecondary, sizeCaption+1, func() { s.devCause(f) }, bx, by, bw, bh))
	}
	objs = append(objs,
		v.button(tr.T(msgDevRepair), buttonPrimary, sizeButton-2, s.devRepair, x+w/2-300, y+h-76-20, 280, 72),
		v.button(tr.T(msgClose), buttonSecondary, sizeButton-2, func() { s.activity(); s.closeCashOverlay() }, x+w/2+20, y+h-76-20, 280, 72),
	)
	return container.NewWithoutLayout(objs...)
}

// fit is text cut short with an ellipsis so that it is at most w design
// units wide at size.
func (v view) fit(text string, size float32, bold bool, w float32) string {
	style := fyne.TextStyle{Bold: bold}
	if art.MeasureText(text, size*v.k, style).Width <= w*v.k {
		return text
	}
	r := []rune(text)
	for len(r) > 1 {
		r = r[:len(r)-1]
		if t := strings.TrimRight(string(r), " ·:") + "…"; art.MeasureText(t, size*v.k, style).Width <= w*v.k {
			return t
		}
	}
	return "…"
}
