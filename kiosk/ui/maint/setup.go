package maint

import (
	"context"
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
)

// The first start of a production kiosk (kiosk.Access.NeedsSetup: no
// credential and no history): before the player's screens, a technician
// sets the technician's and the staff's PINs, each typed twice, and
// confirms the kiosk's id printed on its vouchers. Both PINs are set at
// once with the setup session the core opens for it, only while the kiosk
// needs its setup. A finger alone completes it: each line is a button,
// the line touched is the one typed into, and the first key typed on a
// filled line replaces what it held (a correction, not an addition). The
// PIN lines show the digit keypad, the kiosk id's line (filled with the
// configured id) the letter keyboard (letterpad.go). A keyboard works too:
// its digits, and on the id's line its letters, type into the line
// chosen, Enter goes to the next line and saves from the last, Backspace
// erases.

// SetupConfig is what the setup screen needs.
type SetupConfig struct {
	Access *kiosk.Access
	// KioskID is the id the kiosk has now; SetKioskID keeps the one
	// confirmed (kiosk.Machine.SetKioskID).
	KioskID    string
	SetKioskID func(ctx context.Context, source, id string) error
	// Begin, if set, is called before the PINs are set
	// (kiosk.Machine.BeginFirstStart): the guided sequence that follows
	// (firststart.go) is then stored as started, and resumes after a
	// power cut.
	Begin func(ctx context.Context) error
	Lang  ui.Lang
	// Go and Do run work off the Fyne goroutine and back on it (a
	// goroutine and fyne.Do if nil).
	Go, Do func(func())
	// Done is called once the PINs are set (the player's screens then
	// show).
	Done func()
}

// Setup is the setup screen.
type Setup struct {
	cfg    SetupConfig
	tr     Tr
	win    fyne.Window
	fields [5][]rune // technician, again, staff, again, the kiosk id
	active int
	// fresh: the active line was just chosen, its next key replaces it.
	fresh   bool
	rows    [5]*widget.Button
	digits  fyne.CanvasObject // the keypad of the PIN lines
	letters fyne.CanvasObject // the keyboard of the id's line
	msg     *widget.Label
	save    *widget.Button
	busy    bool
	done    bool
}

var setupLabels = [5]word{"setup.tech", "setup.tech.again", "setup.staff", "setup.staff.again", "setup.id"}

// setupIDRow is the kiosk id's line.
const setupIDRow = 4

// NewSetup shows the setup screen in win.
func NewSetup(win fyne.Window, cfg SetupConfig) *Setup {
	if cfg.Go == nil {
		cfg.Go = func(f func()) { go f() }
	}
	if cfg.Do == nil {
		cfg.Do = fyne.Do
	}
	s := &Setup{cfg: cfg, tr: Tr{Lang: cfg.Lang}, win: win}
	s.show()
	return s
}

// Done reports whether the PINs are set.
func (s *Setup) Done() bool { return s.done }

func (s *Setup) show() {
	tr := s.tr
	for i := range s.rows {
		i := i
		s.rows[i] = widget.NewButton("", func() { s.activate(i) })
		s.rows[i].Alignment = widget.ButtonAlignLeading
	}
	s.fields[setupIDRow] = []rune(s.cfg.KioskID)
	s.msg = widget.NewLabel("")
	s.msg.Wrapping = fyne.TextWrapWord
	s.digits, _ = shKeypad(tr, s.digit, s.erase, tr.T("setup.next"), s.next)
	s.letters = shLetterpad(tr, s.digit, s.erase, tr.T("setup.next"), s.next)
	s.drawRows()
	s.save = widget.NewButton(tr.T("setup.save"), s.submit)
	s.save.Importance = widget.HighImportance
	help := shPara(tr.T("setup.help"), 4)
	var rows []fyne.CanvasObject
	for _, r := range s.rows {
		rows = append(rows, shSized(fyne.NewSize(0, 56), r))
	}
	form := container.NewVBox(append([]fyne.CanvasObject{shTitle(tr.T("setup.title")), help}, rows...)...)
	// What Enregistrer found wrong, beside it: the screen's last line, so
	// nothing moves when it shows.
	form.Add(container.NewBorder(nil, nil, container.NewVBox(shSized(fyne.NewSize(320, 64), s.save)), nil, s.msg))
	c := s.win.Canvas()
	shTakeKeys(c, s.digit, s.enter, s.erase)
	c.SetOnTypedRune(s.digit) // letters too, on the id's line (digit filters)
	s.win.SetContent(shBackdrop(container.NewPadded(container.NewBorder(nil, nil, nil,
		container.NewVBox(shText(tr.T("setup.keypad"), 16, art.Sand, false), container.NewStack(s.digits, s.letters)), form))))
}

