package id003

import (
	"errors"
	"fmt"
	"slices"

	"pharaon/hw"
)

// Denomination is a note the unit knows: the escrow code it reports and the note's value in cents.
type Denomination struct {
	Code  byte
	Cents int64
}

// DenomTable maps the unit's escrow codes to values. It is data, not code: the codes depend on the
// currency software loaded in the unit, and the host checks the table against the unit's own
// currency assignment (0x8A) before it accepts any note.
type DenomTable []Denomination

// EURTable is the escrow code assignment of JCM euro units as seen in public host implementations
// (0x62 = 5 € ... 0x67 = 200 €). 500 € notes (no longer issued) are left out; a unit that reports
// another table is refused at start (ErrCurrencyMismatch), so a wrong guess here cannot credit a
// wrong amount.
var EURTable = DenomTable{
	{0x62, 500}, {0x63, 1000}, {0x64, 2000}, {0x65, 5000}, {0x66, 10000}, {0x67, 20000},
}

// DefaultEnabled are the notes the kiosk takes unless configured otherwise: 5, 10, 20 and 50 €.
var DefaultEnabled = []int64{500, 1000, 2000, 5000}

// Escrow codes that fit the two-byte enable and security masks: bit 0 of the first byte is 0x61.
// (Uncertain: the public hosts checked all count from the first code of the unit's table, which is
// 0x61 on every table they list.)
const (
	FirstCode byte = 0x61
	LastCode  byte = 0x70
)

var (
	ErrDenomTable       = errors.New("bad denomination table")
	ErrCurrencyMismatch = fmt.Errorf("%w: unit's currency assignment differs from the configured table", hw.ErrProtocol)
)

// Validate checks codes are in the mask range and codes and values are unique and positive.
func (t DenomTable) Validate() error {
	if len(t) == 0 {
		return fmt.Errorf("%w: empty", ErrDenomTable)
	}
	for i, d := range t {
		if d.Code < FirstCode || d.Code > LastCode {
			return fmt.Errorf("%w: code 0x%02X outside 0x%02X..0x%02X", ErrDenomTable, d.Code, FirstCode, LastCode)
		}
		if d.Cents <= 0 {
			return fmt.Errorf("%w: code 0x%02X has value %d", ErrDenomTable, d.Code, d.Cents)
		}
		for _, e := range t[:i] {
			if e.Code == d.Code || e.Cents == d.Cents {
				return fmt.Errorf("%w: 0x%02X and 0x%02X collide", ErrDenomTable, e.Code, d.Code)
			}
		}
	}
	return nil
}

// Cents is the value of an escrow code.
func (t DenomTable) Cents(code byte) (int64, bool) {
	for _, d := range t {
		if d.Code == code {
			return d.Cents, true
		}
	}
	return 0, false
}

// Code is the escrow code of a value.
func (t DenomTable) Code(cents int64) (byte, bool) {
	for _, d := range t {
		if d.Cents == cents {
			return d.Code, true
		}
	}
	return 0, false
}

// Mask is the two-byte argument of SET ENABLE / SET SECURITY: bit (code-0x61) set for every code of
// the table whose value is NOT in values when inverted is true (enable mask: a set bit inhibits),
// or IS in values when inverted is false (security mask: a set bit asks for high security). Codes
// outside the table are always inhibited in an enable mask.
func (t DenomTable) Mask(values []int64, inverted bool) ([2]byte, error) {
	var m uint16
	if inverted {
		m = 0xFFFF
	}
	for _, v := range values {
		code, ok := t.Code(v)
		if !ok {
			return [2]byte{}, fmt.Errorf("%w: no note of %d cents", ErrDenomTable, v)
		}
		bit := uint16(1) << (code - FirstCode)
		if inverted {
			m &^= bit
		} else {
			m |= bit
		}
	}
	return [2]byte{byte(m), byte(m >> 8)}, nil
}

// Country codes of the currency assignment.
const CountryEUR byte = 0xE0

// CurrencyEntry is one 4-byte block of the unit's answer to CURRENCY ASSIGNMENT (0x8A): the
// escrow code, the country code and the value as base × 10^exponent in whole currency units.
// (Uncertain: an exponent with its high bit set is read as negative, for sub-unit notes; no euro
// note needs it.)
type CurrencyEntry struct {
	Code, Country, Base, Exponent byte
}

// Cents is the entry's value in cents (false for a value that does not fit or is not whole cents).
func (e CurrencyEntry) Cents() (int64, bool) {
	v := int64(e.Base) * 100
	exp := int(e.Exponent & 0x7F)
	if exp > 14 {
		return 0, false
	}
	for range exp {
		if e.Exponent&0x80 != 0 {
			if v%10 != 0 {
				return 0, false
			}
			v /= 10
		} else {
			v *= 10
		}
	}
	return v, true
}

// ParseCurrencyAssignment reads the data of a 0x8A answer. Entries with a zero code or zero value
// (unused slots) are skipped.
func ParseCurrencyAssignment(data []byte) ([]CurrencyEntry, error) {
	if len(data)%4 != 0 {
		return nil, fmt.Errorf("%w: currency assignment of %d bytes", hw.ErrProtocol, len(data))
	}
	var out []CurrencyEntry
	for i := 0; i < len(data); i += 4 {
		e := CurrencyEntry{data[i], data[i+1], data[i+2], data[i+3]}
		if e.Code == 0 || e.Base == 0 {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// EncodeCurrencyAssignment is the inverse of ParseCurrencyAssignment (for simulators).
func EncodeCurrencyAssignment(entries []CurrencyEntry) []byte {
	out := make([]byte, 0, 4*len(entries))
	for _, e := range entries {
		out = append(out, e.Code, e.Country, e.Base, e.Exponent)
	}
	return out
}

// Entries describes the table as a currency assignment in the given country, choosing the smallest
// base that fits in a byte.
func (t DenomTable) Entries(country byte) []CurrencyEntry {
	out := make([]CurrencyEntry, 0, len(t))
	for _, d := range t {
		units, exp := d.Cents/100, byte(0)
		for units >= 256 && units%10 == 0 {
			units /= 10
			exp++
		}
		out = append(out, CurrencyEntry{d.Code, country, byte(units), exp})
	}
	slices.SortFunc(out, func(a, b CurrencyEntry) int { return int(a.Code) - int(b.Code) })
	return out
}

// CheckAssignment compares the unit's currency assignment with the table for the values the
// kiosk accepts: each must be reported by the unit under the same code, value and country (when
// country is not 0). A mismatch
// means the configuration or the unit's software is wrong, and taking notes would credit wrong
// amounts.
func (t DenomTable) CheckAssignment(entries []CurrencyEntry, country byte, accepted []int64) error {
	for _, v := range accepted {
		code, ok := t.Code(v)
		if !ok {
			return fmt.Errorf("%w: no note of %d cents in the table", ErrDenomTable, v)
		}
		found := false
		for _, e := range entries {
			if e.Code != code {
				continue
			}
			found = true
			if country != 0 && e.Country != country {
				return fmt.Errorf("%w: code 0x%02X is in country 0x%02X, want 0x%02X",
					ErrCurrencyMismatch, code, e.Country, country)
			}
			if c, ok := e.Cents(); !ok || c != v {
				return fmt.Errorf("%w: code 0x%02X is %d×10^%d on the unit, %d cents configured",
					ErrCurrencyMismatch, code, e.Base, e.Exponent, v)
			}
		}
		if !found {
			return fmt.Errorf("%w: unit does not report code 0x%02X (%d cents)", ErrCurrencyMismatch, code, v)
		}
	}
	return nil
}
