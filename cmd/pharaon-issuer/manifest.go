package main

import (
	"context"
	"fmt"
	"os"

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
