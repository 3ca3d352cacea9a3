package maint

import (
	"context"
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
	"pharaon/store"
)

// The notes held for staff: a note the validator may have put in the cash
// box without the kiosk knowing whether it was credited (a power cut while
// it was stacked). Each shows with its value and time; staff count the
// cash box, then credit the note (found there) or close it without credit
// (not there, or given back), with a reason chosen on the screen, which
// the Office logs with the role. Nothing is credited without that choice.

var _ = register(View{ID: "held", Title: "held.menu", Need: kiosk.RoleStaff, Order: 12,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildHeld(env, o) }})

// heldReason is a reason staff may give: its words, and what the log keeps.
type heldReason struct {
	label word
	log   string
}

var (
	heldCreditReasons = []heldReason{
		{word("held.reason.found"), "note found in the cash box"},
	}
	heldCloseReasons = []heldReason{
		{word("held.reason.absent"), "no such note in the cash box"},
		{word("held.reason.returned"), "note given back to the customer"},
	}
)

type heldView struct {
	env    *Env
	o      heldDesk
	notes  []store.BillIntent
	loaded bool
	// asking is the note whose action waits for its reason (credit true:
	// credit it; false: close it), 0 for none.
	asking int64
	credit bool
	result *widget.Label
	box    *fyne.Container
	busy   bool
}

// heldDesk is what the held notes view does to the money: it lists the notes
// held for staff, credits one or closes it.
type heldDesk interface {
	HeldNotes(ctx context.Context, s *kiosk.Session) ([]store.BillIntent, error)
	CreditHeldNote(ctx context.Context, s *kiosk.Session, id int64, reason string) (store.Entry, error)
	CloseHeldNote(ctx context.Context, s *kiosk.Session, id int64, reason string) error
}

func buildHeld(env *Env, o heldDesk) fyne.CanvasObject {
	tr := env.Tr
	v := &heldView{env: env, o: o, box: container.NewVBox()}
	v.result = widget.NewLabel("")
	v.result.Wrapping = fyne.TextWrapWord
	help := wrapped(tr.T("held.help"))
	v.load()
	return container.NewBorder(container.NewVBox(shTitle(tr.T("held.title")), help, v.result), nil, nil, nil,
		container.NewVScroll(v.box))
}

func (v *heldView) touch() {
	if v.env.Touch != nil {
		v.env.Touch()
	}
}

// load reads the held notes again.
func (v *heldView) load() {
	env := v.env
	env.Go(func() {
		notes, err := v.o.HeldNotes(env.Ctx, env.Session)
		env.Do(func() {
			if err != nil {
				v.say(widget.DangerImportance, shErr(env, err))
				return
			}
			v.notes, v.loaded = notes, true
			v.draw()
		})
	})
}

func (v *heldView) say(imp widget.Importance, s string) {
	v.result.Importance = imp
	v.result.SetText(s)
}

func (v *heldView) draw() {
	tr := v.env.Tr
	var rows []fyne.CanvasObject
	if v.loaded && len(v.notes) == 0 {
		rows = append(rows, shText(tr.T("held.none"), 20, art.Sand, false))
	}
	for _, n := range v.notes {
		n := n
		line := wrapped(tr.F("held.note", tr.Money(n.Denom), tr.Time(n.At, v.env.Loc), n.ID))
		line.TextStyle = fyne.TextStyle{Bold: true}
		credit := widget.NewButton(tr.T("held.credit"), func() { v.ask(n.ID, true) })
		credit.Importance = widget.HighImportance
		closeB := widget.NewButton(tr.T("held.close"), func() { v.ask(n.ID, false) })
		// The note, then its actions: beside it on a wide screen, under
		// it on a narrow one.
		rows = append(rows, shPair(line, shFlow(shSized(fyne.NewSize(200, 56), credit), shSized(fyne.NewSize(260, 56), closeB))))
		if v.asking == n.ID {
			rows = append(rows, v.reasons(n))
		}
		sep := canvas.NewRectangle(art.GoldDark)
		sep.SetMinSize(fyne.NewSize(1, 1))
		rows = append(rows, sep)
	}
	v.box.Objects = rows
	v.box.Refresh()
}

