package etcdtest

import (
	"net"
	"sync"
	"testing"
)

// Forwarder passes TCP connections on to a target (an etcd member's
// client URL), so that one client can be cut off from etcd alone: Cut
// makes it a black hole (what it had open is closed; what is opened
// later is taken and never answered, as behind a dead link), Freeze
// keeps the connections open but passes nothing more either way (a
// member that stopped answering on a connection that looks alive),
// Restore passes connections on again.
type Forwarder struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	cut    bool
	frozen chan struct{} // closed when not frozen; replaced by Freeze
	conns  map[net.Conn]struct{}
}

// Forward listens on a loopback port and passes what it takes to target
// (host:port) until the test ends.
func Forward(t testing.TB, target string) *Forwarder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &Forwarder{ln: ln, target: target, conns: map[net.Conn]struct{}{}, frozen: make(chan struct{})}
	close(f.frozen)
	var wg sync.WaitGroup
	wg.Go(func() { f.serve(&wg) })
	t.Cleanup(func() {
		f.Restore()
		ln.Close()
		f.closeAll()
		wg.Wait()
	})
	return f
}

// URL is the forwarder's address as an etcd endpoint.
func (f *Forwarder) URL() string { return "http://" + f.ln.Addr().String() }

// Cut closes every connection passed on and holds new ones unanswered.
func (f *Forwarder) Cut() {
	f.mu.Lock()
	f.cut = true
	f.mu.Unlock()
	f.closeAll()
}

// Freeze stops passing bytes on the open connections, without closing
// them, until Restore.
func (f *Forwarder) Freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.frozen:
		f.frozen = make(chan struct{})
	default:
	}
}

// Restore passes new connections on again (held ones stay dead), and
// bytes on frozen ones.
func (f *Forwarder) Restore() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cut = false
	select {
	case <-f.frozen:
	default:
		close(f.frozen)
	}
}

// pass copies from src to dst, waiting while frozen.
func (f *Forwarder) pass(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			f.mu.Lock()
			thawed := f.frozen
			f.mu.Unlock()
			<-thawed
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (f *Forwarder) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		c.Close()
	}
	clear(f.conns)
}

func (f *Forwarder) track(cs ...net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range cs {
		f.conns[c] = struct{}{}
	}
	return !f.cut
}

func (f *Forwarder) serve(wg *sync.WaitGroup) {
	for {
		in, err := f.ln.Accept()
		if err != nil {
			return
		}
		if !f.track(in) {
			continue // held: a black hole until closed
		}
		out, err := net.Dial("tcp", f.target)
		if err != nil {
			in.Close()
			continue
		}
		if !f.track(out) {
			in.Close()
			out.Close()
			continue
		}
		wg.Go(func() { f.pass(out, in) })
		wg.Go(func() { f.pass(in, out) })
	}
}
