package maint

import (
	"context"
	"errors"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
)

// faultOffice is a back office whose kiosk is out of service until a
// clear passes.
type faultOffice struct {
	fault    kiosk.Fault
	clearErr error
	clears   int
}

func (o *faultOffice) Fault(context.Context, *kiosk.Session) (kiosk.Fault, error) {
	return o.fault, nil
}
func (o *faultOffice) ClearFault(context.Context, *kiosk.Session) error {
	o.clears++
	if o.clearErr != nil {
		return o.clearErr
	}
	o.fault = kiosk.Fault{}
	return nil
}

// The technician's fault view shows the fault and its detail; its clear
// says when the checks still fail (the fault stays shown) and when the
// kiosk is back in service. Staff never see it.
func TestFaultViewShowsAndClears(t *testing.T) {
	for _, v := range viewsFor(kiosk.RoleStaff) {
		assert.NotEqual(t, "fault", v.ID, "staff reach the fault view")
	}
	a := test.NewTempApp(t)
	a.Settings().SetTheme(art.Theme())
	var v View
	for _, x := range viewsFor(kiosk.RoleTechnician) {
		if x.ID == "fault" {
			v = x
		}
	}
	require.Equal(t, "fault", v.ID)
	o := &faultOffice{fault: kiosk.Fault{Code: kiosk.FaultSoftware, Detail: "/usr/bin/pharaon: SHA-256 0123, the manifest says 4567"},
		clearErr: errors.New("still different")}
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	env := &Env{Ctx: context.Background(), Session: &kiosk.Session{},
		Tr: Tr{Lang: ui.French}, Win: w, Loc: time.UTC, Now: time.Now,
		Go: func(f func()) { f() }, Do: func(f func()) { f() }, Touch: func() {}, Refresh: func() {}}
	w.SetContent(buildFault(env, o))
	w.Resize(fyne.NewSize(1280, 800))
	assert.True(t, blkHasText(w, "Défaut\u00a0: Le logiciel n’est pas celui du paquet signé installé\u00a0: borne hors service"), "%q", blkTexts(w))
	assert.True(t, blkHasText(w, "Détail technique\u00a0: software — /usr/bin/pharaon: SHA-256 0123, the manifest says 4567"), "%q", blkTexts(w))
	assert.NotContains(t, blkTexts(w), kiosk.FaultSoftware, "the code is not the sentence")

	test.Tap(blkButton(t, w, "Revérifier et remettre en service"))
	assert.Equal(t, 1, o.clears)
	assert.True(t, blkHasText(w, "Les vérifications échouent encore\u00a0: la borne reste hors service."))
	assert.True(t, blkHasText(w, "Détail technique\u00a0: software — /usr/bin/pharaon: SHA-256 0123, the manifest says 4567"), "the fault still shown")

	o.clearErr = nil
	test.Tap(blkButton(t, w, "Revérifier et remettre en service"))
	assert.Equal(t, 2, o.clears)
	assert.True(t, blkHasText(w, "Vérifications réussies\u00a0: la borne est de nouveau en service."))
	assert.True(t, blkHasText(w, "La borne est en service\u00a0: aucun défaut."))
	assert.True(t, blkButton(t, w, "Revérifier et remettre en service").Disabled())
}
