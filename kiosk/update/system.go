package update

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"pharaon/game/block"
)

// A/B system updates (DESIGN.md §10). The kiosk image's disk has two root
// slots, a and b (packaging/image/build.sh), and the kiosk's ledger on a
// partition of its own, in neither. Each slot boots from a systemd-boot
// entry on the EFI system partition (ESP):
//
//	loader/entries/pharaon-GGGG-S[+LEFT[-DONE]].conf
//	S/vmlinuz  S/initrd.img
//
// GGGG is the entry's generation, S its slot. systemd-boot boots the first
// entry in its order: entries with no try left last, then by name, the
// highest first (so the highest generation). An entry written by an update
// is on trial (+LEFT): systemd-boot takes a try at each boot of it, and
// once none is left it sorts the entry last and boots the slot before.
// A boot on trial that reaches "kiosk ready" removes the counter (Bless,
// run by `pharaon boot-check`): the slot is good from then on.
//
// A system bundle's payload is a gzip-compressed tar of three files, in
// this order: the root file system's image, the kernel and the initrd
// (SystemRoot, SystemKernel, SystemInitrd); before them, a bundle for
// kiosks that boot with Secure Boot carries each slot's unified kernel
// image (SystemUKI: the kernel, the initrd and that slot's command line in
// one file signed with the operator's key), and such a kiosk (its slots
// file says "boot uki") boots its entry from it. The installer streams it: the
// slot's partition and its kernel files are written while the payload is
// hashed, and its boot entry is written only once the whole payload
// matched the signed manifest. Before the first byte is written, every
// entry of the slot written over is removed, so that no entry ever names
// a slot half written.

// Files of a system payload, in their order.
const (
	SystemRoot   = "root.img"
	SystemKernel = "vmlinuz"
	SystemInitrd = "initrd.img"
)

// SystemUKI is the name of slot's unified kernel image in a payload, and
// on the ESP in the slot's directory.
func SystemUKI(slot string) string { return "pharaon-" + slot + ".efi" }

// Bounds of a system payload's kernel files.
const (
	maxKernel = 256 << 20
	maxInitrd = 512 << 20
	maxUKI    = maxKernel + maxInitrd
)

// SlotsFile is where a kiosk image describes its slots.
const SlotsFile = "/etc/pharaon/slots.conf"

// Errors of a system update.
var (
	// ErrNoSlots: the kiosk runs from no A/B slot (a plain Debian
	// installation, or an image from before the slots).
	ErrNoSlots = errors.New("this kiosk has no A/B system slots")
	// ErrUnconfirmed: the running system is on trial; writing over the
	// other slot would remove the system to fall back to.
	ErrUnconfirmed = errors.New("the running system has not yet been confirmed by a boot that reached \"kiosk ready\"")
)

// Slots is the disk's layout, as SlotsFile says it.
type Slots struct {
	ESP     string            // where the EFI system partition is mounted
	Tries   int               // boots a new system gets to reach "kiosk ready"
	Options string            // the kernel's command line but root= and pharaon.slot=
	UUID    map[string]string // each slot's GPT partition UUID
	// UKI: the slots boot from unified kernel images (Secure Boot with the
	// operator's keys), not from a kernel and an initrd.
	UKI bool
}

