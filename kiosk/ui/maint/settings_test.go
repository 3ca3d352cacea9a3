package maint

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
)

// A setting saved is logged with its old and new value; a bad value is
// refused with the reason, and nothing changes; staff cannot open them.
func TestSettingsView(t *testing.T) {
	f := newRptFix(t)
	f.show("settings", f.tech)
	txt := f.text()
	assert.Contains(t, txt, "Identifiant de la borne\n[Enregistrer]\n{PH-0042}\n")
	assert.Contains(t, txt, "Crédit maximum\n[Enregistrer]\n{200,00}\n0,01\u00a0€ à 1\u00a0500\u00a0€\n")
	f.golden("maint-settings.png")

	entry := func(label string) int {
		for i, s := range []string{"Identifiant de la borne", "Lieu", "Langue", "Crédit maximum"} {
			if s == label {
				return i
			}
		}
		t.Fatalf("no %s", label)
		return 0
	}
	save := func(label, value string) {
		t.Helper()
		f.entries()[entry(label)].SetText(value)
		f.tapNth("Enregistrer", entry(label)) // the n-th Enregistrer saves the n-th entry
	}
	save("Crédit maximum", "300")
	assert.Contains(t, f.text(), "«\u00a0Crédit maximum\u00a0» enregistré\u00a0: 300,00. Appliqué au prochain démarrage.")
	v, _, err := f.st.Setting(context.Background(), kiosk.SettingMaxCredit)
	require.NoError(t, err)
	assert.Equal(t, "300,00", v)
	changed := f.events("setting_changed")
	require.Len(t, changed, 1)
	assert.Equal(t, `cash.max_credit = "300,00"`, changed[0].Detail)

	save("Crédit maximum", "3 000")
	assert.Contains(t, f.text(), "Crédit maximum\u00a0: Refusé\u00a0: un montant de 0,01\u00a0€ à 1\u00a0500\u00a0€")
	v, _, err = f.st.Setting(context.Background(), kiosk.SettingMaxCredit)
	require.NoError(t, err)
	assert.Equal(t, "300,00", v, "nothing changed")
	require.Len(t, f.events("setting_refused"), 1)
	f.golden("maint-settings-refused.png")

	save("Crédit maximum", "250")
	changed = f.events("setting_changed")
	require.Len(t, changed, 2)
	assert.Equal(t, `cash.max_credit: "300,00" -> "250,00"`, changed[0].Detail, "old and new value")

	save("Langue", "de")
	assert.Contains(t, f.text(), "Langue\u00a0: Refusé\u00a0: fr ou en")

	f.lang = ui.English
	f.show("settings", f.staff)
	assert.Contains(t, f.text(), "For the technician only.")
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
	assert.Equal(t, "1 à 32 lettres, chiffres, - _ .", settingHint(fr, kiosk.Setting{Key: kiosk.SettingKioskID, Low: 1, High: 32}))
	assert.Equal(t, "Refused: an amount from €0.01 to €1,500", settingRefusal(en,
		&kiosk.SettingError{Key: kiosk.SettingMaxCredit, Value: "3 000", Reason: kiosk.SettingOutOfBounds}))
	assert.Equal(t, "Refusé\u00a0: un nombre de jours de 1 à 3660", settingRefusal(fr,
		&kiosk.SettingError{Key: kiosk.SettingVoucherValidity, Value: "0", Reason: kiosk.SettingOutOfBounds}))
	_, err := kiosk.CheckSetting("no.such.key", "1")
	assert.Equal(t, "Réglage inconnu", rptErr(fr, err))
	assert.Equal(t, "Unknown setting", rptErr(en, err))
}
