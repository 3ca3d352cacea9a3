package maint

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/play"
	"pharaon/store"
)

// Game recall (staff): the last games (10 at least, the regulators'
// minimum) with the credit before and after each, the stake, the unit
// (emission/block/index), the outcome, the amount and the time in the
// kiosk's zone; older games page by page, by date or by unit; and the
// replay of a recorded game on the real game widget (kiosk/ui/play) from
// its recorded inputs (kiosk.Replay), under a RAPPEL banner. A replay
// moves no money and no meter: it has no machine behind it.

var _ = register(View{ID: "recall", Title: "recall.title", Need: kiosk.RoleStaff, Order: 30,
	Build: func(env *Env, o Office) fyne.CanvasObject { return newRecallView(env, o).root }})

var _ = words(map[word]text{
	"recall.title":      {"Rappel des parties", "Game recall"},
	"recall.last":       {"Les 10 dernières", "Last 10"},
	"recall.older":      {"Plus anciennes", "Older"},
	"recall.date":       {"Date (JJ/MM/AAAA)", "Date (DD/MM/YYYY)"},
	"recall.by_date":    {"Chercher la date", "Find the date"},
	"recall.unit":       {"Unité de jeu (émission/bloc/n°)", "Game unit (emission/block/no.)"},
	"recall.by_unit":    {"Chercher l’unité", "Find the unit"},
	"recall.none":       {"Aucune partie.", "No game."},
	"recall.bad_date":   {"Date illisible\u00a0: écrivez-la JJ/MM/AAAA.", "Unreadable date: write it DD/MM/YYYY."},
	"recall.bad_unit":   {"Unité de jeu illisible\u00a0: écrivez émission/bloc/n°, par exemple 7/1/12.", "Unreadable game unit: write emission/block/no., for example 7/1/12."},
	"recall.not_found":  {"Cette unité de jeu n’a pas été jouée sur cette borne.", "This game unit was not played on this kiosk."},
	"recall.failed":     {"Lecture impossible.", "Cannot read."},
	"recall.col.no":     {"N°", "No."},
	"recall.col.time":   {"Heure", "Time"},
	"recall.col.stake":  {"Mise", "Stake"},
	"recall.col.unit":   {"Unité de jeu", "Game unit"},
	"recall.col.result": {"Résultat", "Outcome"},
	"recall.col.amount": {"Gain", "Won"},
	"recall.col.before": {"Crédit avant", "Credit before"},
	"recall.col.after":  {"Crédit après", "Credit after"},
	"recall.lose":       {"Perdant", "Losing"},
	"recall.bonus":      {"Bonus (3 serpents)", "Bonus (3 snakes)"},
	"recall.unfinished": {"En cours", "In progress"},
	"recall.replay":     {"Revoir", "Replay"},
	"recall.banner":     {"RAPPEL — partie n°\u00a0%d du %s — aucun mouvement d’argent", "RECALL — game no. %d of %s — no money moves"},
	"recall.back":       {"Retour à la liste", "Back to the list"},
	"recall.speed":      {"Vitesse ×%d", "Speed ×%d"},
	"recall.playing":    {"Partie rejouée depuis ses entrées enregistrées…", "Game played again from its recorded inputs…"},
	"recall.end_same":   {"Fin du rappel\u00a0: gain %s, identique à la partie enregistrée.", "End of the recall: won %s, as the recorded game."},
	"recall.end_diff":   {"Fin du rappel\u00a0: gain %s, la partie enregistrée a payé %s. Signalez-le au technicien.", "End of the recall: won %s, the recorded game paid %s. Tell the technician."},
	"recall.end_open":   {"Fin de l’enregistrement\u00a0: la partie n’était pas terminée.", "End of the recording: the game was not finished."},
	"recall.no_replay":  {"Cette partie ne peut pas être revue.", "This game cannot be replayed."},
})

// recallView is the view: the search bar and the list, or a replay.
type recallView struct {
	env  *Env
	o    recallDesk
	root *fyne.Container // the list, or a replay in its place
	page fyne.CanvasObject
	list *fyne.Container
	note *widget.Label
	date *widget.Entry
	unit *widget.Entry

	shown  []store.Recalled
	replay *replayView
}

