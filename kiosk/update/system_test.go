package update

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game/block"
)

const (
	uuidA = "6f1c2a9e-3b7d-4e0a-9c59-0d5e1b7a4ca1"
	uuidB = "6f1c2a9e-3b7d-4e0a-9c59-0d5e1b7a4cb1"
)

// abDisk is an A/B kiosk's disk in a test: an ESP directory, each slot's
// partition a file of slotSize bytes.
type abDisk struct {
	t          *testing.T
	esp, state string
	dev        map[string]string
	priv       ed25519.PrivateKey
	keys       block.KeySet
	root       []byte            // the root image of the last bundle made
	ukis       map[string]string // the slots' unified kernel images the bundles carry
}

const slotSize = 1 << 20

func newABDisk(t *testing.T, entries map[string]string) *abDisk {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	d := &abDisk{t: t, esp: t.TempDir(), state: t.TempDir(), dev: map[string]string{}, priv: priv, keys: block.NewKeySet(pub)}
	require.NoError(t, os.MkdirAll(entriesDir(d.esp), 0o700))
	for name, version := range entries {
		require.NoError(t, os.WriteFile(filepath.Join(entriesDir(d.esp), name), []byte("title Pharaon\nversion "+version+"\n"), 0o600))
	}
	for _, s := range []string{"a", "b"} {
		d.dev[s] = filepath.Join(t.TempDir(), "root-"+s)
		require.NoError(t, os.WriteFile(d.dev[s], bytes.Repeat([]byte(s), slotSize), 0o600))
	}
	return d
}

func (d *abDisk) installer(running string) *SystemInstaller {
	return &SystemInstaller{Keys: d.keys, Running: running, Arch: "amd64", State: d.state,
		Slots:  Slots{ESP: d.esp, Tries: 3, Options: "rw quiet", UUID: map[string]string{"a": uuidA, "b": uuidB}},
		Device: func(s string) string { return d.dev[s] }}
}

// bundle is a system bundle: a kernel, an initrd and a root image of
// rootSize bytes, signed by priv.
func (d *abDisk) bundle(version string, rootSize int, rollback bool, priv ed25519.PrivateKey) []byte {
	d.t.Helper()
	dir := d.t.TempDir()
	root := make([]byte, rootSize)
	_, err := rand.Read(root)
	require.NoError(d.t, err)
	files := map[string][]byte{"k": []byte("kernel " + version), "i": []byte("initrd " + version), "r": root}
	for n, b := range files {
		require.NoError(d.t, os.WriteFile(filepath.Join(dir, n), b, 0o600))
	}
	var payload bytes.Buffer
	require.NoError(d.t, WriteSystemPayload(&payload, filepath.Join(dir, "r"), filepath.Join(dir, "k"), filepath.Join(dir, "i"), d.ukis))
	d.root = root
	var out bytes.Buffer
	_, err = Write(&out, Manifest{Kind: KindSystem, Package: Package, Version: version, Arch: "amd64", Rollback: rollback,
		Payload: "pharaon-system_" + version + ".tar.gz", Created: time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC)},
		bytes.NewReader(payload.Bytes()), priv)
	require.NoError(d.t, err)
	return out.Bytes()
}

