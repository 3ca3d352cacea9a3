package maint

import (
	"context"
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/store"
)

// The PINs (staff and technician): a new PIN typed twice on the keypad (or
// a keyboard's digits), saved for the role chosen, and the staff's PIN
// revoked, after a second tap that confirms. A technician changes both
// PINs and revokes the staff's; staff change and revoke their own. The
// core decides (kiosk.Access: the role that changes is the session's, a
// change by staff takes a try of the PIN pad) and logs each change with
// the role, never the PIN.

var _ = register(View{ID: "pins", Title: "pins.title", Need: kiosk.RoleStaff, Order: 70,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildPINs(env, o) }})

var _ = words(map[word]text{
	"pins.title":      {"Codes d’accès", "PINs"},
	"pins.help":       {"Tapez le nouveau code (6 à 10 chiffres) deux fois, puis Enregistrer. Un changement fait par le personnel compte comme un essai du clavier.", "Type the new PIN (6 to 10 digits) twice, then Save. A change made by staff counts as a try of the keypad."},
	"pins.role.tech":  {"Code technicien", "Technician PIN"},
	"pins.role.staff": {"Code personnel", "Staff PIN"},
	"pins.new":        {"Nouveau code", "New PIN"},
	"pins.again":      {"Nouveau code (encore)", "New PIN (again)"},
	"pins.next":       {"Suivant", "Next"},
	"pins.save":       {"Enregistrer", "Save"},
	"pins.revoke":     {"Révoquer le code personnel", "Revoke the staff PIN"},
	"pins.confirm":    {"Confirmer la révocation", "Confirm the revocation"},
	"pins.saved":      {"%s enregistré.", "%s saved."},
	"pins.revoked":    {"Code personnel révoqué\u00a0: il n’ouvre plus rien.", "Staff PIN revoked: it opens nothing any more."},
	"pins.err.format": {"Le nouveau code doit avoir de 6 à 10 chiffres.", "The new PIN must have 6 to 10 digits."},
	"pins.err.same":   {"Les deux saisies diffèrent.", "The two entries differ."},
	"pins.err.refused": {"Code refusé\u00a0: choisissez-en un autre, de 6 à 10 chiffres.",
		"PIN refused: choose another one, of 6 to 10 digits."},
	"pins.err.locked": {"Clavier bloqué\u00a0: réessayez dans %s.", "Keypad locked: try again in %s."},
	"pins.err.none":   {"Il n’y a pas de code personnel à révoquer.", "There is no staff PIN to revoke."},
})

// pinsView is the view's state: the role chosen, the two entries and the
// one typed into.
type pinsView struct {
	env     *Env
	o       pinsDesk
	role    kiosk.Role
	fields  [2][]rune
	active  int
	rows    [2]*widget.Button
	roles   map[kiosk.Role]*widget.Button
	revoke  *widget.Button
	confirm bool
	busy    bool
	note    *rptNote
}

// pinsDesk is what the PINs view changes.
type pinsDesk interface {
	SetPIN(ctx context.Context, s *kiosk.Session, role kiosk.Role, pin string) error
	RevokePIN(ctx context.Context, s *kiosk.Session, role kiosk.Role) error
}

func buildPINs(env *Env, o pinsDesk) fyne.CanvasObject {
	tr := env.Tr
	v := &pinsView{env: env, o: o, role: kiosk.RoleStaff, note: newRptNote(), roles: map[kiosk.Role]*widget.Button{}}
	for i := range v.rows {
		i := i
		v.rows[i] = widget.NewButton("", func() { v.touch(); v.active = i; v.draw() })
		v.rows[i].Alignment = widget.ButtonAlignLeading
	}
	choice := shFlow()
	if env.Session.Role() == kiosk.RoleTechnician {
		for _, r := range []kiosk.Role{kiosk.RoleTechnician, kiosk.RoleStaff} {
			r := r
			v.roles[r] = rptButton(env, tr.T(pinsRoleWord(r)), func() { v.choose(r) })
			choice.Add(rptSized(v.roles[r]))
		}
	} else {
		choice.Add(widget.NewLabel(tr.T("pins.role.staff")))
	}
	v.revoke = rptButton(env, tr.T("pins.revoke"), v.revokeTapped)
	v.revoke.Importance = widget.DangerImportance
	save := rptButton(env, tr.T("pins.save"), v.save)
	save.Importance = widget.HighImportance
	keys, _ := shKeypad(tr, v.digit, v.erase, tr.T("pins.next"), v.next)
	line := func(o fyne.CanvasObject) fyne.CanvasObject { return shSized(fyne.NewSize(0, 56), o) }
	// The note keeps its room under the rows: Enregistrer and Révoquer do
	// not move under the finger when it shows.
	// The title, the help and the role across the view; the entries and
	// their buttons beside the keypad.
	head := container.NewVBox(rptTitle(tr.T("pins.title")), wrapped(tr.T("pins.help")), choice)
	form := container.NewVBox(line(v.rows[0]), line(v.rows[1]), shMessage(v.note.object(), 2), shFlow(rptSized(save), rptSized(v.revoke)))
	// Enter goes to the second entry, and saves from it.
	shTakeKeys(env.Win.Canvas(), v.digit, func() {
		if v.active == 1 {
			v.save()
			return
		}
		v.next()
	}, v.erase)
	v.draw()
	return v.note.in(container.NewBorder(head, nil, nil, container.NewVBox(keys), form))
}

