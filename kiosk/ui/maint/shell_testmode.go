package maint

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
)

// Test mode ends with the technician's session (kiosk.Office.Logout): a
// kiosk left in it would give every player's note back. The shell follows
// it through what the test mode view reads and sets (Env.TestMode), so
// that leaving asks first (Quitter) or says so on the PIN pad (an idle
// session), never ends it silently. Only this session's view turns it on
// and the session's end turns it off, so what the view saw is the kiosk's
// state without asking it (asking would count as activity and keep an
// idle session open).

// note records test mode's state for the session s, if still the one open.
func (sh *Shell) note(s *kiosk.Session, on bool) {
	if sh.session == s {
		sh.testOn = on
	}
}

// idleNotice is what the PIN pad says when an idle session ended.
func (sh *Shell) idleNotice() word {
	if sh.testOn {
		return "shell.idle.test"
	}
	return "shell.idle"
}

// askLeaveTestMode asks the technician whether to leave while test mode
// is on: Rester goes back to the view, the other ends test mode and
// leaves.
func (sh *Shell) askLeaveTestMode() {
	tr := sh.tr
	stay := widget.NewButton(tr.T("shell.test.stay"), func() { sh.touch(); sh.showView(sh.current) })
	leave := widget.NewButton(tr.T("shell.test.leave"), func() { sh.testOn = false; sh.Quit() })
	leave.Importance = widget.DangerImportance
	col := container.NewVBox(
		container.NewCenter(shTitle(tr.T("shell.test.title"))),
		shSized(fyne.NewSize(560, 0), shPara(tr.T("shell.test.ask"), 3)),
		container.NewCenter(container.NewHBox(shSized(fyne.NewSize(220, 64), stay), shSized(fyne.NewSize(300, 64), leave))),
	)
	sh.win.SetContent(shBackdrop(container.NewCenter(col)))
}

var _ = words(map[word]text{
	"shell.idle.test":  {"Session fermée après inactivité\u00a0; le mode test est arrêté.", "Session closed after inactivity; test mode is off."},
	"shell.test.title": {"Le mode test est en marche", "Test mode is on"},
	"shell.test.ask":   {"Quitter la maintenance arrête le mode test\u00a0: les billets insérés seront de nouveau crédités aux joueurs.", "Leaving maintenance stops test mode: notes inserted will be credited to players again."},
	"shell.test.stay":  {"Rester", "Stay"},
	"shell.test.leave": {"Arrêter et quitter", "Stop and leave"},
})