// ReadSlots reads a slots file: lines "esp DIR", "tries N", "options
// LINE", "slot a UUID", "slot b UUID", "boot linux|uki"; # starts a
// comment.
func ReadSlots(path string) (Slots, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Slots{}, fmt.Errorf("%s: %w", path, ErrNoSlots)
	}
	if err != nil {
		return Slots{}, err
	}
	s := Slots{Tries: 3, UUID: map[string]string{}}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		val = strings.TrimSpace(val)
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s: %q", path, i+1, why, line) }
		switch key {
		case "esp":
			if !filepath.IsAbs(val) {
				return Slots{}, bad("not an absolute path")
			}
			s.ESP = filepath.Clean(val)
		case "tries":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > 9 {
				return Slots{}, bad("tries from 1 to 9")
			}
			s.Tries = n
		case "options":
			if strings.ContainsAny(val, "\r\x00") {
				return Slots{}, bad("control character")
			}
			s.Options = val
		case "boot":
			if val != "linux" && val != "uki" {
				return Slots{}, bad("boot linux or uki")
			}
			s.UKI = val == "uki"
		case "slot":
			name, uuid, _ := strings.Cut(val, " ")
			if !validSlot(name) || !uuidPattern.MatchString(uuid) {
				return Slots{}, bad("want slot a|b UUID")
			}
			s.UUID[name] = strings.ToLower(uuid)
		default:
			return Slots{}, bad("unknown setting")
		}
	}
	if s.ESP == "" || s.UUID["a"] == "" || s.UUID["b"] == "" {
		return Slots{}, fmt.Errorf("%s: want esp and both slots a and b: %w", path, ErrNoSlots)
	}
	return s, nil
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func validSlot(s string) bool { return s == "a" || s == "b" }

// Device is the block device of slot.
func (s Slots) Device(slot string) string { return "/dev/disk/by-partuuid/" + s.UUID[slot] }

// Other is the slot that is not slot.
func Other(slot string) string {
	if slot == "a" {
		return "b"
	}
	return "a"
}

// RunningSlot is the slot the kernel's command line names
// (pharaon.slot=a|b), "" when it names none.
func RunningSlot(cmdline string) string {
	for _, f := range strings.Fields(cmdline) {
		if v, ok := strings.CutPrefix(f, "pharaon.slot="); ok && validSlot(v) {
			return v
		}
	}
	return ""
}

// BootEntry is one of the slots' boot entries.
type BootEntry struct {
	Name      string // its file name in loader/entries
	Gen       int
	Slot      string
	Version   string // its version line
	TriesLeft int    // -1: not on trial (confirmed)
	TriesDone int
}

// Confirmed says the entry's system reached "kiosk ready" once.
func (e BootEntry) Confirmed() bool { return e.TriesLeft < 0 }

// Failed says the entry used all its tries: systemd-boot passes it over.
func (e BootEntry) Failed() bool { return e.TriesLeft == 0 }

var entryName = regexp.MustCompile(`^pharaon-([0-9]{4})-([ab])(?:\+([0-9])(?:-([0-9]+))?)?\.conf$`)

// ParseEntryName reads a boot entry's file name.
func ParseEntryName(name string) (BootEntry, bool) {
	m := entryName.FindStringSubmatch(name)
	if m == nil {
		return BootEntry{}, false
	}
	e := BootEntry{Name: name, Slot: m[2], TriesLeft: -1}
	e.Gen, _ = strconv.Atoi(m[1])
	if m[3] != "" {
		e.TriesLeft, _ = strconv.Atoi(m[3])
		if m[4] != "" {
			n, err := strconv.Atoi(m[4])
			if err != nil {
				return BootEntry{}, false
			}
			e.TriesDone = n
		}
	}
	return e, true
}

func (e BootEntry) confirmedName() string { return fmt.Sprintf("pharaon-%04d-%s.conf", e.Gen, e.Slot) }

func entriesDir(esp string) string { return filepath.Join(esp, "loader", "entries") }

// ReadEntries lists the slots' boot entries in systemd-boot's order: the
// one it boots first, first (entries with no try left last, then the
// highest generation first).
func ReadEntries(esp string) ([]BootEntry, error) {
	des, err := os.ReadDir(entriesDir(esp))
	if err != nil {
		return nil, err
	}
	var out []BootEntry
	for _, de := range des {
		e, ok := ParseEntryName(de.Name())
		if !ok || !de.Type().IsRegular() {
			continue
		}
		e.Version = entryVersion(filepath.Join(entriesDir(esp), e.Name))
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Failed() != out[j].Failed() {
			return !out[i].Failed()
		}
		if out[i].Gen != out[j].Gen {
			return out[i].Gen > out[j].Gen
		}
		return out[i].TriesLeft > out[j].TriesLeft
	})
	return out, nil
}

