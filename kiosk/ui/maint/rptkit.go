package maint

import (
	"errors"
	"fmt"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pharaon/hw/escpos"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// The small parts the report, printer, device, settings and identity views
// share: a title, rows of a label and a value, buttons a finger can hit,
// and the way an Office refusal is said.

// rptMinButton is the smallest button: a finger's target (DESIGN.md §8).
var rptMinButton = fyne.NewSize(220, 60)

// rptButton is a button of at least a finger's size that calls tap after
// telling the shell someone is there.
func rptButton(env *Env, label string, tap func()) *widget.Button {
	b := widget.NewButton(label, func() {
		if env.Touch != nil {
			env.Touch()
		}
		tap()
	})
	return b
}

// rptSized keeps o at least a finger's size, and lets it grow to its text
// (a fixed size cut "Revérifier et remettre en service" on both sides).
func rptSized(o fyne.CanvasObject) fyne.CanvasObject { return shSized(rptMinButton, o) }

// rptTitle is a view's title.
func rptTitle(text string) fyne.CanvasObject {
	t := canvas.NewText(text, theme.Color(theme.ColorNameForeground))
	t.TextSize = 28
	t.TextStyle = fyne.TextStyle{Bold: true}
	return t
}

// rptRow is a label and its value, the value in a fixed-width face when
// mono (meters, hashes): on one line, the value at its end, when both fit,
// else the value under the label (a device's path on a small screen).
func rptRow(label, value string, mono bool) fyne.CanvasObject {
	v := widget.NewLabel(value)
	v.TextStyle = fyne.TextStyle{Monospace: mono}
	v.Alignment = fyne.TextAlignTrailing
	if !mono {
		v.Wrapping = fyne.TextWrapWord
	}
	return shPair(widget.NewLabel(label), v)
}

// rptLabelled puts a label before o, which takes the rest of the line, or
// the line under it when it is short.
func rptLabelled(label string, o fyne.CanvasObject) fyne.CanvasObject {
	return shPair(widget.NewLabel(label), o)
}

// rptMsg is a core message's text in the language shown, in the words of
// the player's screens' catalogue (kiosk/ui/i18n.go).
func rptMsg(tr Tr, m kiosk.Message) string {
	return ui.Tr{Lang: tr.Lang}.Message(m)
}

// rptStatus says a device's state: its message, and its warning if any.
func rptStatus(tr Tr, d kiosk.DeviceStatus) string {
	if !d.Configured {
		return tr.T("rpt.device.none")
	}
	s := rptMsg(tr, d.Message)
	if !d.Warning.IsZero() {
		s += " — " + rptMsg(tr, d.Warning)
	}
	return s
}

// rptErr says why the back office refused or failed, in the language
// shown, and writes it on stderr for whoever reads the kiosk's log.
func rptErr(tr Tr, err error) string {
	msg := rptReason(tr, err)
	if msg == "" {
		msg = tr.T("rpt.err.other")
	}
	fmt.Fprintf(os.Stderr, "maintenance: %s: %v\n", msg, err)
	return msg
}

// rptRefusal says what did not happen and why: the reason in words when
// the kiosk gives one, then the error itself as a technical detail, never
// as the sentence (the caller logs the error).
func rptRefusal(tr Tr, what string, err error) string {
	if why := rptReason(tr, err); why != "" {
		what += " " + why
	}
	return what + "\n" + tr.Detail(err.Error())
}

// rptReason is why the back office refused or failed, in words, when the
// error says it; "" otherwise.
func rptReason(tr Tr, err error) string {
	var se *kiosk.SettingError
	switch {
	case errors.As(err, &se):
		return settingRefusal(tr, se)
	case errors.Is(err, kiosk.ErrSessionEnded):
		return tr.T("rpt.err.session")
	case errors.Is(err, kiosk.ErrNotAllowed):
		return tr.T("rpt.err.role")
	case errors.Is(err, kiosk.ErrPaperNotConfirmed):
		return tr.T("rpt.err.paper")
	case errors.Is(err, kiosk.ErrBusy):
		return tr.T("rpt.err.busy")
	case errors.Is(err, escpos.ErrPaperOut):
		return tr.T("rpt.err.paperout")
	case errors.Is(err, kiosk.ErrCashOutUnavailable), errors.Is(err, kiosk.ErrReportNotPrinted):
		return tr.T("rpt.err.printer")
	case errors.Is(err, kiosk.ErrDeviceDown), errors.Is(err, kiosk.ErrNotConfigured):
		return tr.T("rpt.err.device")
	case errors.Is(err, store.ErrBadRequest):
		return tr.T("rpt.err.request")
	}
	return ""
}

// rptRun runs f off the Fyne goroutine, then done back on it.
func rptRun(env *Env, f func() error, done func(error)) {
	env.Go(func() {
		err := f()
		env.Do(func() { done(err) })
	})
}

// rptNote is a line that says what an action did (or why it did not);
// hidden while it says nothing. in gives it the view it sits in, laid out
// again when the line shows or hides.
type rptNote struct {
	*widget.Label
	root fyne.CanvasObject
}

func newRptNote() *rptNote {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return &rptNote{Label: l}
}

// in returns root, the view the note sits in.
func (n *rptNote) in(root fyne.CanvasObject) fyne.CanvasObject {
	n.root = root
	return root
}

func (n *rptNote) say(imp widget.Importance, s string) {
	n.Importance = imp
	n.SetText(s)
	n.Show()
	n.relayout()
}

func (n *rptNote) relayout() {
	if n.root != nil {
		n.root.Refresh()
	}
}

func (n *rptNote) ok(s string)               { n.say(widget.SuccessImportance, s) }
func (n *rptNote) fail(tr Tr, err error)     { n.say(widget.DangerImportance, rptErr(tr, err)) }
func (n *rptNote) failText(s string)         { n.say(widget.DangerImportance, s) }
func (n *rptNote) object() fyne.CanvasObject { return n.Label }

func (n *rptNote) clear() {
	if n.Visible() {
		n.SetText("")
		n.Hide()
		n.relayout()
	}
}

var _ = words(map[word]text{
	"rpt.device.none":  {"Aucun appareil configuré", "No device configured"},
	"rpt.err.session":  {"Session terminée\u00a0: saisissez à nouveau votre code.", "Session ended: enter your PIN again."},
	"rpt.err.role":     {"Réservé au technicien.", "For the technician only."},
	"rpt.err.paper":    {"L’imprimante ne confirme pas le papier\u00a0: vérifiez le rouleau et le capot.", "The printer does not confirm the paper: check the roll and the cover."},
	"rpt.err.busy":     {"La borne est occupée (partie ou impression en cours)\u00a0: réessayez dans un instant.", "The kiosk is busy (a game or a print): try again in a moment."},
	"rpt.err.paperout": {"Plus de papier\u00a0: rien n’a été imprimé.", "Out of paper: nothing was printed."},
	"rpt.err.printer":  {"L’imprimante n’a pas imprimé\u00a0: voyez son état.", "The printer did not print: see its state."},
	"rpt.err.device":   {"L’appareil ne répond pas.", "The device does not answer."},
	"rpt.err.request":  {"Demande incorrecte.", "Bad request."},
	"rpt.err.other":    {"Échec\u00a0: voyez le journal.", "Failed: see the event log."},
	"rpt.refresh":      {"Actualiser", "Refresh"},
})