// recallDesk is what game recall reads.
type recallDesk interface {
	Recall(ctx context.Context, s *kiosk.Session, q store.RecallQuery) ([]store.Recalled, error)
	RecallUnit(ctx context.Context, s *kiosk.Session, emission, number, unit uint32) (store.Recalled, error)
	Replay(ctx context.Context, s *kiosk.Session, p store.Play) (*kiosk.Replay, error)
}

func newRecallView(env *Env, o recallDesk) *recallView {
	tr := env.Tr
	v := &recallView{env: env, o: o, list: container.NewVBox(), note: widget.NewLabel("")}
	v.note.Wrapping = fyne.TextWrapWord
	v.date = widget.NewEntry()
	v.date.SetPlaceHolder(tr.T("recall.date"))
	v.unit = widget.NewEntry()
	v.unit.SetPlaceHolder(tr.T("recall.unit"))
	btn := func(k word, tap func()) fyne.CanvasObject {
		b := widget.NewButton(tr.T(k), func() {
			if env.Touch != nil {
				env.Touch()
			}
			tap()
		})
		return shSized(fyne.NewSize(230, 60), b)
	}
	// Each search with its field, side by side while they fit, one
	// under the other on a narrow screen.
	field := func(e *widget.Entry) fyne.CanvasObject {
		return shSized(fyne.NewSize(fyne.MeasureText(e.PlaceHolder, theme.TextSize(), e.TextStyle).Width+2*theme.InnerPadding()+4, 60), e)
	}
	bar := shFlow(btn("recall.last", func() { v.load(store.RecallQuery{}) }), btn("recall.older", v.older),
		container.NewHBox(field(v.date), btn("recall.by_date", v.byDate)),
		container.NewHBox(field(v.unit), btn("recall.by_unit", v.byUnit)))
	title := canvas.NewText(tr.T("recall.title"), art.GoldLight)
	title.TextSize, title.TextStyle = 28, fyne.TextStyle{Bold: true}
	// The note keeps its line under the searches: the list does not move
	// when it says a date or a ticket is unreadable.
	top := container.NewVBox(title, bar, shMessage(v.note, 1))
	v.page = container.NewBorder(top, nil, nil, nil, container.NewVScroll(v.list))
	v.root = container.NewStack(v.page)
	v.load(store.RecallQuery{})
	return v
}

// say shows a message under the bar (and on stderr for a failure).
func (v *recallView) say(s string) { v.note.SetText(s) }

func (v *recallView) fail(err error) {
	fyne.LogError("recall", err)
	v.say(rptRefusal(v.env.Tr, v.env.Tr.T("recall.failed"), err))
}

// load lists the plays q selects.
func (v *recallView) load(q store.RecallQuery) {
	env := v.env
	env.Go(func() {
		got, err := v.o.Recall(env.Ctx, env.Session, q)
		env.Do(func() {
			if err != nil {
				v.fail(err)
				return
			}
			v.show(got)
		})
	})
}

func (v *recallView) older() {
	if len(v.shown) == 0 {
		v.load(store.RecallQuery{})
		return
	}
	v.load(store.RecallQuery{BeforeID: v.shown[len(v.shown)-1].ID})
}

// byDate lists the games of a day of the kiosk's zone (100 at most).
func (v *recallView) byDate() {
	day, err := time.ParseInLocation("02/01/2006", strings.TrimSpace(v.date.Text), v.loc())
	if err != nil {
		fyne.LogError("recall", fmt.Errorf("date %q: %w", v.date.Text, err))
		v.say(v.env.Tr.T("recall.bad_date"))
		return
	}
	v.load(store.RecallQuery{N: 100, From: day, To: day.AddDate(0, 0, 1)})
}

// byUnit finds the game of a ticket written emission/block/index.
func (v *recallView) byUnit() {
	var n [3]uint32
	parts := strings.FieldsFunc(v.unit.Text, func(r rune) bool { return r == '/' || r == ' ' || r == '-' || r == '.' })
	ok := len(parts) == 3
	for i := 0; ok && i < 3; i++ {
		x, err := strconv.ParseUint(parts[i], 10, 32)
		ok = err == nil
		n[i] = uint32(x)
	}
	if !ok {
		fyne.LogError("recall", fmt.Errorf("ticket %q: not emission/block/index", v.unit.Text))
		v.say(v.env.Tr.T("recall.bad_unit"))
		return
	}
	env := v.env
	env.Go(func() {
		r, err := v.o.RecallUnit(env.Ctx, env.Session, n[0], n[1], n[2])
		env.Do(func() {
			switch {
			case errors.Is(err, store.ErrNotFound):
				v.say(env.Tr.T("recall.not_found"))
			case err != nil:
				v.fail(err)
			default:
				v.show([]store.Recalled{r})
			}
		})
	})
}

