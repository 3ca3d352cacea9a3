package update

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Dpkg is the kiosk's System: dpkg, dpkg-deb and dpkg-query, and the
// package's SHA-256 manifest for the self-test.
type Dpkg struct {
	// Manifest is the installed package's list of SHA-256 sums
	// (/usr/share/pharaon/MANIFEST.sha256, made by packaging/deb.sh).
	Manifest string
	// Log receives dpkg's output (the technician's terminal).
	Log io.Writer
}

func (d Dpkg) output(ctx context.Context, name string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// Installed is dpkg-query's version of pkg when it is installed.
func (d Dpkg) Installed(ctx context.Context, pkg string) (string, error) {
	out, err := d.output(ctx, "dpkg-query", "-W", "-f", "${db:Status-Abbrev}|${Version}", pkg)
	if err != nil {
		if strings.Contains(err.Error(), "no packages found") {
			return "", nil
		}
		return "", err
	}
	status, version, _ := strings.Cut(out, "|")
	if strings.TrimSpace(status) != "ii" {
		// Half installed, half configured: a failed run of dpkg.
		return "", fmt.Errorf("package %s is in state %q, not installed", pkg, strings.TrimSpace(status))
	}
	return strings.TrimSpace(version), nil
}

// Inspect reads a package file's control fields and its list of files.
func (d Dpkg) Inspect(ctx context.Context, deb string) (DebInfo, error) {
	if _, err := os.Stat(deb); err != nil {
		return DebInfo{}, err
	}
	out, err := d.output(ctx, "dpkg-deb", "--showformat=${Package}|${Version}|${Architecture}", "--show", deb)
	if err != nil {
		return DebInfo{}, err
	}
	f := strings.Split(strings.TrimSpace(out), "|")
	if len(f) != 3 {
		return DebInfo{}, fmt.Errorf("dpkg-deb --show %s: %q", deb, out)
	}
	info := DebInfo{Package: f[0], Version: f[1], Arch: f[2]}
	list, err := d.output(ctx, "dpkg-deb", "--contents", deb)
	if err != nil {
		return DebInfo{}, err
	}
	info.Files = contents(list)
	return info, nil
}

// contents reads the paths of dpkg-deb --contents (tar -tv lines: the path
// is the sixth field; a link is "path -> target").
func contents(list string) []string {
	var files []string
	sc := bufio.NewScanner(strings.NewReader(list))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 {
			continue
		}
		p := strings.Join(f[5:], " ")
		if i := strings.Index(p, " -> "); i >= 0 {
			p = p[:i]
		}
		p = strings.TrimPrefix(p, ".")
		if p == "" || p == "/" {
			continue
		}
		files = append(files, p)
	}
	return files
}

// Install runs dpkg -i, its output on Log.
func (d Dpkg) Install(ctx context.Context, deb string) error {
	cmd := exec.CommandContext(ctx, "dpkg", "--force-confold", "-i", deb)
	cmd.Stdout, cmd.Stderr = d.Log, d.Log
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("dpkg -i %s: %w", deb, err)
	}
	return nil
}

// Check verifies the installed files against the package's manifest. The
// configuration files under /etc are the technician's to edit and are not
// checked.
func (d Dpkg) Check(context.Context) error {
	return CheckManifest(d.Manifest, "/")
}

// CheckManifest checks the "SUM  PATH" lines of the manifest file against
// the files under root, skipping those under /etc/.
func CheckManifest(manifest, root string) error {
	b, err := os.ReadFile(manifest)
	if err != nil {
		return err
	}
	var bad []string
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		sum, p, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			continue
		}
		if strings.HasPrefix(p, "/etc/") {
			continue
		}
		n++
		got, err := FileSum(root + p)
		if err != nil || got != sum {
			bad = append(bad, p)
		}
	}
	if n == 0 {
		return fmt.Errorf("%s: no files listed", manifest)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: %s differ from the package", manifest, strings.Join(bad, ", "))
	}
	return nil
}

// FileSum is the SHA-256 of the file at p, in hexadecimal (the manifest's
// form, sha256sum's).
func FileSum(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
