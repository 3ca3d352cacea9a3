package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
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
//
// updateBundle -key FILE.key -root ROOT.img -kernel VMLINUZ -initrd INITRD
// -version V -arch A -out FILE [-uki-a A.efi -uki-b B.efi]: a system bundle
// for the A/B slots of a kiosk image (kiosk/update/system.go; make
// system-bundle), with each slot's signed unified kernel image for kiosks
// that boot with Secure Boot. -rollback signs
// either kind as a rollback: a kiosk then takes it even when it is not
// newer than the version it runs.
func (a *app) updateBundle(_ context.Context, args []string) error {
	flags := newFlagSet("update-bundle")
	keyPath := flags.String("key", "", "")
	debPath := flags.String("deb", "", "")
	rootPath := flags.String("root", "", "")
	kernelPath := flags.String("kernel", "", "")
	initrdPath := flags.String("initrd", "", "")
	ukiA := flags.String("uki-a", "", "")
	ukiB := flags.String("uki-b", "", "")
	rollback := flags.Bool("rollback", false, "")
	out := flags.String("out", "", "")
	version := flags.String("version", "", "")
	arch := flags.String("arch", "", "")
	pos, err := parseArgs(flags, args)
	if err != nil {
		return a.flagErr(err, "update-bundle")
	}
	if *rootPath != "" || *kernelPath != "" || *initrdPath != "" {
		if *debPath != "" || len(pos) > 0 || *keyPath == "" || *out == "" || *rootPath == "" || *kernelPath == "" || *initrdPath == "" || *version == "" || *arch == "" {
			return a.usagef("update-bundle : un paquet système veut -key, -root, -kernel, -initrd, -version, -arch et -out, et pas -deb",
				"update-bundle: a system bundle takes -key, -root, -kernel, -initrd, -version, -arch and -out, and no -deb")
		}
		var ukis map[string]string
		if *ukiA != "" || *ukiB != "" {
			if *ukiA == "" || *ukiB == "" {
				return a.usagef("update-bundle : -uki-a et -uki-b vont ensemble", "update-bundle: -uki-a and -uki-b go together")
			}
			ukis = map[string]string{"a": *ukiA, "b": *ukiB}
		}
		return a.systemBundle(*keyPath, *rootPath, *kernelPath, *initrdPath, ukis, *version, *arch, *out, *rollback)
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
	return a.writeBundle(*out, update.Manifest{Kind: update.KindDeb, Package: pkg, Version: *version, Arch: *arch,
		Payload: filepath.Base(*debPath), Created: a.now(), Rollback: *rollback}, payload, priv)
}

// systemBundle writes a system bundle: its payload made in a temporary file
// beside out, then signed.
func (a *app) systemBundle(keyPath, root, kernel, initrd string, ukis map[string]string, version, arch, out string, rollback bool) error {
	priv, err := readPrivateKey(keyPath)
	if err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	payload, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.payload")
	if err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	defer func() {
		payload.Close()
		os.Remove(payload.Name())
	}()
	if err := update.WriteSystemPayload(payload, root, kernel, initrd, ukis); err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	if _, err := payload.Seek(0, 0); err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	return a.writeBundle(out, update.Manifest{Kind: update.KindSystem, Package: update.Package, Version: version, Arch: arch,
		Payload: "pharaon-system_" + version + "_" + arch + ".tar.gz", Created: a.now(), Rollback: rollback}, payload, priv)
}

// writeBundle signs a bundle of payload described by m into a temporary
// file beside out, makes it durable and readable by all, and puts it at
// out.
func (a *app) writeBundle(out string, m update.Manifest, payload io.ReadSeeker, priv ed25519.PrivateKey) error {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
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
	m, err = update.Write(tmp, m, payload, priv)
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
	if err := publish(tmp.Name(), out); err != nil {
		return fmt.Errorf("update-bundle: %w", err)
	}
	done = true
	kind := ""
	if m.Kind == update.KindSystem {
		kind = a.lang.tr(", système", ", system")
	}
	if m.Rollback {
		kind += a.lang.tr(", retour en arrière", ", rollback")
	}
	fmt.Fprintf(a.stdout, a.lang.tr("%s : %s %s (%s%s), SHA-256 %s, signé par la clé %s\n",
		"%s: %s %s (%s%s), SHA-256 %s, signed by key %s\n"),
		out, m.Package, m.Version, m.Arch, kind, m.SHA256, block.KeyIDOf(priv.Public().(ed25519.PublicKey)))
	return nil
}
