package escpos

import "golang.org/x/text/encoding/charmap"

// The printer is put on code page PC858 (ESC t 19): it is PC850 with the euro sign, and holds
// every letter French needs (é è ê à â ç ù û ô î ï ë « » °) and the no-break space that
// formatted amounts use ("3 750 €" is written with U+00A0).
const codeTablePC858 = 19

// fallback maps runes PC858 lacks to the nearest rune it has, before giving up with '?'.
var fallback = map[rune]rune{
	'\u202F': '\u00A0', // narrow no-break space (French thin space before € or :)
	'\u2007': '\u00A0', // figure space
	'\u2009': ' ',      // thin space
	'\u2018': '\'',     // ‘
	'\u2019': '\'',     // ’ typographic apostrophe
	'\u201C': '"',      // “
	'\u201D': '"',      // ”
	'\u2010': '-',      // hyphen
	'\u2011': '-',      // non-breaking hyphen
	'\u2012': '-',      // figure dash
	'\u2013': '-',      // en dash
	'\u2014': '-',      // em dash
	'\u2212': '-',      // minus sign
	'\u2022': '\u00B7', // bullet → middle dot
}

// encodeRune returns the PC858 byte for r and whether r is to be sent at all. Control characters
// never reach the printer as themselves: in text they would be commands. '\n' is the caller's
// business (a line feed); '\r' is dropped so CRLF text prints like LF text; a tab becomes a space
// (HT would jump to tab stops this package never sets). Anything unmappable prints as '?'.
func encodeRune(r rune) (byte, bool) {
	switch {
	case r == '\r':
		return 0, false
	case r == '\t':
		return ' ', true
	case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0):
		return '?', true
	case r < 0x7F:
		return byte(r), true
	}
	if b, ok := charmap.CodePage858.EncodeRune(r); ok {
		return b, true
	}
	if f, ok := fallback[r]; ok {
		if b, ok := charmap.CodePage858.EncodeRune(f); ok {
			return b, true
		}
	}
	return '?', true
}

// Encode transcodes UTF-8 text to the bytes the printer prints on code page PC858, with the same
// rules as Doc.Text ('\n' is kept as a line feed). Invalid UTF-8 prints as '?'.
func Encode(s string) []byte {
	out := make([]byte, 0, len(s))
	return appendText(out, s)
}

func appendText(out []byte, s string) []byte {
	for _, r := range s {
		if r == '\n' {
			out = append(out, lf)
			continue
		}
		if b, ok := encodeRune(r); ok {
			out = append(out, b)
		}
	}
	return out
}
