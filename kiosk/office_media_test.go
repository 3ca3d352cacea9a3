package kiosk

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/helper"
	"pharaon/store"
)

// fakeHelper answers the Office as the root helper would, and records
// what it was asked.
type fakeHelper struct {
	t        *testing.T
	f        *fixture
	asked    []string
	files    []helper.File
	kiosk    string
	err      error
	onInstal func()
}

func (h *fakeHelper) Sticks(context.Context) ([]helper.Stick, error) {
	h.asked = append(h.asked, "sticks")
	return []helper.Stick{{Name: "sda1", Updates: []string{"pharaon_2.0.0_amd64.update"}}}, h.err
}

func (h *fakeHelper) Check(_ context.Context, stick, file string) (helper.Update, error) {
	h.asked = append(h.asked, "check "+stick+" "+file)
	return helper.Update{Package: "pharaon", Version: "2.0.0", From: "1.0.0"}, h.err
}

func (h *fakeHelper) Install(_ context.Context, stick, file string, step func(string)) (helper.Update, error) {
	h.asked = append(h.asked, "install "+stick+" "+file)
	if h.onInstal != nil {
		h.onInstal()
	}
	if step != nil {
		step(helper.StepInstalling)
	}
	return helper.Update{Package: "pharaon", Version: "2.0.0", From: "1.0.0", Key: "00112233"}, h.err
}

func (h *fakeHelper) Export(_ context.Context, stick, kiosk string, files []helper.File, _ func(string)) (helper.Exported, error) {
	h.asked = append(h.asked, "export "+stick)
	h.files, h.kiosk = files, kiosk
	return helper.Exported{Folder: "pharaon-x"}, h.err
}

func (h *fakeHelper) Eject(_ context.Context, stick string) error {
	h.asked = append(h.asked, "eject "+stick)
	return h.err
}

func TestStickActionsAreTheTechniciansAndLogged(t *testing.T) {
	f, o := newOffice(t)
	h := &fakeHelper{t: t, f: f}
	o.UseHelper(h)
	staff, err := o.Login(ctx, testStaffPIN)
	require.NoError(t, err)
	_, err = o.Sticks(ctx, staff)
	require.ErrorIs(t, err, ErrNotAllowed)
	_, err = o.InstallUpdate(ctx, staff, "sda1", "x.update", nil)
	require.ErrorIs(t, err, ErrNotAllowed)
	_, err = o.ExportLogs(ctx, staff, "sda1", nil)
	require.ErrorIs(t, err, ErrNotAllowed)
	require.ErrorIs(t, o.EjectStick(ctx, staff, "sda1"), ErrNotAllowed)
	assert.Empty(t, h.asked, "staff reach no helper")

	tech, err := o.Login(ctx, testTechPIN)
	require.NoError(t, err)
	sticks, err := o.Sticks(ctx, tech)
	require.NoError(t, err)
	assert.Equal(t, "sda1", sticks[0].Name)
	u, err := o.CheckUpdate(ctx, tech, "sda1", "pharaon_2.0.0_amd64.update")
	require.NoError(t, err)
	assert.Equal(t, "2.0.0", u.Version)
	require.NoError(t, o.EjectStick(ctx, tech, "sda1"))
	require.Len(t, officeEvents(t, f, "stick_ejected"), 1)

	h.err = &helper.Error{Code: helper.CodeBusy, Detail: "target is busy"}
	require.Error(t, o.EjectStick(ctx, tech, "sda1"))
	failed := officeEvents(t, f, "stick_eject_failed")
	require.Len(t, failed, 1)
	assert.Contains(t, failed[0].Detail, "busy")
}

// An update is asked in the event log before the helper installs it, and
// never with a credit on the kiosk.
func TestInstallUpdateOnlyWhenIdleAndAskedFirst(t *testing.T) {
	f, o := newOffice(t)
	h := &fakeHelper{t: t, f: f}
	o.UseHelper(h)
	tech, err := o.Login(ctx, testTechPIN)
	require.NoError(t, err)

	f.credit(500)
	_, err = o.InstallUpdate(ctx, tech, "sda1", "pharaon_2.0.0_amd64.update", nil)
	require.ErrorIs(t, err, ErrBusy)
	assert.Empty(t, h.asked, "nothing installed with a credit on the kiosk")
	require.Len(t, officeEvents(t, f, "update_refused"), 1)
	f.credit(-500)

	asked := 0
	h.onInstal = func() { asked = len(officeEvents(t, f, "update_asked")) }
	var steps []string
	u, err := o.InstallUpdate(ctx, tech, "sda1", "pharaon_2.0.0_amd64.update", func(s string) { steps = append(steps, s) })
	require.NoError(t, err)
	assert.Equal(t, "2.0.0", u.Version)
	assert.Equal(t, 1, asked, "the request is in the event log when the helper starts")
	assert.Equal(t, []string{helper.StepInstalling}, steps)
	done := officeEvents(t, f, "update_installed")
	require.Len(t, done, 1)
	assert.Contains(t, done[0].Detail, "pharaon 2.0.0 installed by technician")
	assert.Contains(t, done[0].Detail, "before: 1.0.0")
}

