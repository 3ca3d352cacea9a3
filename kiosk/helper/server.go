package helper

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// System is what the helper does to the machine; the tests pass a fake.
type System interface {
	// Mounts are the machine's mounts.
	Mounts() ([]Mount, error)
	// Remount makes the file system mounted on dir writable or read-only
	// again.
	Remount(ctx context.Context, dir string, writable bool) error
	// Unmount unmounts dir.
	Unmount(ctx context.Context, dir string) error
	// Journal writes the system's journal of this boot and the one before.
	Journal(ctx context.Context, w io.Writer) error
	// About writes the system's facts (version, disks, failed units).
	About(ctx context.Context, w io.Writer) error
	// Free is the room left on the file system of dir, in bytes.
	Free(dir string) (int64, error)
}

// Mount is one mounted file system.
type Mount struct {
	Dir     string // its mount point
	Source  string // the device (/dev/sda1)
	FSType  string
	Options []string // its mount options (ro, nosuid...)
}

// Installer verifies and installs update bundles (cmd/pharaon: the update
// keys of /etc/pharaon/update-keys and dpkg, as `pharaon update` does).
type Installer interface {
	// Install verifies bundle and, unless check, installs it; a refusal's
	// error wraps the update's own (update.Reason names it).
	Install(ctx context.Context, bundle string, check bool) (Update, error)
	// Reason is the code of an Install error ("" : none).
	Reason(err error) string
	// Switch restarts the machine into the system written into the other
	// A/B slot and not started yet (its Update: the pending version, and
	// the running one in From); an *Error of CodeNoSystem when none is.
	Switch(ctx context.Context) (Update, error)
}

// Server serves the helper's requests.
type Server struct {
	// Media is the directory the sticks are mounted under (/media).
	Media string
	Sys   System
	// Updates installs the bundles (nil: the helper installs nothing).
	Updates Installer
	// Spool is the directory the kiosk downloads the fleet's bundles into
	// (OpFleetCheck, OpFleetInstall; "": none taken). The kiosk's user
	// writes there: the helper takes a regular file of a plain name only,
	// and verifies it as a stick's bundle.
	Spool string
	// Allowed says whether a peer's user may ask (nil: root alone).
	Allowed func(uid uint32) bool
	// Now is the clock of the export folder's name, in the kiosk's zone.
	Now func() time.Time
	// Log gets a line for every request and its outcome (the journal).
	Log io.Writer
	// MaxRequest caps a request's size (DefaultMaxRequest if 0).
	MaxRequest int64

	mu sync.Mutex // one request at a time
	// peer is peerUID but in the tests.
	peer func(net.Conn) (uint32, error)
}

// DefaultMaxRequest is the largest request taken: the kiosk's event log
// and diagnostic in an export.
const DefaultMaxRequest = 256 << 20

// requestWait is how long a peer has to send its request.
const requestWait = 30 * time.Second

// Serve answers the connections of l until ctx ends or, when idle is
// positive, no connection came for that long (a socket-activated helper
// then exits, and systemd starts it again on the next request).
func (s *Server) Serve(ctx context.Context, l net.Listener, idle time.Duration) error {
	stop := context.AfterFunc(ctx, func() { _ = l.Close() })
	defer stop()
	for {
		if ul, ok := l.(*net.UnixListener); ok && idle > 0 {
			_ = ul.SetDeadline(time.Now().Add(idle))
		}
		c, err := l.Accept()
		if err != nil {
			var ne net.Error
			switch {
			case ctx.Err() != nil:
				return nil
			case errors.As(err, &ne) && ne.Timeout():
				return nil
			}
			return err
		}
		s.Handle(ctx, c)
	}
}

