package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"pharaon/game/block"
	"pharaon/kiosk/update"
)

// debName is the name packaging/deb.sh gives the kiosk's package.
var debName = regexp.MustCompile(`^([a-z0-9][a-z0-9+.-]*)_([0-9][A-Za-z0-9.+~:-]*)_([a-z0-9]+)\.deb$`)

// updateBundle -key FILE.key -deb PACKAGE.deb -out FILE [-version V -arch A]:
// a signed update bundle of the kiosk's package (kiosk/update). The
// package's name, version and architecture come from its file name
// (pharaon_VERSION_ARCH.deb, as make deb names it) unless given; the kiosk
// checks them against the package's own control fields before installing.
func (a *app) updateBundle(_ context.Context, args []string) error {
	flags := newFlagSet("update-bundle")
	keyPath := flags.String("key", "", "")
	debPath := flags.String("deb", "", "")
	out := flags.String("out", "", "")
	version := flags.String("version", "", "")
	arch := flags.String("arch", "", "")
	pos, err := parseArgs(flags, args)
	if err != nil {
		return a.flagErr(err, "update-bundle")
	}
	switch {
	case *keyPath == "" || *debPath == "" || *out == "":
		return a.usagef("update-bundle : -key FICHIER.key, -deb PAQUET.deb et -out FICHIER sont obligatoires",
			"update-bundle: -key FILE.key, -deb PACKAGE.deb and -out FILE are required")
	case len(pos) > 0:
		return a.usagef("update-bundle : argument inattendu « %s »", "update-bundle: unexpected argument %q", pos[0])
	}
	pkg := update.Package
	if m := debName.FindStringSubmatch(filepath.Base(*debPath)); m != nil {
		pkg = m[1]
		if *version == "" {
			*version = m[2]
		}
		if *arch == "" {
			*arch = m[3]
		}
	}
	if *version == "" || *arch == "" {
		return a.usagef("update-bundle : %s ne s'appelle pas PAQUET_VERSION_ARCH.deb : -version et -arch sont obligatoires",
			"update-bundle: %s is not named PACKAGE_VERSION_ARCH.deb: -version and -arch are required", *debPath)
	}
	priv, err := readPrivateKey(*keyPath)
	if err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	payload, err := os.Open(*debPath)
	if err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	defer payload.Close()
	tmp, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*.tmp")
	if err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	m, err := update.Write(tmp, update.Manifest{Kind: update.KindDeb, Package: pkg, Version: *version, Arch: *arch,
		Payload: filepath.Base(*debPath), Created: a.now()}, payload, priv)
	if err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	// A bundle is public (it goes on USB sticks): readable by all, as a
	// block file is.
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	if err := publish(tmp.Name(), *out); err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	done = true
	fmt.Fprintf(a.stdout, a.lang.tr("%s : %s %s (%s), SHA-256 %s, signé par la clé %s\n",
		"%s: %s %s (%s), SHA-256 %s, signed by key %s\n"),
		*out, m.Package, m.Version, m.Arch, m.SHA256, block.KeyIDOf(priv.Public().(ed25519.PublicKey)))
	return nil
}
