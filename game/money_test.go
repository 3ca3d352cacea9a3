package game

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fr writes an expected French amount with plain spaces for readability;
// the formatter uses no-break spaces.
func fr(s string) string { return strings.ReplaceAll(s, " ", "\u00a0") }

func TestMoneyFrench(t *testing.T) {
	cases := []struct {
		m    Money
		want string
	}{
		{0, "0 €"},
		{50, "0,50 €"},
		{5, "0,05 €"},
		{100, "1 €"},
		{150, "1,50 €"},
		{3750, "37,50 €"},
		{375000, "3 750 €"},
		{1500000, "15 000 €"},
		{12225000, "122 250 €"},
		{123456789, "1 234 567,89 €"},
		{-150, "-1,50 €"},
		{-375000, "-3 750 €"},
	}
	for _, c := range cases {
		assert.Equal(t, fr(c.want), c.m.String(), "%d cents", int64(c.m))
		assert.Equal(t, fr(c.want), c.m.French())
	}
	assert.Equal(t, "3 750 EUR", Money(375000).Plain())
	assert.Equal(t, "0,50 EUR", Money(50).Plain())
	assert.Equal(t, "€3,750", Money(375000).English())
	assert.Equal(t, "€37.50", Money(3750).English())
	assert.Equal(t, "-€0.50", Money(-50).English())
	assert.Equal(t, "-92 233 720 368 547 758,08 EUR", Money(math.MinInt64).Plain())
}

func TestParseMoney(t *testing.T) {
	good := map[string]Money{
		"0,50": 50, "0.5": 50, "1": 100, "37,50": 3750, "3 750 €": 375000,
		"3\u00a0750\u00a0€": 375000, "2 EUR": 200, "-1,5": -150, "15000": 1500000,
	}
	for in, want := range good {
		got, err := ParseMoney(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "€", "abc", "1,234", "1,", ",5", "1.2.3", "--1", "99999999999999999", "1e3"} {
		_, err := ParseMoney(in)
		assert.ErrorIs(t, err, ErrBadAmount, "%q", in)
	}
}

func TestMoneyRoundTrip(t *testing.T) {
	for _, m := range []Money{0, 1, 50, 99, 100, 375000, 123456789, -42} {
		for _, s := range []string{m.French(), m.Plain()} {
			got, err := ParseMoney(s)
			require.NoError(t, err, s)
			assert.Equal(t, m, got, s)
		}
	}
}

func TestStakes(t *testing.T) {
	assert.Equal(t, 27, Stake050.Bricks()) // Art. 4.1
	assert.Equal(t, 31, Stake100.Bricks())
	assert.Equal(t, 33, Stake200.Bricks())
	assert.Equal(t, 0, Stake(75).Bricks())
	for in, want := range map[string]Stake{"0,50": Stake050, "1": Stake100, "2 €": Stake200} {
		got, err := ParseStake(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	for _, in := range []string{"0,75", "3", "x", "0"} {
		_, err := ParseStake(in)
		assert.ErrorIs(t, err, ErrBadStake, in)
	}
	assert.Equal(t, fr("0,50 €"), Stake050.String())
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1\u00a0000", 350000: "350\u00a0000", 1050000: "1\u00a0050\u00a0000", -1500: "-1\u00a0500"} {
		assert.Equal(t, want, Count(n), "%d", n)
	}
}