// Handle serves one connection: one request, its replies, then the
// connection is closed.
func (s *Server) Handle(ctx context.Context, c net.Conn) {
	defer c.Close()
	enc := json.NewEncoder(c)
	_ = c.SetReadDeadline(time.Now().Add(requestWait))
	limit := s.MaxRequest
	if limit <= 0 {
		limit = DefaultMaxRequest
	}
	var req Request
	dec := json.NewDecoder(bufio.NewReader(io.LimitReader(c, limit)))
	if err := dec.Decode(&req); err != nil {
		s.logf("request refused: %v", err)
		_ = enc.Encode(Reply{Done: true, Code: CodeRequest, Detail: "unreadable request: " + err.Error()})
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	// The peer is checked once its request is read: refused before, a
	// peer still writing it would see the connection reset, not why.
	peer := s.peer
	if peer == nil {
		peer = peerUID
	}
	if uid, err := peer(c); err != nil || !s.allowed(uid) {
		s.logf("%s refused: peer uid %d (%v)", req.Op, uid, err)
		_ = enc.Encode(Reply{Done: true, Code: CodeRefused, Detail: "this user may not ask the maintenance helper"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	what := strings.TrimSpace(strings.Join([]string{req.Op, req.Stick, req.File}, " "))
	s.logf("%s", what)
	step := func(name string) { _ = enc.Encode(Reply{Step: name}) }
	rep := s.do(ctx, req, step)
	rep.Done = true
	if rep.Code != "" {
		s.logf("%s: %s (%s)", what, rep.Code, rep.Detail)
	} else {
		s.logf("%s: done", what)
	}
	_ = enc.Encode(rep)
}

// do carries out req.
func (s *Server) do(ctx context.Context, req Request, step func(string)) Reply {
	reply := func(err error) Reply {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternal, Detail: err.Error()}
		}
		return Reply{Code: e.Code, Detail: e.Detail}
	}
	switch req.Op {
	case OpSticks:
		sticks, err := s.Sticks()
		if err != nil {
			return reply(err)
		}
		return Reply{Sticks: sticks}
	case OpCheck, OpInstall:
		u, err := s.install(ctx, req, req.Op == OpCheck, step)
		if err != nil {
			return reply(err)
		}
		return Reply{Update: &u}
	case OpFleetCheck, OpFleetInstall:
		u, err := s.installSpooled(ctx, req, req.Op == OpFleetCheck, step)
		if err != nil {
			return reply(err)
		}
		return Reply{Update: &u}
	case OpExport:
		ex, err := s.export(ctx, req, step)
		if err != nil {
			return reply(err)
		}
		return Reply{Exported: &ex}
	case OpEject:
		if err := s.eject(ctx, req); err != nil {
			return reply(err)
		}
		return Reply{}
	case OpSwitch:
		if s.Updates == nil {
			return reply(fail(CodeRequest, "this helper installs no update"))
		}
		u, err := s.Updates.Switch(ctx)
		if err != nil {
			return reply(err)
		}
		return Reply{Update: &u}
	}
	return reply(fail(CodeRequest, "unknown operation %q", req.Op))
}

func (s *Server) allowed(uid uint32) bool {
	if uid == 0 {
		return true
	}
	return s.Allowed != nil && s.Allowed(uid)
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, "pharaon helper: "+format+"\n", args...)
	}
}

