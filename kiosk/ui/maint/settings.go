package maint

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/store"
)

// The settings (technician): each with its value, what it may be, and its
// own Enregistrer; a bad value is refused with the reason and nothing
// changes; every change is logged with its old and new value. They apply
// at the next start.

var _ = register(View{ID: "settings", Title: "rpt.settings.title", Need: kiosk.RoleTechnician, Order: 60,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildSettings(env, o) }})

var _ = words(map[word]text{
	"rpt.settings.title":   {"Réglages", "Settings"},
	"rpt.settings.save":    {"Enregistrer", "Save"},
	"rpt.settings.saved":   {"«\u00a0%s\u00a0» enregistré\u00a0: %s. Appliqué au prochain démarrage.", "“%s” saved: %s. Applied at the next start."},
	"rpt.settings.refused": {"%s\u00a0: %s", "%s: %s"},
	"rpt.settings.next":    {"Les réglages s’appliquent au prochain démarrage de la borne.", "Settings apply at the kiosk’s next start."},
	"rpt.settings.bad":     {"Refusé\u00a0: %s", "Refused: %s"},
	"rpt.settings.unknown": {"Réglage inconnu", "Unknown setting"},

	// Each setting's name, what a value must be (hint) and why one is
	// refused; %[1]v and %[2]v are its bounds (kiosk.Setting.Low, High).
	"rpt.set.kiosk_id":                 {"Identifiant de la borne", "Kiosk id"},
	"rpt.set.kiosk_id.hint":            {"%[1]v à %[2]v lettres sans accent, chiffres, - ou _", "%[1]v to %[2]v letters without accents, digits, - or _"},
	"rpt.set.kiosk_id.refused":         {"de %[1]v à %[2]v lettres sans accent, chiffres, - ou _, sans espace ni point", "%[1]v to %[2]v letters without accents, digits, - or _, no space or dot"},
	"rpt.set.venue":                    {"Lieu", "Venue"},
	"rpt.set.venue.hint":               {"nom et adresse du commerce", "the shop’s name and address"},
	"rpt.set.venue.refused":            {"de %[1]v à %[2]v caractères", "%[1]v to %[2]v characters"},
	"rpt.set.language":                 {"Langue", "Language"},
	"rpt.set.language.hint":            {"fr ou en", "fr or en"},
	"rpt.set.language.refused":         {"fr ou en", "fr or en"},
	"rpt.set.max_credit":               {"Crédit maximum", "Maximum credit"},
	"rpt.set.payout_limit":             {"Plafond de paiement au comptoir", "Counter payout limit"},
	"rpt.set.hand_pay_limit":           {"Plafond avant paiement manuel", "Hand-pay limit"},
	"rpt.set.amount.hint":              {"%[1]v à %[2]v", "%[1]v to %[2]v"},
	"rpt.set.amount.refused":           {"un montant de %[1]v à %[2]v", "an amount from %[1]v to %[2]v"},
	"rpt.set.idle_seconds":             {"Retour à l’accueil après (s)", "Back home after (s)"},
	"rpt.set.auto_seconds":             {"Passage en Auto après (s)", "Auto after (s)"},
	"rpt.set.seconds.hint":             {"%[1]v à %[2]v secondes", "%[1]v to %[2]v seconds"},
	"rpt.set.seconds.refused":          {"un nombre de secondes de %[1]v à %[2]v", "a number of seconds from %[1]v to %[2]v"},
	"rpt.set.accepted_notes":           {"Billets acceptés (€)", "Notes accepted (€)"},
	"rpt.set.reality_minutes":          {"Point sur le jeu toutes les (min)", "Reality check every (min)"},
	"rpt.set.reality_minutes.hint":     {"0 (aucun) ou %[1]v à %[2]v minutes", "0 (none) or %[1]v to %[2]v minutes"},
	"rpt.set.reality_minutes.refused":  {"0 ou un nombre de minutes de %[1]v à %[2]v", "0 or a number of minutes from %[1]v to %[2]v"},
	"rpt.set.session_ceiling":          {"Plafond de billets par session", "Ceiling of notes per session"},
	"rpt.set.session_ceiling.hint":     {"0 (aucun) à %[2]v", "0 (none) to %[2]v"},
	"rpt.set.session_ceiling.refused":  {"0 ou un montant jusqu’à %[2]v", "0 or an amount up to %[2]v"},
	"rpt.set.player_limits":            {"Limite choisie par le joueur", "Limit set by the player"},
	"rpt.set.session_display":          {"Durée et bilan de la session affichés", "Session time and net shown"},
	"rpt.set.on_off.hint":              {"oui ou non", "yes or no"},
	"rpt.set.on_off.refused":           {"oui ou non", "yes or no"},
	"rpt.set.on":                       {"Oui", "Yes"},
	"rpt.set.off":                      {"Non", "No"},
	"rpt.set.accepted_notes.hint":      {"parmi 5, 10, 20, 50, 100, 200, 500", "among 5, 10, 20, 50, 100, 200, 500"},
	"rpt.set.accepted_notes.refused":   {"des billets parmi 5, 10, 20, 50, 100, 200, 500, séparés par des virgules", "notes among 5, 10, 20, 50, 100, 200, 500, separated by commas"},
	"rpt.set.voucher_validity":         {"Validité des bons (jours)", "Voucher validity (days)"},
	"rpt.set.voucher_validity.hint":    {"%[1]v à %[2]v jours", "%[1]v to %[2]v days"},
	"rpt.set.voucher_validity.refused": {"un nombre de jours de %[1]v à %[2]v", "a number of days from %[1]v to %[2]v"},
})

