package game

import "strings"

// FrenchWords writes m in French words, as a voucher states its amount
// ("trois mille sept cent cinquante euros", "trente-sept euros et cinquante
// centimes", "cinquante centimes"), in the traditional spelling: hyphens
// between tens and units under a hundred, "et" before "un" and "onze",
// "quatre-vingts" and "deux cents" plural only at the end of a number or
// before "million(s)"/"milliard(s)", "mille" invariable, "d'euros" after a
// round million. A negative amount is preceded by "moins".
func (m Money) FrenchWords() string {
	var parts []string
	u := uint64(m)
	if m < 0 {
		parts = append(parts, "moins")
		u = -u
	}
	euros, cents := u/100, u%100
	switch {
	case euros == 0 && cents == 0:
		return strings.Join(append(parts, "zéro euro"), " ")
	case euros > 0:
		unit := "euros"
		switch {
		case euros == 1:
			unit = "euro"
		case euros%1_000_000 == 0:
			// "un million d'euros", "deux milliards d'euros".
			unit = "d'euros"
		}
		parts = append(parts, numberWords(euros)+" "+unit)
		if cents > 0 {
			parts = append(parts, "et")
		}
	}
	if cents > 0 {
		unit := "centimes"
		if cents == 1 {
			unit = "centime"
		}
		parts = append(parts, numberWords(cents)+" "+unit)
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
