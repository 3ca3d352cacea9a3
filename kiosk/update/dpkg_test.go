package update

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// The kiosk's System reads a real package with dpkg-deb (no root needed).
func TestDpkgInspect(t *testing.T) {
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("no dpkg-deb")
	}
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	for _, p := range []string{"DEBIAN", "usr/bin", "var/lib/pharaon"} {
		if err := os.MkdirAll(filepath.Join(tree, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(tree, "DEBIAN/control"), []byte("Package: pharaon\nVersion: 0.1.0+git12.bbb\nArchitecture: amd64\nMaintainer: t <t@t.invalid>\nDescription: t\n"), 0o644)
	os.WriteFile(filepath.Join(tree, "usr/bin/pharaon"), []byte("x"), 0o755)
	os.WriteFile(filepath.Join(tree, "var/lib/pharaon/pharaon.db"), []byte("x"), 0o644)
	deb := filepath.Join(dir, "p.deb")
	if out, err := exec.Command("dpkg-deb", "--root-owner-group", "-b", tree, deb).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -b: %v %s", err, out)
	}
	info, err := Dpkg{}.Inspect(context.Background(), deb)
	if err != nil {
		t.Fatal(err)
	}
	if info.Package != "pharaon" || info.Version != "0.1.0+git12.bbb" || info.Arch != "amd64" {
		t.Errorf("control %+v", info)
	}
	if !slices.Contains(info.Files, "/usr/bin/pharaon") || !slices.Contains(info.Files, "/var/lib/pharaon/pharaon.db") {
		t.Errorf("files %q", info.Files)
	}
	v, err := Dpkg{}.Installed(context.Background(), "pharaon-no-such-package")
	if err != nil || v != "" {
		t.Errorf("Installed of a package not installed: %q, %v", v, err)
	}
}