// Sticks are the USB sticks mounted under the media directory, with their
// update bundles.
func (s *Server) Sticks() ([]Stick, error) {
	mounts, err := s.Sys.Mounts()
	if err != nil {
		return nil, fail(CodeInternal, "reading the mounts: %v", err)
	}
	var out []Stick
	for _, m := range mounts {
		name, ok := s.stickName(m)
		if !ok {
			continue
		}
		st := Stick{Name: name, Dir: m.Dir, Device: m.Source, FSType: m.FSType, Free: -1, Updates: bundlesIn(m.Dir)}
		if free, err := s.Sys.Free(m.Dir); err == nil {
			st.Free = free
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b Stick) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// stickName is m's name when m is a stick: a block device mounted right
// under the media directory.
func (s *Server) stickName(m Mount) (string, bool) {
	dir := filepath.Clean(m.Dir)
	if filepath.Dir(dir) != filepath.Clean(s.Media) || !strings.HasPrefix(m.Source, "/dev/") {
		return "", false
	}
	return filepath.Base(dir), true
}

// stick is the mounted stick a request names.
func (s *Server) stick(name string) (Mount, error) {
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return Mount{}, fail(CodeNoStick, "%q is not a stick's name", name)
	}
	mounts, err := s.Sys.Mounts()
	if err != nil {
		return Mount{}, fail(CodeInternal, "reading the mounts: %v", err)
	}
	// The last mount on a directory is the one seen there.
	for _, m := range slices.Backward(mounts) {
		if n, ok := s.stickName(m); ok && n == name {
			return m, nil
		}
	}
	return Mount{}, fail(CodeNoStick, "no stick mounted on %s", filepath.Join(s.Media, name))
}

// UpdateExt ends the name of an update bundle (make update-bundle).
const UpdateExt = ".update"

// bundleDepth is how deep on a stick the bundles are looked for.
const bundleDepth = 3

// bundlesIn lists the update bundles under dir, relative to it.
func bundlesIn(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if p != dir && (strings.Count(rel, string(filepath.Separator)) >= bundleDepth-1 || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.EqualFold(filepath.Ext(p), UpdateExt) {
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// bundle is the path of the bundle req names on its stick: a regular file
// inside the stick, links resolved.
func (s *Server) bundle(req Request) (string, error) {
	m, err := s.stick(req.Stick)
	if err != nil {
		return "", err
	}
	rel := filepath.Clean(req.File)
	if req.File == "" || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fail(CodeNoFile, "%q is not a file on the stick", req.File)
	}
	p, err := filepath.EvalSymlinks(filepath.Join(m.Dir, rel))
	if err != nil {
		return "", fail(CodeNoFile, "%s: %v", req.File, err)
	}
	root, err := filepath.EvalSymlinks(m.Dir)
	if err != nil {
		return "", fail(CodeNoStick, "%s: %v", m.Dir, err)
	}
	if !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return "", fail(CodeNoFile, "%s is outside the stick", req.File)
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return "", fail(CodeNoFile, "%s is not a file", req.File)
	}
	return p, nil
}

func (s *Server) install(ctx context.Context, req Request, check bool, step func(string)) (Update, error) {
	if s.Updates == nil {
		return Update{}, fail(CodeRequest, "this helper installs no update")
	}
	p, err := s.bundle(req)
	if err != nil {
		return Update{}, err
	}
	return s.installPath(ctx, p, check, step)
}

// installSpooled verifies, and unless check installs, the fleet's bundle
// req.File of the spool directory: a plain name, a regular file (not a
// link the kiosk's user put there to make the helper read elsewhere).
func (s *Server) installSpooled(ctx context.Context, req Request, check bool, step func(string)) (Update, error) {
	if s.Updates == nil || s.Spool == "" {
		return Update{}, fail(CodeRequest, "this helper installs no update from the fleet")
	}
	name := req.File
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return Update{}, fail(CodeRequest, "bundle %q: not a plain file name", name)
	}
	p := filepath.Join(s.Spool, name)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return Update{}, fail(CodeNoFile, "%s: not a regular file in %s (%v)", name, s.Spool, err)
	}
	return s.installPath(ctx, p, check, step)
}

// installPath verifies, and unless check installs, the bundle at p.
func (s *Server) installPath(ctx context.Context, p string, check bool, step func(string)) (Update, error) {
	step(StepVerifying)
	if !check {
		// The bundle is verified again as it is installed: Install checks
		// before it installs anything. The step is said before the long
		// part.
		step(StepInstalling)
	}
	u, err := s.Updates.Install(ctx, p, check)
	if err != nil {
		code := s.Updates.Reason(err)
		if code == "" {
			code = CodeUpdate
		}
		return u, &Error{Code: code, Detail: err.Error()}
	}
	return u, nil
}

func (s *Server) eject(ctx context.Context, req Request) error {
	m, err := s.stick(req.Stick)
	if err != nil {
		return err
	}
	if err := s.Sys.Unmount(ctx, m.Dir); err != nil {
		if errors.Is(err, syscall.EBUSY) || strings.Contains(err.Error(), "busy") {
			return fail(CodeBusy, "%s: %v", m.Dir, err)
		}
		return fail(CodeInternal, "unmounting %s: %v", m.Dir, err)
	}
	return nil
}
