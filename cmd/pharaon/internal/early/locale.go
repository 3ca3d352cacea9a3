package early

import (
	"os"
	"strings"
)

// Fyne's language package reads the locale at its initialisation (to pick
// its own translations) and logs three "Fyne error: Error parsing user
// locale C" lines when the locale is the C one with a suffix (C.UTF-8,
// POSIX.UTF-8): the default of a root shell on a fresh Debian, where a
// technician runs `pharaon -h`, `pharaon import` or `pharaon update`. So,
// before Fyne's initialisation, a C locale is replaced by the kiosk's first
// language, and RestoreLocale, which main calls first thing, puts the
// environment back as it was: what the kiosk does with the locale afterwards
// (cmd/pharaon's fixLocale, after its flags) sees the environment it was
// given.

// InitLocale is the locale Fyne's initialisation reads in place of a C one.
const InitLocale = "fr_FR.UTF-8"

// LocaleVars are the variables a locale is read from, the first one set
// deciding (as the C library and Fyne do).
var LocaleVars = []string{"LC_ALL", "LC_MESSAGES", "LANG"}

// IsCLocale reports whether a locale name is the C locale in one of its
// spellings: no language.
func IsCLocale(v string) bool {
	base, _, _ := strings.Cut(v, ".")
	base, _, _ = strings.Cut(base, "@")
	return base == "C" || base == "POSIX"
}

// replaced is the variable set for Fyne's initialisation and its value
// before ("" when none was).
var replaced struct{ name, was string }

func fixInitLocale() {
	for _, k := range LocaleVars {
		v := os.Getenv(k)
		if v == "" {
			continue
		}
		if IsCLocale(v) && os.Setenv(k, InitLocale) == nil {
			replaced.name, replaced.was = k, v
		}
		return
	}
}

// RestoreLocale puts back the locale variable set for Fyne's
// initialisation, if one was; main calls it before anything else.
func RestoreLocale() {
	if replaced.name != "" {
		_ = os.Setenv(replaced.name, replaced.was)
		replaced.name = ""
	}
}
