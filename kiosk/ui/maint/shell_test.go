package maint

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
)

// The PIN pad: a wrong PIN says the tries left, the third locks the pad
// with the time left, and the lock is in the store: a fresh Access and
// Office on the same store (a restart) show the pad locked at once, for
// the time the store kept (a restart makes it longer, never shorter), and
// refuse even the right PIN; at the lock's end the right PIN opens the
// staff's menu.
func TestShellPINRightWrongAndLockoutSurvivingRestart(t *testing.T) {
	f := newShFix(t, true)
	f.open(ui.French)
	assert.True(t, f.m.Snapshot().Maintenance, "the player is locked out from the PIN pad on")
	assert.Contains(t, f.text(), "Tapez votre code personnel")
	f.golden("maint-pin.png")

	f.pin("999999")
	assert.Contains(t, f.text(), "Code incorrect\u00a0: encore 2\u00a0essais avant le blocage.")
	assert.Nil(t, f.sh.Session())
	f.pin("999999")
	assert.Contains(t, f.text(), "dernier essai")
	f.pin("999999")
	assert.Contains(t, f.text(), "clavier bloqué, réessayez dans 1\u00a0min\u00a000\u00a0s.")
	// The keys the lock ignores look it: greyed, every one.
	for _, k := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "Effacer", "Valider"} {
		assert.True(t, f.button(k).Disabled(), "key %s greyed during the lock", k)
	}
	f.golden("maint-pin-locked.png")
	f.sh.Quit()

	// A restart: the lock is read back from the store.
	f.a = kiosk.NewAccess(f.st, f.clock, shAccessConfig)
	f.o = kiosk.NewOffice(f.m, f.a, kiosk.DefaultOfficeIdle)
	f.clock.Advance(20 * time.Second)
	f.open(ui.French)
	assert.Contains(t, f.text(), "réessayez dans 1\u00a0min\u00a000\u00a0s.")
	_, err := f.o.Login(context.Background(), shStaffPIN)
	require.ErrorIs(t, err, kiosk.ErrPINLocked, "the right PIN is refused while locked")
	assert.NotEmpty(t, f.events("pin_refused"), "a PIN typed while locked is logged")

	f.clock.Advance(61 * time.Second)
	f.sh.Poll(f.clock.Now())
	assert.Contains(t, f.text(), "Le clavier est débloqué.")
	for _, k := range []string{"0", "5", "9", "Effacer", "Valider"} {
		assert.False(t, f.button(k).Disabled(), "key %s back once the lock ends", k)
	}
	f.pin(shStaffPIN)
	require.NotNil(t, f.sh.Session())
	assert.Equal(t, kiosk.RoleStaff, f.sh.Session().Role())
	assert.Contains(t, f.text(), "Maintenance · personnel")
	f.golden("maint-menu.png")
}

// Staff see and open only staff views; a technician's view is neither in
// their menu nor opened by its ID. The technician sees both.
func TestShellStaffCannotReachTechnicianViews(t *testing.T) {
	saved := views
	t.Cleanup(func() { views = saved })
	views = append(append([]View(nil), views...), View{ID: "tech.test", Title: "shell.role.technician", Need: kiosk.RoleTechnician, Order: 99,
		Build: func(*Env, Office) fyne.CanvasObject { return widget.NewLabel("vue technicien") }})

	f := newShFix(t, true)
	f.open(ui.French)
	f.pin(shStaffPIN)
	assert.Nil(t, f.button("technicien"), "not in the staff's menu")
	assert.NotNil(t, f.button("Payer un bon"))
	assert.False(t, f.sh.Show("tech.test"), "nor opened by its ID")
	assert.NotContains(t, f.text(), "vue technicien")
	f.tap("Quitter")

	f.open(ui.French)
	f.pin(shTechPIN)
	assert.Equal(t, kiosk.RoleTechnician, f.sh.Session().Role())
	assert.NotNil(t, f.button("Payer un bon"), "a technician does what staff do")
	f.tap("technicien")
	assert.Equal(t, "tech.test", f.sh.Current())
	assert.Contains(t, f.text(), "vue technicien")
}

// Quitter ends the session, gives the window back to the player's screens
// as they were and lets the player play again; an idle session ends by
// itself (back to the PIN pad), and an idle PIN pad gives the window back.
func TestShellQuitAndIdleLogout(t *testing.T) {
	f := newShFix(t, true)
	f.open(ui.French)
	f.pin(shStaffPIN)
	_, err := f.m.Play(context.Background(), game.Stake050, breakout.Auto)
	require.ErrorIs(t, err, kiosk.ErrMaintenance, "no play during maintenance")
	f.tap("Quitter")
	assert.Same(t, f.player, f.w.Content(), "the player's screens are back as they were")
	assert.False(t, f.m.Snapshot().Maintenance)
	assert.Equal(t, 1, f.closed)
	require.Len(t, f.events("logout"), 1)
	assert.Contains(t, f.events("logout")[0].Detail, "(done)")

	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Payer un bon")
	f.clock.Advance(kiosk.DefaultOfficeIdle - time.Second)
	f.sh.Poll(f.clock.Now())
	require.NotNil(t, f.sh.Session(), "not idle yet")
	f.clock.Advance(time.Second)
	f.sh.Poll(f.clock.Now())
	assert.Nil(t, f.sh.Session(), "idle: logged out")
	assert.Contains(t, f.text(), "Session fermée après inactivité.")
	assert.True(t, f.m.Snapshot().Maintenance, "the PIN pad still keeps the player out")
	require.Len(t, f.events("logout"), 2)
	assert.Contains(t, f.events("logout")[1].Detail, "(idle)")
	f.clock.Advance(kiosk.DefaultOfficeIdle)
	f.sh.Poll(f.clock.Now())
	assert.True(t, f.sh.Closed(), "an idle PIN pad gives the window back")
	assert.Same(t, f.player, f.w.Content())
	assert.False(t, f.m.Snapshot().Maintenance)
}

