package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"pharaon/game/block"
	"pharaon/kiosk"
	"runtime"
	"strconv"
	"time"

	"pharaon/kiosk/helper"
	"pharaon/kiosk/update"
)

// The maintenance screen's root helper (kiosk/helper), started by systemd
// on the kiosk's first request (packaging/systemd/pharaon-helper.socket):
//
//	pharaon helper [flags]
//
// It serves, one at a time, what the kiosk's sandbox forbids it on a USB
// stick mounted under -media: an update bundle checked and installed with
// the checks of `pharaon update` and the update keys of -update-keys (read
// at each request), the journal and the kiosk's files exported to a stick,
// a stick unmounted. Only root and -user may ask. It exits after -idle
// without a request; systemd starts it again on the next.

func init() {
	subcommands["helper"] = command{runHelper, "[flags]",
		"serve the maintenance screen's USB stick actions (update, log export, eject), as root", "docs/technician.md"}
}

// helperSystem is the helper's machine; the tests give a mount table of
// their own.
var helperSystem = func() helper.System { return helper.Machine{} }

// errNoUpdateKeys: the kiosk trusts no update key, so it installs nothing.
var errNoUpdateKeys = errors.New("no update key")

func runHelper(ctx context.Context, args []string, e env, _, stderr io.Writer) error {
	fs := flag.NewFlagSet("pharaon helper", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	media := fs.String("media", "/media", "directory the USB sticks are mounted under")
	keysDir := fs.String("update-keys", defaultUpdateKeys, "directory of the public keys trusted for updates (*.pub)")
	state := fs.String("state", defaultUpdateState, "directory of the kept packages, on the root file system")
	kioskUser := fs.String("user", "pharaon", "the kiosk's user, who may ask")
	socket := fs.String("socket", "", "listen on this socket (default: the one systemd passes)")
	idle := fs.Duration("idle", 10*time.Minute, "exit after this long without a request (0: never)")
	spool := fs.String("spool", filepath.Join(filepath.Dir(productionDB), fleetSpool), "directory the kiosk downloads the fleet's update bundles into")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stderr, "helper", fs)
			return err
		}
		fmt.Fprintf(stderr, "pharaon helper: %v\n", err)
		return &usageError{err.Error()}
	}
	if fs.NArg() != 0 {
		err := &usageError{"no argument expected"}
		fmt.Fprintf(stderr, "pharaon helper: %v\n", err)
		return err
	}
	if geteuid() != 0 {
		err := errors.New("must run as root (it mounts sticks and installs packages)")
		fmt.Fprintf(stderr, "pharaon helper: %v\n", err)
		return err
	}
	var allowed uint32
	u, err := user.Lookup(*kioskUser)
	if err == nil {
		var id uint64
		id, err = strconv.ParseUint(u.Uid, 10, 32)
		allowed = uint32(id)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pharaon helper: the kiosk's user %q: %v\n", *kioskUser, err)
		return err
	}
	l, err := helperListener(e, *socket)
	if err != nil {
		fmt.Fprintf(stderr, "pharaon helper: %v\n", err)
		return err
	}
	srv := &helper.Server{
		Media:   *media,
		Sys:     helperSystem(),
		Updates: bundleInstaller{keys: *keysDir, state: *state, log: stderr},
		Spool:   *spool,
		Allowed: func(uid uint32) bool { return uid == allowed },
		Log:     stderr,
		Now:     kioskNow,
	}
	return srv.Serve(ctx, l, *idle)
}

// kioskNow is the time in the kiosk's zone (kiosk.DefaultZone): an export
// folder's name says the time the screen shows, whatever the system's zone.
func kioskNow() time.Time {
	loc, err := time.LoadLocation(kiosk.DefaultZone)
	if err != nil {
		return time.Now()
	}
	return time.Now().In(loc)
}

// helperListener is the socket systemd passed (LISTEN_FDS, the first
// descriptor, 3), else a socket made at path.
func helperListener(e env, path string) (net.Listener, error) {
	if path != "" {
		_ = os.Remove(path)
		return net.Listen("unix", path)
	}
	if e.Getenv("LISTEN_PID") != strconv.Itoa(os.Getpid()) || e.Getenv("LISTEN_FDS") != "1" {
		return nil, errors.New("no socket from systemd (LISTEN_FDS) and no -socket")
	}
	f := os.NewFile(3, "pharaon-helper.socket")
	defer f.Close()
	return net.FileListener(f)
}

