package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"pharaon/game/block"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/update"
)

// The technician's update command, run as root on the kiosk
// (docs/technician.md, kiosk/update):
//
//	pharaon update [flags] BUNDLE
//
// A system bundle (kind "system") goes into the other A/B slot of a kiosk
// image instead (cmd/pharaon/system.go). For a package, it verifies the
// bundle (signature by a key of the update keys' directory,
// manifest, payload's SHA-256, version newer than the installed one,
// package contents off the data partition, a kept package to go back to)
// before it installs anything; a refused bundle changes nothing. Exit
// status 0 when applied (or checked, with -check), 1 when refused, 2 on a
// misuse, 5 when the update keys cannot be read, 6 when the new package
// failed and the previous one is installed again, 7 when the previous one
// could not be reinstalled either.

const (
	exitRolledBack = 6
	exitBroken     = 7
)

func init() {
	subcommands["update"] = command{runUpdate, "[flags] BUNDLE",
		"verify a signed update bundle and install its package, as root", "docs/technician.md"}
}

// Defaults of the kiosk's layout (packaging/).
const (
	defaultUpdateKeys  = "/etc/pharaon/update-keys"
	defaultUpdateState = "/var/lib/pharaon-update"
	defaultManifest    = "/usr/share/pharaon/MANIFEST.sha256"
)

// updateSystem, systemReadOnly and geteuid are the machine, replaced by
// the tests. The system is read-only on the disk image's slots (the
// kernel's "ro", packaging/image/build.sh): /usr, where the package goes.
var (
	updateSystem = func(log io.Writer) update.System {
		return update.Dpkg{Manifest: defaultManifest, Log: log}
	}
	systemReadOnly = func() (bool, error) { return update.ReadOnlyFS("/usr") }
	geteuid        = os.Geteuid
)

// updateReasons say why a bundle was refused, in French and English, by
// the code of its reason (update.Reason).
var updateReasons = map[string]struct{ fr, en string }{
	"unsigned":    {"paquet non signé", "unsigned bundle"},
	"untrusted":   {"signé par une clé qui n’est pas une clé de mise à jour de confiance", "signed by a key not trusted for updates"},
	"signature":   {"la signature ne correspond pas au manifeste (paquet modifié)", "the signature does not match the manifest (tampered bundle)"},
	"payload":     {"le contenu n’est pas celui du manifeste (paquet modifié ou tronqué)", "the payload is not the manifest's (tampered or truncated bundle)"},
	"format":      {"ce n’est pas un paquet de mise à jour Pharaon", "not a Pharaon update bundle"},
	"downgrade":   {"version pas plus récente que celle installée (-downgrade pour forcer)", "version not newer than the installed one (-downgrade to force)"},
	"mismatch":    {"paquet pour une autre borne", "bundle for another kiosk"},
	"datadir":     {"le paquet écrirait sur la partition des données", "the package would write on the data partition"},
	"norollback":  {"aucun paquet gardé pour revenir en arrière (-no-rollback pour passer outre)", "no package kept to go back to (-no-rollback to go on without)"},
	"busy":        {"une autre mise à jour est en cours", "another update is running"},
	"rolledback":  {"échec de la mise à jour\u00a0; la version précédente est réinstallée", "the update failed; the previous version is installed again"},
	"broken":      {"échec de la mise à jour ET de la réinstallation de la version précédente\u00a0: voir docs/technician.md", "the update AND the reinstall of the previous version failed: see docs/technician.md"},
	"noslots":     {"cette borne n’a pas d’emplacements système A/B (image d’avant, ou Debian installée à la main)", "this kiosk has no A/B system slots (an older image, or Debian installed by hand)"},
	"unconfirmed": {"le système en service est encore à l’essai\u00a0: attendre qu’il soit confirmé (borne prête)", "the running system is still on trial: wait until it is confirmed (kiosk ready)"},
	"readonly":    {"le système de cette borne est en lecture seule\u00a0: elle prend une mise à jour du système entier (pharaon-system_…), pas un paquet du logiciel seul", "this kiosk's system is read-only: it takes a whole system's update (pharaon-system_…), not a package of the software alone"},
}

// updateReason is why err refused a bundle, in words.
func updateReason(w blockWords, err error) string {
	if r, ok := updateReasons[update.Reason(err)]; ok {
		return w.pick(r.fr, r.en)
	}
	return w.pick("refusé, rien n’a changé", "refused, nothing changed")
}

