package ui

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"pharaon/kiosk/devsim"
)

// frenchTypographyFaults lists what a French text breaks of French
// typography: a straight apostrophe (’ is the apostrophe), a colon,
// semicolon, exclamation or question mark without a no-break space before
// it (a time such as 15:04 excepted), guillemets without no-break spaces
// inside.
func frenchTypographyFaults(s string) []string {
	var faults []string
	r := []rune(s)
	for i, c := range r {
		switch c {
		case '\'':
			faults = append(faults, "straight apostrophe")
		case ':', ';', '!', '?':
			if i == 0 {
				continue
			}
			before := r[i-1]
			if c == ':' && unicode.IsDigit(before) && i+1 < len(r) && unicode.IsDigit(r[i+1]) {
				continue // a time: 15:04
			}
			if before != '\u00a0' && before != '\u202f' {
				faults = append(faults, "no no-break space before "+string(c))
			}
		case '«':
			if i+1 >= len(r) || (r[i+1] != '\u00a0' && r[i+1] != '\u202f') {
				faults = append(faults, "no no-break space after «")
			}
		case '»':
			if i == 0 || (r[i-1] != '\u00a0' && r[i-1] != '\u202f') {
				faults = append(faults, "no no-break space before »")
			}
		}
	}
	return faults
}

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
