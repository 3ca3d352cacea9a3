package helper

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// An export's files, besides the kiosk's own (Request.Files).
const (
	JournalFile = "journal.txt" // the system's journal, this boot and the one before
	SystemFile  = "system.txt"  // the system's facts
	SumsFile    = "SHA256SUMS"  // the SHA-256 of every other file, as sha256sum writes them
)

// fileName is what a kiosk's file may be called in an export.
var fileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// folderID keeps of a kiosk's id what a folder's name may hold.
var folderID = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// export writes the journal, the system's facts and the kiosk's files to
// a new folder on the stick req names, made writable for this alone and
// read-only again after, whatever happened.
func (s *Server) export(ctx context.Context, req Request, step func(string)) (ex Exported, err error) {
	m, err := s.stick(req.Stick)
	if err != nil {
		return ex, err
	}
	reserved := map[string]bool{JournalFile: true, SystemFile: true, SumsFile: true}
	for _, f := range req.Files {
		if !fileName.MatchString(f.Name) || reserved[f.Name] {
			return ex, fail(CodeRequest, "%q is not a file name an export takes", f.Name)
		}
		reserved[f.Name] = true
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	id := strings.Trim(folderID.ReplaceAllString(req.Kiosk, "-"), "-.")
	if id == "" {
		id = "kiosk"
	}
	folder := fmt.Sprintf("pharaon-%s-%s", id, now().Format("20060102-150405"))

	if err := s.Sys.Remount(ctx, m.Dir, true); err != nil {
		return ex, fail(CodeWrite, "making %s writable: %v", m.Dir, err)
	}
	defer func() {
		step(StepSyncing)
		if rerr := s.Sys.Remount(context.WithoutCancel(ctx), m.Dir, false); rerr != nil && err == nil {
			err = fail(CodeWrite, "making %s read-only again: %v", m.Dir, rerr)
		}
	}()
	dir := filepath.Join(m.Dir, folder)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return ex, writeFail(dir, err)
	}
	ex.Folder = folder
	step(StepWriting)
	sums := &bytes.Buffer{}
	put := func(name string, write func(io.Writer) error) error {
		p := filepath.Join(dir, name)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return writeFail(p, err)
		}
		h := sha256.New()
		fw := &fileWriter{f: f}
		werr := write(io.MultiWriter(fw, h))
		if fw.err != nil {
			werr = writeFail(p, fw.err)
		}
		if werr == nil {
			if serr := f.Sync(); serr != nil {
				werr = writeFail(p, serr)
			}
		}
		if cerr := f.Close(); werr == nil && cerr != nil {
			werr = writeFail(p, cerr)
		}
		if werr != nil {
			return werr
		}
		fmt.Fprintf(sums, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), name)
		ex.Files = append(ex.Files, name)
		return nil
	}
	for _, f := range req.Files {
		if err := put(f.Name, func(w io.Writer) error { return written(w.Write(f.Data)) }); err != nil {
			return ex, writeFail(filepath.Join(dir, f.Name), err)
		}
	}
	if err := put(JournalFile, func(w io.Writer) error { return s.Sys.Journal(ctx, w) }); err != nil {
		var e *Error
		if errors.As(err, &e) {
			return ex, e
		}
		return ex, fail(CodeJournal, "%v", err)
	}
	if err := put(SystemFile, func(w io.Writer) error { return s.Sys.About(ctx, w) }); err != nil {
		return ex, writeFail(filepath.Join(dir, SystemFile), err)
	}
	if err := put(SumsFile, func(w io.Writer) error { return written(w.Write(sums.Bytes())) }); err != nil {
		return ex, writeFail(filepath.Join(dir, SumsFile), err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return ex, nil
}

func written(_ int, err error) error { return err }

// fileWriter writes to a file on the stick and keeps its error apart from
// the error of what feeds it (the journal's reader).
type fileWriter struct {
	f   *os.File
	err error
}

func (w *fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG)
}

// writeFail says why p could not be written: a full stick, or another
// failure.
func writeFail(p string, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if isNoSpace(err) {
		return fail(CodeFull, "%s: %v", p, err)
	}
	return fail(CodeWrite, "%s: %v", p, err)
}
