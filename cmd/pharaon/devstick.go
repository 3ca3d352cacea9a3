package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"pharaon/kiosk/helper"
)

// A development run's USB sticks: the directories of usb/ beside the
// database stand for sticks plugged in (usb/sda1 is made at the first
// run), served by the real helper (kiosk/helper) in the kiosk's own
// process, on a socket of usb/, so that the maintenance screen's USB stick
// view works as on a kiosk: an export writes its folder in the directory,
// an eject hides it (renamed .ejected-sda1-TIME; make the directory again
// to plug a stick back in). It installs no update: a development kiosk
// trusts no update key.

// devUSBDir is the development run's sticks' directory, beside its
// database.
const devUSBDir = "usb"

// startDevSticks serves the development run's helper; stop ends it.
func startDevSticks(data string, logger *log.Logger) (sock string, stop func(), err error) {
	media := filepath.Join(data, devUSBDir)
	if err := os.MkdirAll(filepath.Join(media, "sda1"), 0o755); err != nil {
		return "", nil, fmt.Errorf("development USB sticks: %w", err)
	}
	// A socket's path is short (108 bytes): a temporary directory of its
	// own when the data directory's is too long.
	sock = filepath.Join(media, ".helper.sock")
	if len(sock) > 100 {
		dir, err := os.MkdirTemp("", "pharaon-usb")
		if err != nil {
			return "", nil, err
		}
		sock = filepath.Join(dir, "helper.sock")
	}
	_ = os.Remove(sock)
	l, err := net.Listen("unix", sock)
	if err != nil {
		return "", nil, fmt.Errorf("development USB sticks: %w", err)
	}
	uid := uint32(os.Getuid())
	srv := &helper.Server{Media: media, Sys: devSticks{media: media}, Updates: devInstaller{},
		Allowed: func(u uint32) bool { return u == uid }, Log: logWriter{logger}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ctx, l, 0); err != nil {
			logger.Printf("development USB sticks: %v", err)
		}
	}()
	logger.Printf("development USB sticks: the directories of %s", media)
	return sock, func() { cancel(); <-done; _ = os.Remove(sock) }, nil
}

// devSticks is the helper's machine in a development run: each directory of
// media not hidden is a stick.
type devSticks struct{ media string }

func (d devSticks) Mounts() ([]helper.Mount, error) {
	entries, err := os.ReadDir(d.media)
	if err != nil {
		return nil, err
	}
	var out []helper.Mount
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, helper.Mount{Dir: filepath.Join(d.media, e.Name()), Source: "/dev/" + e.Name(), FSType: "vfat"})
		}
	}
	return out, nil
}

func (devSticks) Remount(context.Context, string, bool) error { return nil }

func (d devSticks) Unmount(_ context.Context, dir string) error {
	return os.Rename(dir, filepath.Join(d.media, ".ejected-"+filepath.Base(dir)+"-"+strconv.FormatInt(time.Now().Unix(), 10)))
}

func (devSticks) Journal(_ context.Context, w io.Writer) error {
	_, err := io.WriteString(w, "# a development run: the system's journal is not read; the kiosk's log is on its standard error\n")
	return err
}

func (devSticks) About(_ context.Context, w io.Writer) error {
	host, _ := os.Hostname()
	_, err := fmt.Fprintf(w, "development run on %s, %s/%s, %s\n", host, runtime.GOOS, runtime.GOARCH, runtime.Version())
	return err
}

func (devSticks) Free(dir string) (int64, error) { return helper.Machine{}.Free(dir) }

// errDevNoUpdate: a development kiosk installs no update.
var errDevNoUpdate = errors.New("a development run trusts no update key and installs no update")

type devInstaller struct{}

func (devInstaller) Install(context.Context, string, bool) (helper.Update, error) {
	return helper.Update{}, errDevNoUpdate
}

// Switch: a development run has no slots, so no system ever waits.
func (devInstaller) Switch(context.Context) (helper.Update, error) {
	return helper.Update{}, &helper.Error{Code: helper.CodeNoSystem, Detail: "a development run has no A/B slots"}
}

func (devInstaller) Reason(err error) string {
	if errors.Is(err, errDevNoUpdate) {
		return "nokeys"
	}
	return ""
}

// logWriter writes the helper's lines to the kiosk's log.
type logWriter struct{ l *log.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.Print(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
