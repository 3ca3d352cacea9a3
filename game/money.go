package game

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Money is an amount in euro cents. Every amount in the kiosk is a Money:
// never a float, never euros.
type Money int64

// Euro is one euro in cents.
const Euro Money = 100

// nbsp is the no-break space placed between digit groups and before the
// euro sign, so that an amount is never split across two lines.
const nbsp = "\u00a0"

// String formats m the French way, as the player sees it: "3 750 €",
// "37,50 €", "0,50 €", "-1,50 €". Whole amounts carry no decimals.
// Spaces are no-break spaces (U+00A0).
func (m Money) String() string { return m.French() }

// French formats m as in String.
func (m Money) French() string {
	return m.format(nbsp, ",") + nbsp + "€"
}

// English formats m the English way: "€3,750", "€37.50", "-€0.50".
func (m Money) English() string {
	s := m.format(",", ".")
	if strings.HasPrefix(s, "-") {
		return "-€" + s[1:]
	}
	return "€" + s
}

// Plain formats m French style with ASCII characters only ("3 750 EUR",
// "0,50 EUR"), for devices such as a receipt printer without the euro sign.
func (m Money) Plain() string {
	return m.format(" ", ",") + " EUR"
}

func (m Money) format(group, decimal string) string {
	neg := m < 0
	u := uint64(m)
	if neg {
		u = -u // works for math.MinInt64 too
	}
	euros, cents := u/100, u%100
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	writeGrouped(&b, euros, group)
	if cents != 0 {
		b.WriteString(decimal)
		fmt.Fprintf(&b, "%02d", cents)
	}
	return b.String()
}

// Count formats a count the French way, its digit groups apart by no-break
// spaces: "350 000".
func Count(n int) string {
	var b strings.Builder
	if n < 0 {
		b.WriteByte('-')
		n = -n
	}
	writeGrouped(&b, uint64(n), nbsp)
	return b.String()
}

// writeGrouped writes u in decimal with sep between groups of three digits.
func writeGrouped(b *strings.Builder, u uint64, sep string) {
	digits := strconv.FormatUint(u, 10)
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(r)
	}
}

// ErrBadAmount is returned by ParseMoney for text that is not an amount.
var ErrBadAmount = errors.New("not an amount in euros")

// ParseMoney reads an amount in euros written with a comma or a point and
// at most two decimals ("0,50", "3750", "37.50", "3 750 €"). It never goes
// through a float.
func ParseMoney(s string) (Money, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(t, "€")
	t = strings.TrimSuffix(strings.TrimSpace(t), "EUR")
	t = strings.NewReplacer(" ", "", nbsp, "", "\u202f", "").Replace(strings.TrimSpace(t))
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	whole, frac, hasFrac := strings.Cut(strings.ReplaceAll(t, ",", "."), ".")
	if whole == "" || (hasFrac && (len(frac) == 0 || len(frac) > 2)) || len(whole) > 15 {
		return 0, fmt.Errorf("%q: %w", s, ErrBadAmount)
	}
	e, err := strconv.ParseUint(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, ErrBadAmount)
	}
	var c uint64
	if hasFrac {
		if c, err = strconv.ParseUint(frac, 10, 64); err != nil {
			return 0, fmt.Errorf("%q: %w", s, ErrBadAmount)
		}
		if len(frac) == 1 {
			c *= 10
		}
	}
	m := Money(e*100 + c)
	if neg {
		m = -m
	}
	return m, nil
}