func (s *Setup) drawRows() {
	for i, r := range s.rows {
		shown := strings.TrimSpace(strings.Repeat("● ", len(s.fields[i])))
		if i == setupIDRow {
			shown = string(s.fields[i])
		}
		r.SetText(s.tr.T(setupLabels[i]) + "  " + shown)
		r.Importance = widget.MediumImportance
		if i == s.active {
			r.Importance = widget.HighImportance
		}
		r.Refresh()
	}
	if s.active == setupIDRow {
		s.digits.Hide()
		s.letters.Show()
	} else {
		s.letters.Hide()
		s.digits.Show()
	}
}

// activate makes line i the one typed into; what it holds is replaced by
// the next key, kept by Effacer (which erases its last character).
func (s *Setup) activate(i int) {
	s.active = i
	s.fresh = len(s.fields[i]) > 0
	s.drawRows()
}

// digit types r into the active line: a digit on a PIN line, a kiosk id's
// character (kiosk.IsKioskIDRune) on the id's line; other keys are
// ignored, and a line holds no more than its longest value.
func (s *Setup) digit(r rune) {
	limit, ok := pinMax, r >= '0' && r <= '9'
	if s.active == setupIDRow {
		limit, ok = kiosk.KioskIDMaxLen, kiosk.IsKioskIDRune(r)
	}
	if s.busy || !ok {
		return
	}
	if s.fresh {
		s.fields[s.active], s.fresh = nil, false
	}
	if len(s.fields[s.active]) >= limit {
		return
	}
	s.fields[s.active] = append(s.fields[s.active], r)
	s.drawRows()
}

func (s *Setup) erase() {
	s.fresh = false
	if f := s.fields[s.active]; len(f) > 0 && !s.busy {
		s.fields[s.active] = f[:len(f)-1]
		s.drawRows()
	}
}

// enter: a keyboard's Enter moves to the next PIN field, and saves from
// the last one.
func (s *Setup) enter() {
	if s.active == len(s.fields)-1 {
		s.submit()
		return
	}
	s.next()
}

// next moves to the next PIN field.
func (s *Setup) next() { s.activate((s.active + 1) % len(s.fields)) }

// fail says what is wrong and makes the line to correct the one typed
// into.
func (s *Setup) fail(row int, k word, args ...any) {
	s.msg.Importance = widget.DangerImportance
	s.msg.SetText(s.tr.F(k, args...))
	s.activate(row)
}

// failID says the kiosk id's one rule (kiosk.CheckKioskID), in the
// settings view's words.
func (s *Setup) failID() {
	s.fail(setupIDRow, "setup.err.id", s.tr.F("rpt.set.kiosk_id.refused", 1, kiosk.KioskIDMaxLen))
}

