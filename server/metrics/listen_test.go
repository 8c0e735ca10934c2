package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatbus/chatbus/server/metrics/metricstest"
	"github.com/chatbus/chatbus/server/safesocket"
)

func TestParseListen(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		allow    bool
		want     Addr
		wantErr  error
		contains string
	}{
		{name: "unix socket", in: "unix:///run/user/1000/chatbus/metrics.sock", want: Addr{"unix", "/run/user/1000/chatbus/metrics.sock"}},
		{name: "unix relative", in: "unix://metrics.sock", wantErr: ErrListen, contains: "absolute"},
		{name: "unix too long", in: "unix:///" + strings.Repeat("x", 120), wantErr: ErrListen, contains: "at most 107"},
		{name: "ipv4 loopback", in: "127.0.0.1:9464", want: Addr{"tcp", "127.0.0.1:9464"}},
		{name: "ipv4 loopback, any port", in: "127.0.0.1:0", want: Addr{"tcp", "127.0.0.1:0"}},
		{name: "127/8", in: "127.8.9.10:9464", want: Addr{"tcp", "127.8.9.10:9464"}},
		{name: "ipv6 loopback", in: "[::1]:9464", want: Addr{"tcp", "[::1]:9464"}},
		{name: "localhost", in: "localhost:9464", want: Addr{"tcp", "localhost:9464"}},
		{name: "every interface", in: ":9464", wantErr: ErrNotLoopback, contains: "every interface"},
		{name: "0.0.0.0", in: "0.0.0.0:9464", wantErr: ErrNotLoopback, contains: `host "0.0.0.0"`},
		{name: "a LAN address", in: "192.168.1.5:9464", wantErr: ErrNotLoopback, contains: "allow_non_loopback"},
		{name: "a host name", in: "metrics.example.com:9464", wantErr: ErrNotLoopback},
		{name: "non-loopback allowed", in: "0.0.0.0:9464", allow: true, want: Addr{"tcp", "0.0.0.0:9464"}},
		{name: "every interface allowed", in: ":9464", allow: true, want: Addr{"tcp", ":9464"}},
		{name: "no port", in: "127.0.0.1", wantErr: ErrListen},
		{name: "bad port", in: "127.0.0.1:http", wantErr: ErrListen, contains: "0 to 65535"},
		{name: "port out of range", in: "127.0.0.1:70000", wantErr: ErrListen},
		{name: "a URL", in: "http://127.0.0.1:9464", wantErr: ErrListen},
		{name: "empty", in: "", wantErr: ErrListen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseListen(tt.in, tt.allow)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.contains) {
					t.Fatalf("ParseListen(%q) = %v, %v; want %v containing %q", tt.in, got, err, tt.wantErr, tt.contains)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseListen(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// scrapeOver GETs /metrics through dial and parses it.
func scrapeOver(t *testing.T, url string, dial func(ctx context.Context, _, _ string) (net.Conn, error)) metricstest.Scrape {
	t.Helper()
	tr := &http.Transport{DialContext: dial}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	s, err := metricstest.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serve starts ep and returns a func that closes it and waits.
func serve(t *testing.T, ep *Endpoint) func() {
	done := make(chan error, 1)
	go func() { done <- ep.Serve() }()
	return func() {
		if err := ep.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
}

// TestEndpointUnix: the Unix socket is 0600, serves the text format, and
// is removed on close; a live socket is never taken over.
func TestEndpointUnix(t *testing.T) {
	dir, err := os.MkdirTemp("", "cbm")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sub", "metrics.sock")
	m := New(Config{})
	m.UpdateReceived("telegram", 1, true)
	a, err := ParseListen("unix://"+path, false)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := m.Listen(a)
	if err != nil {
		t.Fatal(err)
	}
	stop := serve(t, ep)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("socket mode %v, want a socket 0600", fi.Mode())
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("created directory mode %v, want 0700", di.Mode().Perm())
	}
	if ep.URL() != "unix://"+path {
		t.Errorf("URL %q", ep.URL())
	}
	s := scrapeOver(t, "http://metrics/metrics", func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", path)
	})
	if got := s.Get("chatbus_updates_received_total", "provider", "telegram", "kind", "message"); got != 1 {
		t.Errorf("received %v, want 1", got)
	}
	if !s.Has("go_goroutines") || !s.Has("promhttp_metric_handler_requests_total") {
		t.Errorf("runtime or handler metrics missing: %v", s.Names())
	}

	// A second endpoint on the same live socket is refused.
	if _, err := New(Config{}).Listen(a); !errors.Is(err, safesocket.ErrAlreadyRunning) {
		t.Errorf("second listener on a live socket: %v, want already running", err)
	}
	stop()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after close: %v", err)
	}
}

// TestEndpointTCP: port 0 takes a free port, and URL names it.
func TestEndpointTCP(t *testing.T) {
	m := New(Config{})
	m.Call("sendMessage", 0, 0)
	ep, err := m.Listen(Addr{Network: "tcp", Address: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	stop := serve(t, ep)
	defer stop()
	if strings.HasSuffix(ep.Addr().Address, ":0") || !strings.HasPrefix(ep.URL(), "http://127.0.0.1:") {
		t.Fatalf("addr %v url %q: the port taken is not named", ep.Addr(), ep.URL())
	}
	s := scrapeOver(t, ep.URL(), (&net.Dialer{}).DialContext)
	if got := s.Get("chatbus_calls_total", "method", "sendMessage", "code", "OK"); got != 1 {
		t.Errorf("calls %v, want 1", got)
	}
	resp, err := http.Get(strings.TrimSuffix(ep.URL(), "/metrics") + "/other")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /other: %s, want 404", resp.Status)
	}
	http.DefaultClient.CloseIdleConnections()
}
