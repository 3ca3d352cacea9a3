package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"pharaon/kiosk/helper"
	"pharaon/kiosk/update"
)

type fakeFleetHelper struct {
	file string
	err  error
}

func (f *fakeFleetHelper) FleetCheck(_ context.Context, file string) (helper.Update, error) {
	f.file = file
	return helper.Update{Package: "pharaon", Version: "1.4.0", From: "1.3.0"}, f.err
}

func (f *fakeFleetHelper) FleetInstall(ctx context.Context, file string) (helper.Update, error) {
	return f.FleetCheck(ctx, file)
}

// The helper's refusals come back to the fleet's follower as the update's
// own errors (a refusal is told from a failure by update.Reason), and the
// bundle is named to the helper by its name in the spool only.
func TestHelperUpdatesGivesTheUpdatesReasons(t *testing.T) {
	h := &fakeFleetHelper{}
	u := helperUpdates{c: h}
	res, err := u.Install(context.Background(), "/var/lib/pharaon/fleet-updates/.fleet-update-1")
	assert.NoError(t, err)
	assert.Equal(t, ".fleet-update-1", h.file)
	assert.Equal(t, "1.4.0", res.Manifest.Version)
	assert.Equal(t, "1.3.0", res.From)
	for code, want := range map[string]error{"downgrade": update.ErrDowngrade, "untrusted": update.ErrUntrusted, "rolledback": update.ErrRolledBack} {
		h.err = &helper.Error{Code: code, Detail: "x"}
		_, err := u.Check(context.Background(), "b")
		assert.ErrorIs(t, err, want, code)
		assert.Equal(t, code, update.Reason(err))
	}
	h.err = &helper.Error{Code: helper.CodeNoFile}
	_, err = u.Install(context.Background(), "b")
	assert.Equal(t, "", update.Reason(err), "not an update's reason: a failure")
}
