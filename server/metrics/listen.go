package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chatbus/chatbus/paths"
	"github.com/chatbus/chatbus/server/safesocket"
)

// Errors of ParseListen (wrapped with the value and what is wrong).
var (
	// ErrListen: the value is neither unix:///absolute/path nor host:port.
	ErrListen = errors.New("want unix:///absolute/path or host:port")
	// ErrNotLoopback: host:port names an address that other machines may
	// reach, and non-loopback addresses were not allowed.
	ErrNotLoopback = errors.New("not a loopback address")
)

// unixScheme prefixes a metrics.listen value naming a Unix socket.
const unixScheme = "unix://"

// Addr is where the metrics are served: Network "unix" with a socket
// path, or "tcp" with host:port.
type Addr struct {
	Network string
	Address string
}

func (a Addr) String() string {
	if a.Network == "unix" {
		return unixScheme + a.Address
	}
	return a.Address
}

// ParseListen checks a metrics.listen value: unix:///absolute/path, or
// host:port where host is a loopback address (127.0.0.0/8, ::1,
// localhost) unless allowNonLoopback. An empty host (every interface) and
// host names other than localhost are not loopback: what they reach
// cannot be known from the name. Port 0 picks a free port at start.
func ParseListen(s string, allowNonLoopback bool) (Addr, error) {
	if rest, ok := strings.CutPrefix(s, unixScheme); ok {
		switch {
		case !filepath.IsAbs(rest):
			return Addr{}, fmt.Errorf("%q: %w (the socket path must be absolute: unix:///run/…)", s, ErrListen)
		case len(rest) > paths.MaxSocketPath:
			return Addr{}, fmt.Errorf("%q: %w (the socket path is %d bytes; at most %d)", s, ErrListen, len(rest), paths.MaxSocketPath)
		}
		return Addr{Network: "unix", Address: filepath.Clean(rest)}, nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || strings.Contains(s, "://") {
		return Addr{}, fmt.Errorf("%q: %w", s, ErrListen)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return Addr{}, fmt.Errorf("%q: %w (port %q is not a number from 0 to 65535)", s, ErrListen, port)
	}
	if !allowNonLoopback && !loopback(host) {
		what := "host " + strconv.Quote(host)
		if host == "" {
			what = "an empty host (every interface)"
		}
		return Addr{}, fmt.Errorf("%q: %s is %w; use 127.0.0.1, ::1 or localhost, a unix:// socket, or set metrics.allow_non_loopback: true", s, what, ErrNotLoopback)
	}
	return Addr{Network: "tcp", Address: s}, nil
}

// loopback reports whether host is certainly a loopback address.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Endpoint is the metrics listener: its own http.Server serving the
// registry at /metrics.
type Endpoint struct {
	ln   net.Listener
	hs   *http.Server
	addr Addr // as bound: a tcp port 0 is the port taken
}

// Listen binds a (a Unix socket like the supervisor's own: a live socket
// there is refused, a stale file replaced, the socket made 0600, its
// directory created 0700 if missing). Serve serves on it.
func (m *Metrics) Listen(a Addr) (*Endpoint, error) {
	var ln net.Listener
	var err error
	switch a.Network {
	case "unix":
		if err = os.MkdirAll(filepath.Dir(a.Address), 0o700); err == nil {
			ln, err = safesocket.ListenPrivate(a.Address)
		}
	case "tcp":
		ln, err = net.Listen("tcp", a.Address)
		if err == nil {
			a.Address = ln.Addr().String()
		}
	default:
		err = fmt.Errorf("%q: %w", a, ErrListen)
	}
	if err != nil {
		return nil, fmt.Errorf("metrics listener %s: %w", a, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	return &Endpoint{ln: ln, addr: a, hs: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}}, nil
}

// ServeAt binds a (Listen) and serves on it (Serve) on a goroutine of its
// own until stop is called: stop waits until ctx ends for scrapes under
// way, and until the goroutine has returned. An error serving other than
// the stop is handed to failed.
func (m *Metrics) ServeAt(a Addr, failed func(error)) (ep *Endpoint, stop func(ctx context.Context) error, err error) {
	ep, err = m.Listen(a)
	if err != nil {
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := ep.Serve(); err != nil {
			failed(err)
		}
	}()
	return ep, func(ctx context.Context) error {
		err := ep.Close(ctx)
		<-done
		return err
	}, nil
}

// Addr is where the endpoint listens (with the port taken, for port 0).
func (e *Endpoint) Addr() Addr { return e.addr }

// URL is the address to scrape: http://host:port/metrics, or for a Unix
// socket unix:///path (fetch /metrics over it).
func (e *Endpoint) URL() string {
	if e.addr.Network == "unix" {
		return e.addr.String()
	}
	return "http://" + e.addr.Address + "/metrics"
}

// Serve serves until Close; it returns nil after Close.
func (e *Endpoint) Serve() error {
	if err := e.hs.Serve(e.ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics listener %s: %w", e.addr, err)
	}
	return nil
}

// Close stops serving: scrapes under way get until ctx ends to finish.
// A Unix socket's file is removed.
func (e *Endpoint) Close(ctx context.Context) error {
	err := e.hs.Shutdown(ctx)
	if err != nil {
		err = e.hs.Close()
	}
	if e.addr.Network == "unix" {
		if rmErr := os.Remove(e.addr.Address); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) && err == nil {
			err = rmErr
		}
	}
	return err
}
