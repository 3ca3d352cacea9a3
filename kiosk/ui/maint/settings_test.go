package maint

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
)

// A setting saved is logged with its old and new value; a bad value is
// refused with the reason, beside its field, and nothing changes, not even
// the place of the rows below; the language and the notes are chosen, not
// typed; staff cannot open them.
func TestSettingsView(t *testing.T) {
	f := newRptFix(t)
	f.show("settings", f.tech)
	tr := Tr{Lang: ui.French}
	txt := f.text()
	assert.Contains(t, txt, "Identifiant de la borne\n{PH-0042}\n[Enregistrer]\n1 à 32 lettres sans accent, chiffres, - ou _\n")
	assert.Contains(t, txt, "Crédit maximum\n{200,00}\n[Enregistrer]\n0,01\u00a0€ à 1\u00a0500\u00a0€\n")
	assert.Contains(t, txt, "Langue\n[Français]\n[English]\n[Enregistrer]\n", "the language is chosen")
	assert.Contains(t, txt, "Billets acceptés (€)\n[5\u00a0€]\n[10\u00a0€]\n[20\u00a0€]\n[50\u00a0€]\n[100\u00a0€]\n[200\u00a0€]\n[500\u00a0€]\n[Enregistrer]\n")
	assert.Equal(t, widget.HighImportance, f.button("Français").Importance, "the language set stands out")
	assert.Equal(t, widget.MediumImportance, f.button("English").Importance)
	f.golden("maint-settings.png")

	save := func(now, value string) {
		t.Helper()
		e, b := settingField(t, f.w, tr, now)
		e.SetText(value)
		test.Tap(b)
	}
	save("200,00", "300")
	assert.Contains(t, f.text(), "Crédit maximum\n{300,00}\n[Enregistrer]\n«\u00a0Crédit maximum\u00a0» enregistré\u00a0: 300,00. Appliqué au prochain démarrage.\n",
		"said beside the field, the value as kept")
	v, _, err := f.st.Setting(context.Background(), kiosk.SettingMaxCredit)
	require.NoError(t, err)
	assert.Equal(t, "300,00", v)
	changed := f.events("setting_changed")
	require.Len(t, changed, 1)
	assert.Equal(t, `cash.max_credit = "300,00"`, changed[0].Detail)

	// The refusal shows under its field; the next row stays where it was.
	next := f.label("Plafond de paiement au comptoir")
	d := fyne.CurrentApp().Driver()
	before := d.AbsolutePositionForObject(next)
	save("300,00", "3 000")
	assert.Contains(t, f.text(), "Crédit maximum\n{3 000}\n[Enregistrer]\nCrédit maximum\u00a0: Refusé\u00a0: un montant de 0,01\u00a0€ à 1\u00a0500\u00a0€\n")
	settle(f.w)
	assert.Equal(t, before, d.AbsolutePositionForObject(next), "the rows below do not move")
	refusal := f.label("Crédit maximum\u00a0: Refusé\u00a0: un montant de 0,01\u00a0€ à 1\u00a0500\u00a0€")
	entry, _ := settingField(t, f.w, tr, "3 000")
	at, under := d.AbsolutePositionForObject(refusal).Y, d.AbsolutePositionForObject(entry).Y+entry.Size().Height
	assert.InDelta(t, under, at, 12, "the refusal right under its field")
	v, _, err = f.st.Setting(context.Background(), kiosk.SettingMaxCredit)
	require.NoError(t, err)
	assert.Equal(t, "300,00", v, "nothing changed")
	require.Len(t, f.events("setting_refused"), 1)
	scrollTo(f.w, refusal)
	f.golden("maint-settings-refused.png")

	save("3 000", "250")
	changed = f.events("setting_changed")
	require.Len(t, changed, 2)
	assert.Equal(t, `cash.max_credit: "300,00" -> "250,00"`, changed[0].Detail, "old and new value")

	f.tap("English")
	test.Tap(rowSave(t, f.w, tr, f.button("English")))
	v, _, err = f.st.Setting(context.Background(), kiosk.SettingLanguage)
	require.NoError(t, err)
	assert.Equal(t, "en", v)
	assert.Contains(t, f.text(), "«\u00a0Langue\u00a0» enregistré\u00a0: en.")

	f.tap("100\u00a0€")
	f.tap("5\u00a0€")
	test.Tap(rowSave(t, f.w, tr, f.button("100\u00a0€")))
	v, _, err = f.st.Setting(context.Background(), kiosk.SettingAcceptedNotes)
	require.NoError(t, err)
	assert.Equal(t, "10,20,50,100", v, "the notes taken, as chosen")

	f.lang = ui.English
	f.show("settings", f.staff)
	assert.Contains(t, f.text(), "For the technician only.")
}

