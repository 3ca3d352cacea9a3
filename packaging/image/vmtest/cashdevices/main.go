// Command cashdevices runs the kiosk's two cash devices as simulators on the
// machine that runs the virtual machine test (packaging/image/vm-test.sh):
// the JCM ID-003 bill validator and the ESC/POS voucher printer of
// kiosk/devsim, each on a pseudo-terminal that QEMU gives the guest as a
// USB-serial adapter (-chardev serial, -device usb-serial). The kiosk in the
// guest drives them with its real drivers, over its real udev names and its
// sandbox's device rules, as it drives the units in a cabinet.
//
//	cashdevices -dir DIR
//
// prints "validator /dev/pts/N" and "printer /dev/pts/M", then "ready", and
// runs until it is stopped (SIGTERM, SIGINT, or its standard input closed).
// The printed vouchers land in DIR/vouchers as NNNN.txt and NNNN.png; the
// validator takes id003sim's control commands, one JSON line each
// (`{"op":"insert","cents":1000}`, `{"op":"status"}`), on the Unix socket
// DIR/control, and answers each with a line.
//
// It is a test tool of the host's only: it never goes into the image.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"pharaon/kiosk/devsim"
)

func main() {
	dir := flag.String("dir", "", "where the device links, the vouchers and the control socket go")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: cashdevices -dir DIR")
		os.Exit(2)
	}
	if err := run(*dir, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "cashdevices: %v\n", err)
		os.Exit(1)
	}
}

func run(dir string, stdin io.Reader, stdout io.Writer) error {
	logger := log.New(os.Stderr, "cashdevices: ", log.LstdFlags)
	d, err := devsim.Start(devsim.Config{Dir: dir, Receipts: filepath.Join(dir, "vouchers"), Logf: logger.Printf})
	if err != nil {
		return err
	}
	defer d.Close()
	for _, dev := range []struct{ name, link string }{{"validator", d.ValidatorPath}, {"printer", d.PrinterPath}} {
		slave, err := filepath.EvalSymlinks(dev.link)
		if err != nil {
			return fmt.Errorf("%s: %w", dev.name, err)
		}
		if err := noOutputProcessing(slave); err != nil {
			return fmt.Errorf("%s: %w", dev.name, err)
		}
		fmt.Fprintf(stdout, "%s %s\n", dev.name, slave)
	}
	sock := filepath.Join(dir, "control")
	_ = os.Remove(sock)
	l, err := net.Listen("unix", sock)
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		serveControl(l, d, logger)
	}()
	fmt.Fprintln(stdout, "ready")
	// Standard input closed (the test's script gone) stops it too.
	eof := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		close(eof)
	}()
	select {
	case <-ctx.Done():
	case <-eof:
	}
	l.Close()
	wg.Wait()
	c := d.Validator.Counts()
	logger.Printf("stopped: validator stacked %d notes (%d cents), returned %d, %d frames it could not read",
		c.Stacked, c.StackedSum, c.Returned, c.BadCommands)
	return nil
}

// serveControl answers the validator's control commands, one connection at
// a time, until l is closed.
func serveControl(l net.Listener, d *devsim.Devices, logger *log.Logger) {
	for {
		conn, err := l.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			logger.Printf("control: %v", err)
			return
		}
		if err := d.Validator.ServeControl(conn, conn); err != nil {
			logger.Printf("control: %v", err)
		}
		conn.Close()
	}
}

// noOutputProcessing clears every output translation of the pseudo-terminal
// slave: QEMU's serial character device turns OPOST on when it opens a tty
// (and at each change of the line's speed), and a pseudo-terminal's default
// ONLCR would then turn every 0x0A byte the kiosk sends (in an ID-003 frame's
// CRC, in an ESC/POS line feed) into 0x0D 0x0A. A real serial line carries the
// bytes as they are. The setting stays with the pseudo-terminal while the
// simulator holds its master.
func noOutputProcessing(path string) error {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return fmt.Errorf("termios of %s: %w", path, err)
	}
	t.Oflag &^= unix.ONLCR | unix.OCRNL | unix.ONOCR | unix.ONLRET | unix.OFILL | unix.OFDEL |
		unix.NLDLY | unix.CRDLY | unix.TABDLY | unix.BSDLY | unix.VTDLY | unix.FFDLY
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, t); err != nil {
		return fmt.Errorf("termios of %s: %w", path, err)
	}
	return nil
}