func (d *abDisk) entries() []string {
	d.t.Helper()
	es, err := ReadEntries(d.esp)
	require.NoError(d.t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

func (d *abDisk) slot(s string) []byte {
	b, err := os.ReadFile(d.dev[s])
	require.NoError(d.t, err)
	return b
}

func TestSystemInstallWritesTheOtherSlotAndAnEntryOnTrial(t *testing.T) {
	d := newABDisk(t, map[string]string{"pharaon-0001-a.conf": "1.0"})
	res, err := d.installer("a").Install(context.Background(), bytes.NewReader(d.bundle("1.1", 4096, false, d.priv)), false)
	require.NoError(t, err)
	assert.True(t, res.Applied)
	assert.Equal(t, "b", res.Slot)
	assert.Equal(t, "1.0", res.From)
	assert.Equal(t, "pharaon-0002-b+3.conf", res.Entry)
	// systemd-boot boots the new entry first; the running one stays as the fallback.
	assert.Equal(t, []string{"pharaon-0002-b+3.conf", "pharaon-0001-a.conf"}, d.entries())
	entry, err := os.ReadFile(filepath.Join(entriesDir(d.esp), res.Entry))
	require.NoError(t, err)
	assert.Equal(t, "title Pharaon 1.1\nversion 1.1\nlinux /b/vmlinuz\ninitrd /b/initrd.img\n"+
		"options root=PARTUUID="+uuidB+" rw quiet pharaon.slot=b\n", string(entry))
	k, err := os.ReadFile(filepath.Join(d.esp, "b", SystemKernel))
	require.NoError(t, err)
	assert.Equal(t, "kernel 1.1", string(k))
	b := d.slot("b")
	assert.Equal(t, d.root, b[:4096], "the root image at the slot's start")
	assert.Len(t, b, slotSize, "the slot's partition is not truncated")
	assert.Equal(t, bytes.Repeat([]byte("a"), slotSize), d.slot("a"), "the running slot untouched")
}

func TestSystemInstallRefusalsChangeNothing(t *testing.T) {
	_, stranger, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	for _, c := range []struct {
		name    string
		entries map[string]string
		bundle  func(d *abDisk) []byte
		want    error
	}{
		{"older version", map[string]string{"pharaon-0003-a.conf": "1.2"},
			func(d *abDisk) []byte { return d.bundle("1.1", 100, false, d.priv) }, ErrDowngrade},
		{"same version", map[string]string{"pharaon-0003-a.conf": "1.2"},
			func(d *abDisk) []byte { return d.bundle("1.2", 100, false, d.priv) }, ErrDowngrade},
		{"untrusted key", map[string]string{"pharaon-0001-a.conf": "1.0"},
			func(d *abDisk) []byte { return d.bundle("1.1", 100, false, stranger) }, ErrUntrusted},
		{"running system on trial", map[string]string{"pharaon-0002-a+2-1.conf": "1.0", "pharaon-0001-b.conf": "0.9"},
			func(d *abDisk) []byte { return d.bundle("1.1", 100, false, d.priv) }, ErrUnconfirmed},
		{"root image larger than the slot", map[string]string{"pharaon-0001-a.conf": "1.0"},
			func(d *abDisk) []byte { return d.bundle("1.1", slotSize+1, false, d.priv) }, ErrMismatch},
		{"a package bundle", map[string]string{"pharaon-0001-a.conf": "1.0"},
			func(d *abDisk) []byte {
				var out bytes.Buffer
				_, err := Write(&out, Manifest{Kind: KindDeb, Package: Package, Version: "1.1", Arch: "amd64", Payload: "p.deb"},
					bytes.NewReader([]byte("deb")), d.priv)
				require.NoError(t, err)
				return out.Bytes()
			}, ErrMismatch},
		{"no entry for the running slot", map[string]string{"pharaon-0001-b.conf": "1.0"},
			func(d *abDisk) []byte { return d.bundle("1.1", 100, false, d.priv) }, ErrNoSlots},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newABDisk(t, c.entries)
			before := d.entries()
			res, err := d.installer("a").Install(context.Background(), bytes.NewReader(c.bundle(d)), false)
			require.ErrorIs(t, err, c.want)
			assert.False(t, res.Applied)
			assert.Equal(t, bytes.Repeat([]byte("a"), slotSize), d.slot("a"))
			assert.Equal(t, before, d.entries(), "the entries unchanged")
			assert.Equal(t, bytes.Repeat([]byte("b"), slotSize), d.slot("b"), "the other slot unchanged")
			_, err = os.Stat(filepath.Join(d.esp, "b", SystemKernel))
			assert.ErrorIs(t, err, os.ErrNotExist)
		})
	}
}

func TestSystemInstallOfARollbackBundle(t *testing.T) {
	d := newABDisk(t, map[string]string{"pharaon-0003-a.conf": "1.2", "pharaon-0002-b.conf": "1.1"})
	res, err := d.installer("a").Install(context.Background(), bytes.NewReader(d.bundle("1.1", 100, true, d.priv)), false)
	require.NoError(t, err)
	assert.Equal(t, "pharaon-0004-b+3.conf", res.Entry, "a rollback is a new generation: it boots first")
	assert.Equal(t, []string{"pharaon-0004-b+3.conf", "pharaon-0003-a.conf"}, d.entries(), "the other slot's old entry removed")
}

