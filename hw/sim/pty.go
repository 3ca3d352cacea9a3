// Package sim holds what the device simulators share: their JSON control channel (ServeControl) and a pseudo-terminal that stands in for a
// serial line. The simulators themselves live in subpackages (id003sim for the bill validator,
// printersim for the receipt printer). A simulator must behave toward the host exactly like the real
// unit, over the same bytes, so that the real drivers run end to end on any machine; it must never
// take a shortcut into the host's memory.
package sim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// PTY is a pseudo-terminal pair: the simulator holds Master; the host opens Path (the slave
// device, or a stable symlink to it when a link is given) through hw.Open like a real device.
//
// The slave is not kept open by the PTY: a real device does not hold the host's end, and holding it
// would keep the tty alive with the exclusive-access flag go.bug.st/serial sets, so a host killed
// without closing could not re-open it. The consequence for simulators: while no host has the slave
// open, a Read of Master fails (EIO) at once; simulators wait a little and read again.
type PTY struct {
	Master *os.File
	Path   string // what the host opens: Link if given, else the slave device
	Slave  string // the slave device, /dev/pts/N
	Link   string // the stable symlink, "" if none
}

// OpenPTY opens a pseudo-terminal in raw mode. When link is not "", a symlink at link points to the
// slave device, replacing atomically whatever was there (an earlier run's stale link): re-opening a
// PTY at the same link after an unplug is how a replug looks to the host.
func OpenPTY(link string) (*PTY, error) {
	m0, s, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open pty: %w", err)
	}
	m, err := pollable(m0)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("open pty: %w", err)
	}
	p := &PTY{Master: m, Path: s.Name(), Slave: s.Name()}
	if err := makeRaw(s); err != nil {
		s.Close()
		m.Close()
		return nil, fmt.Errorf("open pty: raw mode: %w", err)
	}
	if err := s.Close(); err != nil {
		m.Close()
		return nil, fmt.Errorf("open pty: %w", err)
	}
	if link != "" {
		if err := replaceSymlink(s.Name(), link); err != nil {
			m.Close()
			return nil, fmt.Errorf("open pty: %w", err)
		}
		p.Link, p.Path = link, link
	}
	return p, nil
}

// Close closes the master, which hangs up the host's end (its reads fail) like an unplugged cable.
// The symlink, if any, is left dangling, as a udev link would vanish: the host sees "not found"
// until the next OpenPTY at the same link.
func (p *PTY) Close() error {
	err := p.Master.Close()
	if p.Link != "" {
		// Dangling or gone, either way the host cannot open it; remove so a stat says absent.
		if rerr := os.Remove(p.Link); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	if err != nil {
		return fmt.Errorf("close pty: %w", err)
	}
	return nil
}

// pollable re-wraps the master in a non-blocking descriptor. creack/pty's ioctls call Fd(), which
// puts the file in blocking mode: a Read then sits in the kernel and Close cannot interrupt it, so
// an unplug would hang the simulator. Through Go's poller, Close wakes the reader and deadlines work.
func pollable(m *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	m.Close()
	if err != nil {
		return nil, fmt.Errorf("dup master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("non-blocking master: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), nil
}

func replaceSymlink(target, link string) error {
	tmp := filepath.Join(filepath.Dir(link), fmt.Sprintf(".%s.%d.tmp", filepath.Base(link), os.Getpid()))
	_ = os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("symlink: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("symlink: %w", err)
	}
	return nil
}

// makeRaw is cfmakeraw(3): no echo, no line editing, no character translation, 8 bits.
func makeRaw(f *os.File) error {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	return unix.IoctlSetTermios(fd, unix.TCSETS, t)
}
