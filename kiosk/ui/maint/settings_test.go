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
