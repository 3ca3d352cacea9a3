package maint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/helper"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/update"
)

// usbSys is the helper's machine in these tests: the sticks are
// directories of a media directory, "mounted" while listed.
type usbSys struct {
	mu      sync.Mutex
	media   string
	mounted map[string]bool
	calls   []string
	busy    bool
}

func (s *usbSys) Mounts() ([]helper.Mount, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []helper.Mount
	for name, on := range s.mounted {
		if on {
			out = append(out, helper.Mount{Dir: filepath.Join(s.media, name), Source: "/dev/" + name, FSType: "vfat"})
		}
	}
	return out, nil
}

func (s *usbSys) Remount(_ context.Context, dir string, rw bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, fmt.Sprintf("remount %s %v", filepath.Base(dir), rw))
	return nil
}

func (s *usbSys) Unmount(_ context.Context, dir string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return errors.New("umount: " + dir + ": target is busy.")
	}
	s.mounted[filepath.Base(dir)] = false
	s.calls = append(s.calls, "unmount "+filepath.Base(dir))
	return nil
}

func (s *usbSys) Journal(_ context.Context, w io.Writer) error {
	_, err := io.WriteString(w, "déc. 03 pharaon[612]: ready\n")
	return err
}

func (s *usbSys) About(_ context.Context, w io.Writer) error {
	_, err := io.WriteString(w, "Debian GNU/Linux 12 (bookworm)\n")
	return err
}

func (s *usbSys) Free(string) (int64, error) { return 3_700_000_000, nil }

// usbInstaller takes good.update and refuses the others as the updater
// would.
type usbInstaller struct {
	mu        sync.Mutex
	installed int
}

func (i *usbInstaller) Install(_ context.Context, bundle string, check bool) (helper.Update, error) {
	u := helper.Update{Package: "pharaon", Version: "1.4.0", From: "1.3.0", Key: "7f3a9c21e0b4d6f8"}
	switch filepath.Base(bundle) {
	case "good.update":
	case "old.update":
		return helper.Update{}, fmt.Errorf("bundle: 1.2.0: %w", update.ErrDowngrade)
	default:
		return helper.Update{}, fmt.Errorf("bundle: %w", update.ErrUntrusted)
	}
	if !check {
		i.mu.Lock()
		i.installed++
		i.mu.Unlock()
	}
	return u, nil
}

func (i *usbInstaller) Reason(err error) string { return update.Reason(err) }

func (i *usbInstaller) Switch(context.Context) (helper.Update, error) {
	return helper.Update{}, &helper.Error{Code: helper.CodeNoSystem}
}

// usbHelper starts a real helper server on a socket of its own, with the
// test's machine, and gives its client to the fixture's Office.
func (f *shFix) usbHelper(sticks ...string) (*usbSys, *usbInstaller) {
	t := f.t
	t.Helper()
	media := t.TempDir()
	sys := &usbSys{media: media, mounted: map[string]bool{}}
	for _, s := range sticks {
		require.NoError(t, os.MkdirAll(filepath.Join(media, s), 0o755))
		sys.mounted[s] = true
	}
	inst := &usbInstaller{}
	dir, err := os.MkdirTemp("", "usb")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "h.sock")
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	srv := &helper.Server{Media: media, Sys: sys, Updates: inst, Now: func() time.Time { return f.clock.Now() }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Serve(ctx, l, 0); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	f.o.UseHelper(&helper.Client{Socket: sock})
	return sys, inst
}

func (f *shFix) usbPut(sys *usbSys, rel string) {
	f.t.Helper()
	p := filepath.Join(sys.media, rel)
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(f.t, os.WriteFile(p, []byte("bundle"), 0o644))
}

// usbCheck taps the Verify key on the line of file.
func (f *shFix) usbCheck(file string) {
	f.t.Helper()
	var key *widget.Button
	shWalk(f.w.Content(), func(o fyne.CanvasObject) {
		c, ok := o.(*fyne.Container)
		if !ok || len(c.Objects) != 2 || key != nil {
			return
		}
		if l, ok := c.Objects[0].(*widget.Label); ok && l.Text == usbShown(file) {
			shWalk(c.Objects[1], func(o fyne.CanvasObject) {
				if b, ok := o.(*widget.Button); ok && key == nil {
					key = b
				}
			})
		}
	})
	require.NotNil(f.t, key, "no line for %s: %s", file, f.text())
	require.False(f.t, key.Disabled())
	test.Tap(key)
}