// A payload that differs from its manifest is found while it is written:
// the slot is left without a boot entry, the running system untouched.
func TestSystemInstallOfATamperedPayloadLeavesNoEntry(t *testing.T) {
	d := newABDisk(t, map[string]string{"pharaon-0002-a.conf": "1.1", "pharaon-0001-b.conf": "1.0"})
	bundle := d.bundle("1.2", 64<<10, false, d.priv)
	// Flip a byte late in the payload (the compressed root image's end):
	// the slot is being written when it is found.
	tamperPayload(t, bundle)
	_, err := d.installer("a").Install(context.Background(), bytes.NewReader(bundle), false)
	require.ErrorIs(t, err, ErrPayload)
	assert.Equal(t, []string{"pharaon-0002-a.conf"}, d.entries(), "no entry names the slot written over")
	assert.Equal(t, bytes.Repeat([]byte("a"), slotSize), d.slot("a"))
	// Truncated: the same.
	d = newABDisk(t, map[string]string{"pharaon-0002-a.conf": "1.1", "pharaon-0001-b.conf": "1.0"})
	bundle = d.bundle("1.2", 64<<10, false, d.priv)
	_, err = d.installer("a").Install(context.Background(), bytes.NewReader(bundle[:len(bundle)*2/3]), false)
	require.ErrorIs(t, err, ErrPayload)
	assert.Equal(t, []string{"pharaon-0002-a.conf"}, d.entries())
}

// tamperPayload flips a byte three quarters into a system bundle's payload.
func tamperPayload(t *testing.T, bundle []byte) {
	start := bytes.Index(bundle, []byte{0x1f, 0x8b, 0x08})
	require.Positive(t, start)
	end := len(bundle) - 1024 // the tar's end blocks
	for end > start && bundle[end-1] == 0 {
		end--
	}
	bundle[start+(end-start)*3/4] ^= 0x40
}

func TestSystemCheckOnlyWritesNothing(t *testing.T) {
	d := newABDisk(t, map[string]string{"pharaon-0002-a.conf": "1.1", "pharaon-0001-b.conf": "1.0"})
	res, err := d.installer("a").Install(context.Background(), bytes.NewReader(d.bundle("1.2", 4096, false, d.priv)), true)
	require.NoError(t, err)
	assert.False(t, res.Applied)
	assert.Equal(t, "b", res.Slot)
	assert.Equal(t, []string{"pharaon-0002-a.conf", "pharaon-0001-b.conf"}, d.entries())
	assert.Equal(t, bytes.Repeat([]byte("b"), slotSize), d.slot("b"))
	bundle := d.bundle("1.2", 4096, false, d.priv)
	tamperPayload(t, bundle)
	_, err = d.installer("a").Install(context.Background(), bytes.NewReader(bundle), true)
	require.ErrorIs(t, err, ErrPayload, "a check reads the whole payload")
}

func TestSystemInstallWhileAnotherRuns(t *testing.T) {
	d := newABDisk(t, map[string]string{"pharaon-0001-a.conf": "1.0"})
	unlock, err := lock(filepath.Join(d.state, "lock"))
	require.NoError(t, err)
	defer unlock()
	_, err = d.installer("a").Install(context.Background(), bytes.NewReader(d.bundle("1.1", 100, false, d.priv)), false)
	require.ErrorIs(t, err, ErrBusy)
	assert.Equal(t, []string{"pharaon-0001-a.conf"}, d.entries())
}

// The entries sort as systemd-boot sorts them: an entry with no try left
// after every other, then the highest generation first.
func TestEntriesInBootOrderAndRollbackSeen(t *testing.T) {
	d := newABDisk(t, map[string]string{"pharaon-0003-b+0-3.conf": "1.2", "pharaon-0002-a.conf": "1.1", "README": "",
		"pharaon-0001-b.conf.tmp": ""})
	assert.Equal(t, []string{"pharaon-0002-a.conf", "pharaon-0003-b+0-3.conf"}, d.entries())
	st, err := ReadStatus(d.esp, "a")
	require.NoError(t, err)
	cur, ok := st.Current()
	require.True(t, ok)
	assert.Equal(t, "1.1", cur.Version)
	assert.True(t, cur.Confirmed())
	failed, ok := st.RolledBack()
	require.True(t, ok, "the kiosk came back from a failed system")
	assert.Equal(t, "1.2", failed.Version)
	assert.True(t, failed.Failed())

	st.Running = "b"
	_, ok = st.RolledBack()
	assert.False(t, ok)
}

