package maint

import (
	"context"
	"fmt"
	"sort"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/store"
)

// The cash box (staff): the notes the kiosk expects in it since the last
// collection, by denomination, and their amount; the notes held for staff
// since then apart, each with what became of it (store.CashBox). Collecting asks for a confirmation, records the collection, then
// prints its report; a report that did not print can be printed again.

var _ = register(View{ID: "cashbox", Title: "rpt.cash.title", Need: kiosk.RoleStaff, Order: 20,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildCashBox(env, o) }})

var _ = words(map[word]text{
	"rpt.cash.title":     {"Caisse", "Cash box"},
	"rpt.cash.since":     {"Billets reçus depuis le relevé du %s", "Notes taken since the collection of %s"},
	"rpt.cash.first":     {"Billets reçus depuis la mise en service", "Notes taken since the kiosk was installed"},
	"rpt.cash.note":      {"Billet", "Note"},
	"rpt.cash.count":     {"Nombre", "Count"},
	"rpt.cash.amount":    {"Montant", "Amount"},
	"rpt.cash.total":     {"Total attendu", "Expected total"},
	"rpt.cash.empty":     {"La caisse doit être vide.", "The cash box should be empty."},
	"rpt.cash.held":      {"Billets en attente (hors total, à compter à part)\u00a0: %d, %s", "Notes held (not in the total, count them apart): %d, %s"},
	"rpt.cash.heldlist":  {"Billets en attente du personnel dans cette caisse", "Notes held for staff in this cash box"},
	"rpt.cash.heldnote":  {"N° %d du %s, %s\u00a0: %s", "No. %d of %s, %s: %s"},
	"rpt.cash.st.held":   {"en attente, à compter à part", "held, count it apart"},
	"rpt.cash.st.open":   {"non réglé, à compter à part", "unsettled, count it apart"},
	"rpt.cash.st.credit": {"crédité, compté dans le total", "credited, in the total"},
	"rpt.cash.st.void":   {"clos, absent de la caisse", "closed, not in the box"},
	"rpt.cash.collect":   {"Relever la caisse", "Collect the cash box"},
	"rpt.cash.confirm":   {"Videz la caisse, puis confirmez\u00a0: le relevé de %s sera enregistré et imprimé.", "Empty the cash box, then confirm: the collection of %s will be recorded and printed."},
	"rpt.cash.yes":       {"Confirmer le relevé", "Confirm the collection"},
	"rpt.cash.no":        {"Annuler", "Cancel"},
	"rpt.cash.done":      {"Relevé n° %06d enregistré\u00a0: %s, %s. Rapport imprimé.", "Collection no. %06d recorded: %s, %s. Report printed."},
	"rpt.cash.noprint":   {"Relevé n° %06d enregistré, mais son rapport n’est pas imprimé\u00a0: %s", "Collection no. %06d recorded, but its report is not printed: %s"},
	"rpt.cash.reprint":   {"Imprimer le rapport", "Print the report"},
	"rpt.cash.reprinted": {"Rapport du relevé n° %06d imprimé.", "Report of collection no. %06d printed."},
})

// cashBoxDesk is what the cash box view does to the money: it reads the box,
// collects it and prints the collection.
type cashBoxDesk interface {
	CashBox(ctx context.Context, s *kiosk.Session) (store.CashBox, error)
	Collect(ctx context.Context, s *kiosk.Session) (store.Collection, error)
	PrintCollection(ctx context.Context, s *kiosk.Session, c store.Collection) error
}