func (v *recallView) loc() *time.Location {
	if v.env.Loc != nil {
		return v.env.Loc
	}
	return time.UTC
}

// show lists plays, newest first.
func (v *recallView) show(plays []store.Recalled) {
	tr := v.env.Tr
	v.shown = plays
	v.say("")
	table := newFoldTable(false, 18)
	rows := []fyne.CanvasObject{recallRow(table,
		[]string{tr.T("recall.col.no"), tr.T("recall.col.time"), tr.T("recall.col.stake"), tr.T("recall.col.unit"),
			tr.T("recall.col.result"), tr.T("recall.col.amount"), tr.T("recall.col.before"), tr.T("recall.col.after")},
		true, nil)}
	if len(plays) == 0 {
		v.say(tr.T("recall.none"))
	}
	for _, r := range plays {
		r := r
		b := widget.NewButton(tr.T("recall.replay"), func() {
			if v.env.Touch != nil {
				v.env.Touch()
			}
			v.startReplay(r)
		})
		rows = append(rows, recallRow(table, []string{
			strconv.FormatInt(r.ID, 10), tr.Time(r.At, v.loc()), tr.Money(r.Stake.Money()), UnitName(r.Play),
			v.outcome(r.Play), tr.Money(r.Prize), tr.Money(r.CreditBefore), tr.Money(r.CreditAfter),
		}, false, shSized(fyne.NewSize(130, 60), b)))
	}
	v.list.Objects = rows
	v.list.Refresh()
}

// UnitName names a unit as its ticket does: emission/block/index.
func UnitName(p store.Play) string { return fmt.Sprintf("%d/%d/%06d", p.Emission, p.Number, p.Unit) }

// outcome names what a play's unit holds (the block's outcome, which the
// walls reveal, Art. 4.3).
func (v *recallView) outcome(p store.Play) string {
	tr := v.env.Tr
	switch {
	case p.State != store.PlayFinished:
		return tr.T("recall.unfinished")
	case !p.Tier.Wins():
		return tr.T("recall.lose")
	case p.ViaBonus:
		return tr.T("recall.bonus")
	}
	return ui.Tr{Lang: tr.Lang}.Combination(game.Table(p.Stake).Prizes[p.Tier-1].Combination)
}

// recallRow is a game of the list (or the head), in the table whose
// columns fold on a narrow screen: its cells aligned as the table's.
func recallRow(t *foldTable, cells []string, head bool, action fyne.CanvasObject) fyne.CanvasObject {
	objs := make([]fyne.CanvasObject, 0, len(cells))
	for i, c := range cells {
		col := art.Sand
		if head {
			col = art.GoldLight
		}
		l := canvas.NewText(c, col)
		l.TextSize = 17
		l.TextStyle = fyne.TextStyle{Bold: head}
		switch {
		case i >= 5 || i == 2:
			l.Alignment = fyne.TextAlignTrailing
		case i == 3:
			l.Alignment = fyne.TextAlignCenter
		}
		objs = append(objs, l)
	}
	return t.row(objs, action)
}

// replayView is a recorded game played again on the game widget.
type replayView struct {
	rec    store.Recalled
	r      *kiosk.Replay
	gs     *play.Screen
	banner *widget.Label
	end    *widget.Label
	clock  *speedClock
	ended  bool
}

// startReplay shows the replay of r in place of the list.
func (v *recallView) startReplay(r store.Recalled) {
	env := v.env
	env.Go(func() {
		rp, err := v.o.Replay(env.Ctx, env.Session, r.Play)
		env.Do(func() {
			if err != nil {
				fyne.LogError("recall", err)
				v.say(rptRefusal(env.Tr, env.Tr.T("recall.no_replay"), err))
				return
			}
			v.showReplay(r, rp)
		})
	})
}

