package maint

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
)

// The PIN pad: ten digits a finger can hit (a keyboard's digits, Enter and
// Backspace work too), the digits typed shown as dots, and what the last
// PIN did: wrong with the tries left, or the pad locked with the time left,
// counted down. The check itself is kiosk.Access's (argon2id, the lockout
// kept in the store, counted in time that runs): the pad never decides,
// and its countdown only shows the time the core said.

// pinMax is the longest PIN (kiosk.Access takes 6 to 10 digits).
const pinMax = kiosk.PINMaxLen

type pinPad struct {
	sh     *Shell
	digits []rune
	dots   *widget.Label
	msg    *widget.Label
	ok     *widget.Button
	keys   fyne.CanvasObject
	// all are every key of the pad, greyed while it is locked: a key that
	// looks live must take what is typed.
	all  []*widget.Button
	busy bool
	// until is the end of the pad's lock (zero: not locked).
	until time.Time
}

func newPinPad(sh *Shell) *pinPad {
	p := &pinPad{sh: sh}
	p.dots = widget.NewLabel("")
	p.dots.Alignment = fyne.TextAlignCenter
	p.dots.TextStyle = fyne.TextStyle{Bold: true, Monospace: true}
	p.dots.SizeName = theme.SizeNameHeadingText
	p.msg = widget.NewLabel("")
	p.msg.Alignment = fyne.TextAlignCenter
	p.msg.Wrapping = fyne.TextWrapWord
	p.keys, p.all = shKeypadKeys(sh.tr, p.digit, p.back, sh.tr.T("pin.ok"), p.submit)
	p.ok = p.all[len(p.all)-1]
	p.showDots()
	if sh.notice != "" {
		p.say(widget.WarningImportance, sh.tr.T(sh.notice))
	}
	return p
}

// object is the pad's screen.
func (p *pinPad) object() fyne.CanvasObject {
	tr := p.sh.tr
	other, otherLang := "English", ui.English
	if tr.Lang == ui.English {
		other, otherLang = "Français", ui.French
	}
	back := widget.NewButton(tr.T("pin.back"), p.sh.Quit)
	lang := widget.NewButton(other, func() { p.sh.setLang(otherLang) })
	col := container.NewVBox(
		container.NewCenter(shTitle(tr.T("pin.title"))),
		container.NewCenter(shText(tr.T("pin.prompt"), 20, art.Sand, false)),
		shSized(fyne.NewSize(420, 0), p.dots),
		shSized(fyne.NewSize(440, 84), p.msg),
		container.NewCenter(p.keys),
		container.NewCenter(container.NewHBox(shSized(fyne.NewSize(230, 56), back), shSized(fyne.NewSize(140, 56), lang))),
	)
	return container.NewCenter(col)
}

// start reads the pad's lock (a lock set before a restart shows at once).
func (p *pinPad) start() {
	sh := p.sh
	a := sh.cfg.Office.Access()
	if a == nil {
		return
	}
	sh.cfg.Go(func() {
		w, err := a.Locked(sh.ctx)
		sh.cfg.Do(func() {
			if err != nil {
				fmt.Fprintf(shLog, "maintenance: PIN lock: %v\n", err)
				return
			}
			if sh.pad == p && w > 0 {
				p.lock(w)
			}
		})
	})
}

func (p *pinPad) typedRune(r rune) {
	if r >= '0' && r <= '9' {
		p.digit(r)
	}
}

func (p *pinPad) typedKey(e *fyne.KeyEvent) {
	switch e.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		p.submit()
	case fyne.KeyBackspace:
		p.back()
	case fyne.KeyEscape:
		p.sh.Quit()
	}
}

func (p *pinPad) digit(r rune) {
	p.sh.touch()
	if p.busy || p.locked() || len(p.digits) >= pinMax {
		return
	}
	p.digits = append(p.digits, r)
	p.showDots()
}

func (p *pinPad) back() {
	p.sh.touch()
	if p.busy || len(p.digits) == 0 {
		return
	}
	p.digits = p.digits[:len(p.digits)-1]
	p.showDots()
}

func (p *pinPad) showDots() {
	if len(p.digits) == 0 {
		p.dots.SetText(strings.TrimSpace(strings.Repeat("– ", kiosk.PINMinLen)))
		return
	}
	p.dots.SetText(strings.TrimSpace(strings.Repeat("● ", len(p.digits))))
}

func (p *pinPad) say(imp widget.Importance, s string) {
	p.msg.Importance = imp
	p.msg.SetText(s)
}

func (p *pinPad) locked() bool { return p.sh.cfg.Now().Before(p.until) }

// lock shows the pad locked for w from now.
func (p *pinPad) lock(w time.Duration) {
	p.until = p.sh.cfg.Now().Add(w)
	p.digits = nil
	p.showDots()
	for _, k := range p.all {
		k.Disable()
	}
	p.tick(p.sh.cfg.Now())
}

// tick counts the lock down, and opens the pad at its end.
func (p *pinPad) tick(now time.Time) {
	if p.until.IsZero() {
		return
	}
	if !now.Before(p.until) {
		p.until = time.Time{}
		for _, k := range p.all {
			k.Enable()
		}
		p.say(widget.MediumImportance, p.sh.tr.T("pin.unlocked"))
		return
	}
	p.say(widget.DangerImportance, p.sh.tr.F("pin.locked", shDelay(p.sh.tr, p.until.Sub(now))))
}

