package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pharaon/kiosk"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// The technician's backup, for a stopped kiosk (docs/technician.md):
//
//	pharaon backup [flags] DIR
//
// writes into DIR a consistent copy of the ledger (pharaon.db, the WAL's
// rows included) and of its anchor (pharaon.anchor), checked as the kiosk
// would check them (store.Store.Backup), and a manifest (pharaon-backup.txt):
// the kiosk, the time, the anchor's count, the files' SHA-256, the
// program's version. Never the trust root nor the TPM's sealed secret: they
// are the kiosk's, off the data partition, and a copy put back later than
// the trust root's next count is the rollback fault by design. The files
// are written under a temporary directory in DIR and renamed at the end, so
// a failure (a full disk, DIR not writable) leaves nothing half-written; an
// existing backup in DIR is never overwritten. The kiosk's start-up
// statuses (3, 4) when the database cannot be used, 2 on a misuse, 1 when
// DIR cannot be written.

func init() {
	subcommands["backup"] = command{runBackup, "[flags] DIR",
		"write a checked copy of a stopped kiosk's ledger and its anchor into DIR", "docs/technician.md"}
}

// The backup's files in DIR.
const (
	backupDB       = "pharaon.db"
	backupAnchor   = "pharaon.anchor"
	backupManifest = "pharaon-backup.txt"
)

// backupClock is the manifest's clock; the tests set theirs.
var backupClock kiosk.Clock = kiosk.SystemClock{}

func runBackup(ctx context.Context, args []string, e env, stdout, stderr io.Writer) error {
	fail := func(err error) error {
		fmt.Fprintf(stderr, "pharaon backup: %v\n", err)
		return err
	}
	flags, rest, err := splitArgs(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stderr, "backup", kioskFlags())
			return err
		}
		return fail(err)
	}
	cfg, err := loadConfig(flags, e, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fail(err)
	}
	cfg.FirstInstall = false // a backup never creates a database
	w := blockWords{cfg.Lang}
	if len(rest) != 1 {
		return fail(&usageError{w.pick("donnez un répertoire, et un seul, où écrire la sauvegarde",
			"give one directory to write the backup in")})
	}
	dir := rest[0]
	for _, name := range []string{backupDB, backupAnchor, backupManifest} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return fail(&usageError{w.pick(
				fmt.Sprintf("%s contient déjà une sauvegarde (%s), qui n’est jamais remplacée\u00a0: donnez un autre répertoire\u00a0; rien n’a été écrit", dir, name),
				fmt.Sprintf("%s already holds a backup (%s), which is never replaced: give another directory; nothing was written", dir, name))})
		}
	}
	cantWrite := func(err error) error {
		return fail(fmt.Errorf("%s: %w", w.pick(fmt.Sprintf("la sauvegarde n’a pas pu être écrite dans %s (rien n’y est resté)", dir),
			fmt.Sprintf("the backup could not be written to %s (nothing was left there)", dir)), err))
	}
	_, statErr := os.Stat(dir)
	made := errors.Is(statErr, os.ErrNotExist)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return cantWrite(err)
	}
	tmp, err := os.MkdirTemp(dir, ".pharaon-backup-")
	if err != nil {
		if made {
			os.Remove(dir)
		}
		return cantWrite(err)
	}
	defer func() {
		os.RemoveAll(tmp)
		if made {
			os.Remove(dir) // only if nothing was put there
		}
	}()

	st, _, err := openStore(cfg)
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	db, anc := filepath.Join(tmp, backupDB), filepath.Join(tmp, backupAnchor)
	if err := st.Backup(ctx, db, anc); err != nil {
		if errors.Is(err, store.ErrAnchor) || errors.Is(err, store.ErrIntegrity) {
			return fail(storeFailure(err))
		}
		return cantWrite(err)
	}
	manifest, err := backupText(ctx, st, cfg, db, anc)
	if err != nil {
		return cantWrite(err)
	}
	if err := writePrivate(filepath.Join(tmp, backupManifest), []byte(manifest)); err != nil {
		return cantWrite(err)
	}
	// The manifest last: a DIR with a manifest holds the whole backup.
	var moved []string
	for _, name := range []string{backupDB, backupAnchor, backupManifest} {
		if err := os.Rename(filepath.Join(tmp, name), filepath.Join(dir, name)); err != nil {
			for _, m := range moved {
				os.Remove(m)
			}
			return cantWrite(err)
		}
		moved = append(moved, filepath.Join(dir, name))
	}
	made = false
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the renames survive a power cut
		d.Close()
	}
	fmt.Fprintf(stdout, "%s\n%s", w.pick(fmt.Sprintf("sauvegarde vérifiée écrite dans %s\u00a0:", dir),
		fmt.Sprintf("checked backup written to %s:", dir)), manifest)
	return nil
}

// backupText is the manifest of a backup whose copies are db and anc.
func backupText(ctx context.Context, st *store.Store, cfg Config, db, anc string) (string, error) {
	id := cfg.KioskID
	if v, ok, err := st.Setting(ctx, kiosk.SettingKioskID); err == nil && ok && kiosk.ValidKioskID(v) {
		id = v // the name the kiosk prints on its vouchers
	}
	heads, err := st.Anchor()
	if err != nil {
		return "", err
	}
	loc, err := time.LoadLocation(kiosk.DefaultZone) // the zone of the kiosk's dates
	if err != nil {
		return "", fmt.Errorf("time zone: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kiosk: %s\ntime: %s\nanchor count: %d\nanchor record: %d\nanchor MAC: %s\nversion: %s\n",
		id, backupClock.Now().In(loc).Format(time.RFC3339), heads.Counter, heads.Seq, heads.Short(), kiosk.Version)
	for _, p := range []string{db, anc} {
		sum, err := update.FileSum(p)
		if err != nil {
			return "", err
		}
		// As sha256sum prints it: `sha256sum -c` checks these lines.
		fmt.Fprintf(&b, "%s  %s\n", sum, filepath.Base(p))
	}
	return b.String(), nil
}

// writePrivate writes b to a new file at path, 0600, synced.
func writePrivate(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}
