// Package powercut is a FUSE file system that loses what a power cut
// loses: the tests run the kiosk's store on it and cut the power at random
// moments (DESIGN.md §4, docs/power-loss.md).
//
// It shows one flat directory, a backing directory on a real file system,
// which holds what is durable. What a process writes to a file stays in
// that file's pending overlay (as a kernel's page cache holds dirty pages)
// and is read back from it; fsync and fdatasync on the file move its
// pending writes and size to the backing file and sync it. Closing a file
// makes nothing durable. Cut throws every pending overlay away and
// unmounts: the backing directory is then what the disk held when the
// power went.
//
// Directory entries (create, unlink, rename) and a file's mode are durable
// at once: the model is that of a journalled file system with ordered
// metadata, not the worst disk there is. SQLite fsyncs the directory after
// creating its WAL or journal all the same; that fsync is accepted and does
// nothing more. Locks are the kernel's own (FUSE without lock support), as
// on a local disk of one machine.
//
// The process that serves the file system must not map a file of its own
// mount (SQLite maps its -shm file): a page fault there waits for the
// server, which may wait for memory the fault holds the lock of. The tests
// run the store on the mount in a child process and check the backing
// directory from their own.
//
// It is test support: the kiosk never mounts it. Mounting needs /dev/fuse
// and root (Available says why not).
package powercut

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// pageSize is the grain of the pending overlay.
const pageSize = 4096

// Available says why this machine cannot mount the file system, or nil.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("powercut: mounting a FUSE file system without fusermount needs root")
	}
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("powercut: no FUSE device: %w", err)
	}
	f.Close()
	return nil
}

// FS is a mounted power-cut file system.
type FS struct {
	backing, mnt string
	server       *fuse.Server
	opts         Options

	// mu is held for reading by every operation and for writing by Cut,
	// so that an operation either completes before the cut or fails after
	// it.
	mu   sync.RWMutex
	dead bool
	// stateMu guards the fields below against concurrent operations
	// (which hold mu for reading only).
	stateMu sync.Mutex
	byIno   map[uint64]*data // the backing files with a name, by backing inode
	all     []*data          // every file state of this mount, named or not
	nextIno uint64
	stats   Stats
}

// Stats counts what the file system saw.
type Stats struct {
	Syncs        int   // file fsyncs that moved pending writes to the backing file
	PagesDropped int   // pending pages thrown away by a cut
	PagesKept    int   // pending pages a torn cut wrote to the backing file
	BytesSynced  int64 // bytes written to backing files by syncs
}

// Options tune a mount.
type Options struct {
	// KeepCache lets the kernel keep a file's pages cached from one open
	// to the next (FOPEN_KEEP_CACHE): every write goes through the
	// kernel, so its cache is what processes see, and a cut unmounts,
	// which drops it. Without it, every open of a file reads it again
	// from the file system (a kiosk's start reads its whole database).
	KeepCache bool
}

// Mount mounts the file system at mnt over the existing directory backing.
func Mount(backing, mnt string) (*FS, error) { return MountWith(backing, mnt, Options{}) }

