package update

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pharaon/game/block"
)

// fakeDeb is a package as the fake system reads it: one control line and
// the files it installs.
func fakeDeb(version string, files ...string) []byte {
	if len(files) == 0 {
		files = []string{"/usr/bin/pharaon"}
	}
	return fmt.Appendf(nil, "pharaon %s amd64\n%s\n", version, strings.Join(files, "\n"))
}

// fakeSys is the package manager of a kiosk in a test.
type fakeSys struct {
	installed string
	installs  []string // versions installed, in order
	failOn    string   // Install of this version fails
	checkFail string   // Check fails after this version is installed
}

func (s *fakeSys) Installed(context.Context, string) (string, error) { return s.installed, nil }

func (s *fakeSys) Inspect(_ context.Context, deb string) (DebInfo, error) {
	b, err := os.ReadFile(deb)
	if err != nil {
		return DebInfo{}, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	f := strings.Fields(lines[0])
	if len(f) != 3 {
		return DebInfo{}, errors.New("not a package")
	}
	return DebInfo{Package: f[0], Version: f[1], Arch: f[2], Files: lines[1:]}, nil
}

func (s *fakeSys) Install(ctx context.Context, deb string) error {
	info, err := s.Inspect(ctx, deb)
	if err != nil {
		return err
	}
	s.installs = append(s.installs, info.Version)
	if info.Version == s.failOn {
		s.installed = ""
		return errors.New("dpkg: postinst failed")
	}
	s.installed = info.Version
	return nil
}

func (s *fakeSys) Check(context.Context) error {
	if s.installed == s.checkFail {
		return errors.New("/usr/bin/pharaon differs")
	}
	return nil
}

type fixture struct {
	t     *testing.T
	priv  ed25519.PrivateKey
	keys  block.KeySet
	sys   *fakeSys
	u     *Updater
	state string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, priv: priv, keys: block.NewKeySet(pub), sys: &fakeSys{installed: "0.1.0+git10.aaa"}}
	f.state = t.TempDir()
	if err := os.WriteFile(filepath.Join(f.state, InstalledDeb), fakeDeb("0.1.0+git10.aaa"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.u = &Updater{Keys: f.keys, Sys: f.sys, State: f.state, Arch: "amd64"}
	return f
}

// bundle writes a bundle of payload signed by priv and returns its path.
func (f *fixture) bundle(version string, payload []byte, priv ed25519.PrivateKey) string {
	f.t.Helper()
	var buf bytes.Buffer
	m := Manifest{Kind: KindDeb, Package: Package, Version: version, Arch: "amd64",
		Payload: "pharaon_" + version + "_amd64.deb", Created: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	if _, err := Write(&buf, m, bytes.NewReader(payload), priv); err != nil {
		f.t.Fatal(err)
	}
	p := filepath.Join(f.t.TempDir(), "bundle.update")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// stateFiles lists the state directory, without the lock.
func (f *fixture) stateFiles() []string {
	f.t.Helper()
	es, err := os.ReadDir(f.state)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.Name() != "lock" {
			out = append(out, e.Name())
		}
	}
	return out
}

// refused checks that an update was refused with want and changed nothing.
func (f *fixture) refused(err, want error) {
	f.t.Helper()
	if !errors.Is(err, want) {
		f.t.Fatalf("error %v, want %v", err, want)
	}
	if len(f.sys.installs) != 0 {
		f.t.Errorf("installed %v on a refused bundle", f.sys.installs)
	}
	if got := f.stateFiles(); !slices.Equal(got, []string{InstalledDeb}) {
		f.t.Errorf("state directory %v after a refusal, want only %s", got, InstalledDeb)
	}
	if f.sys.installed != "0.1.0+git10.aaa" {
		f.t.Errorf("installed version %q", f.sys.installed)
	}
}

func TestApplyGoodBundle(t *testing.T) {
	f := newFixture(t)
	payload := fakeDeb("0.1.0+git12.bbb")
	res, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", payload, f.priv), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Applied || res.From != "0.1.0+git10.aaa" || res.Manifest.Version != "0.1.0+git12.bbb" {
		t.Errorf("result %+v", res)
	}
	if !slices.Equal(f.sys.installs, []string{"0.1.0+git12.bbb"}) {
		t.Errorf("installs %v", f.sys.installs)
	}
	if got := f.stateFiles(); !slices.Equal(got, []string{InstalledDeb, PreviousDeb}) {
		t.Errorf("state directory %v", got)
	}
	if b, _ := os.ReadFile(filepath.Join(f.state, InstalledDeb)); !bytes.Equal(b, payload) {
		t.Errorf("kept package is not the new one")
	}
	if b, _ := os.ReadFile(filepath.Join(f.state, PreviousDeb)); !bytes.Equal(b, fakeDeb("0.1.0+git10.aaa")) {
		t.Errorf("previous package is not the old one")
	}
}

func TestApplyCheckOnlyChangesNothing(t *testing.T) {
	f := newFixture(t)
	_, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), Options{CheckOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	f.refused(nil, nil)
}

// tamper flips one byte of the bundle at the first place where marker
// occurs after skip bytes.
func tamper(t *testing.T, p, marker string, skip int) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b[skip:], []byte(marker))
	if i < 0 {
		t.Fatalf("%q not in the bundle", marker)
	}
	b[skip+i] ^= 0x01
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestApplyTamperedPayloadRefused(t *testing.T) {
	f := newFixture(t)
	p := f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb", "/usr/bin/pharaon"), f.priv)
	// The payload's file list, after the manifest (which names the
	// payload too).
	b, _ := os.ReadFile(p)
	tamper(t, p, "/usr/bin/pharaon", bytes.Index(b, []byte("amd64\n/usr")))
	_, err := f.u.Apply(context.Background(), p, Options{})
	f.refused(err, ErrPayload)
}

func TestApplyTamperedManifestRefused(t *testing.T) {
	f := newFixture(t)
	p := f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv)
	tamper(t, p, `"sha256": "`, 0) // a changed key: "sha256" becomes "rha256"
	_, err := f.u.Apply(context.Background(), p, Options{})
	f.refused(err, ErrSignature)
}