// bundleInstaller installs a bundle as `pharaon update` does, without
// its -downgrade and -no-rollback: the screen never forces. A system
// bundle goes into the other A/B slot, and the machine then restarts into
// it (the screen asked while no player's money or game was under way).
type bundleInstaller struct {
	keys, state string
	log         io.Writer
}

// restartMachine restarts the machine, without waiting for the restart
// (the helper answers the screen first); replaced by the tests.
var restartMachine = func(ctx context.Context) error {
	return exec.CommandContext(ctx, "systemctl", "--no-block", "reboot").Run()
}

func (b bundleInstaller) Install(ctx context.Context, bundle string, check bool) (helper.Update, error) {
	keys, err := updateKeys(b.keys)
	if err != nil {
		return helper.Update{}, fmt.Errorf("%w: %v", errNoUpdateKeys, err)
	}
	if f, err := os.Open(bundle); err == nil {
		kind, _ := update.PeekKind(f)
		f.Close()
		if kind == update.KindSystem {
			return b.installSystem(ctx, keys, bundle, check)
		}
	}
	u := &update.Updater{Keys: keys, Sys: updateSystem(b.log), State: b.state, Arch: runtime.GOARCH, ReadOnly: systemReadOnly}
	res, err := u.Apply(ctx, bundle, update.Options{CheckOnly: check})
	out := helper.Update{Package: res.Manifest.Package, Version: res.Manifest.Version, From: res.From}
	if res.Manifest.Version != "" {
		out.Key = res.Key.String()
	}
	return out, err
}

func (b bundleInstaller) installSystem(ctx context.Context, keys block.KeySet, bundle string, check bool) (helper.Update, error) {
	in, err := systemInstaller(keys, b.state)
	if err != nil {
		return helper.Update{}, err
	}
	f, err := os.Open(bundle)
	if err != nil {
		return helper.Update{}, err
	}
	defer f.Close()
	res, err := in.Install(ctx, f, check)
	out := helper.Update{Package: res.Manifest.Package, Version: res.Manifest.Version, From: res.From}
	if res.Manifest.Version != "" {
		out.Key = res.Key.String()
	}
	if err != nil || check {
		return out, err
	}
	fmt.Fprintf(b.log, "pharaon helper: system %s written into slot %s (%s), restarting into it\n", res.Manifest.Version, res.Slot, res.Entry)
	if err := restartMachine(ctx); err != nil {
		// Written and on trial: the next restart, whoever makes it,
		// starts it.
		fmt.Fprintf(b.log, "pharaon helper: restart: %v\n", err)
	}
	return out, nil
}

// Switch restarts the machine into the system written into the other slot
// and not started yet (`pharaon update` of a system over SSH): the kiosk
// asks it at its first idle moment, having locked its players out. What
// is pending is read from the slots' entries on the ESP, never from the
// kiosk's word.
func (b bundleInstaller) Switch(ctx context.Context) (helper.Update, error) {
	slots, err := update.ReadSlots(slotsFile)
	if err != nil {
		return helper.Update{}, &helper.Error{Code: helper.CodeNoSystem, Detail: err.Error()}
	}
	st, err := update.ReadStatus(slots.ESP, runningSlot())
	if err != nil {
		return helper.Update{}, fmt.Errorf("the slots' boot entries: %w", err)
	}
	p, ok := st.Pending()
	if !ok {
		return helper.Update{}, &helper.Error{Code: helper.CodeNoSystem, Detail: "no system waits in the other slot"}
	}
	out := helper.Update{Package: update.Package, Version: p.Version}
	if cur, ok := st.Current(); ok {
		out.From = cur.Version
	}
	fmt.Fprintf(b.log, "pharaon helper: the kiosk is idle: restarting into system %s of slot %s (%s)\n", p.Version, p.Slot, p.Name)
	if err := restartMachine(ctx); err != nil {
		return out, fmt.Errorf("restart: %w", err)
	}
	return out, nil
}

func (bundleInstaller) Reason(err error) string {
	if errors.Is(err, errNoUpdateKeys) {
		return "nokeys"
	}
	return update.Reason(err)
}
