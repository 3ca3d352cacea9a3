package id003_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/id003"
)

func TestEURTableIsValid(t *testing.T) {
	require.NoError(t, id003.EURTable.Validate())
	for _, v := range id003.DefaultEnabled {
		_, ok := id003.EURTable.Code(v)
		assert.True(t, ok, "%d cents", v)
	}
	c, ok := id003.EURTable.Cents(0x63)
	assert.True(t, ok)
	assert.Equal(t, int64(1000), c)
	_, ok = id003.EURTable.Cents(0x61)
	assert.False(t, ok)
}

func TestDenomTableValidate(t *testing.T) {
	tests := []struct {
		name  string
		table id003.DenomTable
	}{
		{"empty", id003.DenomTable{}},
		{"code below mask", id003.DenomTable{{0x60, 500}}},
		{"code above mask", id003.DenomTable{{0x71, 500}}},
		{"zero value", id003.DenomTable{{0x62, 0}}},
		{"duplicate code", id003.DenomTable{{0x62, 500}, {0x62, 1000}}},
		{"duplicate value", id003.DenomTable{{0x62, 500}, {0x63, 500}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorIs(t, tt.table.Validate(), id003.ErrDenomTable)
		})
	}
}

func TestMasks(t *testing.T) {
	// 5/10/20/50 € are codes 0x62..0x65: bits 1..4 clear in the enable (inhibit) mask.
	m, err := id003.EURTable.Mask(id003.DefaultEnabled, true)
	require.NoError(t, err)
	assert.Equal(t, [2]byte{0xE1, 0xFF}, m)
	m, err = id003.EURTable.Mask([]int64{5000}, false)
	require.NoError(t, err)
	assert.Equal(t, [2]byte{0x10, 0x00}, m, "high security for 50 € only")
	m, err = id003.EURTable.Mask(nil, false)
	require.NoError(t, err)
	assert.Equal(t, [2]byte{}, m)
	_, err = id003.EURTable.Mask([]int64{700}, true)
	assert.ErrorIs(t, err, id003.ErrDenomTable)
}

func TestCurrencyAssignment(t *testing.T) {
	entries := id003.EURTable.Entries(id003.CountryEUR)
	data := id003.EncodeCurrencyAssignment(entries)
	assert.Equal(t, []byte{0x62, 0xE0, 5, 0}, data[:4])
	back, err := id003.ParseCurrencyAssignment(append(data, 0, 0, 0, 0)) // unused slot
	require.NoError(t, err)
	assert.Equal(t, entries, back)
	for _, e := range back {
		c, ok := e.Cents()
		require.True(t, ok)
		want, _ := id003.EURTable.Cents(e.Code)
		assert.Equal(t, want, c)
	}
	require.NoError(t, id003.EURTable.CheckAssignment(back, id003.CountryEUR, id003.DefaultEnabled))

	_, err = id003.ParseCurrencyAssignment([]byte{1, 2, 3})
	assert.Error(t, err)
}

func TestCurrencyEntryCents(t *testing.T) {
	tests := []struct {
		e    id003.CurrencyEntry
		want int64
		ok   bool
	}{
		{id003.CurrencyEntry{Base: 5}, 500, true},
		{id003.CurrencyEntry{Base: 2, Exponent: 2}, 20000, true},
		{id003.CurrencyEntry{Base: 50, Exponent: 0x81}, 500, true}, // 50 × 10^-1
		{id003.CurrencyEntry{Base: 5, Exponent: 0x83}, 0, false},   // 0.005: not whole cents
		{id003.CurrencyEntry{Base: 1, Exponent: 40}, 0, false},
	}
	for _, tt := range tests {
		got, ok := tt.e.Cents()
		assert.Equal(t, tt.ok, ok, "%+v", tt.e)
		assert.Equal(t, tt.want, got, "%+v", tt.e)
	}
}

func TestCheckAssignmentMismatch(t *testing.T) {
	good := id003.EURTable.Entries(id003.CountryEUR)
	swapped := append([]id003.CurrencyEntry(nil), good...)
	swapped[0].Base, swapped[1].Base = swapped[1].Base, swapped[0].Base // 5 € and 10 € codes swapped
	usd := id003.EURTable.Entries(0x01)
	tests := []struct {
		name    string
		entries []id003.CurrencyEntry
	}{
		{"values swapped", swapped},
		{"other country", usd},
		{"code missing", good[1:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := id003.EURTable.CheckAssignment(tt.entries, id003.CountryEUR, id003.DefaultEnabled)
			assert.ErrorIs(t, err, id003.ErrCurrencyMismatch)
		})
	}
	// A code the kiosk does not accept may differ.
	assert.NoError(t, id003.EURTable.CheckAssignment(good[1:], id003.CountryEUR, []int64{1000}))
}