// scrollTo scrolls the innermost scroller of w that holds o so that o
// shows near its top.
func scrollTo(w fyne.Window, o fyne.CanvasObject) {
	var sc *container.Scroll
	shWalk(w.Content(), func(x fyne.CanvasObject) {
		if s, ok := x.(*container.Scroll); ok {
			shWalk(s.Content, func(y fyne.CanvasObject) {
				if y == o {
					sc = s // the last found is the innermost
				}
			})
		}
	})
	if sc == nil {
		return
	}
	d := fyne.CurrentApp().Driver()
	y := d.AbsolutePositionForObject(o).Y - d.AbsolutePositionForObject(sc).Y + sc.Offset.Y
	sc.ScrollToOffset(fyne.NewPos(0, max(0, y-sc.Size().Height/3)))
}

// label is the visible label showing s.
func (f *rptFix) label(s string) *widget.Label {
	f.t.Helper()
	var found *widget.Label
	rptWalk(f.w.Content(), func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.Text == s && found == nil {
			found = l
		}
	})
	require.NotNil(f.t, found, "no label %q in\n%s", s, f.text())
	return found
}

// Every setting the core lists has its name, hint and refusal in the
// maintenance catalogue, in both languages, with its bounds placed; an
// unknown setting has its own words.
func TestEverySettingHasWords(t *testing.T) {
	fr, en := Tr{Lang: ui.French}, Tr{Lang: ui.English}
	for _, key := range kiosk.SettingKeys() {
		w, ok := settingsWords[key]
		if !assert.True(t, ok, "setting %s has no words", key) {
			continue
		}
		for _, k := range []word{w.name, w.hint, w.refused} {
			_, ok := catalogue[k]
			assert.True(t, ok, "%s: word %s missing", key, k)
		}
		low, high := kiosk.SettingBounds(key)
		for _, tr := range []Tr{fr, en} {
			hint := settingHint(tr, kiosk.Setting{Key: key, Low: low, High: high})
			assert.NotContains(t, hint, "%", "%s: %q", key, hint)
			why := settingRefusal(tr, &kiosk.SettingError{Key: key, Reason: kiosk.SettingOutOfBounds})
			assert.NotContains(t, why, "%", "%s: %q", key, why)
		}
	}
	assert.Equal(t, "1 à 32 lettres sans accent, chiffres, - ou _", settingHint(fr, kiosk.Setting{Key: kiosk.SettingKioskID, Low: 1, High: 32}))
	assert.Equal(t, "Refused: an amount from €0.01 to €1,500", settingRefusal(en,
		&kiosk.SettingError{Key: kiosk.SettingMaxCredit, Value: "3 000", Reason: kiosk.SettingOutOfBounds}))
	assert.Equal(t, "Refusé\u00a0: un nombre de jours de 1 à 3660", settingRefusal(fr,
		&kiosk.SettingError{Key: kiosk.SettingVoucherValidity, Value: "0", Reason: kiosk.SettingOutOfBounds}))
	_, err := kiosk.CheckSetting("no.such.key", "1")
	assert.Equal(t, "Réglage inconnu", rptErr(fr, err))
	assert.Equal(t, "Unknown setting", rptErr(en, err))
}

// The player-protection settings: the reality check's minutes and the
// ceiling typed, with what they take (0 for none); the player's limits
// and the session's line chosen yes or no.
func TestSettingsViewProtection(t *testing.T) {
	f := newRptFix(t)
	f.show("settings", f.tech)
	txt := f.text()
	assert.Contains(t, txt, "Point sur le jeu toutes les (min)\n{30}\n[Enregistrer]\n0 (aucun) ou 5 à 240 minutes\n")
	assert.Contains(t, txt, "Plafond de billets par session\n{300,00}\n[Enregistrer]\n0 (aucun) à 15\u00a0000\u00a0€\n")
	assert.Contains(t, txt, "Limite choisie par le joueur\n[Oui]\n[Non]\n[Enregistrer]\n")
	assert.Contains(t, txt, "Durée et bilan de la session affichés\n[Oui]\n[Non]\n[Enregistrer]\n")
	assert.Equal(t, widget.HighImportance, f.button("Oui").Importance, "on by default, and shown so")
	assert.Equal(t, widget.MediumImportance, f.button("Non").Importance)
}
