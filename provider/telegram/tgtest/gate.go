package tgtest

import (
	"net"
	"sync"
)

// gateListener is the server's listener. It can close its port (down:
// connection attempts are refused, as with a platform that is not
// reachable) and listen on the same port again (up), while the HTTP
// server keeps calling Accept on it throughout.
type gateListener struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once

	mu sync.Mutex   // guards ln
	ln net.Listener // nil while down
}

func newGateListener(ln net.Listener) *gateListener {
	g := &gateListener{addr: ln.Addr(), conns: make(chan net.Conn), closed: make(chan struct{}), ln: ln}
	go g.pump(ln)
	return g
}

// pump hands ln's connections to Accept until ln is closed.
func (g *gateListener) pump(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		select {
		case g.conns <- c:
		case <-g.closed:
			c.Close()
			return
		}
	}
}

// Accept returns the next connection, waiting through a down spell.
func (g *gateListener) Accept() (net.Conn, error) {
	select {
	case c := <-g.conns:
		return c, nil
	case <-g.closed:
		return nil, net.ErrClosed
	}
}

// Close closes the listener for good.
func (g *gateListener) Close() error {
	g.once.Do(func() { close(g.closed) })
	g.down()
	return nil
}

func (g *gateListener) Addr() net.Addr { return g.addr }

// down closes the port.
func (g *gateListener) down() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ln != nil {
		g.ln.Close()
		g.ln = nil
	}
}

// up listens on the port again.
func (g *gateListener) up() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.closed:
		return net.ErrClosed
	default:
	}
	if g.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", g.addr.String())
	if err != nil {
		return err
	}
	g.ln = ln
	go g.pump(ln)
	return nil
}
