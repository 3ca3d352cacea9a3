package maint

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/store"
)

// The event log (staff): newest first, filtered by the lowest level, the
// source and a day (in the kiosk's zone); older pages on demand. Each event
// is said in the screen's language from its code (eventwords.go), its
// code and detail kept under it as a technical detail.

var _ = register(View{ID: "events", Title: "rpt.events.title", Need: kiosk.RoleStaff, Order: 41, Diagnosis: true,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildEvents(env, o) }})

var _ = words(map[word]text{
	"rpt.events.title":   {"Journal des évènements", "Event log"},
	"rpt.events.level":   {"Niveau", "Level"},
	"rpt.events.source":  {"Source", "Source"},
	"rpt.events.day":     {"Jour (JJ/MM/AAAA)", "Day (DD/MM/YYYY)"},
	"rpt.events.all":     {"Tous", "All"},
	"rpt.events.filter":  {"Filtrer", "Filter"},
	"rpt.events.older":   {"Plus anciens", "Older"},
	"rpt.events.newest":  {"Plus récents", "Newest"},
	"rpt.events.none":    {"Aucun évènement pour ce filtre.", "No event for this filter."},
	"rpt.events.badday":  {"Jour incompréhensible\u00a0: écrivez-le JJ/MM/AAAA (par exemple 30/11/2026).", "Day not understood: write it DD/MM/YYYY (for example 30/11/2026)."},
	"rpt.level.info":     {"Information", "Information"},
	"rpt.level.warning":  {"Avertissement", "Warning"},
	"rpt.level.error":    {"Erreur", "Error"},
	"rpt.level.critical": {"Critique", "Critical"},
	"rpt.events.count":   {"Évènements affichés\u00a0: %d", "Events shown: %d"},
	"rpt.events.unknown": {"Évènement non décrit", "Event not described"},
})

// eventsPage is how many events a page shows.
const eventsPage = 30

var eventLevels = []store.Level{store.LevelInfo, store.LevelWarning, store.LevelError, store.LevelCritical}

// parseDay reads a day as staff type it: DD/MM/YYYY in both languages.
func parseDay(s string, loc *time.Location) (time.Time, error) {
	return time.ParseInLocation("02/01/2006", strings.TrimSpace(s), loc)
}

// eventsDesk is what the event log reads.
type eventsDesk interface {
	Events(ctx context.Context, s *kiosk.Session, q store.EventQuery) ([]store.Event, error)
	EventSources(ctx context.Context, s *kiosk.Session) ([]string, error)
}