func TestApplyWrongKeyRefused(t *testing.T) {
	f := newFixture(t)
	_, other, _ := ed25519.GenerateKey(nil)
	_, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), other), Options{})
	f.refused(err, ErrUntrusted)
	if !strings.Contains(err.Error(), block.KeyIDOf(other.Public().(ed25519.PublicKey)).String()) {
		t.Errorf("%v does not name the signing key", err)
	}
}

func TestApplyUnsignedRefused(t *testing.T) {
	f := newFixture(t)
	// A manifest and its payload, without the signature entry.
	payload := fakeDeb("0.1.0+git12.bbb")
	sum := sha256.Sum256(payload)
	m := fmt.Appendf(nil, `{"format":%q,"kind":"deb","package":"pharaon","version":"0.1.0+git12.bbb","arch":"amd64","payload":"p.deb","size":%d,"sha256":"%x"}`,
		Format, len(payload), sum)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range []struct {
		name string
		b    []byte
	}{{entryManifest, m}, {"p.deb", payload}} {
		tw.WriteHeader(&tar.Header{Name: e.name, Size: int64(len(e.b)), Mode: 0o644, Typeflag: tar.TypeReg})
		tw.Write(e.b)
	}
	tw.Close()
	p := filepath.Join(t.TempDir(), "unsigned.update")
	os.WriteFile(p, buf.Bytes(), 0o644)
	_, err := f.u.Apply(context.Background(), p, Options{})
	f.refused(err, ErrUnsigned)
}

func TestApplyNotABundleRefused(t *testing.T) {
	f := newFixture(t)
	p := filepath.Join(t.TempDir(), "x.deb")
	os.WriteFile(p, fakeDeb("0.1.0+git12.bbb"), 0o644)
	_, err := f.u.Apply(context.Background(), p, Options{})
	f.refused(err, ErrFormat)
}

func TestApplyDowngradeRefused(t *testing.T) {
	for _, v := range []string{"0.1.0+git9.ccc", "0.1.0+git10.aaa", "0.0.9"} {
		t.Run(v, func(t *testing.T) {
			f := newFixture(t)
			_, err := f.u.Apply(context.Background(), f.bundle(v, fakeDeb(v), f.priv), Options{})
			f.refused(err, ErrDowngrade)
		})
	}
	t.Run("forced", func(t *testing.T) {
		f := newFixture(t)
		res, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git9.ccc", fakeDeb("0.1.0+git9.ccc"), f.priv), Options{Downgrade: true})
		if err != nil || !res.Applied || f.sys.installed != "0.1.0+git9.ccc" {
			t.Fatalf("forced downgrade: %v, %+v, installed %s", err, res, f.sys.installed)
		}
	})
}