// settingWords are the words of each setting's key: its name, its hint,
// why a value is refused; money says its bounds are amounts in cents.
type settingWords struct {
	name, hint, refused word
	money               bool
}

// settingsWords holds the words of every setting (kiosk.SettingKeys; the
// test checks each has its own).
var settingsWords = map[string]settingWords{
	kiosk.SettingKioskID:         {word("rpt.set.kiosk_id"), word("rpt.set.kiosk_id.hint"), word("rpt.set.kiosk_id.refused"), false},
	kiosk.SettingVenue:           {word("rpt.set.venue"), word("rpt.set.venue.hint"), word("rpt.set.venue.refused"), false},
	kiosk.SettingLanguage:        {word("rpt.set.language"), word("rpt.set.language.hint"), word("rpt.set.language.refused"), false},
	kiosk.SettingMaxCredit:       {word("rpt.set.max_credit"), word("rpt.set.amount.hint"), word("rpt.set.amount.refused"), true},
	kiosk.SettingPayoutLimit:     {word("rpt.set.payout_limit"), word("rpt.set.amount.hint"), word("rpt.set.amount.refused"), true},
	kiosk.SettingHandPayLimit:    {word("rpt.set.hand_pay_limit"), word("rpt.set.amount.hint"), word("rpt.set.amount.refused"), true},
	kiosk.SettingIdleSeconds:     {word("rpt.set.idle_seconds"), word("rpt.set.seconds.hint"), word("rpt.set.seconds.refused"), false},
	kiosk.SettingAutoSeconds:     {word("rpt.set.auto_seconds"), word("rpt.set.seconds.hint"), word("rpt.set.seconds.refused"), false},
	kiosk.SettingAcceptedNotes:   {word("rpt.set.accepted_notes"), word("rpt.set.accepted_notes.hint"), word("rpt.set.accepted_notes.refused"), false},
	kiosk.SettingVoucherValidity: {word("rpt.set.voucher_validity"), word("rpt.set.voucher_validity.hint"), word("rpt.set.voucher_validity.refused"), false},
	kiosk.SettingRealityMinutes:  {word("rpt.set.reality_minutes"), word("rpt.set.reality_minutes.hint"), word("rpt.set.reality_minutes.refused"), false},
	kiosk.SettingSessionCeiling:  {word("rpt.set.session_ceiling"), word("rpt.set.session_ceiling.hint"), word("rpt.set.session_ceiling.refused"), true},
	kiosk.SettingPlayerLimits:    {word("rpt.set.player_limits"), word("rpt.set.on_off.hint"), word("rpt.set.on_off.refused"), false},
	kiosk.SettingSessionDisplay:  {word("rpt.set.session_display"), word("rpt.set.on_off.hint"), word("rpt.set.on_off.refused"), false},
}

