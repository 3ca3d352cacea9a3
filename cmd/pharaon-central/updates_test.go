package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/fleet"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// bundleFile writes an update bundle of version, signed by key, and
// returns its path.
func bundleFile(t *testing.T, key ed25519.PrivateKey, version string, rollback bool) string {
	t.Helper()
	var buf bytes.Buffer
	payload := []byte("pharaon " + version + " amd64\n/usr/bin/pharaon\n")
	_, err := update.Write(&buf, update.Manifest{Kind: update.KindDeb, Package: update.Package, Version: version, Arch: "amd64",
		Rollback: rollback, Payload: "pharaon_" + version + "_amd64.deb", Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		bytes.NewReader(payload), key)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "pharaon_"+version+".update")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o600))
	return p
}

// failingInstaller is a kiosk's installer that fails every install, its
// version unchanged, as kiosk/update does when the new package fails.
type failingInstaller struct {
	mu      sync.Mutex
	version string
}

func (i *failingInstaller) Version(context.Context) (string, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.version, nil
}

func (i *failingInstaller) Check(context.Context, string) (update.Result, error) {
	return update.Result{}, nil
}

func (i *failingInstaller) Install(context.Context, string) (update.Result, error) {
	return update.Result{}, fmt.Errorf("dpkg: postinst failed: %w", update.ErrRolledBack)
}

type idleMachine struct{}

func (idleMachine) HoldIdle(string) (func(), bool) { return func() {}, true }
func (idleMachine) InService() bool                { return true }

// The operator uploads a bundle, starts a staged rollout to a group, sees
// it stop by itself when its kiosk fails, reads who did what, and cannot
// start what makes no sense.
func TestCentralUpdates(t *testing.T) {
	c := startCentre(t)
	now := time.Now()
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{4}, ed25519.SeedSize))
	for _, id := range []string{"N1", "N2", "N3", "N4"} {
		c.kiosk(t, id, "nord")
	}

	out, err := c.cmd(t, now, "updates", "upload", "-file", bundleFile(t, key, "1.1.0", false))
	require.NoError(t, err, out)
	assert.Contains(t, out, "DÉPOSÉ / UPLOADED\u00a0: update-1.1.0-")
	notBundle := filepath.Join(t.TempDir(), "x.update")
	require.NoError(t, os.WriteFile(notBundle, []byte("not a bundle"), 0o600))
	out, err = c.cmd(t, now, "updates", "upload", "-file", notBundle)
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "REFUSÉ / REFUSED")

	_, err = c.cmd(t, now, "updates", "start", "-bundle", "1.1.0", "-group", "nord", "-percent", "50")
	assert.ErrorIs(t, err, errUsage, "no -by")
	_, err = c.cmd(t, now, "updates", "start", "-bundle", "1.1.0", "-to", "N1", "-percent", "50", "-by", "alice")
	assert.ErrorIs(t, err, errUsage, "a percentage of a kiosk")
	out, err = c.cmd(t, now, "updates", "start", "-bundle", "9.9.9", "-to", "N1", "-by", "alice")
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "no such bundle uploaded")

	out, err = c.cmd(t, now, "updates", "start", "-bundle", "1.1.0", "-group", "nord", "-percent", "50", "-max-failures", "20", "-by", "alice")
	require.NoError(t, err, out)
	assert.Contains(t, out, "2 bornes / kiosks")
	id := strings.Fields(strings.TrimPrefix(out, "DÉPLOIEMENT / ROLLOUT "))[0]
	rs, err := fleet.NewRollouts(c.js(t), nil).Get(context.Background(), strings.TrimSuffix(id, "\u00a0:"))
	require.NoError(t, err)
	id = rs.ID

	// The first target fails: past 20 %, the rollout stops by itself.
	target := rs.Targets[0]
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	f, err := fleet.NewUpdateFollower(c.kiosk(t, target, "nord"), &failingInstaller{version: "1.0.0"}, idleMachine{}, st, t.TempDir())
	require.NoError(t, err)
	f.Poll = 20 * time.Millisecond
	reports := make(chan fleet.UpdateReport, 4)
	f.OnReport = func(r fleet.UpdateReport) { reports <- r }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx) }() //nolint:errcheck // ends with ctx
	defer func() { cancel(); <-done }()
	for r := range reports {
		if r.Outcome == fleet.UpdateFailed {
			break
		}
	}
	// serve's watch stops it, before anyone asks.
	require.Eventually(t, func() bool {
		r, err := fleet.NewRollouts(c.js(t), nil).Get(context.Background(), id)
		return err == nil && r.State == fleet.RolloutHalted
	}, 30*time.Second, 20*time.Millisecond)

	out, err = c.cmd(t, now, "updates", "status", "-rollout", id)
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "ARRÊTÉ SEUL / HALTED")
	assert.Contains(t, out, "alice started")
	assert.Contains(t, out, "centre halted\u00a0: 1 of the 1 kiosks that took it failed")
	assert.Regexp(t, target+`\s+ÉCHEC / FAILED \(rolledback\)\s+1\.0\.0\s+true`, out, "the kiosk failed runs its version, in service")
	out, err = c.cmd(t, now, "updates", "stop", "-rollout", id, "-by", "bob")
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "not running")

	out, err = c.cmd(t, now, "updates", "rollback", "-rollout", id, "-bundle", "1.1.0", "-by", "bob")
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, fleet.ErrNotRollback.Error())

	// Another rollout, stopped by the operator.
	out, err = c.cmd(t, now.Add(time.Second), "updates", "start", "-bundle", "1.1.0", "-to", "N4", "-by", "alice")
	require.NoError(t, err, out)
	rs2, err := fleet.NewRollouts(c.js(t), nil).List(context.Background())
	require.NoError(t, err)
	require.Len(t, rs2, 2)
	out, err = c.cmd(t, now, "updates", "stop", "-rollout", rs2[0].ID, "-by", "bob", "-why", "a test")
	require.NoError(t, err, out)
	assert.Contains(t, out, "ARRÊTÉ / STOPPED\u00a0: "+rs2[0].ID+" par / by bob")

	out, err = c.cmd(t, now, "updates", "list")
	require.NoError(t, err, out)
	assert.Contains(t, out, "ARRÊTÉ SEUL / HALTED")
	assert.Contains(t, out, "arrêté / stopped")
	assert.False(t, errors.Is(err, errUsage))
}
