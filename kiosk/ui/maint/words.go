package maint

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"pharaon/game"
	"pharaon/kiosk/ui"
)

// word is the key of a text of the maintenance catalogue. Each view's file
// adds its own words (words); the tests check that every key a file uses is
// there in French and English and follows French typography.
type word string

// text is one entry of the catalogue: French first.
type text struct{ fr, en string }

var catalogue = map[word]text{}

// words adds entries to the catalogue; a key given twice is a programming
// error caught at start.
func words(m map[word]text) bool {
	for k, v := range m {
		if _, dup := catalogue[k]; dup {
			panic("maint: word " + string(k) + " declared twice")
		}
		catalogue[k] = v
	}
	return true
}

// Tr is the catalogue in one language.
type Tr struct{ Lang ui.Lang }

// T is the text of k; a missing key shows as itself in brackets.
func (t Tr) T(k word) string {
	e, ok := catalogue[k]
	if !ok {
		return "[" + string(k) + "]"
	}
	if t.Lang == ui.English {
		return e.en
	}
	return e.fr
}

// F formats the text of k.
func (t Tr) F(k word, args ...any) string { return fmt.Sprintf(t.T(k), args...) }

// Money is an amount as the player's screens write it ("3 750 €").
func (t Tr) Money(m game.Money) string { return ui.Tr{Lang: t.Lang}.Money(m) }

// Time is a moment in the kiosk's zone, as staff read it.
func (t Tr) Time(at time.Time, loc *time.Location) string {
	if loc != nil {
		at = at.In(loc)
	}
	if t.Lang == ui.English {
		return at.Format("2006-01-02 15:04:05")
	}
	return at.Format("02/01/2006 15:04:05")
}

// Count writes n with its noun, singular or plural as the language wants
// it: French takes the singular for 0 and 1 ("1 billet"), English for 1
// alone ("0 notes"). noun's text holds both forms, "singular|plural"; n is
// written as the screens write counts ("350 000" in French).
func (t Tr) Count(n int64, noun word) string {
	one, many, _ := strings.Cut(t.T(noun), "|")
	form := many
	if n == 1 || (n == 0 && t.Lang != ui.English) {
		form = one
	}
	num := strconv.FormatInt(n, 10)
	if t.Lang != ui.English {
		num = game.Count(int(n))
	}
	return num + "\u00a0" + form
}

// Detail is a technical detail under the sentence that says what happened,
// in the screen's language: "Détail technique : …", holding what the kiosk
// recorded for the technician (a code, a path, an error) as it is, never
// the sentence itself.
func (t Tr) Detail(s string) string { return t.F("detail.tech", s) }

var _ = words(map[word]text{
	"detail.tech": {"Détail technique\u00a0: %s", "Technical detail: %s"},
	// The nouns counted (Count): singular|plural.
	"n.note":  {"billet|billets", "note|notes"},
	"n.unit":  {"unité de jeu|unités de jeu", "game unit|game units"},
	"n.digit": {"chiffre|chiffres", "digit|digits"},
	"n.try":   {"essai|essais", "try|tries"},
	"n.poll":  {"interrogation|interrogations", "poll|polls"},
})