func TestExportLogsCarriesTheEventLogAndTheDiagnostic(t *testing.T) {
	f, o := newOffice(t)
	h := &fakeHelper{t: t, f: f}
	o.UseHelper(h)
	tech, err := o.Login(ctx, testTechPIN)
	require.NoError(t, err)
	_, err = f.st.Log(ctx, store.Event{Level: store.LevelWarning, Source: "printer", Code: "paper_low", Detail: "paper, low; \"soon\""})
	require.NoError(t, err)

	ex, err := o.ExportLogs(ctx, tech, "sda1", nil)
	require.NoError(t, err)
	assert.Equal(t, "pharaon-x", ex.Folder)
	assert.Equal(t, f.m.KioskID(), h.kiosk)
	require.Len(t, h.files, 2)
	assert.Equal(t, ExportEvents, h.files[0].Name)
	rows, err := csv.NewReader(bytes.NewReader(h.files[0].Data)).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "time", "level", "source", "code", "detail"}, rows[0])
	var codes []string
	for _, r := range rows[1:] {
		codes = append(codes, r[4])
		if r[4] == "paper_low" {
			assert.Equal(t, "paper, low; \"soon\"", r[5])
		}
	}
	assert.Contains(t, codes, "paper_low")
	assert.Equal(t, "logs_export", codes[len(codes)-1], "oldest first, the export itself last")
	diag := string(h.files[1].Data)
	assert.Equal(t, ExportDiagnostic, h.files[1].Name)
	for _, want := range []string{"[software]", "version: " + Version, "[devices]", "[meters]", "credit: "} {
		assert.Contains(t, diag, want)
	}
}

func TestStickActionsWithoutAHelper(t *testing.T) {
	_, o := newOffice(t)
	tech, err := o.Login(ctx, testTechPIN)
	require.NoError(t, err)
	_, err = o.Sticks(ctx, tech)
	require.ErrorIs(t, err, helper.ErrUnavailable)
	assert.True(t, IsUnavailable(err))
	_, err = o.InstallUpdate(ctx, tech, "sda1", "x.update", nil)
	require.ErrorIs(t, err, helper.ErrUnavailable)
	_, err = o.ExportLogs(ctx, tech, "sda1", nil)
	require.ErrorIs(t, err, helper.ErrUnavailable)
	require.ErrorIs(t, o.EjectStick(ctx, tech, "sda1"), helper.ErrUnavailable)
}

// The software identity says how the last update asked from the screen
// ended: installed (said after it, or the kiosk runs another version since:
// the package restarted it before it could say), not installed, or asked
// with the version unchanged.
func TestIdentityTellsTheLastUpdate(t *testing.T) {
	f, o := newOffice(t)
	h := &fakeHelper{t: t, f: f}
	o.UseHelper(h)
	tech, err := o.Login(ctx, testTechPIN)
	require.NoError(t, err)
	last := func() UpdateRecord {
		t.Helper()
		id, err := o.Identity(ctx, tech)
		require.NoError(t, err)
		return id.LastUpdate
	}
	assert.Equal(t, UpdateRecord{}, last(), "none asked")

	_, err = o.InstallUpdate(ctx, tech, "sda1", "pharaon_2.0.0_amd64.update", nil)
	require.NoError(t, err)
	r := last()
	assert.Equal(t, UpdateInstalled, r.Outcome)
	assert.Equal(t, "pharaon_2.0.0_amd64.update", r.File)
	assert.Equal(t, Version, r.Before)

	h.err = &helper.Error{Code: "rolledback", Detail: "dpkg: exit status 1"}
	_, err = o.InstallUpdate(ctx, tech, "sda1", "pharaon_2.0.0_amd64.update", nil)
	require.Error(t, err)
	assert.Equal(t, UpdateNotInstalled, last().Outcome)
	_, err = o.CheckUpdate(ctx, tech, "sda1", "other.update")
	require.Error(t, err)
	assert.Equal(t, UpdateNotInstalled, last().Outcome, "a check after it is no install's outcome")

	// The kiosk restarted in the middle of the install: the request alone
	// is in the log. Another version runs now: installed.
	asked := func(running string) {
		_, err := f.st.Log(ctx, store.Event{Level: store.LevelWarning, Source: "maintenance", Code: "update_asked",
			Detail: fmt.Sprintf(updateAskedFormat, "mises à jour/pharaon_3.0.0_amd64.update", "sdb1", "technician", running)})
		require.NoError(t, err)
	}
	asked("0.9.0+git1.abc")
	r = last()
	assert.Equal(t, UpdateInstalled, r.Outcome)
	assert.Equal(t, "mises à jour/pharaon_3.0.0_amd64.update", r.File)
	assert.Equal(t, "0.9.0+git1.abc", r.Before)
	asked(Version)
	assert.Equal(t, UpdateUnknown, last().Outcome, "the same version runs: not installed")
}
