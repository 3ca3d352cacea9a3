package helper

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// Machine is the System of a kiosk: the kernel's mount table, mount(8)
// and umount(8), journalctl(1) and a few commands for the facts.
type Machine struct {
	// MountInfo is the kernel's mount table (/proc/self/mountinfo if
	// empty).
	MountInfo string
	// JournalMax caps the journal written, in bytes (64 MiB if 0).
	JournalMax int64
}

var _ System = Machine{}

// Mounts reads the mount table.
func (m Machine) Mounts() ([]Mount, error) {
	p := m.MountInfo
	if p == "" {
		p = "/proc/self/mountinfo"
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return ParseMountInfo(b)
}

// ParseMountInfo reads a mount table in the kernel's mountinfo format
// (proc(5)): the mount point (field 5), its options (6), then after the
// "-" separator the file system's type and source.
func ParseMountInfo(b []byte) ([]Mount, error) {
	var out []Mount
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 6 || sep < 0 || sep+2 >= len(f) {
			return nil, fmt.Errorf("mountinfo line %d: %q is not a mount", n, sc.Text())
		}
		out = append(out, Mount{
			Dir:     unescapeOctal(f[4]),
			Options: strings.Split(f[5], ","),
			FSType:  f[sep+1],
			Source:  unescapeOctal(f[sep+2]),
		})
	}
	return out, sc.Err()
}

// unescapeOctal undoes the kernel's escapes of a path in the mount table
// (a space is \040).
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Remount makes dir writable or read-only, its other options kept.
func (m Machine) Remount(ctx context.Context, dir string, writable bool) error {
	mode := "ro"
	if writable {
		mode = "rw"
	}
	return run(ctx, "mount", "-o", "remount,"+mode, "--", dir)
}

// Unmount unmounts dir, its data written out first.
func (m Machine) Unmount(ctx context.Context, dir string) error {
	return run(ctx, "umount", "--", dir)
}

// Journal writes the journal of this boot and of the one before, with
// precise local times, at most JournalMax bytes.
func (m Machine) Journal(ctx context.Context, w io.Writer) error {
	max := m.JournalMax
	if max <= 0 {
		max = 64 << 20
	}
	lw := &limited{w: w, left: max}
	// The boot before may not be in the journal (a first boot, a volatile
	// journal): its absence is said, not an error.
	fmt.Fprintln(lw, "# journalctl -b -1 (the boot before this one)")
	if err := runTo(ctx, lw, "journalctl", "--no-pager", "-o", "short-iso-precise", "-b", "-1"); err != nil {
		fmt.Fprintf(lw, "# %v\n", err)
	}
	fmt.Fprintln(lw, "# journalctl -b 0 (this boot)")
	if err := runTo(ctx, lw, "journalctl", "--no-pager", "-o", "short-iso-precise", "-b", "0"); err != nil {
		return err
	}
	if lw.cut {
		fmt.Fprintf(w, "\n# cut at %d bytes\n", max)
	}
	return nil
}

// About writes the system's facts, each command's output under its
// name; a command that fails is said and the others still run.
func (m Machine) About(ctx context.Context, w io.Writer) error {
	for _, c := range [][]string{
		{"cat", "/etc/os-release"},
		{"uname", "-a"},
		{"cat", "/proc/uptime"},
		{"cat", "/proc/cmdline"},
		{"dpkg-query", "-W", "-f", "${Package} ${Version} ${Status}\n", "pharaon"},
		{"systemctl", "--no-pager", "--failed"},
		{"systemctl", "--no-pager", "status", "pharaon.service"},
		{"df", "-h"},
		{"lsblk", "-o", "NAME,SIZE,TYPE,FSTYPE,LABEL,PARTLABEL,MOUNTPOINT"},
		{"free", "-h"},
	} {
		fmt.Fprintf(w, "\n# %s\n", strings.Join(c, " "))
		if err := runTo(ctx, w, c[0], c[1:]...); err != nil {
			fmt.Fprintf(w, "# %v\n", err)
		}
	}
	return nil
}

// Free is the room left on dir's file system.
func (m Machine) Free(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return -1, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// run runs a command, its error with what it wrote on stderr.
func run(ctx context.Context, name string, args ...string) error {
	return runTo(ctx, io.Discard, name, args...)
}

func runTo(ctx context.Context, w io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("%s: %w: %s", name, err, msg)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// limited writes to w until left bytes are written, then drops the rest
// (a command whose output is cut is not failed for it).
type limited struct {
	w    io.Writer
	left int64
	cut  bool
}

func (l *limited) Write(p []byte) (int, error) {
	n := len(p)
	if int64(len(p)) > l.left {
		p = p[:l.left]
		l.cut = true
	}
	if len(p) > 0 {
		if _, err := l.w.Write(p); err != nil {
			return 0, err
		}
		l.left -= int64(len(p))
	}
	return n, nil
}
