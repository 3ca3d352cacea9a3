package maint

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// typeRow taps the PIN view's entry whose label is label, then types pin
// on the keypad.
func (f *shFix) typeRow(label, pin string) {
	f.t.Helper()
	var row *widget.Button
	shWalk(f.w.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && strings.HasPrefix(b.Text, label+"  ") && row == nil {
			row = b
		}
	})
	require.NotNil(f.t, row, "no entry %q; texts: %s", label, f.text())
	f.tap(row.Text)
	for _, r := range pin {
		f.tap(string(r))
	}
}

// newPIN types pin twice, then Enregistrer.
func (f *shFix) newPIN(pin, again string) {
	f.t.Helper()
	f.typeRow("Nouveau code", pin)
	f.typeRow("Nouveau code (encore)", again)
	f.tap("Enregistrer")
}

// The technician changes the staff's PIN and their own from the PIN view,
// each typed twice (two entries that differ, or a PIN too short, are
// refused with the reason, and nothing changes), and revokes the staff's
// after a second tap; each change is an event with the role, never the
// PIN.
func TestPINViewTechnicianChangesAndRevokes(t *testing.T) {
	ctx := context.Background()
	f := newShFix(t, true)
	f.open(ui.French)
	f.pin(shTechPIN)
	f.tap("Codes d’accès")
	require.Equal(t, "pins", f.sh.Current())
	f.golden("maint-pins.png")

	f.tap("Code personnel")
	f.newPIN("86420", "86420")
	assert.Contains(t, f.text(), "Le nouveau code doit avoir de 6 à 10 chiffres.")
	f.newPIN("864200", "864201")
	assert.Contains(t, f.text(), "Les deux saisies diffèrent.")
	assert.Empty(t, f.events(store.EventPINSet)[2:], "nothing changed")
	f.newPIN("864200", "864200")
	assert.Contains(t, f.text(), "Code personnel enregistré.")
	s, err := f.o.Login(ctx, "864200")
	require.NoError(t, err)
	assert.Equal(t, kiosk.RoleStaff, s.Role())
	require.NoError(t, f.o.Logout(ctx, s, "done"))

	f.tap("Code technicien")
	assert.Nil(t, f.button("Révoquer le code personnel"), "the technician's PIN is changed, never revoked")
	f.newPIN("8642000000", "8642000000")
	assert.Contains(t, f.text(), "Code technicien enregistré.")

	f.tap("Code personnel")
	f.tap("Révoquer le code personnel")
	assert.Empty(t, f.events(store.EventPINRevoked), "a second tap confirms")
	f.tap("Confirmer la révocation")
	assert.Contains(t, f.text(), "Code personnel révoqué\u00a0: il n’ouvre plus rien.")
	_, err = f.o.Login(ctx, "864200")
	assert.ErrorIs(t, err, kiosk.ErrPINWrong, "a revoked PIN opens nothing")
	s, err = f.o.Login(ctx, "8642000000")
	require.NoError(t, err)
	assert.Equal(t, kiosk.RoleTechnician, s.Role())

	set := f.events(store.EventPINSet)
	require.Len(t, set, 4)
	assert.Equal(t, "PIN of role staff set by technician", set[2].Detail)
	assert.Equal(t, "PIN of role technician set by technician", set[3].Detail)
	revoked := f.events(store.EventPINRevoked)
	require.Len(t, revoked, 1)
	assert.Equal(t, "PIN of role staff revoked by technician", revoked[0].Detail)
}

// Staff change their own PIN only (the view offers no other), and a new
// PIN that is the technician's is refused without saying whose it is,
// counted as a wrong PIN of the pad.
func TestPINViewStaffChangeTheirOwn(t *testing.T) {
	ctx := context.Background()
	f := newShFix(t, true)
	f.open(ui.English)
	f.pin(shStaffPIN)
	f.tap("PINs")
	require.Equal(t, "pins", f.sh.Current())
	assert.Nil(t, f.button("Technician PIN"), "staff never reach the technician's PIN")
	f.golden("maint-pins-staff-en.png")

	f.typeRow("New PIN", "5555555555")
	f.typeRow("New PIN (again)", "5555555555")
	f.tap("Save")
	assert.Contains(t, f.text(), "Staff PIN saved.")
	s, err := f.o.Login(ctx, "5555555555")
	require.NoError(t, err)
	assert.Equal(t, kiosk.RoleStaff, s.Role())
	require.NoError(t, f.o.Logout(ctx, s, "done"))

	f.typeRow("New PIN", shTechPIN)
	f.typeRow("New PIN (again)", shTechPIN)
	f.tap("Save")
	assert.Contains(t, f.text(), "PIN refused: choose another one, of 6 to 10 digits.")
	assert.NotContains(t, f.text(), "technician")
	assert.Len(t, f.events(store.EventPINWrong), 2, "the change and the refusal each took a try")
}
