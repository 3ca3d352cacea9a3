package kiosk

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One rule for the kiosk id wherever it is typed: the first start's setup
// (Machine.SetKioskID) and the settings view (CheckSetting) take and
// refuse the same ids, and a refused id changes nothing.
func TestKioskIDOneRule(t *testing.T) {
	cases := []struct {
		id string
		ok bool
	}{
		{"PH-0042", true},
		{"ph_42", true},
		{"A", true},
		{strings.Repeat("9", KioskIDMaxLen), true},
		{"", false},
		{strings.Repeat("9", KioskIDMaxLen+1), false},
		{"PH.42", false}, // a NATS subject separator
		{"PH 42", false},
		{"PH*", false},
		{"PH>", false},
		{"BORNE-É", false}, // printed on a code page without it
		{"PH/42", false},
	}
	f := newFixture(t)
	f.cfg.KioskID = "PH-CONF"
	f.restart()
	for _, c := range cases {
		assert.Equal(t, c.ok, ValidKioskID(c.id), "%q", c.id)
		_, err := CheckSetting(SettingKioskID, c.id)
		assert.Equal(t, c.ok, err == nil, "settings view: %q: %v", c.id, err)
		err = f.m.SetKioskID(ctx, "setup", c.id)
		if !c.ok {
			require.ErrorIs(t, err, ErrKioskID, "setup: %q", c.id)
			assert.NotEqual(t, c.id, f.m.KioskID())
			continue
		}
		require.NoError(t, err, "setup: %q", c.id)
		assert.Equal(t, c.id, f.m.KioskID())
	}
	for _, r := range "aZ09-_" {
		assert.True(t, IsKioskIDRune(r), "%q", r)
	}
	for _, r := range ". *>éÉ/" {
		assert.False(t, IsKioskIDRune(r), "%q", r)
	}
}