// settingBounds are a setting's bounds as its words place them: amounts
// as the screens write them, other bounds as numbers.
func settingBounds(tr Tr, key string, low, high int64) []any {
	if settingsWords[key].money {
		return []any{tr.Money(game.Money(low)), tr.Money(game.Money(high))}
	}
	return []any{low, high}
}

// settingText is the text of k with the setting's bounds placed, when it
// places any.
func settingText(tr Tr, k word, args []any) string {
	s := tr.T(k)
	if !strings.Contains(s, "%") {
		return s
	}
	return fmt.Sprintf(s, args...)
}

// settingName is a setting's name; one without words shows its key.
func settingName(tr Tr, key string) string {
	if w, ok := settingsWords[key]; ok {
		return tr.T(w.name)
	}
	return key
}

// settingHint says what a value of s must be.
func settingHint(tr Tr, s kiosk.Setting) string {
	w, ok := settingsWords[s.Key]
	if !ok {
		return ""
	}
	return settingText(tr, w.hint, settingBounds(tr, s.Key, s.Low, s.High))
}

// settingRefusal says why a value was refused.
func settingRefusal(tr Tr, e *kiosk.SettingError) string {
	w, ok := settingsWords[e.Key]
	if !ok || e.Reason == kiosk.SettingUnknown {
		return tr.T("rpt.settings.unknown")
	}
	low, high := kiosk.SettingBounds(e.Key)
	return tr.F("rpt.settings.bad", settingText(tr, w.refused, settingBounds(tr, e.Key, low, high)))
}

// settingsDesk is what the settings view reads and changes.
type settingsDesk interface {
	Settings(ctx context.Context, s *kiosk.Session) ([]kiosk.Setting, error)
	SetSetting(ctx context.Context, s *kiosk.Session, key, value string) error
}

func buildSettings(env *Env, o settingsDesk) fyne.CanvasObject {
	tr := env.Tr
	note := newRptNote()
	list := container.NewVBox()
	var ss []kiosk.Setting
	rptRun(env, func() (err error) {
		ss, err = o.Settings(env.Ctx, env.Session)
		return err
	}, func(err error) {
		if err != nil {
			note.fail(tr, err)
			return
		}
		rows := make([]fyne.CanvasObject, 0, len(ss))
		names := &shPairGroup{}
		for _, s := range ss {
			rows = append(rows, settingRow(env, o, s, names))
		}
		list.Objects = rows
		list.Refresh()
	})
	next := wrapped(tr.T("rpt.settings.next"))
	top := container.NewVBox(rptTitle(tr.T("rpt.settings.title")), next, note.object())
	return note.in(container.NewBorder(top, nil, nil, nil, container.NewVScroll(list)))
}

// settingChoice is a value a setting is chosen among, and its words: a
// label said the same in every language (a language's own name), or a
// word of the screen's language.
type settingChoice struct {
	value, label string
	w            word
}

// settingChoices are the settings chosen among a few values rather than
// typed (a yes/no setting would be one): each language in its own words.
var settingChoices = map[string][]settingChoice{
	kiosk.SettingLanguage:       {{value: "fr", label: "Français"}, {value: "en", label: "English"}},
	kiosk.SettingPlayerLimits:   onOffChoices,
	kiosk.SettingSessionDisplay: onOffChoices,
}

var onOffChoices = []settingChoice{{value: "on", w: word("rpt.set.on")}, {value: "off", w: word("rpt.set.off")}}