func (v *recallView) showReplay(rec store.Recalled, r *kiosk.Replay) {
	env, tr := v.env, v.env.Tr
	now := env.Now
	if now == nil {
		now = time.Now
	}
	rv := &replayView{rec: rec, r: r, clock: &speedClock{real: now, speed: 1}}
	rv.gs = play.NewScreen(rv.clock.Now)
	rv.gs.SetWords(ui.PlayWords(tr.Lang))
	// The credit as it was: after the stake, then after the game.
	rv.gs.SetCredit(rec.CreditBefore - rec.Stake.Money())
	rv.banner = widget.NewLabelWithStyle(tr.F("recall.banner", rec.ID, tr.Time(rec.At, v.loc())), fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	rv.banner.SizeName = theme.SizeNameSubHeadingText
	rv.banner.Importance = widget.DangerImportance
	rv.banner.Wrapping = fyne.TextWrapWord
	rv.end = widget.NewLabel(tr.T("recall.playing"))
	rv.end.Wrapping = fyne.TextWrapWord
	rv.gs.OnEnd = func() { rv.finish(tr) }
	back := widget.NewButton(tr.T("recall.back"), func() {
		if env.Touch != nil {
			env.Touch()
		}
		v.closeReplay()
	})
	speed := widget.NewButton(tr.F("recall.speed", 4), nil)
	speed.OnTapped = func() {
		if env.Touch != nil {
			env.Touch()
		}
		next := 4
		if rv.clock.speed == 4 {
			next = 1
		}
		rv.clock.set(next)
		speed.SetText(tr.F("recall.speed", 4/next))
	}
	stripe := canvas.NewRectangle(art.Night)
	head := container.NewStack(stripe, container.NewPadded(rv.banner))
	// The result line above the buttons, as wide as the view: it is never
	// cut, whatever the screen.
	foot := container.NewVBox(rv.end, shFlow(shSized(fyne.NewSize(260, 60), back), shSized(fyne.NewSize(200, 60), speed)))
	v.replay = rv
	v.root.Objects = []fyne.CanvasObject{container.NewBorder(head, foot, nil, nil, container.New(shRoomLayout{fyne.NewSize(400, 300)}, rv.gs))}
	v.root.Refresh()
	rv.gs.Play(&replaySource{Replay: r, stopped: func() { rv.finish(tr) }})
}

// replaySource is the replay as the game widget plays it: a play recalled
// while unfinished stops where its recording does, with no wall cleared,
// so the widget would never end it; the view says so then.
type replaySource struct {
	*kiosk.Replay
	stopped func()
	told    bool
}

func (s *replaySource) Step(in breakout.Input) []breakout.Event {
	ev := s.Replay.Step(in)
	if !s.told && s.Done() && !s.World().Done() {
		s.told = true
		s.stopped()
	}
	return ev
}

// finish says how the replay ended, against the play as it was recorded.
func (rv *replayView) finish(tr Tr) {
	rv.ended = true
	res := rv.r.Result()
	switch {
	case rv.rec.State != store.PlayFinished:
		rv.end.SetText(tr.T("recall.end_open"))
	case res.Mismatch:
		fyne.LogError("recall", fmt.Errorf("play %d replayed to %s (revealed %v), recorded %s (revealed %v)",
			rv.rec.ID, res.Won.Plain(), rv.r.Revealed(), rv.rec.Prize.Plain(), rv.rec.Revealed))
		rv.end.SetText(tr.F("recall.end_diff", tr.Money(res.Won), tr.Money(rv.rec.Prize)))
	default:
		rv.gs.SetCredit(rv.rec.CreditAfter)
		rv.end.SetText(tr.F("recall.end_same", tr.Money(res.Won)))
	}
}

func (v *recallView) closeReplay() {
	if v.replay != nil {
		v.replay.gs.Stop()
		v.replay = nil
	}
	v.root.Objects = []fyne.CanvasObject{v.page}
	v.root.Refresh()
}

// speedClock runs the replay's time at a chosen speed from the kiosk's
// clock, continuous across a change of speed.
type speedClock struct {
	real     func() time.Time
	speed    int
	from, at time.Time // the real time of the last change, and the replay's time then
}

func (c *speedClock) Now() time.Time {
	r := c.real()
	if c.from.IsZero() {
		c.from, c.at = r, r
	}
	return c.at.Add(r.Sub(c.from) * time.Duration(c.speed))
}

func (c *speedClock) set(speed int) {
	c.at = c.Now()
	c.from = c.real()
	c.speed = speed
}
