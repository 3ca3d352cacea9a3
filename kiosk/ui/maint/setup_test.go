package maint

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
)

// The first start: the setup refuses PINs typed differently twice and the
// same PIN for both roles, saying so; once right, both PINs open their
// role's session and the kiosk id names the kiosk.
func TestSetupSetsThePINsAndTheKioskID(t *testing.T) {
	f := newShFix(t, false)
	ctx := context.Background()
	need, err := f.a.NeedsSetup(ctx)
	require.NoError(t, err)
	require.True(t, need)
	done := 0
	s := NewSetup(f.w, SetupConfig{Access: f.a, KioskID: f.m.KioskID(), SetKioskID: f.m.SetKioskID, Lang: ui.French,
		Go: func(g func()) { g() }, Do: func(g func()) { g() }, Done: func() { done++ }})
	f.golden("maint-setup.png")

	typeIn := func(row int, pin string) {
		f.tap(f.sh0row(s, row))
		for _, r := range pin {
			f.tap(string(r))
		}
	}
	typeIn(0, shTechPIN)
	typeIn(1, "246801")
	typeIn(2, shStaffPIN)
	typeIn(3, shStaffPIN)
	f.tap("Enregistrer")
	assert.Contains(t, f.text(), "Code technicien\u00a0: les deux saisies diffèrent.")
	f.tap(f.sh0row(s, 1))
	f.tap("Effacer")
	f.tap("0")
	typeIn(2, "")
	for range shStaffPIN {
		f.tap("Effacer")
	}
	for _, r := range shTechPIN {
		f.tap(string(r))
	}
	typeIn(3, "")
	for range shStaffPIN {
		f.tap("Effacer")
	}
	for _, r := range shTechPIN {
		f.tap(string(r))
	}
	f.tap("Enregistrer")
	assert.Contains(t, f.text(), "Les deux codes doivent être différents.")
	need, err = f.a.NeedsSetup(ctx)
	require.NoError(t, err)
	assert.True(t, need, "nothing set yet")

	typeIn(2, shStaffPIN)
	typeIn(3, shStaffPIN)
	f.tap(f.sh0row(s, setupIDRow))
	for _, r := range "PH-0777" {
		f.tap(string(r))
	}
	f.tap("Enregistrer")
	require.Equal(t, 1, done)
	assert.True(t, s.Done())
	need, err = f.a.NeedsSetup(ctx)
	require.NoError(t, err)
	assert.False(t, need)
	assert.Equal(t, "PH-0777", f.m.KioskID())
	tech, err := f.a.Login(ctx, shTechPIN)
	require.NoError(t, err)
	assert.Equal(t, kiosk.RoleTechnician, tech.Role())
	staff, err := f.a.Login(ctx, shStaffPIN)
	require.NoError(t, err)
	assert.Equal(t, kiosk.RoleStaff, staff.Role())
}

// sh0row is the label of the setup's PIN row i as shown now.
func (f *shFix) sh0row(s *Setup, i int) string { return s.rows[i].Text }