func buildCashBox(env *Env, o cashBoxDesk) fyne.CanvasObject {
	tr := env.Tr
	body := container.NewVBox()
	note := newRptNote()
	actions := shFlow()
	var box store.CashBox
	var last *store.Collection // the collection whose report may be printed again

	var showBox, askCollect func()
	reprint := func() {
		c := *last
		rptRun(env, func() error { return o.PrintCollection(env.Ctx, env.Session, c) }, func(err error) {
			if err != nil {
				note.failText(tr.F("rpt.cash.noprint", c.ID, rptErr(tr, err)))
				return
			}
			note.ok(tr.F("rpt.cash.reprinted", c.ID))
		})
	}
	collect := func() {
		var c store.Collection
		var printErr error
		rptRun(env, func() error {
			var err error
			if c, err = o.Collect(env.Ctx, env.Session); err != nil {
				return err
			}
			printErr = o.PrintCollection(env.Ctx, env.Session, c)
			return nil
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				showBox()
				return
			}
			last = &c
			showBox()
			if printErr != nil {
				note.failText(tr.F("rpt.cash.noprint", c.ID, rptErr(tr, printErr)))
				return
			}
			note.ok(tr.F("rpt.cash.done", c.ID, tr.Count(c.Count, "n.note"), tr.Money(c.Amount)))
		})
	}
	askCollect = func() {
		note.clear()
		ask := widget.NewLabel(tr.F("rpt.cash.confirm", tr.Money(box.Amount)))
		ask.Wrapping = fyne.TextWrapWord
		ask.Importance = widget.WarningImportance
		actions.Objects = []fyne.CanvasObject{
			rptSized(rptButton(env, tr.T("rpt.cash.yes"), collect)),
			rptSized(rptButton(env, tr.T("rpt.cash.no"), func() { note.clear(); showBox() })),
		}
		actions.Refresh()
		body.Objects = append(body.Objects, ask)
		body.Refresh()
	}
	showBox = func() {
		rptRun(env, func() (err error) {
			box, err = o.CashBox(env.Ctx, env.Session)
			return err
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			body.Objects = cashBoxRows(env, box)
			body.Refresh()
			acts := []fyne.CanvasObject{rptSized(rptButton(env, tr.T("rpt.cash.collect"), askCollect))}
			if last != nil {
				acts = append(acts, rptSized(rptButton(env, tr.T("rpt.cash.reprint"), reprint)))
			}
			actions.Objects = acts
			actions.Refresh()
		})
	}
	showBox()
	top := container.NewVBox(rptTitle(tr.T("rpt.cash.title")), note.object())
	return note.in(container.NewBorder(top, actions, nil, nil, container.NewVScroll(body)))
}

// cashBoxRows shows what the box should hold.
func cashBoxRows(env *Env, b store.CashBox) []fyne.CanvasObject {
	tr := env.Tr
	since := tr.T("rpt.cash.first")
	if !b.Since.IsZero() {
		since = tr.F("rpt.cash.since", tr.Time(b.Since, env.Loc))
	}
	out := []fyne.CanvasObject{widget.NewLabel(since)}
	denoms := make([]game.Money, 0, len(b.Notes))
	for d := range b.Notes {
		denoms = append(denoms, d)
	}
	sort.Slice(denoms, func(i, j int) bool { return denoms[i] < denoms[j] })
	bold := func(s string) fyne.CanvasObject {
		l := widget.NewLabel(s)
		l.TextStyle = fyne.TextStyle{Bold: true}
		l.Alignment = fyne.TextAlignTrailing
		return l
	}
	right := func(s string) fyne.CanvasObject {
		l := widget.NewLabel(s)
		l.Alignment = fyne.TextAlignTrailing
		return l
	}
	cells := []fyne.CanvasObject{bold(tr.T("rpt.cash.note")), bold(tr.T("rpt.cash.count")), bold(tr.T("rpt.cash.amount"))}
	for _, d := range denoms {
		n := b.Notes[d]
		cells = append(cells, right(tr.Money(d)), right(fmt.Sprint(n)), right(tr.Money(d*game.Money(n))))
	}
	cells = append(cells, bold(tr.T("rpt.cash.total")), bold(fmt.Sprint(b.Count)), bold(tr.Money(b.Amount)))
	out = append(out, container.NewGridWithColumns(3, cells...))
	if b.Count == 0 {
		out = append(out, widget.NewLabel(tr.T("rpt.cash.empty")))
	}
	if len(b.Held) > 0 {
		head := widget.NewLabel(tr.T("rpt.cash.heldlist"))
		head.TextStyle = fyne.TextStyle{Bold: true}
		out = append(out, head)
	}
	for _, h := range b.Held {
		l := widget.NewLabel(tr.F("rpt.cash.heldnote", h.Intent, tr.Time(h.At, env.Loc), tr.Money(h.Denom), tr.T(heldState[h.State])))
		l.Wrapping = fyne.TextWrapWord
		if h.State == store.IntentHeld || h.State == store.IntentStacking {
			l.Importance = widget.WarningImportance
		}
		out = append(out, l)
	}
	if n, sum := b.Unsettled(); n > 0 {
		h := widget.NewLabel(tr.F("rpt.cash.held", n, tr.Money(sum)))
		h.Wrapping = fyne.TextWrapWord
		h.Importance = widget.WarningImportance
		out = append(out, h)
	}
	return out
}

// heldState names what became of a held or unsettled note of the box:
// still held or unsettled (not in the total), credited (in it), or closed
// (not in the box).
var heldState = map[store.IntentState]word{
	store.IntentHeld:     "rpt.cash.st.held",
	store.IntentStacking: "rpt.cash.st.open",
	store.IntentCredited: "rpt.cash.st.credit",
	store.IntentVoid:     "rpt.cash.st.void",
}