func TestApplyMismatchRefused(t *testing.T) {
	f := newFixture(t)
	// The package inside says another version than the signed manifest.
	_, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git13.ddd"), f.priv), Options{})
	f.refused(err, ErrPayload)
	f.u.Arch = "arm64"
	_, err = f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), Options{})
	f.refused(err, ErrMismatch)
}

func TestApplyDataPartitionRefused(t *testing.T) {
	f := newFixture(t)
	p := f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb", "/usr/bin/pharaon", "/var/lib/pharaon/pharaon.db"), f.priv)
	_, err := f.u.Apply(context.Background(), p, Options{})
	f.refused(err, ErrDataDir)
}

func TestApplyWithoutKeptPackageRefused(t *testing.T) {
	f := newFixture(t)
	os.Remove(filepath.Join(f.state, InstalledDeb))
	_, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), Options{})
	if !errors.Is(err, ErrNoRollback) || len(f.sys.installs) != 0 || len(f.stateFiles()) != 0 {
		t.Fatalf("%v, installs %v, state %v", err, f.sys.installs, f.stateFiles())
	}
	res, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), Options{NoRollback: true})
	if err != nil || !res.Applied {
		t.Fatalf("with NoRollback: %v", err)
	}
}

// A machine where the kiosk's package is not installed (a build machine, a
// workstation) is not updated unless told: there is nothing to go back to.
func TestApplyNotInstalledRefused(t *testing.T) {
	f := newFixture(t)
	f.sys.installed = ""
	_, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), Options{})
	if !errors.Is(err, ErrNoRollback) || len(f.sys.installs) != 0 {
		t.Fatalf("%v, installs %v", err, f.sys.installs)
	}
	if !strings.Contains(err.Error(), "not installed") {
		t.Errorf("%v does not say the package is not installed", err)
	}
}

func TestApplyFailureReinstallsPrevious(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*fakeSys)
	}{
		{"dpkg fails", func(s *fakeSys) { s.failOn = "0.1.0+git12.bbb" }},
		{"self-test fails", func(s *fakeSys) { s.checkFail = "0.1.0+git12.bbb" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.set(f.sys)
			_, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), Options{})
			if !errors.Is(err, ErrRolledBack) {
				t.Fatalf("error %v, want %v", err, ErrRolledBack)
			}
			if !slices.Equal(f.sys.installs, []string{"0.1.0+git12.bbb", "0.1.0+git10.aaa"}) || f.sys.installed != "0.1.0+git10.aaa" {
				t.Errorf("installs %v, installed %s", f.sys.installs, f.sys.installed)
			}
			if got := f.stateFiles(); !slices.Equal(got, []string{InstalledDeb}) {
				t.Errorf("state directory %v", got)
			}
			if b, _ := os.ReadFile(filepath.Join(f.state, InstalledDeb)); !bytes.Equal(b, fakeDeb("0.1.0+git10.aaa")) {
				t.Errorf("kept package is not the old one")
			}
		})
	}
	t.Run("both fail", func(t *testing.T) {
		f := newFixture(t)
		f.sys.checkFail = ""
		f.sys.failOn = "0.1.0+git12.bbb"
		f.sys.checkFail = "0.1.0+git10.aaa"
		_, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), Options{})
		if !errors.Is(err, ErrBroken) {
			t.Fatalf("error %v, want %v", err, ErrBroken)
		}
		if _, err := os.Stat(filepath.Join(f.state, PreviousDeb)); err != nil {
			t.Errorf("the previous package is not kept for the technician: %v", err)
		}
	})
}