// A session opened while the store refuses writes (here another process
// holds its write lock; an anchor fault does the same) reads the
// diagnosis only: the menu offers those views alone and says why.
func TestShellDiagnosisSessionShowsOnlyTheDiagnosis(t *testing.T) {
	f := newShFix(t, true)
	db, err := sql.Open("sqlite3", f.st.Path())
	require.NoError(t, err)
	defer db.Close()
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`)
	require.NoError(t, err)
	defer conn.ExecContext(context.Background(), `ROLLBACK`) //nolint:errcheck // the test's end

	f.open(ui.French)
	f.pin(shTechPIN)
	s := f.sh.Session()
	require.NotNil(t, s, "the technician logs in whatever the fault")
	assert.True(t, s.Diagnosis())
	assert.Contains(t, f.text(), "Session de diagnostic")
	for _, label := range []string{"Hors service", "Journal des évènements", "Identité du logiciel", "Périphériques", "Compteurs"} {
		assert.NotNil(t, f.button(label), label)
	}
	for _, label := range []string{"Payer un bon", "Réglages", "Blocs d’unités de jeu", "Codes d’accès"} {
		assert.Nil(t, f.button(label), label)
	}
	assert.False(t, f.sh.Show("pins"), "nor opened by its ID")
	f.golden("maint-diagnosis.png")
}

// shMenu is the shell's menu: its scroller, and its entries' buttons in
// order.
func (f *shFix) shMenu() (*container.Scroll, []*widget.Button) {
	f.t.Helper()
	var menu *container.Scroll
	shWalk(f.w.Content(), func(o fyne.CanvasObject) {
		if s, ok := o.(*container.Scroll); ok && menu == nil {
			shWalk(s.Content, func(o fyne.CanvasObject) {
				if b, ok := o.(*widget.Button); ok && b.Text == "Payer un bon" {
					menu = s
				}
			})
		}
	})
	require.NotNil(f.t, menu, "no menu")
	var entries []*widget.Button
	shWalk(menu.Content, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok {
			entries = append(entries, b)
		}
	})
	return menu, entries
}

// inSight reports whether o shows whole in the scroller s.
func inSight(s *container.Scroll, o fyne.CanvasObject) bool {
	d := fyne.CurrentApp().Driver()
	top := d.AbsolutePositionForObject(o).Y - d.AbsolutePositionForObject(s).Y
	return top >= 0 && top+o.Size().Height <= s.Size().Height+1
}

// A technician's menu starts with the technician's own entries, then the
// staff's; choosing an entry leaves the menu where it was, the entry in
// sight; a view opened by its ID out of sight is brought into it.
func TestShellMenuTechnicianFirstAndChosenInSight(t *testing.T) {
	f := newShFix(t, true)
	f.open(ui.French)
	f.pin(shTechPIN)
	tr := Tr{Lang: ui.French}
	_, entries := f.shMenu()
	var want []string
	for _, need := range []kiosk.Role{kiosk.RoleTechnician, kiosk.RoleStaff} {
		for _, v := range viewsFor(kiosk.RoleTechnician) {
			if v.Need == need {
				want = append(want, tr.T(v.Title))
			}
		}
	}
	var got []string
	for _, b := range entries {
		got = append(got, b.Text)
	}
	assert.Equal(t, want, got, "the technician's entries first")

	menu, entries := f.shMenu()
	menu.ScrollToBottom()
	offset := menu.Offset
	require.Greater(t, offset.Y, float32(0), "the technician's menu is longer than the screen")
	last := entries[len(entries)-1]
	require.True(t, inSight(menu, last))
	test.Tap(last)
	require.NotEmpty(t, f.sh.Current())
	menu, entries = f.shMenu()
	assert.Equal(t, offset, menu.Offset, "the menu stays where it was")
	assert.True(t, inSight(menu, entries[len(entries)-1]), "the entry chosen in sight")
	assert.Equal(t, widget.HighImportance, entries[len(entries)-1].Importance)

	menu.ScrollToTop()
	f.sh.Show(viewsFor(kiosk.RoleStaff)[len(viewsFor(kiosk.RoleStaff))-1].ID)
	menu, entries = f.shMenu()
	assert.True(t, inSight(menu, entries[len(entries)-1]), "a view opened by its ID is brought into sight")
}