// A keyboard alone completes the setup (a technician's USB keyboard, or a
// virtual machine's): digits type into the PIN field chosen, Backspace
// erases, Enter goes to the next field and saves from the last; the kiosk
// id stays the one configured.
func TestSetupByKeyboard(t *testing.T) {
	f := newShFix(t, false)
	ctx := context.Background()
	done := 0
	s := NewSetup(f.w, SetupConfig{Access: f.a, KioskID: "PH-0042", SetKioskID: f.m.SetKioskID, Lang: ui.French,
		Go: func(g func()) { g() }, Do: func(g func()) { g() }, Done: func() { done++ }})
	c := f.w.Canvas()
	key := func(n fyne.KeyName) { c.OnTypedKey()(&fyne.KeyEvent{Name: n}) }
	test.TypeOnCanvas(c, shTechPIN+"9")
	key(fyne.KeyBackspace)
	key(fyne.KeyReturn)
	test.TypeOnCanvas(c, shTechPIN)
	key(fyne.KeyReturn)
	test.TypeOnCanvas(c, shStaffPIN)
	key(fyne.KeyEnter)
	test.TypeOnCanvas(c, shStaffPIN)
	assert.Equal(t, 3, s.active)
	key(fyne.KeyReturn)
	assert.Equal(t, setupIDRow, s.active)
	assert.Equal(t, 0, done, "Enter on a line before the last does not save")
	key(fyne.KeyReturn)
	require.Equal(t, 1, done)
	assert.True(t, s.Done())
	assert.Equal(t, "PH-0042", f.m.KioskID())
	tech, err := f.a.Login(ctx, shTechPIN)
	require.NoError(t, err)
	assert.Equal(t, kiosk.RoleTechnician, tech.Role())
	staff, err := f.a.Login(ctx, shStaffPIN)
	require.NoError(t, err)
	assert.Equal(t, kiosk.RoleStaff, staff.Role())
	assert.Nil(t, c.OnTypedKey(), "the player's screens get their keys back")
}

// A touchscreen alone completes the setup of a kiosk configured with no
// kiosk-id: the line touched is the one typed into (the id's line shows
// the letter keyboard, and its keys never reach a PIN line), a touch on a
// filled line replaces it, and a refusal says what is wrong and makes the
// line to correct the one typed into. Only taps: no key event.
func TestSetupWithAFingerAlone(t *testing.T) {
	f := newShFix(t, false)
	ctx := context.Background()
	done := 0
	s := NewSetup(f.w, SetupConfig{Access: f.a, KioskID: "", SetKioskID: f.m.SetKioskID, Lang: ui.French,
		Go: func(g func()) { g() }, Do: func(g func()) { g() }, Done: func() { done++ }})
	taps := func(keys string) {
		for _, r := range keys {
			f.tap(string(r))
		}
	}
	f.tap(f.sh0row(s, 0))
	taps(shTechPIN)
	f.tap("Suivant")
	taps("999999") // a slip
	f.tap(f.sh0row(s, 2))
	taps(shStaffPIN)
	f.tap(f.sh0row(s, 3))
	taps(shStaffPIN)
	f.tap(f.sh0row(s, setupIDRow))
	require.NotNil(t, f.button("Q"), "the id's line shows the letter keyboard")
	assert.Nil(t, f.button("."), "no dot: a kiosk id is one NATS subject token")
	taps("PH0042")
	assert.Equal(t, "PH0042", string(s.fields[setupIDRow]))
	assert.Equal(t, shStaffPIN, string(s.fields[3]), "the id's keys never type into a PIN line")
	f.tap("Enregistrer")
	assert.Contains(t, f.text(), "Code technicien\u00a0: les deux saisies diffèrent.")
	assert.Equal(t, 1, s.active, "the line to correct is the one typed into")
	taps(shTechPIN)
	assert.Equal(t, shTechPIN, string(s.fields[1]), "a filled line chosen is replaced, not added to")
	f.tap(f.sh0row(s, setupIDRow))
	taps("PH-0042")
	f.tap("Enregistrer")
	require.Equal(t, 1, done, f.text())
	assert.Equal(t, "PH-0042", f.m.KioskID())
	need, err := f.a.NeedsSetup(ctx)
	require.NoError(t, err)
	assert.False(t, need)
	tech, err := f.a.Login(ctx, shTechPIN)
	require.NoError(t, err)
	assert.Equal(t, kiosk.RoleTechnician, tech.Role())
}

// The letter keyboard offers only a kiosk id's characters, and all the
// separators the rule allows.
func TestLetterpadKeysKeepTheKioskIDRule(t *testing.T) {
	for _, r := range letterpadKeys {
		assert.True(t, kiosk.IsKioskIDRune(r), "%q", r)
	}
	for _, r := range kiosk.KioskIDSeparators {
		assert.Contains(t, letterpadKeys, string(r))
	}
}