func TestBlessConfirmsTheBootedEntry(t *testing.T) {
	d := newABDisk(t, map[string]string{"pharaon-0002-b+2-1.conf": "1.1", "pharaon-0001-a.conf": "1.0"})
	e, err := Bless(d.esp, `\loader\entries\pharaon-0002-b+2-1.conf`)
	require.NoError(t, err)
	assert.Equal(t, "pharaon-0002-b.conf", e.Name)
	assert.Equal(t, []string{"pharaon-0002-b.conf", "pharaon-0001-a.conf"}, d.entries())
	// Twice: nothing more to do.
	_, err = Bless(d.esp, `\loader\entries\pharaon-0002-b+2-1.conf`)
	require.NoError(t, err)
	assert.Equal(t, []string{"pharaon-0002-b.conf", "pharaon-0001-a.conf"}, d.entries())
	for _, bad := range []string{`\EFI\Linux\pharaon-0002-b+2-1.conf`, `\loader\entries\..\loader.conf`, `\loader\entries\other+1.conf`, ``} {
		_, err := Bless(d.esp, bad)
		assert.Error(t, err, bad)
	}
}

func TestReadSlots(t *testing.T) {
	p := filepath.Join(t.TempDir(), "slots.conf")
	require.NoError(t, os.WriteFile(p, []byte("# the image's\nesp /efi\ntries 2\noptions rw quiet console=ttyS0,115200\nslot a "+
		strings.ToUpper(uuidA)+"\nslot b "+uuidB+"\n"), 0o644))
	s, err := ReadSlots(p)
	require.NoError(t, err)
	assert.Equal(t, Slots{ESP: "/efi", Tries: 2, Options: "rw quiet console=ttyS0,115200", UUID: map[string]string{"a": uuidA, "b": uuidB}}, s)
	require.NoError(t, os.WriteFile(p, []byte("esp /efi\nboot uki\nslot a "+uuidA+"\nslot b "+uuidB+"\n"), 0o644))
	s, err = ReadSlots(p)
	require.NoError(t, err)
	assert.True(t, s.UKI)
	assert.Equal(t, "/dev/disk/by-partuuid/"+uuidB, s.Device("b"))

	_, err = ReadSlots(filepath.Join(t.TempDir(), "none"))
	require.ErrorIs(t, err, ErrNoSlots)
	for _, bad := range []string{"esp efi\nslot a " + uuidA + "\nslot b " + uuidB, "esp /efi\nslot a " + uuidA, "esp /efi\nslot c " + uuidA,
		"esp /efi\ntries 0\nslot a " + uuidA + "\nslot b " + uuidB, "esp /efi\nfoo bar\nslot a " + uuidA + "\nslot b " + uuidB, "esp /efi\nboot grub\nslot a " + uuidA + "\nslot b " + uuidB} {
		require.NoError(t, os.WriteFile(p, []byte(bad), 0o644))
		_, err := ReadSlots(p)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, "b", RunningSlot("BOOT_IMAGE=/b/vmlinuz root=PARTUUID=x pharaon.slot=b quiet"))
	assert.Equal(t, "", RunningSlot("root=/dev/vda2 pharaon.slot=c"))
}

