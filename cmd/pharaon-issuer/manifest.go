package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"pharaon/game/block"
	"pharaon/kiosk/update"
)

// signManifest -key FILE.key MANIFEST: signs the installed manifest that
// packaging/deb.sh makes, writing MANIFEST.sig beside it; the kiosk checks
// its binary against the signed manifest at every boot
// (kiosk/update.CheckBinary). The key is an update key.
func (a *app) signManifest(_ context.Context, args []string) error {
	flags := newFlagSet("sign-manifest")
	keyPath := flags.String("key", "", "")
	pos, err := parseArgs(flags, args)
	if err != nil {
		return a.flagErr(err, "sign-manifest")
	}
	if *keyPath == "" || len(pos) != 1 {
		return a.usagef("sign-manifest : -key FICHIER.key et un MANIFESTE sont obligatoires",
			"sign-manifest: -key FILE.key and one MANIFEST are required")
	}
	priv, err := readPrivateKey(*keyPath)
	if err != nil {
		return fmt.Errorf("sign-manifest: %w", err)
	}
	m, err := os.ReadFile(pos[0])
	if err != nil {
		return fmt.Errorf("sign-manifest: %w", err)
	}
	sig, err := update.SignManifest(m, priv)
	if err != nil {
		return fmt.Errorf("sign-manifest: %w", err)
	}
	if err := os.WriteFile(pos[0]+update.SignatureSuffix, sig, 0o644); err != nil {
		return fmt.Errorf("sign-manifest: %w", err)
	}
	return nil
}

// verifyManifest -key FILE.pub [-key ...] MANIFEST: checks MANIFEST.sig,
// written by sign-manifest, against MANIFEST and the update keys given:
// the disk image's SHA-256 file, signed by make image with an update key,
// before a technician flashes it (then sha256sum -c checks the image
// against the sums the signature vouches for; docs/technician.md).
func (a *app) verifyManifest(_ context.Context, args []string) error {
	flags := newFlagSet("verify-manifest")
	var keyPaths listFlag
	flags.Var(&keyPaths, "key", "")
	pos, err := parseArgs(flags, args)
	if err != nil {
		return a.flagErr(err, "verify-manifest")
	}
	if len(keyPaths) == 0 || len(pos) != 1 {
		return a.usagef("verify-manifest : -key FICHIER.pub et un MANIFESTE sont obligatoires",
			"verify-manifest: -key FILE.pub and one MANIFEST are required")
	}
	keys, err := readKeys(keyPaths)
	if err != nil {
		return fmt.Errorf("verify-manifest: %w", err)
	}
	m, err := os.ReadFile(pos[0])
	if err != nil {
		return fmt.Errorf("verify-manifest: %w", err)
	}
	sig, err := os.ReadFile(pos[0] + update.SignatureSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("verify-manifest: %s: no %s beside it: %w", pos[0], update.SignatureSuffix, update.ErrManifestUnsigned)
	}
	if err != nil {
		return fmt.Errorf("verify-manifest: %w", err)
	}
	if err := update.VerifyManifest(m, sig, keys); err != nil {
		return fmt.Errorf("verify-manifest: %s: %w", pos[0], err)
	}
	id := block.KeyID(sig[:len(block.KeyID{})])
	fmt.Fprintf(a.stdout, a.lang.tr("ok %s : signé par la clé %s\n", "ok %s: signed by key %s\n"), pos[0], id)
	return nil
}