// SystemStatus is what the slots say of the running system.
type SystemStatus struct {
	Running string      // the running slot
	Entries []BootEntry // in systemd-boot's order
}

// ReadStatus reads the slots' entries for the running slot.
func ReadStatus(esp, running string) (SystemStatus, error) {
	es, err := ReadEntries(esp)
	return SystemStatus{Running: running, Entries: es}, err
}

// Current is the newest entry of the running slot.
func (st SystemStatus) Current() (BootEntry, bool) {
	best := BootEntry{Gen: -1}
	for _, e := range st.Entries {
		if e.Slot == st.Running && e.Gen > best.Gen {
			best = e
		}
	}
	return best, best.Gen >= 0
}

// RolledBack is the newer entry that failed its tries and left the kiosk
// on the running slot, if one did.
func (st SystemStatus) RolledBack() (BootEntry, bool) {
	cur, ok := st.Current()
	if !ok {
		return BootEntry{}, false
	}
	for _, e := range st.Entries {
		if e.Slot != st.Running && e.Gen > cur.Gen && e.Failed() {
			return e, true
		}
	}
	return BootEntry{}, false
}

// Pending is the other slot's entry that the next start boots, on trial
// and newer than the running system: a system written (SystemInstaller)
// and not started yet.
func (st SystemStatus) Pending() (BootEntry, bool) {
	if len(st.Entries) == 0 {
		return BootEntry{}, false
	}
	e := st.Entries[0]
	cur, ok := st.Current()
	if e.Slot == st.Running || e.TriesLeft <= 0 || (ok && e.Gen <= cur.Gen) {
		return BootEntry{}, false
	}
	return e, true
}

// SystemInstaller writes system bundles into the slot the kiosk does not
// run from.
type SystemInstaller struct {
	Keys    block.Keys // the keys trusted for updates
	Slots   Slots
	Running string // the running slot
	Arch    string
	State   string // the update lock's directory (the Updater's State)
	// Device is the block device of a slot (nil: Slots.Device).
	Device func(slot string) string
	// Root is the device number of the mounted root file system (nil:
	// not checked): the slot to write must not be it, whatever the
	// kernel's line says.
	Root func() (uint64, error)
}

// SystemResult is what a system install did.
type SystemResult struct {
	Manifest Manifest
	Key      block.KeyID
	From     string // the running system's version
	Slot     string // the slot written
	Entry    string // its boot entry, on trial
	Applied  bool   // false for a check only
}