// MountWith is Mount with options.
func MountWith(backing, mnt string, o Options) (*FS, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	backing, err := filepath.Abs(backing)
	if err != nil {
		return nil, err
	}
	fsys := &FS{backing: backing, mnt: mnt, opts: o, byIno: map[uint64]*data{}, nextIno: 1}
	root := &dir{fsys: fsys}
	server, err := fs.Mount(mnt, root, &fs.Options{
		MountOptions: fuse.MountOptions{
			DirectMount: true,
			FsName:      "powercut",
			Name:        "powercut",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("powercut: mount %s: %w", mnt, err)
	}
	fsys.server = server
	return fsys, nil
}

// Dir is the mount point.
func (f *FS) Dir() string { return f.mnt }

// Stats returns the counts so far.
func (f *FS) Stats() Stats {
	f.mu.RLock()
	defer f.mu.RUnlock()
	f.stateMu.Lock()
	defer f.stateMu.Unlock()
	return f.stats
}

// Cut is the power cut: every write not yet synced is thrown away, every
// later operation fails with EIO, and the file system is unmounted. The
// processes using it should be dead already (a power cut stops them too):
// a file still open keeps the mount busy, and Cut then detaches it lazily.
func (f *FS) Cut() (Stats, error) { return f.cut(nil) }

// CutTorn is a power cut after which the disk turns out to have written
// some of the pending writes, in no order: keep is asked about each
// pending page of each file (by file, then offset) and about each pending
// truncation, and what it keeps reaches the backing file, unsynced pages
// around it or not. A page may hold the end of one WAL frame and the
// start of the next: this is the torn write SQLite's checksums are for.
func (f *FS) CutTorn(keep func() bool) (Stats, error) { return f.cut(keep) }

func (f *FS) cut(keep func() bool) (Stats, error) {
	f.mu.Lock()
	if f.dead {
		f.mu.Unlock()
		return f.stats, errors.New("powercut: already cut")
	}
	f.dead = true
	var errs []error
	for _, d := range f.all {
		d.mu.Lock()
		if keep != nil && d.f != nil {
			kept, err := d.tear(keep)
			f.stats.PagesKept += kept
			errs = append(errs, err)
		}
		f.stats.PagesDropped += len(d.pages)
		d.pages = nil
		if d.f != nil {
			d.f.Close()
			d.f = nil
		}
		d.mu.Unlock()
	}
	st := f.stats
	f.mu.Unlock()
	return st, errors.Join(append(errs, f.unmount())...)
}

// Unmount is a clean shutdown: every pending write is synced, then the
// file system is unmounted.
func (f *FS) Unmount() error {
	f.mu.Lock()
	if f.dead {
		f.mu.Unlock()
		return errors.New("powercut: already cut")
	}
	var errs []error
	for _, d := range f.all {
		d.mu.Lock()
		if d.f != nil {
			n, err := d.sync()
			f.stats.BytesSynced += n
			errs = append(errs, err)
		}
		d.mu.Unlock()
	}
	f.mu.Unlock()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := f.server.Unmount(); err != nil {
		return err
	}
	f.server.Wait()
	f.mu.Lock()
	f.dead = true
	for _, d := range f.all {
		if d.f != nil {
			d.f.Close()
			d.f = nil
		}
	}
	f.mu.Unlock()
	return nil
}

func (f *FS) unmount() error {
	if err := f.server.Unmount(); err != nil {
		if err := syscall.Unmount(f.mnt, syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("powercut: unmount %s: %w", f.mnt, err)
		}
	}
	f.server.Wait()
	return nil
}

// begin is called by every operation: it holds the cut off until end, or
// reports that the power is off.
func (f *FS) begin() syscall.Errno {
	f.mu.RLock()
	if f.dead {
		f.mu.RUnlock()
		return syscall.EIO
	}
	return 0
}

func (f *FS) end() { f.mu.RUnlock() }

// state returns the file state of the backing file at path, opening it
// (f.mu held for reading; states are added under stateMu).
func (f *FS) state(path string) (*data, syscall.Errno) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return nil, errno(err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, syscall.EPERM // a flat directory of regular files
	}
	f.stateMu.Lock()
	defer f.stateMu.Unlock()
	if d, ok := f.byIno[st.Ino]; ok {
		return d, 0
	}
	bf, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, errno(err)
	}
	d := &data{f: bf, size: st.Size, floor: st.Size, ino: f.nextIno}
	f.nextIno++
	f.byIno[st.Ino] = d
	f.all = append(f.all, d)
	return d, 0
}

// backingIno is the backing inode number of the file at path, if any.
func backingIno(path string) (uint64, bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return 0, false
	}
	return st.Ino, true
}

// forget drops a backing file that lost its name (unlinked or replaced by
// a rename) from the states: its state lives on for the open files, and a
// new file that gets its inode number gets a new state.
func (f *FS) forget(ino uint64, ok bool) {
	if !ok {
		return
	}
	f.stateMu.Lock()
	delete(f.byIno, ino)
	f.stateMu.Unlock()
}

func errno(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	return fs.ToErrno(err)
}

