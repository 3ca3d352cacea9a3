package maint

import (
	"strings"
	"testing"
)

// The words of the report, printer, device, settings, identity and test
// mode views are there in both languages and follow French typography: ’
// as the apostrophe, a no-break space before : ; ! ? and inside « ».
func TestReportWordsTypography(t *testing.T) {
	n := 0
	for k, v := range catalogue {
		if !strings.HasPrefix(string(k), "rpt.") {
			continue
		}
		n++
		if v.fr == "" || v.en == "" {
			t.Errorf("%s: a language is missing", k)
		}
		if strings.Contains(v.fr, "'") {
			t.Errorf("%s: %q: straight apostrophe", k, v.fr)
		}
		for _, sign := range []string{" :", " ;", " !", " ?", "« ", " »"} {
			if strings.Contains(v.fr, sign) {
				t.Errorf("%s: %q: ordinary space at %q", k, v.fr, sign)
			}
		}
		if strings.Contains(v.en, "\u00a0:") {
			t.Errorf("%s: %q: French spacing in English", k, v.en)
		}
	}
	if n < 50 {
		t.Fatalf("only %d words checked", n)
	}
}
