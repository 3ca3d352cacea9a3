package main

import (
	"pharaon/cmd/pharaon/internal/early"
	"pharaon/kiosk/ui"
)

// The kiosk's Fyne application has no id (appID in kiosk.go is empty), so
// Fyne keeps no preferences file and watches none: with an id, every
// process of that id shares ~/.config/fyne/<id>/preferences.json, rewrites
// it at its shutdown and reloads it whenever it changes, and a kiosk that
// read it while another was rewriting it logged "Preferences load error:
// EOF" (an empty file left by a killed run did the same at every start).
// The kiosk's settings live in its database; Fyne's own (theme, scale) do
// not depend on the id.

// hasDisplay reports whether there is a screen to show the kiosk on: an X
// display or a Wayland compositor (the kiosk session runs cage).
func hasDisplay(e env) bool {
	return e.Getenv("DISPLAY") != "" || e.Getenv("WAYLAND_DISPLAY") != ""
}

// noDisplayMessage says, in French then in English, how to run the kiosk
// without a screen of its own.
const noDisplayMessage = `pharaon : aucun écran (ni DISPLAY ni WAYLAND_DISPLAY).
  Lancez-le dans une session graphique, ou sur un écran virtuel :
    xvfb-run -a make run
    xvfb-run -a -s "-screen 0 1280x800x24" bin/pharaon -dev
pharaon: no display (neither DISPLAY nor WAYLAND_DISPLAY is set).
  Run it in a graphical session, or on a virtual screen:
    xvfb-run -a make run
    xvfb-run -a -s "-screen 0 1280x800x24" bin/pharaon -dev
`

// fixLocale gives the process a language locale when it has none: Fyne
// reads LC_ALL, LC_MESSAGES then LANG and logs an error for "C", "POSIX"
// and "C.UTF-8" alike (they are not language tags). The kiosk's own texts do
// not depend on it (package ui's catalogue does); Fyne's few do. The C
// library's locale is untouched: Go never calls setlocale.
func fixLocale(e env, lang ui.Lang) {
	target := "fr_FR.UTF-8"
	if lang == ui.English {
		target = "en_GB.UTF-8"
	}
	for _, k := range early.LocaleVars {
		v := e.Getenv(k)
		switch {
		case v == "" && k != "LANG":
			continue // unset: the next one decides
		case v == "" || early.IsCLocale(v):
			_ = e.Setenv(k, target)
			continue
		}
		return // the first one set names a language
	}
}
