package maint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/update"
)

// steady is the real back office with what changes from run to run (the
// simulators' paths, the poll count, the test binary) fixed, for the
// golden images.
type steady struct{ Office }

func (s steady) Devices(ctx context.Context, se *kiosk.Session) (kiosk.Devices, error) {
	d, err := s.Office.Devices(ctx, se)
	d.ValidatorPath, d.PrinterPath, d.Polls = "/dev/serial/by-id/usb-JCM_ID-003", "/dev/serial/by-id/usb-Printer_ESC-POS", 1234
	return d, err
}

func (s steady) Identity(ctx context.Context, se *kiosk.Session) (kiosk.Identity, error) {
	id, err := s.Office.Identity(ctx, se)
	id.Revision, id.BuildTime, id.GoVersion, id.Path = "76df652c0ffee", "2026-11-30T09:00:00Z", "go1.25", "/usr/bin/pharaon"
	id.SHA256 = strings.Repeat("0123456789abcdef", 4)
	id.Trust = "files /var/lib/pharaon-trust"
	return id, err
}

// showSteady shows view id on the steady back office.
func (f *rptFix) showSteady(id string, s *kiosk.Session) {
	f.t.Helper()
	for _, v := range views {
		if v.ID == id {
			f.w.SetContent(v.Build(f.env(s), steady{f.o}))
			return
		}
	}
	f.t.Fatalf("no view %q", id)
}

// The devices: paths, notes, state; the validator's test, passed and
// failed; the printer's test page read back.
func TestDevicesView(t *testing.T) {
	f := newRptFix(t)
	require.Eventually(t, func() bool { return f.m.Snapshot().Cash.Validator.OK }, 15*time.Second, 5*time.Millisecond)
	f.show("devices", f.tech)
	txt := f.text()
	assert.Contains(t, txt, "Port\n"+f.dev.ValidatorPath+"\n")
	assert.Contains(t, txt, "Port\n"+f.dev.PrinterPath+"\n")
	assert.Contains(t, txt, "Billets acceptés\n5\u00a0€, 10\u00a0€, 20\u00a0€, 50\u00a0€\n")
	// What the unit says it is: how a technician tells which one the kiosk has.
	assert.Contains(t, txt, "Protocole\nID-003\n")
	assert.Contains(t, txt, "Modèle\nnon indiqué par l’appareil\n", "ID-003 does not give its model")
	assert.Contains(t, txt, "Numéro de l’appareil\nnon indiqué par l’appareil\n")
	assert.Contains(t, txt, "Version\nPHARAON-SIM ID003 EUR V1.00 2025-01-01\n")
	f.tap("Tester le lecteur")
	assert.Contains(t, f.text(), "Le lecteur répond (")
	f.tap("Tester l’imprimante")
	assert.Contains(t, f.text(), "Page de test imprimée.")
	_, err := f.dev.Printer.WaitReceipt(context.Background(), 1)
	require.NoError(t, err)

	require.NoError(t, f.dev.Cause(devsim.ValidatorUnplugged))
	require.Eventually(t, func() bool { return !f.m.Snapshot().Cash.Validator.Connected }, 15*time.Second, 5*time.Millisecond)
	f.tap("Tester le lecteur")
	assert.Contains(t, f.text(), "L’appareil ne répond pas.")
	require.Len(t, f.events("validator_test"), 2)
	f.showSteady("devices", f.tech)
	f.golden("maint-devices.png")

	f.show("devices", f.staff)
	assert.Contains(t, f.text(), "Réservé au technicien.")
}

// The identity says which A/B slot runs, whether its system is confirmed,
// and a return from a newer system that did not start, as the boot's
// check left them (update.StatusFile).
func TestIdentityViewSaysTheSystemSlots(t *testing.T) {
	f := newRptFix(t)
	require.NoError(t, update.WriteBootStatus(f.systemStatus, update.BootStatus{Slot: "b", Version: "1.1", Entry: "pharaon-0002-b+2-1.conf"}))
	f.show("identity", f.tech)
	assert.Contains(t, f.text(), "Système\nemplacement B, 1.1, à l’essai (pas encore «\u00a0borne prête\u00a0»)\n")
	assert.NotContains(t, f.text(), "Retour automatique")

	require.NoError(t, update.WriteBootStatus(f.systemStatus, update.BootStatus{Slot: "b", Version: "1.1", Entry: "pharaon-0002-b.conf",
		Confirmed: true, FailedVersion: "1.2", FailedEntry: "pharaon-0003-a+0-3.conf", FailedTries: 3}))
	f.show("identity", f.tech)
	assert.Contains(t, f.text(), "Système\nemplacement B, 1.1, confirmé\n")
	assert.Contains(t, f.text(), "Retour automatique\nle système 1.2 n’a pas démarré (3\u00a0essais)\u00a0: retour à celui-ci\n")
	assert.NotContains(t, f.text(), "En attente")
	f.showSteady("identity", f.tech)
	f.golden("maint-identity-rollback.png")

	require.NoError(t, update.WriteBootStatus(f.systemStatus, update.BootStatus{Slot: "a", Version: "1.3", Entry: "pharaon-0004-a.conf",
		Confirmed: true, Other: "1.1"}))
	f.lang = ui.English
	f.show("identity", f.tech)
	assert.Contains(t, f.text(), "System\nslot A, 1.3, confirmed; the other slot: 1.1\n")

	// Written over SSH while the technician has the screen open: it waits
	// for the screen to close.
	require.NoError(t, update.WriteBootStatus(f.systemStatus, update.BootStatus{Slot: "a", Version: "1.3", Entry: "pharaon-0004-a.conf",
		Confirmed: true, Other: "1.4", PendingVersion: "1.4", PendingEntry: "pharaon-0005-b+3.conf"}))
	f.lang = ui.French
	f.show("identity", f.tech)
	assert.Contains(t, f.text(), "Système\nemplacement A, 1.3, confirmé\u00a0; l’autre emplacement\u00a0: 1.4\nEn attente\nle système 1.4, écrit dans l’emplacement B\u00a0: la borne y redémarre d’elle-même dès qu’elle est libre (maintenance fermée, sans crédit ni partie)\n")
	f.showSteady("identity", f.tech)
	f.golden("maint-identity-pending.png")
}

// The identity: the SHA-256 of the running binary, as its file gives it.
func TestIdentityView(t *testing.T) {
	f := newRptFix(t)
	f.show("identity", f.tech)
	self, err := os.Executable()
	require.NoError(t, err)
	b, err := os.ReadFile(self)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	assert.Contains(t, f.text(), groupHex(hex.EncodeToString(sum[:])))
	assert.Contains(t, f.text(), "Version\ndev\n")
	assert.Contains(t, f.text(), "Dernière mise à jour\naucune depuis l’écran de maintenance\n")
	assert.Contains(t, f.text(), "Système\nsans emplacements A/B (le paquet seul se met à jour)\n")
	f.showSteady("identity", f.tech)
	f.golden("maint-identity.png")
	assert.Equal(t, "01234567 89abcdef 01234567 89abcdef\n01234567 89abcdef 01234567 89abcdef", groupHex(strings.Repeat("0123456789abcdef", 4)))
}