// data is one file's durable backing file and its pending overlay.
type data struct {
	mu  sync.Mutex
	f   *os.File // the backing file
	ino uint64   // the inode number shown
	// size is the file's size as processes see it; floor is how much of
	// the backing file is still its content (a truncation not yet synced
	// hides what lies beyond); pages are the pending writes, whole pages
	// of the content as processes see it.
	size, floor int64
	pages       map[int64][]byte
}

// readAt reads the content as processes see it (d.mu held).
func (d *data) readAt(dest []byte, off int64) (int, error) {
	if off >= d.size {
		return 0, nil
	}
	n := min(int64(len(dest)), d.size-off)
	buf := dest[:n]
	clear(buf)
	if lim := min(off+n, d.floor); lim > off {
		if _, err := d.f.ReadAt(buf[:lim-off], off); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
	}
	for p := off / pageSize; p*pageSize < off+n; p++ {
		pg, ok := d.pages[p]
		if !ok {
			continue
		}
		start := p * pageSize
		from := max(off, start)
		to := min(off+n, start+pageSize)
		copy(buf[from-off:to-off], pg[from-start:to-start])
	}
	return int(n), nil
}

// writeAt puts data in the pending overlay (d.mu held).
func (d *data) writeAt(b []byte, off int64) error {
	if d.pages == nil {
		d.pages = map[int64][]byte{}
	}
	end := off + int64(len(b))
	for p := off / pageSize; p*pageSize < end; p++ {
		start := p * pageSize
		pg, ok := d.pages[p]
		if !ok {
			pg = make([]byte, pageSize)
			if _, err := d.readAt(pg, start); err != nil {
				return err
			}
			d.pages[p] = pg
		}
		from := max(off, start)
		to := min(end, start+pageSize)
		copy(pg[from-start:to-start], b[from-off:to-off])
	}
	d.size = max(d.size, end)
	return nil
}

// truncate sets the size in the pending overlay (d.mu held).
func (d *data) truncate(size int64) {
	if size < d.size {
		d.floor = min(d.floor, size)
		for p, pg := range d.pages {
			start := p * pageSize
			switch {
			case start >= size:
				delete(d.pages, p)
			case start+pageSize > size:
				clear(pg[size-start:])
			}
		}
	}
	d.size = size
}

// tear writes to the backing file the pending pages keep keeps (and the
// pending truncation if it keeps it), removing them from the overlay, and
// returns how many pages it kept (d.mu held).
func (d *data) tear(keep func() bool) (int, error) {
	fi, err := d.f.Stat()
	if err != nil {
		return 0, err
	}
	if d.floor < fi.Size() && keep() {
		if err := d.f.Truncate(d.floor); err != nil {
			return 0, err
		}
	}
	idx := make([]int64, 0, len(d.pages))
	for p := range d.pages {
		idx = append(idx, p)
	}
	slices.Sort(idx)
	kept := 0
	for _, p := range idx {
		start := p * pageSize
		end := min(start+pageSize, d.size)
		if end <= start || !keep() {
			continue
		}
		if _, err := d.f.WriteAt(d.pages[p][:end-start], start); err != nil {
			return kept, err
		}
		delete(d.pages, p)
		kept++
	}
	return kept, nil
}

// sync moves the pending overlay to the backing file and syncs it (d.mu
// held), returning the bytes written.
func (d *data) sync() (int64, error) {
	var fi os.FileInfo
	fi, err := d.f.Stat()
	if err != nil {
		return 0, err
	}
	if d.floor < fi.Size() {
		if err := d.f.Truncate(d.floor); err != nil {
			return 0, err
		}
	}
	var n int64
	for p, pg := range d.pages {
		start := p * pageSize
		end := min(start+pageSize, d.size)
		if end <= start {
			continue
		}
		if _, err := d.f.WriteAt(pg[:end-start], start); err != nil {
			return n, err
		}
		n += end - start
	}
	if err := d.f.Truncate(d.size); err != nil {
		return n, err
	}
	if err := d.f.Sync(); err != nil {
		return n, err
	}
	d.pages = nil
	d.floor = d.size
	return n, nil
}

// dir is the root directory.
type dir struct {
	fs.Inode
	fsys *FS
}

