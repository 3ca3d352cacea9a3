package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"

	"pharaon/game/block"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/update"
)

// The A/B system of a kiosk image (kiosk/update/system.go, DESIGN.md §10):
// `pharaon update` writes a system bundle into the slot the kiosk does not
// run from, and `pharaon boot-check`, started by pharaon-boot-check.service
// at a boot on trial, confirms the system once the kiosk reached "kiosk
// ready", or fails: the unit then restarts the machine for the next try
// (FailureAction=reboot, which also covers a new system whose own binary
// cannot run).

func init() {
	subcommands["boot-check"] = command{runBootCheck, "[flags]",
		"confirm a new system once the kiosk is ready, or fail for its next try, as root", "docs/technician.md"}
}

// The machine, replaced by the tests.
var (
	slotsFile   = update.SlotsFile
	statusFile  = update.StatusFile
	procCmdline = "/proc/cmdline"
	efiVarsDir  = "/sys/firmware/efi/efivars"
	// kioskActive says whether the kiosk's unit is active (its READY=1
	// sent).
	kioskActive = func(ctx context.Context, unit string) bool {
		return exec.CommandContext(ctx, "systemctl", "is-active", "--quiet", unit).Run() == nil
	}
	// rootDevice is the device number of the mounted root file system.
	rootDevice = func() (uint64, error) {
		var st syscall.Stat_t
		if err := syscall.Stat("/", &st); err != nil {
			return 0, err
		}
		return st.Dev, nil
	}
	// slotDevice is a slot's block device.
	slotDevice = func(s update.Slots, slot string) string { return s.Device(slot) }
)

// loaderVar is systemd-boot's vendor GUID for its EFI variables.
const loaderVar = "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"

// efiString reads a string EFI variable of systemd-boot (UTF-16LE after
// the four bytes of its attributes); "" when it is not set.
func efiString(name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(efiVarsDir, name+"-"+loaderVar))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if len(b) < 4 || len(b)%2 != 0 {
		return "", fmt.Errorf("EFI variable %s: %d bytes", name, len(b))
	}
	u := make([]uint16, 0, (len(b)-4)/2)
	for i := 4; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u)), nil
}

// runningSlot is the slot the kernel's command line names ("" for none).
func runningSlot() string {
	b, err := os.ReadFile(procCmdline)
	if err != nil {
		return ""
	}
	return update.RunningSlot(string(b))
}

// runSystemUpdate is `pharaon update` of a system bundle.
func runSystemUpdate(ctx context.Context, bundle string, keys block.KeySet, state string, check bool, w blockWords, stdout, stderr io.Writer) error {
	refuse := func(err error) error {
		reason := updateReason(w, err)
		if errors.Is(err, update.ErrDowngrade) {
			// No -downgrade for a system: a rollback is signed as one.
			reason = w.pick("version pas plus récente que celle en service (un retour en arrière doit être signé comme tel\u00a0: pharaon-issuer update-bundle -rollback)",
				"version not newer than the running one (a rollback must be signed as one: pharaon-issuer update-bundle -rollback)")
		}
		fmt.Fprintf(stderr, "pharaon update: %s%s %s\n  (%v)\n", bundle, w.pick("\u00a0:", ":"), reason, err)
		return err
	}
	in, err := systemInstaller(keys, state)
	if err != nil {
		return refuse(err)
	}
	f, err := os.Open(bundle)
	if err != nil {
		return refuse(err)
	}
	defer f.Close()
	res, err := in.Install(ctx, f, check)
	if err != nil {
		return refuse(err)
	}
	m := res.Manifest
	if check {
		fmt.Fprintf(stdout, w.pick("%s\u00a0: système %s vérifié, signé par la clé %s (en service\u00a0: %s)\u00a0; il irait dans l’emplacement %s\u00a0; rien n’est écrit (-check)\n",
			"%s: system %s verified, signed by key %s (running: %s); it would go into slot %s; nothing written (-check)\n"),
			bundle, m.Version, res.Key, res.From, strings.ToUpper(res.Slot))
		return nil
	}
	fmt.Fprintf(stdout, w.pick("%s\u00a0: système %s écrit dans l’emplacement %s (en service\u00a0: %s, emplacement %s), signé par la clé %s.\n"+
		"Il démarre au prochain redémarrage, à l’essai\u00a0: s’il n’atteint pas «\u00a0borne prête\u00a0» en %d démarrages, la borne revient d’elle-même au système en service.\n",
		"%s: system %s written into slot %s (running: %s, slot %s), signed by key %s.\n"+
			"It starts at the next restart, on trial: if it does not reach \"kiosk ready\" within %d boots, the kiosk goes back to the running system by itself.\n"),
		bundle, m.Version, strings.ToUpper(res.Slot), res.From, strings.ToUpper(in.Running), res.Key, in.Slots.Tries)
	// The kiosk reads the status (it cannot read the ESP): it restarts
	// into the pending system at its first idle moment.
	if _, err := saveBootStatus(in.Slots.ESP, in.Running); err != nil {
		fmt.Fprintf(stderr, "pharaon update: %s: %v\n", statusFile, err)
		fmt.Fprintln(stdout, w.pick("La borne ne le sait pas\u00a0: redémarrer quand elle est libre (systemctl reboot).",
			"The kiosk does not know of it: restart when it is idle (systemctl reboot)."))
		return nil
	}
	fmt.Fprintln(stdout, w.pick("La borne y redémarre d’elle-même à son premier moment libre (sans crédit ni partie, maintenance fermée)\u00a0; systemctl reboot pour redémarrer tout de suite.",
		"The kiosk restarts into it by itself at its first idle moment (no credit, no game, maintenance closed); systemctl reboot to restart now."))
	return nil
}