func pinsRoleWord(r kiosk.Role) word {
	if r == kiosk.RoleTechnician {
		return "pins.role.tech"
	}
	return "pins.role.staff"
}

func (v *pinsView) touch() {
	if v.env.Touch != nil {
		v.env.Touch()
	}
}

// draw shows the role chosen, the entries as dots and the revoke button
// (the staff's PIN only).
func (v *pinsView) draw() {
	tr := v.env.Tr
	for i, r := range v.rows {
		label := tr.T("pins.new")
		if i == 1 {
			label = tr.T("pins.again")
		}
		r.SetText(label + "  " + strings.Repeat("●", len(v.fields[i])))
		r.Importance = widget.MediumImportance
		if i == v.active {
			r.Importance = widget.HighImportance
		}
		r.Refresh()
	}
	for r, b := range v.roles {
		b.Importance = widget.MediumImportance
		if r == v.role {
			b.Importance = widget.HighImportance
		}
		b.Refresh()
	}
	if v.role == kiosk.RoleStaff {
		v.revoke.Show()
	} else {
		v.revoke.Hide()
	}
	v.revoke.SetText(tr.T("pins.revoke"))
	if v.confirm {
		v.revoke.SetText(tr.T("pins.confirm"))
	}
}

func (v *pinsView) choose(r kiosk.Role) {
	v.role, v.confirm = r, false
	v.clear()
	v.note.clear()
}

func (v *pinsView) clear() {
	v.fields = [2][]rune{}
	v.active = 0
	v.draw()
}

func (v *pinsView) digit(r rune) {
	v.touch()
	if v.busy || len(v.fields[v.active]) >= pinMax {
		return
	}
	v.fields[v.active] = append(v.fields[v.active], r)
	v.draw()
}

func (v *pinsView) erase() {
	v.touch()
	if f := v.fields[v.active]; len(f) > 0 && !v.busy {
		v.fields[v.active] = f[:len(f)-1]
		v.draw()
	}
}

func (v *pinsView) next() {
	v.touch()
	v.active = (v.active + 1) % len(v.fields)
	v.draw()
}

// save sets the role's new PIN, once both entries agree.
func (v *pinsView) save() {
	tr := v.env.Tr
	v.confirm = false
	if v.busy {
		return
	}
	pin := string(v.fields[0])
	// Refused or saved, the entries are typed again from empty.
	switch {
	case !setupPIN(pin):
		v.note.failText(tr.T("pins.err.format"))
		v.clear()
		return
	case pin != string(v.fields[1]):
		v.note.failText(tr.T("pins.err.same"))
		v.clear()
		return
	}
	role := v.role
	v.busy = true
	rptRun(v.env, func() error { return v.o.SetPIN(v.env.Ctx, v.env.Session, role, pin) }, func(err error) {
		v.busy = false
		v.clear()
		if err != nil {
			v.refused(err)
			return
		}
		v.note.ok(tr.F("pins.saved", tr.T(pinsRoleWord(role))))
	})
}

// revokeTapped asks for a second tap, then revokes the staff's PIN.
func (v *pinsView) revokeTapped() {
	tr := v.env.Tr
	if v.busy || v.role != kiosk.RoleStaff {
		return
	}
	if !v.confirm {
		v.confirm = true
		v.draw()
		return
	}
	v.confirm = false
	v.busy = true
	rptRun(v.env, func() error { return v.o.RevokePIN(v.env.Ctx, v.env.Session, kiosk.RoleStaff) }, func(err error) {
		v.busy = false
		v.clear()
		if err != nil {
			v.refused(err)
			return
		}
		v.note.ok(tr.T("pins.revoked"))
	})
}

// refused says why the core refused a change.
func (v *pinsView) refused(err error) {
	tr := v.env.Tr
	var pe *kiosk.PINError
	switch {
	case errors.As(err, &pe) && errors.Is(err, kiosk.ErrPINLocked) && !errors.Is(err, kiosk.ErrPINFormat):
		v.note.failText(tr.F("pins.err.locked", shDelay(tr, pe.Wait)))
	case errors.Is(err, kiosk.ErrPINFormat):
		v.note.failText(tr.T("pins.err.refused"))
	case errors.Is(err, store.ErrNotFound):
		v.note.failText(tr.T("pins.err.none"))
	default:
		v.note.fail(tr, err)
	}
}
