package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/paths"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// What Claude Code 2.1.328 writes to a stdio server first, byte for byte
// (its server/discover probe of MCP revision 2026-07-28), then, when the
// server offers no revision of that era, its initialize.
const (
	claudeCodeDiscover   = `{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","title":"Claude Code","version":"2.1.328","description":"Anthropic's agentic coding tool","websiteUrl":"https://claude.com/claude-code"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	claudeCodeInitialize = `{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"claude-code","title":"Claude Code","version":"2.1.328"}},"jsonrpc":"2.0","id":0}`
	sdkInitialize        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"chatbus-e2e","version":"0.0.0"}}}`
	initializedNote      = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// wire is an MCP client on raw JSON lines against a bridge's stdio server,
// with no supervisor behind it (the handshake needs none).
type wire struct {
	t     *testing.T
	b     *bridge
	in    *io.PipeWriter
	lines chan map[string]any
}

func startWire(t *testing.T) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b := newBridge(config{stdout: outW}, zerolog.Nop())
	w := &wire{t: t, b: b, in: inW, lines: make(chan map[string]any, 64)}
	ctx, cancel := context.WithCancel(context.Background())
	listened := make(chan struct{})
	go func() {
		defer close(listened)
		b.stdioServer().Listen(ctx, inR, b.out)
	}()
	// What follow does first: wait (probing) until the client can take
	// channel notifications.
	awaited := make(chan struct{})
	go func() {
		defer close(awaited)
		b.gate.await(ctx, b.out, zerolog.Nop())
	}()
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the server wrote %q: %v", sc.Text(), err)
				continue
			}
			w.lines <- m
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-listened
		<-awaited
		outW.Close()
		<-read
	})
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// next returns the next line the server wrote.
func (w *wire) next(what string) map[string]any {
	w.t.Helper()
	select {
	case m := <-w.lines:
		return m
	case <-time.After(10 * time.Second):
		w.t.Fatalf("the server wrote nothing more (waiting for %s)", what)
		return nil
	}
}

// response returns the response to request id, failing on anything else
// but a list_changed probe (which may come at any time after the first
// tools/list).
func (w *wire) response(id any) map[string]any {
	w.t.Helper()
	for {
		m := w.next("the response to " + jsonString(id))
		if m["method"] == methodToolsListChanged {
			continue
		}
		if m["id"] != id {
			w.t.Fatalf("waiting for the response to %v, got %v", id, m)
		}
		return m
	}
}

func jsonString(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestNegotiatesInitializeEra: whatever the client asks first, the
// connection ends in the revision of the initialize handshake, the only
// one in which Claude Code takes channel notifications (over stdio it
// skips them on a 2026-07-28 connection: "no unsolicited notification
// path").
func TestNegotiatesInitializeEra(t *testing.T) {
	tests := []struct {
		name       string
		discover   bool // the client probes with server/discover first
		initialize string
		want       string
	}{
		{name: "Claude Code 2.1.328 (server/discover first)", discover: true, initialize: claudeCodeInitialize, want: "2025-11-25"},
		{name: "a client of the initialize era", initialize: sdkInitialize, want: "2025-06-18"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := startWire(t)
			if tt.discover {
				w.send(claudeCodeDiscover)
				r := w.response("server-discover-probe-1")
				var res struct {
					SupportedVersions []string `json:"supportedVersions"`
				}
				if err := json.Unmarshal([]byte(jsonString(r["result"])), &res); err != nil || r["error"] != nil {
					// An error answer (method not found) would also send
					// Claude Code to initialize; this server answers.
					t.Fatalf("server/discover: %v (%v)", r, err)
				}
				if len(res.SupportedVersions) == 0 {
					t.Fatalf("server/discover offered no revision: %v", r)
				}
				for _, v := range res.SupportedVersions {
					if mcp.IsModernProtocol(v) {
						t.Errorf("server/discover offers %s: Claude Code would take the modern era and skip channel notifications (offered %v)", v, res.SupportedVersions)
					}
				}
			}
			w.send(tt.initialize)
			r := w.response(float64(0))
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
				Capabilities    struct {
					Experimental map[string]any `json:"experimental"`
					Tools        *struct {
						ListChanged bool `json:"listChanged"`
					} `json:"tools"`
				} `json:"capabilities"`
			}
			if err := json.Unmarshal([]byte(jsonString(r["result"])), &res); err != nil {
				t.Fatal(err)
			}
			if res.ProtocolVersion != tt.want {
				t.Errorf("initialize negotiated %q, want %q", res.ProtocolVersion, tt.want)
			}
			for _, c := range []string{capChannel, capPermission} {
				if _, ok := res.Capabilities.Experimental[c]; !ok {
					t.Errorf("capability %s missing: %v", c, r["result"])
				}
			}
			// tools.listChanged is what lets chatbus-mcp see when Claude
			// Code's handlers are in place (see clientGate).
			if res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
				t.Errorf("tools.listChanged not declared: %v", r["result"])
			}
		})
	}
}