// saveBootStatus leaves the slots' status read from the ESP where the
// kiosk reads it (update.StatusFile).
func saveBootStatus(esp, running string) (update.BootStatus, error) {
	st, err := update.ReadStatus(esp, running)
	if err != nil {
		return update.BootStatus{}, err
	}
	b := st.Boot()
	return b, update.WriteBootStatus(statusFile, b)
}

// systemInstaller is the installer of this machine's slots
// (update.SlotsFile, the kernel's line).
func systemInstaller(keys block.KeySet, state string) (*update.SystemInstaller, error) {
	slots, err := update.ReadSlots(slotsFile)
	if err != nil {
		return nil, err
	}
	return &update.SystemInstaller{Keys: keys, Slots: slots, Running: runningSlot(), Arch: runtime.GOARCH, State: state,
		Device: func(slot string) string { return slotDevice(slots, slot) }, Root: rootDevice}, nil
}

func runBootCheck(ctx context.Context, args []string, _ env, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pharaon boot-check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	within := fs.Duration("within", 3*time.Minute, "time the kiosk has to become ready after this command starts")
	unit := fs.String("unit", "pharaon.service", "the kiosk's unit")
	langFlag := fs.String("lang", "fr", "fr or en")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stderr, "boot-check", fs)
			return err
		}
		fmt.Fprintf(stderr, "pharaon boot-check: %v\n", err)
		return &usageError{err.Error()}
	}
	lang, err := ui.ParseLang(*langFlag)
	if err != nil || fs.NArg() != 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		fmt.Fprintf(stderr, "pharaon boot-check: %v\n", err)
		return &usageError{err.Error()}
	}
	w := blockWords{lang}
	countPath, err := efiString("LoaderBootCountPath")
	if err != nil {
		fmt.Fprintf(stderr, "pharaon boot-check: %v\n", err)
		return err
	}
	slots, err := update.ReadSlots(slotsFile)
	if err != nil {
		fmt.Fprintf(stderr, "pharaon boot-check: %v\n", err)
		return err
	}
	if countPath == "" {
		fmt.Fprintln(stdout, w.pick("pharaon boot-check\u00a0: démarrage d’un système confirmé",
			"pharaon boot-check: a confirmed system started"))
		return writeBootStatus(slots, w, stdout, stderr)
	}
	fmt.Fprintf(stdout, w.pick("pharaon boot-check\u00a0: système à l’essai (%s), la borne a %s pour être prête\n",
		"pharaon boot-check: system on trial (%s), the kiosk has %s to become ready\n"), countPath, *within)
	deadline := time.NewTimer(*within)
	defer deadline.Stop()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for !kioskActive(ctx, *unit) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			continue
		case <-deadline.C:
		}
		fmt.Fprintf(stderr, w.pick("pharaon boot-check\u00a0: %s n’est pas prête après %s\u00a0: système non confirmé, à redémarrer pour l’essai suivant (ou le retour au système d’avant)\n",
			"pharaon boot-check: %s not ready after %s: system not confirmed, to restart for the next try (or the way back to the system before)\n"), *unit, *within)
		return fmt.Errorf("%s not ready within %s", *unit, *within)
	}
	e, err := update.Bless(slots.ESP, countPath)
	if err != nil {
		fmt.Fprintf(stderr, "pharaon boot-check: %v\n", err)
		return err
	}
	fmt.Fprintf(stdout, w.pick("pharaon boot-check\u00a0: la borne est prête\u00a0; système %s de l’emplacement %s confirmé (%s)\n",
		"pharaon boot-check: the kiosk is ready; system %s of slot %s confirmed (%s)\n"), e.Version, strings.ToUpper(e.Slot), e.Name)
	return writeBootStatus(slots, w, stdout, stderr)
}

// writeBootStatus leaves the slots' status for the kiosk (update.StatusFile)
// and says a return from a failed system.
func writeBootStatus(slots update.Slots, w blockWords, stdout, stderr io.Writer) error {
	b, err := saveBootStatus(slots.ESP, runningSlot())
	if err == nil && b.FailedEntry != "" {
		fmt.Fprintf(stdout, w.pick("pharaon boot-check\u00a0: le système %s n’a pas atteint «\u00a0borne prête\u00a0» (%d essais, %s)\u00a0; la borne est revenue au système %s de l’emplacement %s\n",
			"pharaon boot-check: system %s did not reach \"kiosk ready\" (%d tries, %s); the kiosk came back to system %s of slot %s\n"),
			b.FailedVersion, b.FailedTries, b.FailedEntry, b.Version, strings.ToUpper(b.Slot))
	}
	if err != nil {
		fmt.Fprintf(stderr, "pharaon boot-check: %s: %v\n", statusFile, err)
	}
	return err
}