var (
	_ fs.NodeLookuper  = (*dir)(nil)
	_ fs.NodeReaddirer = (*dir)(nil)
	_ fs.NodeCreater   = (*dir)(nil)
	_ fs.NodeUnlinker  = (*dir)(nil)
	_ fs.NodeRenamer   = (*dir)(nil)
	_ fs.NodeGetattrer = (*dir)(nil)
	_ fs.NodeFsyncer   = (*dir)(nil)
	_ fs.NodeStatfser  = (*dir)(nil)
)

func (r *dir) path(name string) string { return filepath.Join(r.fsys.backing, name) }

func (r *dir) child(ctx context.Context, d *data, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e := d.attr(&out.Attr); e != 0 {
		return nil, e
	}
	return r.NewInode(ctx, &file{fsys: r.fsys, d: d}, fs.StableAttr{Mode: syscall.S_IFREG, Ino: d.ino}), 0
}

func (r *dir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if e := r.fsys.begin(); e != 0 {
		return nil, e
	}
	defer r.fsys.end()
	d, e := r.fsys.state(r.path(name))
	if e != 0 {
		return nil, e
	}
	return r.child(ctx, d, out)
}

func (r *dir) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if e := r.fsys.begin(); e != 0 {
		return nil, nil, 0, e
	}
	defer r.fsys.end()
	p := r.path(name)
	fl := os.O_RDWR | os.O_CREATE
	if flags&syscall.O_EXCL != 0 {
		fl |= os.O_EXCL
	}
	bf, err := os.OpenFile(p, fl, os.FileMode(mode&0o7777))
	if err != nil {
		return nil, nil, 0, errno(err)
	}
	bf.Close()
	d, e := r.fsys.state(p)
	if e != 0 {
		return nil, nil, 0, e
	}
	if flags&syscall.O_TRUNC != 0 {
		d.mu.Lock()
		d.truncate(0)
		d.mu.Unlock()
	}
	n, e := r.child(ctx, d, out)
	return n, nil, r.fsys.openFlags(), e
}

// openFlags are the flags an open answers.
func (f *FS) openFlags() uint32 {
	if f.opts.KeepCache {
		return fuse.FOPEN_KEEP_CACHE
	}
	return 0
}

func (r *dir) Unlink(ctx context.Context, name string) syscall.Errno {
	if e := r.fsys.begin(); e != 0 {
		return e
	}
	defer r.fsys.end()
	p := r.path(name)
	ino, ok := backingIno(p)
	if err := os.Remove(p); err != nil {
		return errno(err)
	}
	r.fsys.forget(ino, ok)
	return 0
}

func (r *dir) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if e := r.fsys.begin(); e != 0 {
		return e
	}
	defer r.fsys.end()
	if flags != 0 {
		return syscall.ENOTSUP
	}
	to := r.path(newName)
	ino, ok := backingIno(to)
	if err := os.Rename(r.path(name), to); err != nil {
		return errno(err)
	}
	r.fsys.forget(ino, ok)
	return 0
}

func (r *dir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	if e := r.fsys.begin(); e != 0 {
		return nil, e
	}
	defer r.fsys.end()
	ents, err := os.ReadDir(r.fsys.backing)
	if err != nil {
		return nil, errno(err)
	}
	var list []fuse.DirEntry
	for _, e := range ents {
		if e.Type().IsRegular() {
			list = append(list, fuse.DirEntry{Name: e.Name(), Mode: syscall.S_IFREG})
		}
	}
	return fs.NewListDirStream(list), 0
}

func (r *dir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if e := r.fsys.begin(); e != 0 {
		return e
	}
	defer r.fsys.end()
	var st syscall.Stat_t
	if err := syscall.Stat(r.fsys.backing, &st); err != nil {
		return errno(err)
	}
	out.FromStat(&st)
	out.Ino = 1
	return 0
}

// Fsync of the directory: its entries are durable at once.
func (r *dir) Fsync(ctx context.Context, fh fs.FileHandle, flags uint32) syscall.Errno {
	if e := r.fsys.begin(); e != 0 {
		return e
	}
	defer r.fsys.end()
	return 0
}