// submit checks what was typed, then sets the kiosk id and the PINs (the
// staff's first: while no technician PIN is set, the setup may set both).
func (s *Setup) submit() {
	if s.busy || s.done {
		return
	}
	tech, staff := string(s.fields[0]), string(s.fields[2])
	id := string(s.fields[setupIDRow])
	switch {
	case !setupPIN(tech):
		s.fail(0, "setup.err.format", s.tr.T("setup.tech"))
		return
	case tech != string(s.fields[1]):
		s.fail(1, "setup.err.mismatch", s.tr.T("setup.tech"))
		return
	case !setupPIN(staff):
		s.fail(2, "setup.err.format", s.tr.T("setup.staff"))
		return
	case staff != string(s.fields[3]):
		s.fail(3, "setup.err.mismatch", s.tr.T("setup.staff"))
		return
	case staff == tech:
		s.fail(2, "setup.err.same")
		return
	case !kiosk.ValidKioskID(id):
		s.failID()
		return
	}
	s.busy = true
	s.save.Disable()
	s.msg.Importance = widget.MediumImportance
	s.msg.SetText(s.tr.T("setup.saving"))
	ctx := context.Background()
	s.cfg.Go(func() {
		session, err := s.cfg.Access.SetupSession(ctx)
		if err == nil && s.cfg.SetKioskID != nil {
			err = s.cfg.SetKioskID(ctx, "setup", id)
		}
		if err == nil && s.cfg.Begin != nil {
			err = s.cfg.Begin(ctx)
		}
		if err == nil {
			err = s.cfg.Access.Setup(ctx, session, tech, staff)
		}
		s.cfg.Do(func() {
			s.busy = false
			s.save.Enable()
			switch {
			case errors.Is(err, kiosk.ErrKioskID):
				s.failID()
			case errors.Is(err, kiosk.ErrPINFormat):
				s.fail(2, "setup.err.same")
			case err != nil:
				shErr(&Env{Tr: s.tr}, err)
				s.fail(s.active, "setup.err.other")
			default:
				s.done = true
				s.win.Canvas().SetOnTypedRune(nil)
				s.win.Canvas().SetOnTypedKey(nil)
				if s.cfg.Done != nil {
					s.cfg.Done()
				}
			}
		})
	})
}

// setupPIN: 6 to 10 digits (kiosk.Access's rule, said before it is asked).
func setupPIN(p string) bool {
	if len(p) < kiosk.PINMinLen || len(p) > pinMax {
		return false
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

var _ = words(map[word]text{
	"setup.title":        {"Première mise en service", "First start"},
	"setup.help":         {"Choisissez le code du technicien et celui du personnel (6 à 10 chiffres, différents), chacun deux fois, puis vérifiez l’identifiant de la borne imprimé sur ses bons de paiement. Touchez une ligne pour y taper\u00a0: la première touche remplace ce qu’elle contenait.", "Choose the technician’s PIN and the staff’s (6 to 10 digits, different), each twice, then check the kiosk id printed on its vouchers. Touch a line to type into it: the first key replaces what it held."},
	"setup.tech":         {"Code technicien", "Technician PIN"},
	"setup.tech.again":   {"Code technicien (encore)", "Technician PIN (again)"},
	"setup.staff":        {"Code personnel", "Staff PIN"},
	"setup.staff.again":  {"Code personnel (encore)", "Staff PIN (again)"},
	"setup.id":           {"Identifiant de la borne", "Kiosk id"},
	"setup.keypad":       {"Clavier de la ligne choisie", "Keypad of the line chosen"},
	"setup.next":         {"Suivant", "Next"},
	"setup.save":         {"Enregistrer", "Save"},
	"setup.saving":       {"Enregistrement…", "Saving…"},
	"setup.err.format":   {"%s\u00a0: de 6 à 10 chiffres.", "%s: 6 to 10 digits."},
	"setup.err.mismatch": {"%s\u00a0: les deux saisies diffèrent.", "%s: the two entries differ."},
	"setup.err.same":     {"Les deux codes doivent être différents.", "The two PINs must differ."},
	"setup.err.id":       {"Identifiant de la borne\u00a0: %s.", "Kiosk id: %s."},
	"setup.err.other":    {"L’enregistrement a échoué\u00a0: voyez le journal.", "Saving failed: see the log."},
})