// settingRow is one setting: its name; its value, typed or chosen, and a
// button that saves it; under them what it may be, or, in its place, why
// the value was refused or that it was saved. That line keeps its room:
// a refusal never moves the rows below under the finger.
func settingRow(env *Env, o settingsDesk, s kiosk.Setting, names *shPairGroup) fyne.CanvasObject {
	tr := env.Tr
	label := settingName(tr, s.Key)
	name := wrapped(label)
	name.TextStyle = fyne.TextStyle{Bold: true}
	hint := settingHint(tr, s)
	if _, chosen := settingChoices[s.Key]; chosen {
		hint = "" // the buttons say what it may be
	}
	msg := wrapped(hint)
	msg.Importance = widget.LowImportance
	control, value, show := settingControl(tr, s)
	var save *widget.Button
	save = rptButton(env, tr.T("rpt.settings.save"), func() {
		v := value()
		save.Disable()
		rptRun(env, func() error { return o.SetSetting(env.Ctx, env.Session, s.Key, v) }, func(err error) {
			save.Enable()
			if err != nil {
				msg.Importance = widget.DangerImportance
				msg.SetText(tr.F("rpt.settings.refused", label, rptErr(tr, err)))
				return
			}
			kept, _ := kiosk.CheckSetting(s.Key, v) // as the store now keeps it
			show(kept)
			msg.Importance = widget.SuccessImportance
			msg.SetText(tr.F("rpt.settings.saved", label, kept))
		})
	})
	save.Importance = widget.HighImportance
	if e, ok := control.(*widget.Entry); ok && !e.MultiLine {
		e.OnSubmitted = func(string) { save.OnTapped() }
	}
	field := container.NewBorder(nil, nil, nil, rptSized(save), shSized(fyne.NewSize(280, 0), control))
	// The name beside its field on a wide screen, above it on a narrow
	// one; under the field, the line of what it may be, or why it was
	// refused, keeps the room of two lines of text.
	return names.pair(name, container.NewVBox(field, shMessage(msg, 2)))
}

// settingFreeText are the settings typed as a text longer than a line of the
// smallest screen (the venue: a shop's name and address): on lines that
// wrap.
var settingFreeText = map[string]bool{kiosk.SettingVenue: true}

// settingControl is where a setting's value is typed or chosen, the value
// it holds, and how it shows the value saved (typed values: as the store
// keeps them, "300" as "300,00").
func settingControl(tr Tr, s kiosk.Setting) (fyne.CanvasObject, func() string, func(string)) {
	if s.Key == kiosk.SettingAcceptedNotes {
		o, get := notesControl(tr, s.Value)
		return o, get, func(string) {}
	}
	if choices, ok := settingChoices[s.Key]; ok {
		o, get := choiceControl(tr, choices, s.Value)
		return o, get, func(string) {}
	}
	e := widget.NewEntry()
	if settingFreeText[s.Key] {
		e.MultiLine = true
		e.Wrapping = fyne.TextWrapWord
		e.SetMinRowsVisible(2)
	}
	e.SetText(s.Value)
	return e, func() string { return e.Text }, e.SetText
}

// choiceControl is a button per value, the one chosen standing out.
func choiceControl(tr Tr, choices []settingChoice, current string) (fyne.CanvasObject, func() string) {
	chosen := current
	buttons := make([]*widget.Button, len(choices))
	draw := func() {
		for i, c := range choices {
			buttons[i].Importance = widget.MediumImportance
			if c.value == chosen {
				buttons[i].Importance = widget.HighImportance
			}
			buttons[i].Refresh()
		}
	}
	objs := make([]fyne.CanvasObject, len(choices))
	for i, c := range choices {
		c := c
		label := c.label
		if c.w != "" {
			label = tr.T(c.w)
		}
		buttons[i] = widget.NewButton(label, func() { chosen = c.value; draw() })
		objs[i] = shSized(fyne.NewSize(160, 56), buttons[i])
	}
	draw()
	return shFlow(objs...), func() string { return chosen }
}

// notesControl is a button per bank note, each taken or not.
func notesControl(tr Tr, current string) (fyne.CanvasObject, func() string) {
	on := map[game.Money]bool{}
	for _, f := range strings.Split(current, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			on[game.Money(n)*game.Euro] = true
		}
	}
	notes := store.Banknotes()
	buttons := make([]*widget.Button, len(notes))
	objs := make([]fyne.CanvasObject, len(notes))
	for i, n := range notes {
		i, n := i, n
		buttons[i] = widget.NewButton(tr.Money(n), nil)
		buttons[i].OnTapped = func() {
			on[n] = !on[n]
			buttons[i].Importance = widget.MediumImportance
			if on[n] {
				buttons[i].Importance = widget.HighImportance
			}
			buttons[i].Refresh()
		}
		if on[n] {
			buttons[i].Importance = widget.HighImportance
		}
		objs[i] = shSized(fyne.NewSize(90, 56), buttons[i])
	}
	return shFlow(objs...), func() string {
		var parts []string
		for _, n := range notes {
			if on[n] {
				parts = append(parts, strconv.Itoa(int(n/game.Euro)))
			}
		}
		return strings.Join(parts, ",")
	}
}
