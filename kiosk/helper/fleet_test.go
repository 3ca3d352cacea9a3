package helper

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/update"
)

// A bundle the fleet sent is taken from the spool directory only, by a
// plain name, a regular file; it goes through the installer's checks as a
// stick's bundle does.
func TestFleetBundleFromTheSpoolOnly(t *testing.T) {
	k := newKit(t)
	rep, _ := k.do(Request{Op: OpFleetCheck, File: "b.update"})
	assert.Equal(t, CodeRequest, rep.Code, "no spool: no fleet bundle")

	k.srv.Spool = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(k.srv.Spool, "b.update"), []byte("bundle"), 0o644))
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("root's"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(k.srv.Spool, "link.update")))
	k.put(t, "s.update", "on the stick")

	for _, name := range []string{"", ".", "..", "../b.update", "/etc/passwd", "link.update", "missing.update"} {
		rep, _ := k.do(Request{Op: OpFleetInstall, File: name})
		assert.NotEmpty(t, rep.Code, "%q", name)
	}
	rep, _ = k.do(Request{Op: OpFleetInstall, Stick: "sda1", File: "s.update"})
	assert.Equal(t, CodeNoFile, rep.Code, "a stick's bundle is not the spool's")
	assert.Empty(t, k.inst.got, "nothing reached the installer")

	rep, steps := k.do(Request{Op: OpFleetCheck, File: "b.update"})
	require.Empty(t, rep.Code, rep.Detail)
	assert.Equal(t, []string{StepVerifying}, steps)
	rep, steps = k.do(Request{Op: OpFleetInstall, File: "b.update"})
	require.Empty(t, rep.Code, rep.Detail)
	assert.Equal(t, "1.4.0", rep.Update.Version)
	assert.Equal(t, []string{StepVerifying, StepInstalling}, steps)
	assert.Equal(t, []string{"b.update check=true", "b.update check=false"}, k.inst.got)

	k.inst.err = fmt.Errorf("bundle: %w", update.ErrDowngrade)
	rep, _ = k.do(Request{Op: OpFleetInstall, File: "b.update"})
	assert.Equal(t, "downgrade", rep.Code)
}
