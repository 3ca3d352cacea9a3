package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game/block"
	"pharaon/kiosk/helper"
	"pharaon/kiosk/update"
)

const (
	testSlotA = "6f1c2a9e-3b7d-4e0a-9c59-0d5e1b7a4ca1"
	testSlotB = "6f1c2a9e-3b7d-4e0a-9c59-0d5e1b7a4cb1"
)

// abMachine is an A/B kiosk image's machine for the commands: its slots
// file, kernel command line, ESP, slot partitions and EFI variables.
type abMachine struct {
	dir, esp, keys string
	dev            map[string]string
	priv           ed25519.PrivateKey
}

func newABMachine(t *testing.T, running string, entries ...string) *abMachine {
	t.Helper()
	m := &abMachine{dir: t.TempDir(), dev: map[string]string{}}
	m.esp = filepath.Join(m.dir, "efi")
	require.NoError(t, os.MkdirAll(filepath.Join(m.esp, "loader", "entries"), 0o700))
	for i := 0; i+1 < len(entries); i += 2 {
		require.NoError(t, os.WriteFile(filepath.Join(m.esp, "loader", "entries", entries[i]), []byte("version "+entries[i+1]+"\n"), 0o600))
	}
	for _, s := range []string{"a", "b"} {
		m.dev[s] = filepath.Join(m.dir, "root-"+s)
		require.NoError(t, os.WriteFile(m.dev[s], make([]byte, 1<<20), 0o600))
	}
	require.NoError(t, os.WriteFile(filepath.Join(m.dir, "slots.conf"), []byte("esp "+m.esp+"\ntries 3\noptions rw quiet\nslot a "+testSlotA+"\nslot b "+testSlotB+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(m.dir, "cmdline"), []byte("root=PARTUUID=x rw pharaon.slot="+running+"\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(m.dir, "efivars"), 0o755))
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	m.priv = priv
	m.keys = filepath.Join(m.dir, "update-keys")
	require.NoError(t, os.MkdirAll(m.keys, 0o755))
	pem, err := block.MarshalPublicKey(pub)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(m.keys, "update.pub"), pem, 0o644))

	oldSlots, oldCmdline, oldVars, oldDev, oldEuid, oldStatus := slotsFile, procCmdline, efiVarsDir, slotDevice, geteuid, statusFile
	t.Cleanup(func() {
		slotsFile, procCmdline, efiVarsDir, slotDevice, geteuid, statusFile = oldSlots, oldCmdline, oldVars, oldDev, oldEuid, oldStatus
	})
	slotsFile, procCmdline, efiVarsDir = filepath.Join(m.dir, "slots.conf"), filepath.Join(m.dir, "cmdline"), filepath.Join(m.dir, "efivars")
	// Never the machine's own status (it wrote /run/pharaon-system.json).
	statusFile = filepath.Join(m.dir, "pharaon-system.json")
	slotDevice = func(_ update.Slots, slot string) string { return m.dev[slot] }
	geteuid = func() int { return 0 }
	return m
}

// bundle writes a system bundle of version to a file.
func (m *abMachine) bundle(t *testing.T, version string) string {
	t.Helper()
	for n, b := range map[string]string{"root": "root " + version, "k": "kernel", "i": "initrd"} {
		require.NoError(t, os.WriteFile(filepath.Join(m.dir, n), []byte(b), 0o600))
	}
	var payload bytes.Buffer
	require.NoError(t, update.WriteSystemPayload(&payload, filepath.Join(m.dir, "root"), filepath.Join(m.dir, "k"), filepath.Join(m.dir, "i"), nil))
	var out bytes.Buffer
	_, err := update.Write(&out, update.Manifest{Kind: update.KindSystem, Package: "pharaon", Version: version, Arch: "amd64",
		Payload: "system.tar.gz"}, bytes.NewReader(payload.Bytes()), m.priv)
	require.NoError(t, err)
	p := filepath.Join(m.dir, "system-"+version+".update")
	require.NoError(t, os.WriteFile(p, out.Bytes(), 0o644))
	return p
}

func (m *abMachine) entries(t *testing.T) []string {
	es, err := update.ReadEntries(m.esp)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

// setCountPath sets systemd-boot's LoaderBootCountPath as efivarfs shows it.
func (m *abMachine) setCountPath(t *testing.T, path string) {
	b := []byte{7, 0, 0, 0}
	for _, c := range utf16.Encode([]rune(path + "\x00")) {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	require.NoError(t, os.WriteFile(filepath.Join(m.dir, "efivars", "LoaderBootCountPath-"+loaderVar), b, 0o644))
}

func (m *abMachine) run(t *testing.T, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	err := run(context.Background(), args, osEnv{}, &out, &errb, time.Now())
	return exitCode(err), out.String(), errb.String()
}

// pharaon update of a system bundle writes it into the other slot with an
// entry on trial; an older one, or one while the running system is still
// on trial, is refused and changes nothing.
func TestUpdateCommandWritesASystemIntoTheOtherSlot(t *testing.T) {
	m := newABMachine(t, "a", "pharaon-0001-a.conf", "1.0")
	good := m.bundle(t, "1.1")
	status, out, stderr := m.run(t, "update", "-update-keys", m.keys, "-state", filepath.Join(m.dir, "state"), "-check", good)
	require.Equal(t, exitOK, status, stderr)
	assert.Contains(t, out, "système 1.1 vérifié")
	assert.Equal(t, []string{"pharaon-0001-a.conf"}, m.entries(t))

	status, _, stderr = m.run(t, "update", "-update-keys", m.keys, "-state", filepath.Join(m.dir, "state"), "-downgrade", good)
	assert.Equal(t, exitUsage, status, stderr)

	status, out, stderr = m.run(t, "update", "-update-keys", m.keys, "-state", filepath.Join(m.dir, "state"), good)
	require.Equal(t, exitOK, status, stderr)
	assert.Contains(t, out, "système 1.1 écrit dans l’emplacement B (en service\u00a0: 1.0, emplacement A)")
	assert.Contains(t, out, "en 3 démarrages")
	assert.Equal(t, []string{"pharaon-0002-b+3.conf", "pharaon-0001-a.conf"}, m.entries(t))
	// The kiosk learns of it from the status it reads, and restarts into
	// it when idle.
	assert.Contains(t, out, "La borne y redémarre d’elle-même à son premier moment libre")
	st, ok, err := update.ReadBootStatus(statusFile)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "1.1", st.PendingVersion)
	assert.Equal(t, "pharaon-0002-b+3.conf", st.PendingEntry)
	assert.Equal(t, "a", st.Slot)
	root, err := os.ReadFile(m.dev["b"])
	require.NoError(t, err)
	assert.Equal(t, "root 1.1", string(root[:8]))

	// Booted on trial into b: no update before its confirmation.
	require.NoError(t, os.Rename(filepath.Join(m.esp, "loader", "entries", "pharaon-0002-b+3.conf"), filepath.Join(m.esp, "loader", "entries", "pharaon-0002-b+2-1.conf")))
	require.NoError(t, os.WriteFile(procCmdline, []byte("pharaon.slot=b"), 0o644))
	status, _, stderr = m.run(t, "update", "-update-keys", m.keys, "-state", filepath.Join(m.dir, "state"), m.bundle(t, "1.2"))
	assert.Equal(t, exitFailure, status)
	assert.Contains(t, stderr, "le système en service est encore à l’essai")
	assert.Equal(t, []string{"pharaon-0002-b+2-1.conf", "pharaon-0001-a.conf"}, m.entries(t))
}

// pharaon boot-check: a boot on trial is confirmed once the kiosk is
// active; one that does not become active in time fails (its unit then
// restarts the machine); a boot not on trial has nothing to do.
func TestBootCheck(t *testing.T) {
	m := newABMachine(t, "b", "pharaon-0002-b+2-1.conf", "1.1", "pharaon-0001-a.conf", "1.0")
	oldActive := kioskActive
	t.Cleanup(func() { kioskActive = oldActive })

	kioskActive = func(context.Context, string) bool { t.Fatal("asked without a boot on trial"); return false }
	status, out, _ := m.run(t, "boot-check")
	assert.Equal(t, exitOK, status)
	assert.Contains(t, out, "démarrage d’un système confirmé")

	m.setCountPath(t, `\loader\entries\pharaon-0002-b+2-1.conf`)
	kioskActive = func(context.Context, string) bool { return false }
	status, _, stderr := m.run(t, "boot-check", "-within", "50ms")
	assert.Equal(t, exitFailure, status)
	assert.Contains(t, stderr, "système non confirmé, à redémarrer pour l’essai suivant")
	assert.Equal(t, []string{"pharaon-0002-b+2-1.conf", "pharaon-0001-a.conf"}, m.entries(t), "not confirmed")

	asked := 0
	kioskActive = func(context.Context, string) bool { asked++; return asked > 1 }
	status, out, stderr = m.run(t, "boot-check", "-within", "1m")
	require.Equal(t, exitOK, status, stderr)
	assert.Contains(t, out, "système 1.1 de l’emplacement B confirmé")
	assert.Equal(t, []string{"pharaon-0002-b.conf", "pharaon-0001-a.conf"}, m.entries(t))
	st, ok, err := update.ReadBootStatus(statusFile)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, update.BootStatus{Slot: "b", Version: "1.1", Entry: "pharaon-0002-b.conf", Confirmed: true, Other: "1.0"}, st)
}

// After a new system used its tries, the firmware starts the slot before:
// boot-check says so, and leaves it for the kiosk to show.
func TestBootCheckTellsAReturnFromAFailedSystem(t *testing.T) {
	m := newABMachine(t, "b", "pharaon-0003-a+0-2.conf", "1.2", "pharaon-0002-b.conf", "1.1")
	status, out, stderr := m.run(t, "boot-check")
	require.Equal(t, exitOK, status, stderr)
	assert.Contains(t, out, "le système 1.2 n’a pas atteint «\u00a0borne prête\u00a0» (2 essais, pharaon-0003-a+0-2.conf)\u00a0; la borne est revenue au système 1.1 de l’emplacement B")
	st, ok, err := update.ReadBootStatus(statusFile)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, update.BootStatus{Slot: "b", Version: "1.1", Entry: "pharaon-0002-b.conf", Confirmed: true,
		FailedVersion: "1.2", FailedEntry: "pharaon-0003-a+0-2.conf", FailedTries: 2}, st)
	fi, err := os.Stat(statusFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "the kiosk reads it")
}

// From the maintenance screen, the helper writes a system bundle into the
// other slot and restarts the machine into it; a check restarts nothing.
// helperOf is the helper's installer on m, the machine's restarts
// counted in restarts instead of made.
func helperOf(t *testing.T, m *abMachine, restarts *int, log *bytes.Buffer) bundleInstaller {
	old := restartMachine
	t.Cleanup(func() { restartMachine = old })
	restartMachine = func(context.Context) error { *restarts++; return nil }
	return bundleInstaller{keys: m.keys, state: filepath.Join(m.dir, "state"), log: log}
}

func TestHelperInstallsASystemAndRestarts(t *testing.T) {
	m := newABMachine(t, "a", "pharaon-0001-a.conf", "1.0")
	restarts := 0
	var log bytes.Buffer
	b := helperOf(t, m, &restarts, &log)
	bundle := m.bundle(t, "1.1")

	u, err := b.Install(context.Background(), bundle, true)
	require.NoError(t, err)
	assert.Equal(t, "1.1", u.Version)
	assert.Equal(t, "1.0", u.From)
	assert.Zero(t, restarts)
	assert.Equal(t, []string{"pharaon-0001-a.conf"}, m.entries(t))

	u, err = b.Install(context.Background(), bundle, false)
	require.NoError(t, err)
	assert.Equal(t, 1, restarts)
	assert.Equal(t, []string{"pharaon-0002-b+3.conf", "pharaon-0001-a.conf"}, m.entries(t))
	assert.Contains(t, log.String(), "system 1.1 written into slot b")

	_, err = b.Install(context.Background(), m.bundle(t, "0.9"), false)
	require.ErrorIs(t, err, update.ErrDowngrade)
	assert.Equal(t, "downgrade", b.Reason(err))
	assert.Equal(t, 1, restarts)
	assert.Equal(t, []string{"pharaon-0002-b+3.conf", "pharaon-0001-a.conf"}, m.entries(t))
}

// Asked by the idle kiosk, the helper restarts the machine only when a
// system waits in the other slot, as the slots' entries say.
func TestHelperSwitchesOnlyIntoAWaitingSystem(t *testing.T) {
	m := newABMachine(t, "a", "pharaon-0001-a.conf", "1.0")
	restarts := 0
	var log bytes.Buffer
	b := helperOf(t, m, &restarts, &log)

	_, err := b.Switch(context.Background())
	assert.Equal(t, helper.CodeNoSystem, helper.CodeOf(err))
	assert.Zero(t, restarts)

	status, _, stderr := m.run(t, "update", "-update-keys", m.keys, "-state", filepath.Join(m.dir, "state"), m.bundle(t, "1.1"))
	require.Equal(t, exitOK, status, stderr)
	assert.Zero(t, restarts, "pharaon update leaves the restart to the kiosk")
	u, err := b.Switch(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "1.1", u.Version)
	assert.Equal(t, "1.0", u.From)
	assert.Equal(t, 1, restarts)
	assert.Contains(t, log.String(), "restarting into system 1.1 of slot b (pharaon-0002-b+3.conf)")

	// Started, a try used, and back on a by hand: still waiting. Once it
	// used its tries, no more.
	entries := filepath.Join(m.esp, "loader", "entries")
	require.NoError(t, os.Rename(filepath.Join(entries, "pharaon-0002-b+3.conf"), filepath.Join(entries, "pharaon-0002-b+0-3.conf")))
	_, err = b.Switch(context.Background())
	assert.Equal(t, helper.CodeNoSystem, helper.CodeOf(err))
	assert.Equal(t, 1, restarts)
}