// A technician installs an update from a stick on the screen: a bundle
// the kiosk does not trust is refused with its reason, the good one is
// checked, its version confirmed, then installed; the logs are exported
// to a folder on the stick, and the stick ejected.
func TestUSBStickUpdateExportAndEject(t *testing.T) {
	f := newShFix(t, true)
	sys, inst := f.usbHelper("sda1")
	f.usbPut(sys, "sda1/good.update")
	f.usbPut(sys, "sda1/mises-à-jour/other.update")
	f.open(ui.French)
	f.pin(shTechPIN)
	f.tap("Clé USB")
	assert.Contains(t, f.text(), "Clé sda1 · 3,7\u00a0Go libres")
	f.golden("maint-usb.png")

	f.usbCheck("mises-à-jour/other.update")
	assert.Contains(t, f.text(), "Mise à jour refusée, rien n’a changé\u00a0: il est signé par une clé qui n’est pas une clé de mise à jour de confiance de cette borne.")
	assert.Contains(t, f.text(), "Détail technique\u00a0: helper: untrusted")
	assert.Zero(t, inst.installed)

	f.usbCheck("good.update")
	assert.Contains(t, f.text(), "pharaon 1.4.0 (installée\u00a0: 1.3.0), signée par la clé 7f3a9c21e0b4d6f8. L’installer\u00a0?")
	f.tap("Annuler")
	assert.Zero(t, inst.installed, "cancelled")
	f.usbCheck("good.update")
	f.golden("maint-usb-confirm.png")
	f.tap("Installer et redémarrer")
	assert.Contains(t, f.text(), "pharaon 1.4.0 installée (avant\u00a0: 1.3.0). La borne redémarre.")
	assert.Equal(t, 1, inst.installed)
	require.Len(t, f.events("update_asked"), 1)
	require.Len(t, f.events("update_installed"), 1)
	f.tap("Identité du logiciel")
	assert.Contains(t, f.text(), "good.update, demandée le 30/11/2026 11:00:00\u00a0: installée (avant\u00a0: dev)")
	f.tap("Clé USB")

	f.tap("Exporter les journaux")
	folder := "pharaon-PH-0042-20261130-100000"
	assert.Contains(t, f.text(), "Journaux exportés dans le dossier "+folder+" de la clé (5\u00a0fichiers).")
	for _, name := range []string{"events.csv", "diagnostic.txt", helper.JournalFile, helper.SystemFile, helper.SumsFile} {
		assert.FileExists(t, filepath.Join(sys.media, "sda1", folder, name))
	}
	events, err := os.ReadFile(filepath.Join(sys.media, "sda1", folder, "events.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(events), "update_installed")

	sys.busy = true
	f.tap("Éjecter la clé")
	assert.Contains(t, f.text(), "Clé non éjectée\u00a0: la clé est encore utilisée\u00a0; réessayez dans quelques secondes.")
	sys.busy = false
	f.tap("Éjecter la clé")
	assert.Contains(t, f.text(), "Clé sda1 éjectée\u00a0: vous pouvez la retirer.")
	assert.Contains(t, f.text(), "Aucune clé USB branchée.")
	assert.Equal(t, []string{"remount sda1 true", "remount sda1 false", "unmount sda1"}, sys.calls)
}

// No update with a credit on the kiosk; a refusal names why.
func TestUSBStickUpdateRefusedWithACredit(t *testing.T) {
	f := newShFix(t, true)
	sys, inst := f.usbHelper("sda1")
	f.usbPut(sys, "sda1/good.update")
	f.usbPut(sys, "sda1/old.update")
	f.open(ui.English)
	f.pin(shTechPIN)
	f.tap("USB stick")
	f.usbCheck("old.update")
	assert.Contains(t, f.text(), "Update refused, nothing changed: its version is not newer than the installed one.")

	_, err := f.st.BillIn(context.Background(), 5*game.Euro, "test-note-usb")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return f.m.Snapshot().Credit == 5*game.Euro }, 5*time.Second, time.Millisecond)
	f.usbCheck("good.update")
	f.tap("Install and restart")
	assert.Contains(t, f.text(), "Update refused, nothing changed: the kiosk has a credit, a game, a note or a payout under way, or the test mode: settle them first.")
	assert.Zero(t, inst.installed)
}

// Without the helper (a development run), the view says what it needs.
func TestUSBStickWithoutTheHelper(t *testing.T) {
	f := newShFix(t, true)
	f.open(ui.French)
	f.pin(shTechPIN)
	f.tap("Clé USB")
	assert.Contains(t, f.text(), "Le service d’entretien de la borne (pharaon-helper) ne répond pas")
	assert.Nil(t, f.button("Exporter les journaux"))
}

func TestStickSize(t *testing.T) {
	fr, en := Tr{Lang: ui.French}, Tr{Lang: ui.English}
	assert.Equal(t, "3,7\u00a0Go", stickSize(fr, 3_700_000_000))
	assert.Equal(t, "3.7\u00a0GB", stickSize(en, 3_700_000_000))
	assert.Equal(t, "512,0\u00a0Mo", stickSize(fr, 512_000_000))
	assert.True(t, strings.HasSuffix(stickSize(fr, 0), "Mo"))
}

// Every reason an update may be refused for has its words on the screen,
// not the catch-all.
func TestUSBStickSaysEveryUpdateReason(t *testing.T) {
	for _, code := range update.ReasonCodes() {
		if code == "busy" {
			code = "updating" // the helper's "busy" for an install
		}
		_, ok := catalogue[word("usb.why."+code)]
		assert.True(t, ok, code)
	}
}