// A kiosk that boots with Secure Boot (its slots file says "boot uki")
// boots a new system from its slot's unified kernel image, which the
// bundle carries signed; a bundle without one is refused before anything
// is written. A kiosk that boots a kernel and an initrd ignores them.
func TestSystemInstallWithUnifiedKernelImages(t *testing.T) {
	d := newABDisk(t, map[string]string{"pharaon-0001-a.conf": "1.0"})
	dir := t.TempDir()
	d.ukis = map[string]string{"a": filepath.Join(dir, "a.efi"), "b": filepath.Join(dir, "b.efi")}
	for s, p := range d.ukis {
		require.NoError(t, os.WriteFile(p, []byte("unified image of slot "+s), 0o600))
	}
	withUKI := d.bundle("1.1", 4096, false, d.priv)
	d.ukis = nil
	without := d.bundle("1.1", 4096, false, d.priv)

	in := d.installer("a")
	in.Slots.UKI = true
	for _, check := range []bool{true, false} {
		_, err := in.Install(context.Background(), bytes.NewReader(without), check)
		require.ErrorIs(t, err, ErrMismatch)
		assert.Equal(t, []string{"pharaon-0001-a.conf"}, d.entries())
		assert.Equal(t, bytes.Repeat([]byte("b"), slotSize), d.slot("b"), "nothing written")
	}
	res, err := in.Install(context.Background(), bytes.NewReader(withUKI), false)
	require.NoError(t, err)
	entry, err := os.ReadFile(filepath.Join(entriesDir(d.esp), res.Entry))
	require.NoError(t, err)
	assert.Equal(t, "title Pharaon 1.1\nversion 1.1\nefi /b/pharaon-b.efi\n", string(entry), "no options: the image's own line")
	uki, err := os.ReadFile(filepath.Join(d.esp, "b", "pharaon-b.efi"))
	require.NoError(t, err)
	assert.Equal(t, "unified image of slot b", string(uki), "the target slot's image, not the other's")
	for _, f := range []string{"pharaon-a.efi", SystemKernel, SystemInitrd} {
		_, err = os.Stat(filepath.Join(d.esp, "b", f))
		assert.ErrorIs(t, err, os.ErrNotExist, f)
	}

	d2 := newABDisk(t, map[string]string{"pharaon-0001-a.conf": "1.0"})
	d2.priv, d2.keys = d.priv, d.keys
	res, err = d2.installer("a").Install(context.Background(), bytes.NewReader(withUKI), false)
	require.NoError(t, err)
	entry, err = os.ReadFile(filepath.Join(entriesDir(d2.esp), res.Entry))
	require.NoError(t, err)
	assert.Contains(t, string(entry), "linux /b/vmlinuz\n", "a kiosk without Secure Boot boots the kernel and the initrd")
}

// Whatever the kernel's line says, the slot to write is never the block
// device the root file system is mounted from.
func TestSystemInstallNeverWritesTheRunningRoot(t *testing.T) {
	var dev string
	var rdev uint64
	for _, p := range []string{"/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/ram0"} {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFBLK {
			dev, rdev = p, st.Rdev
			break
		}
	}
	if dev == "" {
		t.Skip("no block device here to stand for the running root")
	}
	d := newABDisk(t, map[string]string{"pharaon-0001-a.conf": "1.0"})
	in := d.installer("a")
	in.Device = func(string) string { return dev }
	in.Root = func() (uint64, error) { return rdev, nil }
	// A check only: were the guard to fail, nothing would be written.
	_, err := in.Install(context.Background(), bytes.NewReader(d.bundle("1.1", 100, false, d.priv)), true)
	require.ErrorIs(t, err, ErrMismatch)
	assert.Contains(t, err.Error(), "is the running root file system")
}

// A system written into the other slot and not started yet is pending:
// the next start boots it, and the status the kiosk reads says so (the
// kiosk restarts into it when idle). Once it runs, or once it used its
// tries and the kiosk came back, nothing is pending.
func TestPendingSystem(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries map[string]string
		running string
		pending string
	}{
		{"just written", map[string]string{"pharaon-0002-b+3.conf": "1.1", "pharaon-0001-a.conf": "1.0"}, "a", "pharaon-0002-b+3.conf"},
		{"a try used, back on the old one by hand", map[string]string{"pharaon-0002-b+2-1.conf": "1.1", "pharaon-0001-a.conf": "1.0"}, "a", "pharaon-0002-b+2-1.conf"},
		{"running it, on trial", map[string]string{"pharaon-0002-b+2-1.conf": "1.1", "pharaon-0001-a.conf": "1.0"}, "b", ""},
		{"confirmed", map[string]string{"pharaon-0002-b.conf": "1.1", "pharaon-0001-a.conf": "1.0"}, "b", ""},
		{"failed its tries", map[string]string{"pharaon-0002-b+0-3.conf": "1.1", "pharaon-0001-a.conf": "1.0"}, "a", ""},
		{"the older slot", map[string]string{"pharaon-0002-a.conf": "1.1", "pharaon-0001-b.conf": "1.0"}, "a", ""},
		{"no entries", map[string]string{}, "a", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newABDisk(t, tc.entries)
			st, err := ReadStatus(d.esp, tc.running)
			require.NoError(t, err)
			p, ok := st.Pending()
			assert.Equal(t, tc.pending != "", ok)
			assert.Equal(t, tc.pending, p.Name)
			b := st.Boot()
			assert.Equal(t, tc.pending, b.PendingEntry)
			if tc.pending != "" {
				assert.Equal(t, "1.1", b.PendingVersion)
			}
		})
	}
}
