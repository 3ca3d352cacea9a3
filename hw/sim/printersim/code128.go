package printersim

import (
	"errors"
	"fmt"
	"strings"
)

// code128Widths are the symbol characters of Code 128 (ISO/IEC 15417), values 0 to 106: the widths
// in modules of bar, space, bar, space, bar, space (and a final bar for the stop character, 106).
// 103, 104 and 105 are the start characters of code sets A, B and C.
var code128Widths = [107]string{
	"212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
	"221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
	"221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
	"212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
	"231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
	"231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
	"314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
	"112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
	"111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
	"214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
	"114131", "311141", "411131", "211412", "211214", "211232", "2331112",
}

const (
	c128Shift    = 98
	c128CodeC    = 99
	c128CodeB    = 100
	c128CodeA    = 101
	c128FNC1     = 102
	c128FNC2     = 97
	c128FNC3     = 96
	c128StartA   = 103
	c128Stop     = 106
	c128Checksum = 103
)

var errCode128 = errors.New("invalid CODE128 data")

// code128 is a decoded GS k m=73 payload: the symbol characters to draw (start, data, check
// character, stop) and the human readable text the printer prints with it.
type code128 struct {
	Values []int
	HRI    string
}

// parseCode128 reads GS k 73 data the way an Epson printer does: it starts with a code set
// selection "{A", "{B" or "{C"; "{" introduces a function ("{A" "{B" "{C" switch sets, "{S" shifts
// one character between A and B, "{1" to "{4" are FNC1 to FNC4, "{{" is a literal brace in set B);
// in set C each byte is a pair of digits, 0 to 99.
func parseCode128(data []byte) (code128, error) {
	if len(data) < 2 || data[0] != '{' || data[1] < 'A' || data[1] > 'C' {
		return code128{}, fmt.Errorf("%w: no code set selection at the start", errCode128)
	}
	set := data[1]
	values := []int{c128StartA + int(set-'A')}
	var hri strings.Builder
	for i := 2; i < len(data); {
		c := data[i]
		if c == '{' {
			if i+1 >= len(data) {
				return code128{}, fmt.Errorf("%w: lone '{' at the end", errCode128)
			}
			f := data[i+1]
			i += 2
			switch {
			case f >= 'A' && f <= 'C':
				if f != set {
					values = append(values, c128CodeA-int(f-'A')) // to A 101, to B 100, to C 99
					set = f
				}
			case f == 'S' && set != 'C':
				if i >= len(data) {
					return code128{}, fmt.Errorf("%w: shift at the end", errCode128)
				}
				other := byte('A')
				if set == 'A' {
					other = 'B'
				}
				v, err := setValue(other, data[i])
				if err != nil {
					return code128{}, err
				}
				values = append(values, c128Shift, v)
				writeHRI(&hri, other, data[i])
				i++
			case f == '1':
				values = append(values, c128FNC1)
			case f == '2' && set != 'C':
				values = append(values, c128FNC2)
			case f == '3' && set != 'C':
				values = append(values, c128FNC3)
			case f == '4' && set == 'A':
				values = append(values, c128CodeA) // FNC4 in set A
			case f == '4' && set == 'B':
				values = append(values, c128CodeB) // FNC4 in set B
			case f == '{' && set == 'B':
				values = append(values, '{'-32)
				hri.WriteByte('{')
			default:
				return code128{}, fmt.Errorf("%w: function {%c in code set %c", errCode128, f, set)
			}
			continue
		}
		v, err := setValue(set, c)
		if err != nil {
			return code128{}, err
		}
		values = append(values, v)
		writeHRI(&hri, set, c)
		i++
	}
	if len(values) < 2 {
		return code128{}, fmt.Errorf("%w: no data", errCode128)
	}
	sum := values[0]
	for i, v := range values[1:] {
		sum += (i + 1) * v
	}
	values = append(values, sum%c128Checksum, c128Stop)
	return code128{Values: values, HRI: hri.String()}, nil
}

func setValue(set, c byte) (int, error) {
	switch set {
	case 'A':
		if c <= 0x5F {
			if c < 0x20 {
				return int(c) + 64, nil
			}
			return int(c) - 32, nil
		}
	case 'B':
		if c >= 0x20 && c <= 0x7F {
			return int(c) - 32, nil
		}
	case 'C':
		if c <= 99 {
			return int(c), nil
		}
	}
	return 0, fmt.Errorf("%w: byte %#02x in code set %c", errCode128, c, set)
}

func writeHRI(b *strings.Builder, set, c byte) {
	switch {
	case set == 'C':
		b.WriteByte('0' + c/10)
		b.WriteByte('0' + c%10)
	case c < 0x20 || c == 0x7F:
		b.WriteByte(' ') // control characters print as spaces under the bars
	default:
		b.WriteByte(c)
	}
}

// modules returns the symbol as modules, true for a bar, without quiet zones.
func (c code128) modules() []bool {
	var out []bool
	for _, v := range c.Values {
		bar := true
		for _, w := range code128Widths[v] {
			for range int(w - '0') {
				out = append(out, bar)
			}
			bar = !bar
		}
	}
	return out
}
