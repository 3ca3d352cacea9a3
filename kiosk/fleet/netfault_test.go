package fleet

import (
	"io/fs"
	"net"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The network faults of the fleet's tests: a TCP proxy between the kiosks
// and the server that can cut every connection, refuse new ones, or freeze
// them (nothing passes, nothing is closed: a link gone dead without a
// reset). A server is started again off the test's goroutine with
// natsServer.startErr (fleet_test.go), which returns its error instead of
// failing the test.

// faultProxy forwards loopback connections to target until cut or frozen.
type faultProxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	down   bool // new connections are closed at once
	frozen bool // open connections pass nothing
	thaw   *sync.Cond
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup

	accepted, severed int
}

// startProxy listens on a loopback port and forwards to target.
func startProxy(t *testing.T, target string) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.thaw = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *faultProxy) url() string { return "nats://" + p.ln.Addr().String() }

func (p *faultProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		up, err := net.DialTimeout("tcp", p.target, time.Second)
		if err != nil { // the server is stopped: the kiosk sees a refused connection
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			up.Close()
			continue
		}
		p.accepted++
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.wg.Add(2)
		p.mu.Unlock()
		go p.pipe(c, up)
		go p.pipe(up, c)
	}
}

// pipe copies from src to dst, holding each chunk while the proxy is
// frozen; it closes both ends when either fails.
func (p *faultProxy) pipe(src, dst net.Conn) {
	defer p.wg.Done()
	defer func() {
		p.mu.Lock()
		delete(p.conns, src)
		delete(p.conns, dst)
		p.mu.Unlock()
		src.Close()
		dst.Close()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			for p.frozen {
				p.thaw.Wait()
			}
			p.mu.Unlock()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// cut closes every open connection and refuses new ones until restore.
func (p *faultProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	p.severLocked()
}

// freeze lets nothing through the open connections (they stay open) and
// refuses new ones until restore: the kiosk learns it only by a timeout.
func (p *faultProxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down, p.frozen = true, true
}

// restore takes connections again; frozen ones are closed first, as a
// link back after a long silence is a reset connection.
func (p *faultProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen {
		p.severLocked()
		p.frozen = false
		p.thaw.Broadcast()
	}
	p.down = false
}

// counts are the connections the proxy forwarded and those it severed.
func (p *faultProxy) counts() (accepted, severed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted, p.severed
}

func (p *faultProxy) severLocked() {
	for c := range p.conns {
		c.Close()
		p.severed++
	}
}

func (p *faultProxy) close() {
	p.ln.Close()
	p.cut()
	p.restore()
	p.wg.Wait()
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		return nil
	})
	return total, err
}

// heapInUse is the Go heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