func (v *heldView) ask(id int64, credit bool) {
	v.touch()
	if v.busy {
		return
	}
	v.asking, v.credit = id, credit
	v.draw()
}

// reasons are the reasons offered for the action asked on n, and Annuler.
func (v *heldView) reasons(n store.BillIntent) fyne.CanvasObject {
	tr := v.env.Tr
	list, q := heldCloseReasons, tr.F("held.ask.close", tr.Money(n.Denom))
	if v.credit {
		list, q = heldCreditReasons, tr.F("held.ask.credit", tr.Money(n.Denom))
	}
	objs := []fyne.CanvasObject{wrapped(q)}
	var buttons []fyne.CanvasObject
	for _, r := range list {
		r := r
		b := widget.NewButton(tr.T(r.label), func() { v.act(n, r) })
		b.Importance = widget.HighImportance
		buttons = append(buttons, shSized(fyne.NewSize(340, 56), b))
	}
	cancel := widget.NewButton(tr.T("held.cancel"), func() { v.ask(0, false) })
	buttons = append(buttons, shSized(fyne.NewSize(160, 56), cancel))
	objs = append(objs, shFlow(buttons...))
	return container.NewPadded(container.NewVBox(objs...))
}

// act credits or closes n for reason r.
func (v *heldView) act(n store.BillIntent, r heldReason) {
	v.touch()
	if v.busy {
		return
	}
	env, tr, credit := v.env, v.env.Tr, v.credit
	v.busy = true
	env.Go(func() {
		var err error
		var e store.Entry
		if credit {
			e, err = v.o.CreditHeldNote(env.Ctx, env.Session, n.ID, r.log)
		} else {
			err = v.o.CloseHeldNote(env.Ctx, env.Session, n.ID, r.log)
		}
		env.Do(func() {
			v.busy = false
			v.asking = 0
			switch {
			case err != nil && errors.Is(err, store.ErrIntentState):
				v.say(widget.DangerImportance, tr.T("held.gone"))
			case err != nil:
				v.say(widget.DangerImportance, shErr(env, err))
			case credit:
				v.say(widget.SuccessImportance, tr.F("held.credited", tr.Money(n.Denom), tr.Money(e.Balance)))
			default:
				v.say(widget.SuccessImportance, tr.F("held.closed", tr.Money(n.Denom)))
			}
			v.load()
		})
	})
}

var _ = words(map[word]text{
	"held.menu":            {"Billets en attente", "Held notes"},
	"held.title":           {"Billets en attente", "Notes held for staff"},
	"held.help":            {"Un billet en attente est peut-être dans la caisse sans avoir été crédité (coupure pendant son encaissement). Comptez la caisse, puis créditez le billet si vous l’y trouvez, ou clôturez-le sinon.", "A held note may be in the cash box without its credit (a power cut while it was taken). Count the cash box, then credit the note if you find it there, or close it if not."},
	"held.none":            {"Aucun billet en attente.", "No note is held."},
	"held.note":            {"Billet de %s · %s · n°\u00a0%d", "%s note · %s · no. %d"},
	"held.credit":          {"Créditer", "Credit"},
	"held.close":           {"Clore sans crédit", "Close, no credit"},
	"held.cancel":          {"Annuler", "Cancel"},
	"held.ask.credit":      {"Créditer ce billet de %s au joueur, pour la raison suivante\u00a0:", "Credit this %s note to the player, for this reason:"},
	"held.ask.close":       {"Clore ce billet de %s sans crédit, pour la raison suivante\u00a0:", "Close this %s note without credit, for this reason:"},
	"held.reason.found":    {"Billet trouvé dans la caisse", "Note found in the cash box"},
	"held.reason.absent":   {"Billet absent de la caisse", "No such note in the cash box"},
	"held.reason.returned": {"Billet rendu au joueur", "Note given back to the player"},
	"held.credited":        {"Billet de %s crédité. Crédit de la borne\u00a0: %s.", "%s note credited. The kiosk’s credit: %s."},
	"held.closed":          {"Billet de %s clos sans crédit.", "%s note closed without credit."},
	"held.gone":            {"Ce billet a déjà été traité.", "This note was already dealt with."},
})
