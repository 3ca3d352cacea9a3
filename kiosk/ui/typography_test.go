package ui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/kiosk/devsim"
)

// frenchTypographyFaults is the rule of FrenchTypographyFaults
// (typography.go), which the maintenance screen's words follow too.
func frenchTypographyFaults(s string) []string { return FrenchTypographyFaults(s) }

// Every French text the screens show follows French typography: the whole
// catalogue, with the words of the core's messages, of the bill
// validator's states and of the development panel (the core and the
// drivers send codes only: kiosk/typography_test.go).
func TestFrenchTypography(t *testing.T) {
	texts := map[string]string{}
	for k, e := range catalogue {
		texts[string(k)] = e.fr
	}
	for k, e := range coreWords {
		texts["core."+string(k)] = e.fr
	}
	for k, e := range stateWords {
		texts["state."+k] = e.fr
	}
	for k, e := range devFaultWords {
		texts["devsim."+k] = e.fr
	}
	for k, e := range devRefusalWords {
		texts["devsim.refusal."+k] = e.fr
	}
	require.Len(t, devFaultWords, len(devsim.Faults))
	for k, s := range texts {
		for _, f := range frenchTypographyFaults(s) {
			t.Errorf("%s: %s in %q", k, f, s)
		}
	}
}

func TestFrenchTypographyCheck(t *testing.T) {
	for s, want := range map[string]string{
		"l’écran":                     "",
		"l'écran":                     "straight apostrophe",
		"Crédit\u00a0: 5 €":           "",
		"Crédit : 5 €":                "no no-break space before :",
		"Crédit: 5 €":                 "no no-break space before :",
		"Jeu Bonus\u00a0!":            "",
		"Encaisser ?":                 "no no-break space before ?",
		"partie ; gain":               "no no-break space before ;",
		"30/11/2026 15:04":            "",
		"«\u00a0Jouer\u00a0»":         "",
		"« Jouer »":                   "no no-break space after «",
		"Valable jusqu’au 29/01 à 10": "",
	} {
		got := strings.Join(frenchTypographyFaults(s), ", ")
		if !strings.HasPrefix(got, want) || (want == "" && got != "") {
			t.Errorf("%q: faults %q, want %q", s, got, want)
		}
	}
}