func runUpdate(ctx context.Context, args []string, _ env, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pharaon update", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	keysDir := fs.String("update-keys", defaultUpdateKeys, "directory of the public keys trusted for updates (*.pub)")
	state := fs.String("state", defaultUpdateState, "directory of the kept packages, on the root file system")
	downgrade := fs.Bool("downgrade", false, "allow a version that is not newer than the installed one")
	noRollback := fs.Bool("no-rollback", false, "apply even when no package is kept to go back to")
	check := fs.Bool("check", false, "verify the bundle and stop before installing")
	langFlag := fs.String("lang", "fr", "fr or en")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stderr, "update", fs)
			return err
		}
		fmt.Fprintf(stderr, "pharaon update: %v\n", err)
		return &usageError{err.Error()}
	}
	lang, err := ui.ParseLang(*langFlag)
	if err != nil {
		fmt.Fprintf(stderr, "pharaon update: %v\n", err)
		return &usageError{err.Error()}
	}
	w := blockWords{lang}
	if fs.NArg() != 1 {
		err := &usageError{w.pick("un paquet de mise à jour, et un seul", "one update bundle, and one only")}
		fmt.Fprintf(stderr, "pharaon update: %v\n", err)
		return err
	}
	bundle := fs.Arg(0)
	if !*check && geteuid() != 0 {
		err := errors.New(w.pick("à lancer en root (sudo)\u00a0; rien n’a changé", "must run as root (sudo); nothing changed"))
		fmt.Fprintf(stderr, "pharaon update: %v\n", err)
		return err
	}
	keys, err := updateKeys(*keysDir)
	if err != nil {
		fmt.Fprintf(stderr, "pharaon update: %v\n", err)
		return &startError{status: exitKeys, err: err}
	}
	if f, err := os.Open(bundle); err == nil {
		kind, _ := update.PeekKind(f)
		f.Close()
		if kind == update.KindSystem {
			if *downgrade || *noRollback {
				err := &usageError{w.pick("-downgrade et -no-rollback ne valent pas pour un système (un retour en arrière est signé comme tel)",
					"-downgrade and -no-rollback do not apply to a system (a rollback is signed as one)")}
				fmt.Fprintf(stderr, "pharaon update: %v\n", err)
				return err
			}
			return runSystemUpdate(ctx, bundle, keys, *state, *check, w, stdout, stderr)
		}
	}
	u := &update.Updater{Keys: keys, Sys: updateSystem(stderr), State: *state, Arch: runtime.GOARCH, ReadOnly: systemReadOnly}
	res, err := u.Apply(ctx, bundle, update.Options{Downgrade: *downgrade, NoRollback: *noRollback, CheckOnly: *check})
	if err != nil {
		reason := updateReason(w, err)
		fmt.Fprintf(stderr, "pharaon update: %s%s %s\n  (%v)\n", bundle, w.pick("\u00a0:", ":"), reason, err)
		switch {
		case errors.Is(err, update.ErrBroken):
			return &startError{status: exitBroken, err: err}
		case errors.Is(err, update.ErrRolledBack):
			return &startError{status: exitRolledBack, err: err}
		}
		return err
	}
	m := res.Manifest
	if res.From == "" {
		res.From = w.pick("aucune", "none")
	}
	if *check {
		fmt.Fprintf(stdout, w.pick("%s\u00a0: paquet vérifié, signé par la clé %s\u00a0: %s %s (installée\u00a0: %s)\u00a0; rien n’est installé (-check)\n",
			"%s: bundle verified, signed by key %s: %s %s (installed: %s); nothing installed (-check)\n"),
			bundle, res.Key, m.Package, m.Version, res.From)
		return nil
	}
	fmt.Fprintf(stdout, w.pick("%s\u00a0: %s %s installée (avant\u00a0: %s), signée par la clé %s\n",
		"%s: %s %s installed (before: %s), signed by key %s\n"), bundle, m.Package, m.Version, res.From, res.Key)
	return nil
}

// updateKeys reads the public keys of dir (*.pub): the keys trusted for
// updates, never the block keys.
func updateKeys(dir string) (block.KeySet, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.pub"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("update keys: no *.pub file in %s", dir)
	}
	keys, err := trustedKeys(paths)
	if err != nil {
		return nil, fmt.Errorf("%s", strings.Replace(err.Error(), "issuer key", "update key", 1))
	}
	return keys, nil
}