// Install verifies the system bundle read from r and, unless checkOnly,
// writes it into the other slot with a boot entry on trial: the next boot
// starts it. Refused before anything is written: a bad signature or
// manifest, another kind, package or architecture, a version not newer
// than the running one unless the bundle is signed as a rollback, a
// running system still on trial, a root image larger than the slot. A
// payload that does not match its manifest is found while it is written:
// the slot is then left without a boot entry (its previous entry was
// removed first), and the running system is untouched.
func (s *SystemInstaller) Install(ctx context.Context, r io.Reader, checkOnly bool) (res SystemResult, err error) {
	if !validSlot(s.Running) {
		return res, fmt.Errorf("the kernel's command line names no slot (pharaon.slot=): %w", ErrNoSlots)
	}
	if s.State != "" {
		unlock, err := lockState(s.State)
		if err != nil {
			return res, err
		}
		defer unlock()
	}
	tr := tar.NewReader(r)
	m, id, err := readSigned(tr, s.Keys)
	if err != nil {
		return res, err
	}
	res.Manifest, res.Key = m, id
	switch {
	case m.Kind != KindSystem:
		return res, fmt.Errorf("payload kind %q, not %q: %w", m.Kind, KindSystem, ErrMismatch)
	case m.Package != Package:
		return res, fmt.Errorf("package %q, not %q: %w", m.Package, Package, ErrMismatch)
	case s.Arch != "" && m.Arch != s.Arch:
		return res, fmt.Errorf("architecture %q, this kiosk is %q: %w", m.Arch, s.Arch, ErrMismatch)
	}
	st, err := ReadStatus(s.Slots.ESP, s.Running)
	if err != nil {
		return res, fmt.Errorf("boot entries: %w", err)
	}
	cur, ok := st.Current()
	if !ok {
		return res, fmt.Errorf("no boot entry for the running slot %s in %s: %w", s.Running, entriesDir(s.Slots.ESP), ErrNoSlots)
	}
	if !cur.Confirmed() {
		return res, fmt.Errorf("entry %s: %w", cur.Name, ErrUnconfirmed)
	}
	res.From = cur.Version
	if cur.Version != "" && CompareVersions(m.Version, cur.Version) <= 0 && !m.Rollback {
		return res, fmt.Errorf("version %s, running %s: %w", m.Version, cur.Version, ErrDowngrade)
	}
	target := Other(s.Running)
	res.Slot = target
	dev := s.Slots.Device(target)
	if s.Device != nil {
		dev = s.Device(target)
	}
	if s.Root != nil {
		root, err := s.Root()
		if err != nil {
			return res, fmt.Errorf("the running root: %w", err)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(dev, &st); err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFBLK && st.Rdev == root {
			return res, fmt.Errorf("slot %s (%s) is the running root file system, though the kernel's line says slot %s: %w", target, dev, s.Running, ErrMismatch)
		}
	}
	var sink payloadSink = discardSink{}
	if !checkOnly {
		ws, err := openSlot(s.Slots.ESP, target, dev)
		if err != nil {
			return res, err
		}
		defer ws.close()
		ws.needUKI = s.Slots.UKI
		// Before the other slot's first byte changes, no entry names it.
		ws.clear = func() error {
			for _, e := range st.Entries {
				if e.Slot == target {
					if err := os.Remove(filepath.Join(entriesDir(s.Slots.ESP), e.Name)); err != nil {
						return fmt.Errorf("remove the other slot's entry: %w", err)
					}
				}
			}
			syncDir(entriesDir(s.Slots.ESP))
			return nil
		}
		sink = ws
	}
	seen, err := readSystemPayload(ctx, tr, m, sink)
	if err != nil {
		return res, err
	}
	if s.Slots.UKI && !seen[SystemUKI(target)] {
		return res, fmt.Errorf("no unified kernel image for slot %s in the bundle, and this kiosk boots with Secure Boot from one: %w", target, ErrMismatch)
	}
	if h, err := tr.Next(); err != io.EOF {
		if err == nil {
			return res, fmt.Errorf("unexpected entry %q after the payload: %w", h.Name, ErrFormat)
		}
		return res, fmt.Errorf("after the payload: %w: %w", err, ErrFormat)
	}
	if checkOnly {
		return res, nil
	}
	if err := sink.(*slotWriter).finish(); err != nil {
		return res, err
	}
	gen := cur.Gen
	for _, e := range st.Entries {
		gen = max(gen, e.Gen)
	}
	name := fmt.Sprintf("pharaon-%04d-%s+%d.conf", gen+1, target, s.Slots.Tries)
	text := fmt.Sprintf("title Pharaon %s\nversion %s\nlinux /%s/%s\ninitrd /%s/%s\noptions root=PARTUUID=%s %s pharaon.slot=%s\n",
		m.Version, m.Version, target, SystemKernel, target, SystemInitrd, s.Slots.UUID[target], s.Slots.Options, target)
	if s.Slots.UKI {
		// The image's own line is the one it was signed with: no options.
		text = fmt.Sprintf("title Pharaon %s\nversion %s\nefi /%s/%s\n", m.Version, m.Version, target, SystemUKI(target))
	}
	if err := writeFileSynced(filepath.Join(entriesDir(s.Slots.ESP), name), []byte(text)); err != nil {
		return res, fmt.Errorf("boot entry: %w", err)
	}
	res.Entry, res.Applied = name, true
	return res, nil
}

// payloadSink takes a system payload's three files.
type payloadSink interface {
	file(name string, size int64) (io.Writer, error)
}

type discardSink struct{}

func (discardSink) file(string, int64) (io.Writer, error) { return io.Discard, nil }

// slotWriter writes the other slot: its partition and its kernel files.
type slotWriter struct {
	esp, slot string
	dev       *os.File
	devSize   int64
	files     []*os.File
	clear     func() error // called once, before the first write
	needUKI   bool         // the slot boots from its unified kernel image
	gotUKI    bool
}

func openSlot(esp, slot, dev string) (*slotWriter, error) {
	f, err := os.OpenFile(dev, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("slot %s: %w", slot, err)
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("slot %s: %w", slot, err)
	}
	if err := os.MkdirAll(filepath.Join(esp, slot), 0o700); err != nil {
		f.Close()
		return nil, fmt.Errorf("slot %s's kernel directory: %w", slot, err)
	}
	return &slotWriter{esp: esp, slot: slot, dev: f, devSize: size}, nil
}

func (w *slotWriter) file(name string, size int64) (io.Writer, error) {
	if strings.HasSuffix(name, ".efi") && name != SystemUKI(w.slot) {
		return io.Discard, nil // the other slot's image
	}
	if name == SystemUKI(w.slot) {
		w.gotUKI = true
	}
	if name == SystemRoot && size > w.devSize {
		return nil, fmt.Errorf("root image of %d bytes, slot %s holds %d: %w", size, w.slot, w.devSize, ErrMismatch)
	}
	if name == SystemRoot && w.needUKI && !w.gotUKI {
		return nil, fmt.Errorf("no unified kernel image for slot %s in the bundle, and this kiosk boots with Secure Boot from one: %w", w.slot, ErrMismatch)
	}
	if w.clear != nil {
		if err := w.clear(); err != nil {
			return nil, err
		}
		w.clear = nil
	}
	if name == SystemRoot {
		return w.dev, nil
	}
	if w.needUKI && (name == SystemKernel || name == SystemInitrd) {
		return io.Discard, nil // in the unified image already: the ESP is small
	}
	if strings.HasSuffix(name, ".efi") {
		name = SystemUKI(w.slot)
	}
	f, err := os.OpenFile(filepath.Join(w.esp, w.slot, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	w.files = append(w.files, f)
	return f, nil
}

// finish makes what was written durable, before the entry names it.
func (w *slotWriter) finish() error {
	for _, f := range append([]*os.File{w.dev}, w.files...) {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("slot %s: %w", w.slot, err)
		}
	}
	syncDir(filepath.Join(w.esp, w.slot))
	return nil
}

func (w *slotWriter) close() {
	w.dev.Close()
	for _, f := range w.files {
		f.Close()
	}
}

// readSystemPayload reads the payload at tr (m.Size bytes), hashing it,
// and hands its three files to sink as they come. It fails when the
// payload's layout is not the one expected or its SHA-256 is not the
// manifest's; a sink has then taken bytes that nothing may trust.
func readSystemPayload(ctx context.Context, tr io.Reader, m Manifest, sink payloadSink) (seen map[string]bool, err error) {
	seen = map[string]bool{}
	err = readPayloadFiles(ctx, tr, m, sink, seen)
	return seen, err
}

func readPayloadFiles(ctx context.Context, tr io.Reader, m Manifest, sink payloadSink, seen map[string]bool) error {
	sum := sha256.New()
	counted := &countReader{r: io.TeeReader(io.LimitReader(tr, m.Size), sum)}
	body := bufio.NewReaderSize(ctxReader{ctx, counted}, 1<<20)
	fail := func(err error) error { return fmt.Errorf("payload %s: %w: %w", m.Payload, err, ErrPayload) }
	gz, err := gzip.NewReader(body)
	if err != nil {
		return fail(err)
	}
	gz.Multistream(false)
	in := tar.NewReader(gz)
	type entry struct {
		name     string
		max      int64
		optional bool
	}
	var pending *tar.Header
	for _, want := range []entry{{SystemUKI("a"), maxUKI, true}, {SystemUKI("b"), maxUKI, true},
		{SystemRoot, MaxPayload * 4, false}, {SystemKernel, maxKernel, false}, {SystemInitrd, maxInitrd, false}} {
		h := pending
		pending = nil
		if h == nil {
			var err error
			if h, err = in.Next(); err != nil {
				return fail(fmt.Errorf("no %s: %w", want.name, err))
			}
		}
		if want.optional && h.Name != want.name {
			pending = h // not there: the header is the next entry's
			continue
		}
		if h.Name != want.name || h.Typeflag != tar.TypeReg || h.Size <= 0 || h.Size > want.max {
			return fail(fmt.Errorf("entry %q (%d bytes) where %s should be", h.Name, h.Size, want.name))
		}
		seen[want.name] = true
		w, err := sink.file(want.name, h.Size)
		if err != nil {
			if errors.Is(err, ErrMismatch) {
				return err
			}
			return fmt.Errorf("%s: %w", want.name, err)
		}
		buf := make([]byte, 1<<20)
		if n, err := io.CopyBuffer(w, in, buf); err != nil || n != h.Size {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fail(fmt.Errorf("%s: %d bytes of %d: %v", want.name, n, h.Size, err))
		}
	}
	if h, err := in.Next(); err != io.EOF {
		if err == nil {
			return fail(fmt.Errorf("unexpected entry %q", h.Name))
		}
		return fail(err)
	}
	if _, err := io.Copy(io.Discard, gz); err != nil {
		return fail(err)
	}
	if _, err := io.Copy(io.Discard, body); err != nil {
		return fail(err)
	}
	if counted.n != m.Size {
		return fail(fmt.Errorf("%d bytes, the manifest says %d", counted.n, m.Size))
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != m.SHA256 {
		return fail(fmt.Errorf("SHA-256 %s, the manifest says %s", got, m.SHA256))
	}
	return nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// WriteSystemPayload writes a system payload (gzip-compressed tar of the
// root image, the kernel and the initrd, in that order) from three files;
// ukis, if not empty, are the two slots' unified kernel images (by slot),
// put first.
func WriteSystemPayload(w io.Writer, root, kernel, initrd string, ukis map[string]string) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	var files []struct{ name, path string }
	if len(ukis) > 0 {
		if ukis["a"] == "" || ukis["b"] == "" || len(ukis) != 2 {
			return fmt.Errorf("unified kernel images: one for slot a and one for slot b")
		}
		files = append(files, struct{ name, path string }{SystemUKI("a"), ukis["a"]}, struct{ name, path string }{SystemUKI("b"), ukis["b"]})
	}
	files = append(files, []struct{ name, path string }{{SystemRoot, root}, {SystemKernel, kernel}, {SystemInitrd, initrd}}...)
	for _, f := range files {
		in, err := os.Open(f.path)
		if err != nil {
			return err
		}
		fi, err := in.Stat()
		if err == nil {
			err = tw.WriteHeader(&tar.Header{Name: f.name, Size: fi.Size(), Mode: 0o600, Typeflag: tar.TypeReg, Format: tar.FormatPAX})
		}
		if err == nil {
			var n int64
			n, err = io.Copy(tw, in)
			if err == nil && n != fi.Size() {
				err = fmt.Errorf("%s changed while it was read", f.path)
			}
		}
		in.Close()
		if err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// Bless confirms the entry the firmware booted on trial: countPath is the
// path systemd-boot gave it (its LoaderBootCountPath, "\loader\entries\
// pharaon-0002-b+2-1.conf"), renamed without its counter. An entry
// already confirmed is not an error.
func Bless(esp, countPath string) (BootEntry, error) {
	rel := strings.ReplaceAll(countPath, `\`, "/")
	dir, name := filepath.Split(strings.TrimPrefix(rel, "/"))
	if !strings.EqualFold(dir, "loader/entries/") {
		return BootEntry{}, fmt.Errorf("boot count path %q is not one of the slots' entries", countPath)
	}
	e, ok := ParseEntryName(strings.ToLower(name))
	if !ok {
		return BootEntry{}, fmt.Errorf("boot count path %q is not one of the slots' entries", countPath)
	}
	from := filepath.Join(entriesDir(esp), e.Name)
	to := filepath.Join(entriesDir(esp), e.confirmedName())
	if _, err := os.Stat(from); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(to); err == nil {
			e.Name, e.TriesLeft, e.TriesDone = e.confirmedName(), -1, 0
			e.Version = entryVersion(to)
			return e, nil
		}
	}
	if e.TriesLeft >= 0 {
		if err := rename(from, to); err != nil {
			return BootEntry{}, fmt.Errorf("confirm %s: %w", e.Name, err)
		}
		e.Name, e.TriesLeft, e.TriesDone = e.confirmedName(), -1, 0
	}
	e.Version = entryVersion(filepath.Join(entriesDir(esp), e.Name))
	return e, nil
}

// entryVersion is the version line of a boot entry ("" if none).
func entryVersion(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "version "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func writeFileSynced(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // a FAT directory may not sync; the file systems that can, do
		d.Close()
	}
}

// StatusFile is where `pharaon boot-check` leaves, at each boot, what the
// slots say of the running system, for the kiosk to show (it cannot read
// the ESP): the JSON of a BootStatus, readable by all.
const StatusFile = "/run/pharaon-system.json"

// BootStatus is what the kiosk shows of its slots.
type BootStatus struct {
	Slot      string `json:"slot"`            // the running slot
	Version   string `json:"version"`         // its entry's version
	Entry     string `json:"entry"`           // its entry
	Confirmed bool   `json:"confirmed"`       // reached "kiosk ready" once
	Other     string `json:"other,omitempty"` // the other slot's version, if it has an entry
	// FailedVersion and FailedEntry: a newer system that used all its
	// tries, after which the firmware came back to this one.
	FailedVersion string `json:"failed_version,omitempty"`
	FailedEntry   string `json:"failed_entry,omitempty"`
	FailedTries   int    `json:"failed_tries,omitempty"`
	// PendingVersion and PendingEntry: a newer system written into the
	// other slot, which the next start boots on trial (`pharaon update`
	// writes the status again after it): the kiosk restarts into it at
	// its first idle moment.
	PendingVersion string `json:"pending_version,omitempty"`
	PendingEntry   string `json:"pending_entry,omitempty"`
}

// Boot is the status a kiosk shows.
func (st SystemStatus) Boot() BootStatus {
	b := BootStatus{Slot: st.Running}
	if cur, ok := st.Current(); ok {
		b.Version, b.Entry, b.Confirmed = cur.Version, cur.Name, cur.Confirmed()
	}
	for _, e := range st.Entries {
		if e.Slot != st.Running && !e.Failed() {
			b.Other = e.Version
			break
		}
	}
	if f, ok := st.RolledBack(); ok {
		b.FailedVersion, b.FailedEntry, b.FailedTries = f.Version, f.Name, f.TriesDone
	}
	if p, ok := st.Pending(); ok {
		b.PendingVersion, b.PendingEntry = p.Version, p.Name
	}
	return b
}

// ReadBootStatus reads a StatusFile; ok is false when there is none (a
// kiosk without slots).
func ReadBootStatus(path string) (BootStatus, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return BootStatus{}, false, nil
	}
	if err != nil {
		return BootStatus{}, false, err
	}
	var st BootStatus
	if err := json.Unmarshal(b, &st); err != nil {
		return BootStatus{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return st, true, nil
}

// WriteBootStatus writes a StatusFile, readable by all.
func WriteBootStatus(path string, st BootStatus) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
