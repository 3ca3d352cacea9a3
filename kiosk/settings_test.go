package kiosk

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game/breakout"
	"pharaon/store"
)

// Each setting takes its good values in a canonical form and refuses the
// bad ones with a reason in both languages.
func TestCheckSetting(t *testing.T) {
	good := []struct{ key, in, kept string }{
		{SettingKioskID, " PH-0043 ", "PH-0043"},
		{SettingVenue, "Tabac  du Port,\n Sète", "Tabac du Port, Sète"},
		{SettingLanguage, "EN", "en"},
		{SettingMaxCredit, "200", "200,00"},
		{SettingMaxCredit, "150,5", "150,50"},
		{SettingPayoutLimit, "1 500 €", "1500,00"},
		{SettingHandPayLimit, "1200", "1200,00"},
		{SettingIdleSeconds, "45", "45"},
		{SettingAutoSeconds, "20", "20"},
		{SettingAcceptedNotes, "50, 10 5;20 10", "5,10,20,50"},
		{SettingVoucherValidity, "30", "30"},
	}
	for _, g := range good {
		v, err := CheckSetting(g.key, g.in)
		require.NoError(t, err, "%s = %q", g.key, g.in)
		assert.Equal(t, g.kept, v, g.key)
	}
	bad := []struct{ key, in string }{
		{SettingKioskID, ""}, {SettingKioskID, "PH 0043"}, {SettingKioskID, "borne-très-longue-de-plus-de-32-caractères"},
		{SettingVenue, "  "}, {SettingLanguage, "de"},
		{SettingMaxCredit, "lots"}, {SettingMaxCredit, "0"}, {SettingMaxCredit, "15000"}, {SettingMaxCredit, "-5"},
		{SettingPayoutLimit, "1 000 000"}, {SettingHandPayLimit, "0,001"},
		{SettingIdleSeconds, "2"}, {SettingIdleSeconds, "3600"}, {SettingAutoSeconds, "x"},
		{SettingAcceptedNotes, ""}, {SettingAcceptedNotes, "5,15"}, {SettingAcceptedNotes, "1000"},
		{SettingVoucherValidity, "0"}, {"no.such.key", "1"},
	}
	for _, b := range bad {
		_, err := CheckSetting(b.key, b.in)
		require.ErrorIs(t, err, ErrBadSetting, "%s = %q", b.key, b.in)
		var se *SettingError
		require.ErrorAs(t, err, &se)
		want := SettingOutOfBounds
		if b.key == "no.such.key" {
			want = SettingUnknown
		}
		assert.Equal(t, want, se.Reason, "%s = %q", b.key, b.in)
		assert.Equal(t, b.key, se.Key)
		assert.Equal(t, b.in, se.Value)
	}
}

// A change is logged with its old and new value and the role; a bad value
// is refused, logged, and changes nothing; staff change nothing.
func TestOfficeSettings(t *testing.T) {
	f, o := newOffice(t)
	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	list, err := o.Settings(ctx, tech)
	require.NoError(t, err)
	byKey := map[string]Setting{}
	for _, s := range list {
		byKey[s.Key] = s
	}
	require.Len(t, byKey, len(settings))
	assert.Equal(t, "200,00", byKey[SettingMaxCredit].Value, "the configuration's value when none is kept")
	assert.False(t, byKey[SettingMaxCredit].Set)

	require.NoError(t, o.SetSetting(ctx, tech, SettingMaxCredit, "300"))
	require.NoError(t, o.SetSetting(ctx, tech, SettingMaxCredit, "250"))
	changes, err := f.st.EventsWhere(ctx, store.EventQuery{Source: "technician"})
	require.NoError(t, err)
	require.Len(t, changes, 2)
	assert.Equal(t, `cash.max_credit: "300,00" -> "250,00"`, changes[0].Detail)

	err = o.SetSetting(ctx, tech, SettingMaxCredit, "25000")
	require.ErrorIs(t, err, ErrBadSetting)
	var se *SettingError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, SettingOutOfBounds, se.Reason)
	assert.Equal(t, `setting cash.max_credit = "25000" refused: not an amount from 0,01 EUR to 1 500 EUR`, se.Error())
	v, _, err := f.st.Setting(ctx, SettingMaxCredit)
	require.NoError(t, err)
	assert.Equal(t, "250,00", v, "nothing changed")
	refused := officeEvents(t, f, "setting_refused")
	require.Len(t, refused, 1)
	assert.Contains(t, refused[0].Detail, "by technician")

	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	require.ErrorIs(t, o.SetSetting(ctx, staff, SettingVenue, "x"), ErrNotAllowed)
	_, err = o.Settings(ctx, staff)
	require.ErrorIs(t, err, ErrNotAllowed)
}

// The settings changed apply at the next start; one edited behind the
// screen's back into a bad value is ignored and logged.
func TestSettingsApplyAtNextStart(t *testing.T) {
	f, o := newOffice(t)
	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	for k, v := range map[string]string{SettingKioskID: "PH-0099", SettingVenue: "Tabac du Port, Sète",
		SettingIdleSeconds: "40", SettingAutoSeconds: "20", SettingAcceptedNotes: "10,20", SettingLanguage: "en"} {
		require.NoError(t, o.SetSetting(ctx, tech, k, v))
	}
	require.NoError(t, f.st.SetSetting(ctx, "test", SettingVenue, "")) // not through the screen
	f.restart()
	assert.Equal(t, "PH-0099", f.m.cfg.KioskID)
	assert.Equal(t, "en", f.m.Language(), "the screens start in English")
	assert.Equal(t, "", f.m.cfg.Venue, "the configuration's venue: the bad value is ignored")
	assert.Equal(t, 40*time.Second, f.m.cfg.ResultTimeout)
	assert.Equal(t, 20*breakout.TicksPerSecond, f.m.cfg.Engine.IdleTicks)
	assert.Equal(t, []int64{1000, 2000}, f.m.cfg.Cash.Validator.Accept)
	ev, err := f.st.EventsWhere(ctx, store.EventQuery{Source: "kiosk"})
	require.NoError(t, err)
	require.NotEmpty(t, ev)
	assert.Equal(t, "bad_setting", ev[0].Code)
}
