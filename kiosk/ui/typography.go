package ui

import "unicode"

// FrenchTypographyFaults lists what a French text breaks of French
// typography: a straight apostrophe (’ is the apostrophe), a colon,
// semicolon, exclamation or question mark without a no-break space before
// it (a time such as 15:04 excepted), guillemets without no-break spaces
// inside.
func FrenchTypographyFaults(s string) []string {
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