func (r *dir) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	var st syscall.Statfs_t
	if err := syscall.Statfs(r.fsys.backing, &st); err != nil {
		return errno(err)
	}
	out.FromStatfsT(&st)
	return 0
}

// file is a regular file; its state is shared by every inode the kernel
// knows it by.
type file struct {
	fs.Inode
	fsys *FS
	d    *data
}

var (
	_ fs.NodeOpener    = (*file)(nil)
	_ fs.NodeReader    = (*file)(nil)
	_ fs.NodeWriter    = (*file)(nil)
	_ fs.NodeFsyncer   = (*file)(nil)
	_ fs.NodeFlusher   = (*file)(nil)
	_ fs.NodeGetattrer = (*file)(nil)
	_ fs.NodeSetattrer = (*file)(nil)
)

// attr fills a with the backing file's attributes and the size processes
// see (d.mu held).
func (d *data) attr(a *fuse.Attr) syscall.Errno {
	if d.f == nil {
		return syscall.EIO
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(d.f.Fd()), &st); err != nil {
		return errno(err)
	}
	a.FromStat(&st)
	a.Ino = d.ino
	a.Size = uint64(d.size)
	a.Blocks = (a.Size + 511) / 512
	return 0
}

func (n *file) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if e := n.fsys.begin(); e != 0 {
		return nil, 0, e
	}
	defer n.fsys.end()
	if flags&syscall.O_TRUNC != 0 {
		n.d.mu.Lock()
		n.d.truncate(0)
		n.d.mu.Unlock()
	}
	return nil, n.fsys.openFlags(), 0
}

func (n *file) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if e := n.fsys.begin(); e != 0 {
		return nil, e
	}
	defer n.fsys.end()
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	if n.d.f == nil {
		return nil, syscall.EIO
	}
	c, err := n.d.readAt(dest, off)
	if err != nil {
		return nil, errno(err)
	}
	return fuse.ReadResultData(dest[:c]), 0
}

func (n *file) Write(ctx context.Context, fh fs.FileHandle, b []byte, off int64) (uint32, syscall.Errno) {
	if e := n.fsys.begin(); e != 0 {
		return 0, e
	}
	defer n.fsys.end()
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	if n.d.f == nil {
		return 0, syscall.EIO
	}
	if err := n.d.writeAt(b, off); err != nil {
		return 0, errno(err)
	}
	return uint32(len(b)), 0
}

// Fsync (and fdatasync) makes the file's pending writes durable.
func (n *file) Fsync(ctx context.Context, fh fs.FileHandle, flags uint32) syscall.Errno {
	if e := n.fsys.begin(); e != 0 {
		return e
	}
	defer n.fsys.end()
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	if n.d.f == nil {
		return syscall.EIO
	}
	w, err := n.d.sync()
	n.fsys.stateMu.Lock()
	n.fsys.stats.Syncs++
	n.fsys.stats.BytesSynced += w
	n.fsys.stateMu.Unlock()
	return errno(err)
}

// Flush (a close) makes nothing durable.
func (n *file) Flush(ctx context.Context, fh fs.FileHandle) syscall.Errno {
	if e := n.fsys.begin(); e != 0 {
		return e
	}
	defer n.fsys.end()
	return 0
}

func (n *file) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if e := n.fsys.begin(); e != 0 {
		return e
	}
	defer n.fsys.end()
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	return n.d.attr(&out.Attr)
}

func (n *file) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if e := n.fsys.begin(); e != 0 {
		return e
	}
	defer n.fsys.end()
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	if n.d.f == nil {
		return syscall.EIO
	}
	if m, ok := in.GetMode(); ok {
		if err := n.d.f.Chmod(os.FileMode(m & 0o7777)); err != nil {
			return errno(err)
		}
	}
	uid, uok := in.GetUID()
	gid, gok := in.GetGID()
	if uok || gok {
		u, g := -1, -1
		if uok {
			u = int(uid)
		}
		if gok {
			g = int(gid)
		}
		if err := n.d.f.Chown(u, g); err != nil {
			return errno(err)
		}
	}
	if sz, ok := in.GetSize(); ok {
		n.d.truncate(int64(sz))
	}
	return n.d.attr(&out.Attr)
}
