package game

import "strings"

// FrenchWords writes m in French words, as a voucher states its amount
// ("trois mille sept cent cinquante euros", "trente-sept euros et cinquante
// centimes", "cinquante centimes"), in the traditional spelling: hyphens
// between tens and units under a hundred, "et" before "un" and "onze",
// "quatre-vingts" and "deux cents" plural only at the end of a number or
// before "million(s)"/"milliard(s)", "mille" invariable, "d'euros" after a
// round million. A negative amount is preceded by "moins".
func (m Money) FrenchWords() string { return m.words(french) }

// moneyWords are the words a language says an amount with.
type moneyWords struct {
	minus, zero, and, cent, cents string
	euros                         func(n uint64) string // the unit after n euros
	number                        func(n uint64) string // n > 0 in words
}

var (
	french = moneyWords{minus: "moins", zero: "zéro euro", and: "et", cent: "centime", cents: "centimes",
		euros: func(n uint64) string {
			switch {
			case n == 1:
				return "euro"
			case n%1_000_000 == 0:
				// "un million d'euros", "deux milliards d'euros".
				return "d'euros"
			}
			return "euros"
		},
		number: numberWords}
	english = moneyWords{minus: "minus", zero: "zero euros", and: "and", cent: "cent", cents: "cents",
		euros: func(n uint64) string {
			if n == 1 {
				return "euro"
			}
			return "euros"
		},
		number: englishNumber}
)

// words writes m with the words of w.
func (m Money) words(w moneyWords) string {
	var parts []string
	u := uint64(m)
	if m < 0 {
		parts = append(parts, w.minus)
		u = -u
	}
	euros, cents := u/100, u%100
	switch {
	case euros == 0 && cents == 0:
		return strings.Join(append(parts, w.zero), " ")
	case euros > 0:
		parts = append(parts, w.number(euros)+" "+w.euros(euros))
		if cents > 0 {
			parts = append(parts, w.and)
		}
	}
	if cents > 0 {
		unit := w.cents
		if cents == 1 {
			unit = w.cent
		}
		parts = append(parts, w.number(cents)+" "+unit)
	}
	return strings.Join(parts, " ")
}

var (
	units = [...]string{"zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf",
		"dix", "onze", "douze", "treize", "quatorze", "quinze", "seize", "dix-sept", "dix-huit", "dix-neuf"}
	tens = [...]string{"", "", "vingt", "trente", "quarante", "cinquante", "soixante", "soixante", "quatre-vingt", "quatre-vingt"}
)

// numberWords writes n (> 0) in French words.
func numberWords(n uint64) string {
	type scale struct {
		value uint64
		one   string // singular noun, or "" for the adjective "mille"
		many  string
	}
	scales := []scale{
		{1_000_000_000_000_000_000, "trillion", "trillions"},
		{1_000_000_000_000_000, "billiard", "billiards"},
		{1_000_000_000_000, "billion", "billions"},
		{1_000_000_000, "milliard", "milliards"},
		{1_000_000, "million", "millions"},
	}
	var out []string
	for _, s := range scales {
		if q := n / s.value; q > 0 {
			if q == 1 {
				out = append(out, "un "+s.one)
			} else {
				// A noun follows: "deux cents millions", "quatre-vingts millions".
				out = append(out, belowThousand(q, true)+" "+s.many)
			}
			n %= s.value
		}
	}
	if q := n / 1000; q > 0 {
		if q == 1 {
			out = append(out, "mille")
		} else {
			// "mille" is an adjective: "deux cent mille", "quatre-vingt mille".
			out = append(out, belowThousand(q, false)+" mille")
		}
		n %= 1000
	}
	if n > 0 {
		out = append(out, belowThousand(n, true))
	}
	return strings.Join(out, " ")
}

// belowThousand writes 1 ≤ n ≤ 999. final says whether "vingt" and "cent"
// take their plural "s" when they end the number (they do at the end, and
// before a noun such as "millions"; not before "mille").
func belowThousand(n uint64, final bool) string {
	var out []string
	if h := n / 100; h > 0 {
		r := n % 100
		switch {
		case h == 1:
			out = append(out, "cent")
		case r == 0 && final:
			out = append(out, units[h]+" cents")
		default:
			out = append(out, units[h]+" cent")
		}
		n = r
	}
	if n > 0 {
		out = append(out, belowHundred(n, final))
	}
	return strings.Join(out, " ")
}

func belowHundred(n uint64, final bool) string {
	if n < 20 {
		return units[n]
	}
	t, u := n/10, n%10
	if t == 7 || t == 9 {
		// soixante-dix…, quatre-vingt-dix…: the units run on from ten.
		u += 10
	}
	base := tens[t]
	switch {
	case u == 0 && t == 8:
		if final {
			return "quatre-vingts"
		}
		return base
	case u == 0:
		return base
	case (u == 1 || u == 11) && t != 8 && t != 9:
		return base + " et " + units[u]
	}
	return base + "-" + units[u]
}

// EnglishWords writes m in British English words, as a voice reads an
// amount to a player ("three thousand seven hundred and fifty euros",
// "thirty-seven euros and fifty cents", "fifty cents"): "and" before the
// tens and units of a hundred, hyphens between tens and units, short
// scales (a billion is a thousand million). A negative amount is preceded
// by "minus".
func (m Money) EnglishWords() string { return m.words(english) }

var (
	englishUnits = [...]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
		"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	englishTens = [...]string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
)

// englishNumber writes n (> 0) in English words.
func englishNumber(n uint64) string {
	scales := []struct {
		value uint64
		name  string
	}{
		{1_000_000_000_000_000_000, "quintillion"},
		{1_000_000_000_000_000, "quadrillion"},
		{1_000_000_000_000, "trillion"},
		{1_000_000_000, "billion"},
		{1_000_000, "million"},
		{1000, "thousand"},
	}
	var out []string
	for _, s := range scales {
		if q := n / s.value; q > 0 {
			out = append(out, englishBelowThousand(q)+" "+s.name)
			n %= s.value
		}
	}
	if n > 0 {
		last := englishBelowThousand(n)
		if len(out) > 0 && n < 100 {
			// "one thousand and fifty"
			last = "and " + last
		}
		out = append(out, last)
	}
	return strings.Join(out, " ")
}

// englishBelowThousand writes 1 ≤ n ≤ 999.
func englishBelowThousand(n uint64) string {
	var out []string
	if h := n / 100; h > 0 {
		out = append(out, englishUnits[h]+" hundred")
		n %= 100
		if n > 0 {
			out = append(out, "and")
		}
	}
	switch {
	case n == 0:
	case n < 20:
		out = append(out, englishUnits[n])
	case n%10 == 0:
		out = append(out, englishTens[n/10])
	default:
		out = append(out, englishTens[n/10]+"-"+englishUnits[n%10])
	}
	return strings.Join(out, " ")
}