func TestApplyBusy(t *testing.T) {
	f := newFixture(t)
	unlock, err := lock(filepath.Join(f.state, "lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	_, err = f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), Options{})
	f.refused(err, ErrBusy)
}

func TestBlockSignatureIsNotABundleSignature(t *testing.T) {
	// The same key signing the same bytes as a block (Ed25519ph, the
	// block's context) does not verify as a bundle.
	f := newFixture(t)
	msg := []byte(`{"format":"pharaon-update/1"}`)
	sig, err := f.priv.Sign(nil, msg, &ed25519.Options{Context: "pharaon block"})
	if err != nil {
		t.Fatal(err)
	}
	if ed25519.VerifyWithOptions(f.priv.Public().(ed25519.PublicKey), msg, sig, signOpts) == nil {
		t.Fatal("a signature under another context verified as a bundle's")
	}
}

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0", 0},
		{"1.0", "1.1", -1},
		{"1.10", "1.9", 1},
		{"0.1.0+git10.aaa", "0.1.0+git9.zzz", 1},
		{"0.1.0+git10.aaa", "0.1.0+git10.aab", -1},
		{"1.0~rc1", "1.0", -1},
		{"1.0", "1.0+1", -1},
		{"1:0.1", "2.0", 1},
		{"1.0-1", "1.0-2", -1},
		{"1.0a", "1.0+", -1},
		{"01.0", "1.0", 0},
	} {
		if got := CompareVersions(tc.a, tc.b); sign(got) != tc.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := CompareVersions(tc.b, tc.a); sign(got) != -tc.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func TestCheckManifest(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "usr/bin"), 0o755)
	os.WriteFile(filepath.Join(root, "usr/bin/pharaon"), []byte("binary"), 0o755)
	sum, _ := FileSum(filepath.Join(root, "usr/bin/pharaon"))
	m := filepath.Join(root, "MANIFEST.sha256")
	os.WriteFile(m, []byte(sum+"  /usr/bin/pharaon\n0000  /etc/pharaon/pharaon.conf\n"), 0o644)
	if err := CheckManifest(m, root); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "usr/bin/pharaon"), []byte("binarz"), 0o755)
	if err := CheckManifest(m, root); err == nil || !strings.Contains(err.Error(), "/usr/bin/pharaon") {
		t.Fatalf("a changed file: %v", err)
	}
}

func TestContents(t *testing.T) {
	list := `drwxr-xr-x 0/0               0 2026-11-30 12:00 ./
drwxr-xr-x 0/0               0 2026-11-30 12:00 ./usr/bin/
-rwxr-xr-x 0/0        12345678 2026-11-30 12:00 ./usr/bin/pharaon
lrwxrwxrwx 0/0               0 2026-11-30 12:00 ./usr/lib/x -> /var/lib/pharaon/y
`
	got := contents(list)
	want := []string{"/usr/bin/", "/usr/bin/pharaon", "/usr/lib/x"}
	if !slices.Equal(got, want) {
		t.Errorf("contents %q, want %q", got, want)
	}
}

// A kiosk whose system is read-only (the disk image's slots) takes no
// package: it is told which update it needs, after the bundle's own checks
// (a tampered bundle is still said tampered), and nothing is staged or
// installed, with or without the technician's options.
func TestApplyReadOnlySystemRefused(t *testing.T) {
	for _, opt := range []Options{{}, {CheckOnly: true}, {Downgrade: true, NoRollback: true}} {
		f := newFixture(t)
		f.u.ReadOnly = func() (bool, error) { return true, nil }
		_, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), opt)
		f.refused(err, ErrReadOnly)
		if Reason(err) != "readonly" {
			t.Errorf("reason %q", Reason(err))
		}
	}
	f := newFixture(t)
	f.u.ReadOnly = func() (bool, error) { return true, nil }
	p := f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb", "/usr/bin/pharaon"), f.priv)
	tamper(t, p, "/usr/bin/pharaon", 0)
	_, err := f.u.Apply(context.Background(), p, Options{})
	f.refused(err, ErrPayload)

	f = newFixture(t)
	f.u.ReadOnly = func() (bool, error) { return false, errors.New("statfs: no such file") }
	_, err = f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), Options{})
	if err == nil || !strings.Contains(err.Error(), "read-only") || len(f.sys.installs) != 0 {
		t.Fatalf("%v, installs %v", err, f.sys.installs)
	}

	f = newFixture(t)
	f.u.ReadOnly = func() (bool, error) { return false, nil }
	if res, err := f.u.Apply(context.Background(), f.bundle("0.1.0+git12.bbb", fakeDeb("0.1.0+git12.bbb"), f.priv), Options{}); err != nil || !res.Applied {
		t.Fatalf("a writable system: %v", err)
	}
}

func TestReadOnlyFS(t *testing.T) {
	ro, err := ReadOnlyFS(t.TempDir())
	if err != nil || ro {
		t.Errorf("a test's temporary directory: read-only %v, %v", ro, err)
	}
	if _, err := ReadOnlyFS(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("no error for a missing path")
	}
}