// TestFirstDeliveryWaitsForClaudeCode reproduces Claude Code's order: it
// sends notifications/initialized and tools/list, and registers its
// channel handler only once it has the tool list (its debug log says
// "Channel notifications registered" 10-20 ms later); a notification
// written before that is dropped. chatbus-mcp must not deliver at
// initialized: it asks for the tool list again (list_changed) and takes
// the second tools/list, which Claude Code sends only once its handlers
// are registered, as the sign.
func TestFirstDeliveryWaitsForClaudeCode(t *testing.T) {
	w := startWire(t)
	w.send(claudeCodeDiscover)
	w.response("server-discover-probe-1")
	w.send(claudeCodeInitialize)
	w.response(float64(0))
	w.send(initializedNote)
	w.send(`{"method":"tools/list","jsonrpc":"2.0","id":1}`)
	w.response(float64(1))
	// The probe, once or more: Claude Code, if its handler is not in
	// place yet, drops it or keeps it for when it is.
	for {
		m := w.next("a notifications/tools/list_changed probe")
		if m["method"] == methodToolsListChanged {
			break
		}
		t.Fatalf("unexpected %v", m)
	}
	select {
	case <-w.b.clientReady():
		t.Fatal("ready for channel notifications before Claude Code asked for the tool list again")
	default:
	}
	w.send(`{"method":"tools/list","jsonrpc":"2.0","id":2}`)
	select {
	case <-w.b.clientReady():
	case <-time.After(10 * time.Second):
		t.Fatal("not ready after the second tools/list")
	}
	if r := w.response(float64(2)); !strings.Contains(jsonString(r["result"]), `"reply"`) {
		t.Errorf("second tools/list: %v", r)
	}
}

// TestHandshakeWhileConnecting: the MCP handshake is answered while the
// supervisor is still being reached (Claude Code gives its first request
// 3 s), and a session whose stdin closes then ends without waiting for it.
func TestHandshakeWhileConnecting(t *testing.T) {
	dir := t.TempDir()
	// A socket that accepts and never answers: registering hangs.
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-accepted
		for _, c := range conns {
			c.Close()
		}
	})
	p, err := paths.Resolve("", func(k string) string { return map[string]string{"HOME": dir}[k] }, os.Getuid())
	if err != nil {
		t.Fatal(err)
	}
	p.SetSocket(sock)
	p.SetStateDir(dir)
	if err := os.WriteFile(p.Secret, []byte("c2VjcmV0"), 0o600); err != nil {
		t.Fatal(err)
	}
	// An OS pipe: what the test writes waits there whether or not it is
	// read yet.
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	outR, outW := io.Pipe()
	cfg := config{paths: p, profileKey: "test:connecting", threadName: "t", stdin: inR, stdout: outW, stderr: io.Discard}
	served := make(chan error, 1)
	go func() { served <- serve(context.Background(), cfg, zerolog.Nop()); outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for _, req := range []string{claudeCodeDiscover, claudeCodeInitialize} {
		io.WriteString(inW, req+"\n")
		got := make(chan string, 1)
		go func() {
			if lines.Scan() {
				got <- lines.Text()
			}
			close(got)
		}()
		select {
		case l := <-got:
			if !strings.Contains(l, `"result"`) {
				t.Fatalf("answer to %.40s…: %s", req, l)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to %.40s… while the supervisor does not answer", req)
		}
	}
	inW.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not end when stdin closed")
	}
	for lines.Scan() {
	}
}