// submit checks the PIN typed, off the Fyne goroutine (argon2id takes a
// good part of a second on purpose).
func (p *pinPad) submit() {
	sh := p.sh
	sh.touch()
	if p.busy || p.locked() {
		return
	}
	if len(p.digits) == 0 {
		p.say(widget.WarningImportance, sh.tr.T("pin.empty"))
		return
	}
	pin := string(p.digits)
	p.digits = nil
	p.showDots()
	p.busy = true
	p.ok.Disable()
	p.say(widget.MediumImportance, sh.tr.T("pin.checking"))
	sh.cfg.Go(func() {
		s, err := sh.cfg.Office.Login(sh.ctx, pin)
		sh.cfg.Do(func() {
			if sh.closed || sh.pad != p {
				if err == nil {
					_ = sh.cfg.Office.Logout(sh.ctx, s, "done")
				}
				return
			}
			p.busy = false
			p.ok.Enable()
			if err == nil {
				sh.loggedIn(s)
				return
			}
			p.refused(err)
		})
	})
}

// refused says why the PIN did not open a session.
func (p *pinPad) refused(err error) {
	tr := p.sh.tr
	var pe *kiosk.PINError
	switch {
	case errors.As(err, &pe) && errors.Is(err, kiosk.ErrPINLocked):
		p.lock(pe.Wait)
	case errors.As(err, &pe) && pe.Left == 1:
		p.say(widget.DangerImportance, tr.T("pin.wrong.last"))
	case errors.As(err, &pe):
		p.say(widget.DangerImportance, tr.F("pin.wrong", tr.Count(int64(pe.Left), "n.try")))
	case errors.Is(err, kiosk.ErrNotAllowed):
		// A staff PIN while the kiosk's data are in fault.
		fmt.Fprintf(shLog, "maintenance: login: %v\n", err)
		p.say(widget.WarningImportance, tr.T("pin.fault"))
	default:
		fmt.Fprintf(shLog, "maintenance: login: %v\n", err)
		p.say(widget.DangerImportance, tr.T("pin.error"))
	}
}

// shDelay writes a delay left, rounded up to the second: "4 min 05 s".
func shDelay(tr Tr, d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	if s < 60 {
		return tr.F("pin.delay.s", s)
	}
	return tr.F("pin.delay.min", s/60, s%60)
}

// shTakeKeys gives the keyboard to a form of digits (a scanner, or a
// technician's keyboard): digits type, Enter and Backspace act.
func shTakeKeys(c fyne.Canvas, digit func(rune), enter, erase func()) {
	c.SetOnTypedRune(func(r rune) {
		if r >= '0' && r <= '9' {
			digit(r)
		}
	})
	c.SetOnTypedKey(func(e *fyne.KeyEvent) {
		switch e.Name {
		case fyne.KeyReturn, fyne.KeyEnter:
			enter()
		case fyne.KeyBackspace:
			erase()
		}
	})
}

// shKeypad is the digits 1 to 9, Effacer, 0 and the action key, each a
// finger's size; the action key is returned to be disabled while it works.
// Its keys have less padding than the other buttons: their labels are
// short, and the keypad leaves its form the room of the smallest screen.
func shKeypad(tr Tr, digit func(rune), back func(), okLabel string, ok func()) (fyne.CanvasObject, *widget.Button) {
	pad, keys := shKeypadKeys(tr, digit, back, okLabel, ok)
	return pad, keys[len(keys)-1]
}

// shKeypadKeys is shKeypad with every key, in reading order (the action
// key last), for a form that greys them all (the PIN pad's lock).
func shKeypadKeys(tr Tr, digit func(rune), back func(), okLabel string, ok func()) (fyne.CanvasObject, []*widget.Button) {
	key := fyne.NewSize(100, 76)
	var buttons []*widget.Button
	for _, r := range "123456789" {
		r := r
		buttons = append(buttons, widget.NewButton(string(r), func() { digit(r) }))
	}
	okb := widget.NewButton(okLabel, ok)
	okb.Importance = widget.HighImportance
	buttons = append(buttons, widget.NewButton(tr.T("pin.erase"), back), widget.NewButton("0", func() { digit('0') }), okb)
	keys := make([]fyne.CanvasObject, len(buttons))
	for i, b := range buttons {
		keys[i] = shSized(key, b)
	}
	return shTight(container.NewGridWithColumns(3, keys...), 10), buttons
}

var _ = words(map[word]text{
	"pin.title":      {"Maintenance", "Maintenance"},
	"pin.prompt":     {"Tapez votre code personnel", "Type your PIN"},
	"pin.ok":         {"Valider", "Enter"},
	"pin.erase":      {"Effacer", "Erase"},
	"pin.back":       {"Retour au jeu", "Back to the game"},
	"pin.empty":      {"Tapez d’abord votre code.", "Type your PIN first."},
	"pin.checking":   {"Vérification…", "Checking…"},
	"pin.wrong":      {"Code incorrect\u00a0: encore %s avant le blocage.", "Wrong PIN: %s left before the keypad locks."},
	"pin.wrong.last": {"Code incorrect\u00a0: dernier essai avant le blocage.", "Wrong PIN: one try left before the keypad locks."},
	"pin.locked":     {"Trop de codes incorrects\u00a0: clavier bloqué, réessayez dans %s.", "Too many wrong PINs: keypad locked, try again in %s."},
	"pin.unlocked":   {"Le clavier est débloqué.", "The keypad is unlocked."},
	"pin.error":      {"Le code n’a pas pu être vérifié\u00a0: voyez le journal.", "The PIN could not be checked: see the log."},
	"pin.fault":      {"La borne est en défaut\u00a0: seul le technicien peut se connecter, pour lire le diagnostic.", "The kiosk is in fault: only the technician can log in, to read the diagnosis."},
	"pin.delay.s":    {"%d\u00a0s", "%d s"},
	"pin.delay.min":  {"%d\u00a0min\u00a0%02d\u00a0s", "%d min %02d s"},
})