func buildEvents(env *Env, o eventsDesk) fyne.CanvasObject {
	tr := env.Tr
	loc := env.Loc
	if loc == nil {
		loc = time.Local
	}
	all := tr.T("rpt.events.all")
	levelNames := []string{all}
	for _, l := range eventLevels {
		levelNames = append(levelNames, tr.T(word("rpt.level."+string(l))))
	}
	level := widget.NewSelect(levelNames, nil)
	level.SetSelected(all)
	source := widget.NewSelect([]string{all}, nil)
	source.SetSelected(all)
	day := widget.NewEntry()
	day.SetPlaceHolder(tr.T("rpt.events.day"))
	note := newRptNote()
	list := container.NewVBox()
	count := widget.NewLabel("")
	var oldest int64
	sourceRoom := &shSizedLayout{} // as wide as the longest source, once they are read
	var older *widget.Button
	sourceOf := map[string]string{} // a source's name shown → its code

	query := func(before int64) (store.EventQuery, bool) {
		q := store.EventQuery{N: eventsPage, BeforeID: before}
		for i, n := range levelNames {
			if i > 0 && n == level.Selected {
				q.MinLevel = eventLevels[i-1]
			}
		}
		if source.Selected != all {
			q.Source = sourceOf[source.Selected]
		}
		if strings.TrimSpace(day.Text) != "" {
			d, err := parseDay(day.Text, loc)
			if err != nil {
				note.failText(tr.T("rpt.events.badday"))
				fmt.Fprintf(os.Stderr, "maintenance: event log: day %q: %v\n", day.Text, err)
				return q, false
			}
			q.From, q.To = kiosk.DayBounds(d, loc)
		}
		return q, true
	}
	load := func(before int64) {
		note.clear()
		q, ok := query(before)
		if !ok {
			return
		}
		var evs []store.Event
		rptRun(env, func() (err error) {
			evs, err = o.Events(env.Ctx, env.Session, q)
			return err
		}, func(err error) {
			if err != nil {
				note.fail(tr, err)
				return
			}
			rows := make([]fyne.CanvasObject, 0, len(evs))
			for _, e := range evs {
				rows = append(rows, eventRow(tr, e, loc))
			}
			if len(evs) == 0 {
				rows = append(rows, widget.NewLabel(tr.T("rpt.events.none")))
			}
			list.Objects = rows
			list.Refresh()
			count.SetText(tr.F("rpt.events.count", len(evs)))
			oldest = 0
			if len(evs) == eventsPage {
				oldest = evs[len(evs)-1].ID
			}
			if oldest == 0 {
				older.Disable()
			} else {
				older.Enable()
			}
		})
	}
	older = rptButton(env, tr.T("rpt.events.older"), func() { load(oldest) })
	var sources []string
	rptRun(env, func() (err error) {
		sources, err = o.EventSources(env.Ctx, env.Session)
		return err
	}, func(err error) {
		if err == nil {
			source.Options = []string{all}
			for _, src := range sources {
				name := tr.Source(src)
				sourceOf[name] = src
				source.Options = append(source.Options, name)
			}
			sourceRoom.min = fyne.NewSize(shSelectWidth(source.Options), 0)
			source.Refresh()
		}
	})
	load(0)
	// Each filter at its own width, on as many lines as the screen asks;
	// the note keeps its line under them, so the list does not move
	// when it says the day is unreadable.
	choice := func(label string, s *widget.Select, room *shSizedLayout) fyne.CanvasObject {
		room.min = fyne.NewSize(shSelectWidth(s.Options), 0)
		return container.NewHBox(widget.NewLabel(label), container.New(room, s))
	}
	filters := shFlow(
		choice(tr.T("rpt.events.level"), level, &shSizedLayout{}),
		choice(tr.T("rpt.events.source"), source, sourceRoom),
		shSized(fyne.NewSize(fyne.MeasureText(day.PlaceHolder, theme.TextSize(), fyne.TextStyle{}).Width+2*theme.InnerPadding()+4, 0), day),
		rptSized(rptButton(env, tr.T("rpt.events.filter"), func() { load(0) })))
	top := container.NewVBox(rptTitle(tr.T("rpt.events.title")), filters, shMessage(note.object(), 1))
	bottom := shFlow(rptSized(rptButton(env, tr.T("rpt.events.newest"), func() { load(0) })), rptSized(older), count)
	return note.in(container.NewBorder(top, bottom, nil, nil, container.NewVScroll(list)))
}

// eventRow is one event: when, level, source and what happened in the
// screen's language, then its code and detail as the kiosk logged them.
func eventRow(tr Tr, e store.Event, loc *time.Location) fyne.CanvasObject {
	head := widget.NewLabel(fmt.Sprintf("%s   %s   %s · %s", tr.Time(e.At, loc), tr.T(word("rpt.level."+string(e.Level))),
		tr.Source(e.Source), tr.Event(e.Code)))
	head.TextStyle = fyne.TextStyle{Bold: true}
	head.Wrapping = fyne.TextWrapWord
	switch e.Level {
	case store.LevelWarning:
		head.Importance = widget.WarningImportance
	case store.LevelError, store.LevelCritical:
		head.Importance = widget.DangerImportance
	}
	detail := widget.NewLabel(tr.Detail(techDetail(e.Code, e.Detail)))
	detail.Wrapping = fyne.TextWrapWord
	return shTight(container.NewVBox(head, detail), 4) // an event's lines together, a page of them on the screen
}

// techDetail is a code and the detail logged with it, as the technical
// detail under their words.
func techDetail(code, detail string) string {
	if detail == "" {
		return code
	}
	return code + " — " + detail
}
