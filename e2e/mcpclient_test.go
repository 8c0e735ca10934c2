package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/testkit"
)

// The MCP client of these tests is the official TypeScript SDK
// (@modelcontextprotocol/sdk, what Claude Code is built on), run by
// mcpclient/driver.mjs under node; see that file for the line protocol.

var (
	mcpDepsOnce sync.Once
	mcpDepsErr  error
)

// mcpClientDir installs the driver's pinned dependencies (npm ci) once per
// run when they are missing or older than the lock file, and returns the
// driver's directory. Node >= 20 and npm are required.
func mcpClientDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("mcpclient")
	if err != nil {
		t.Fatal(err)
	}
	mcpDepsOnce.Do(func() {
		if _, err := exec.LookPath("node"); err != nil {
			mcpDepsErr = fmt.Errorf("the MCP tests need node (>= 20) and npm: %w", err)
			return
		}
		lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
		if err != nil {
			mcpDepsErr = err
			return
		}
		if st, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil && !st.ModTime().Before(lock.ModTime()) {
			return
		}
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			mcpDepsErr = fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
		}
	})
	if mcpDepsErr != nil {
		t.Fatal(mcpDepsErr)
	}
	return dir
}

// mcpSession is one agent session: the SDK client in node, and the
// chatbus-mcp it launched.
type mcpSession struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *testkit.SyncBuffer
	ready  mcpReady

	mu      sync.Mutex
	notes   []mcpNote
	dropped []mcpNote // came before the client's handler was registered
	results map[int]chan mcpResponse
	nextID  int
	arrived chan struct{}
	closed  chan struct{}
	exited  chan struct{}
}

type mcpReady struct {
	PID          int             `json:"pid"`
	Capabilities json.RawMessage `json:"capabilities"`
	Instructions string          `json:"instructions"`
}

// mcpNote is a notification the client received.
type mcpNote struct {
	Method string         `json:"method"`
	Params map[string]any `json:"params"`
}

func (n mcpNote) content() string { s, _ := n.Params["content"].(string); return s }

func (n mcpNote) meta(k string) string {
	m, _ := n.Params["meta"].(map[string]any)
	s, _ := m[k].(string)
	return s
}

type mcpResponse struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// startMCP launches a session in cwd with the profile key (the env
// CHATBUS_PROFILE_KEY, as a user who names the session sets it) and waits
// until the client initialized.
func (p *profile) startMCP(t *testing.T, name, cwd, profileKey string, extraArgs ...string) *mcpSession {
	t.Helper()
	return p.startMCPEnv(t, name, cwd, profileKey, nil, extraArgs...)
}

// startMCPEnv is startMCP with more environment for the client and
// chatbus-mcp (e.g. what Claude Code exports to its children). Claude
// Code's own variables are cleared first: the client is not Claude Code
// unless env says so.
func (p *profile) startMCPEnv(t *testing.T, name, cwd, profileKey string, env []string, extraArgs ...string) *mcpSession {
	t.Helper()
	dir := mcpClientDir(t)
	args, _ := json.Marshal(append([]string{"--log-level", "debug"}, extraArgs...))
	cmd := exec.Command("node", filepath.Join(dir, "driver.mjs"))
	cmd.Env = append(p.env(), "MCP_COMMAND="+filepath.Join(binDir, "chatbus-mcp"), "MCP_ARGS="+string(args),
		"MCP_CWD="+cwd, "CHATBUS_PROFILE_KEY="+profileKey,
		"CLAUDECODE=", "CLAUDE_CODE_MESSAGING_SOCKET=", "CLAUDE_CODE_MESSAGING_TOKEN=", "CHATBUS_WAY_IN=")
	cmd.Env = append(cmd.Env, env...)
	s := &mcpSession{t: t, name: name, cmd: cmd, stderr: &testkit.SyncBuffer{}, results: map[int]chan mcpResponse{},
		arrived: make(chan struct{}, 4096), closed: make(chan struct{}), exited: make(chan struct{})}
	var stdout io.Reader
	s.stdin, stdout = startPiped(t, cmd, s.stderr)
	readyc := make(chan mcpReady, 1)
	go s.read(stdout, readyc)
	go func() { cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		s.stdin.Close()
		select {
		case <-s.exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-s.exited
		}
		if strings.Contains(s.stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("session %s: the race detector reported a race", name)
		}
		s.mu.Lock()
		dropped := s.dropped
		s.mu.Unlock()
		for _, n := range dropped {
			// Claude Code drops these: chatbus-mcp wrote them before the
			// client could take them.
			t.Errorf("session %s: %s written before the client registered its handler, dropped: %v", name, n.Method, n.Params)
		}
		if t.Failed() {
			t.Logf("session %s (driver and chatbus-mcp stderr):\n%s", name, s.stderr.String())
		}
	})
	select {
	case s.ready = <-readyc:
	case <-s.exited:
		t.Fatalf("session %s: the client exited before it initialized:\n%s", name, s.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("session %s: not initialized after 30s:\n%s", name, s.stderr.String())
	}
	return s
}

func (s *mcpSession) read(r io.Reader, readyc chan<- mcpReady) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct {
			mcpResponse
			Event string `json:"event"`
			mcpNote
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			s.t.Errorf("session %s: driver wrote %q: %v", s.name, sc.Text(), err)
			continue
		}
		switch line.Event {
		case "ready":
			var r mcpReady
			json.Unmarshal(sc.Bytes(), &r)
			readyc <- r
		case "notification":
			s.mu.Lock()
			s.notes = append(s.notes, line.mcpNote)
			s.mu.Unlock()
			s.arrived <- struct{}{}
		case "dropped":
			// chatbus-mcp's list_changed probes may come before the
			// handler (that is what they probe); channel notifications
			// must not.
			if strings.HasPrefix(line.Method, "notifications/claude/") {
				s.mu.Lock()
				s.dropped = append(s.dropped, line.mcpNote)
				s.mu.Unlock()
			}
		case "closed":
			close(s.closed)
		case "":
			s.mu.Lock()
			ch := s.results[line.ID]
			delete(s.results, line.ID)
			s.mu.Unlock()
			if ch != nil {
				ch <- line.mcpResponse
			}
		}
	}
}

// do sends one op to the driver and waits for its answer.
func (s *mcpSession) do(op string, fields map[string]any) mcpResponse {
	s.t.Helper()
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	ch := make(chan mcpResponse, 1)
	s.results[id] = ch
	s.mu.Unlock()
	msg := map[string]any{"id": id, "op": op}
	for k, v := range fields {
		msg[k] = v
	}
	b, _ := json.Marshal(msg)
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		s.t.Fatalf("session %s: %s: %v", s.name, op, err)
	}
	select {
	case r := <-ch:
		return r
	case <-time.After(60 * time.Second):
		s.t.Fatalf("session %s: %s: no answer in 60s\n%s", s.name, op, s.stderr.String())
		return mcpResponse{}
	}
}

// toolResult is an MCP CallToolResult as the SDK returns it.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

func (r toolResult) text() string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// callTool calls a tool; a protocol error fails the test, a tool error is
// in the result.
func (s *mcpSession) callTool(name string, args map[string]any) toolResult {
	s.t.Helper()
	r := s.do("callTool", map[string]any{"name": name, "arguments": args})
	if r.Error != "" {
		s.t.Fatalf("session %s: tools/call %s: %s", s.name, name, r.Error)
	}
	var tr toolResult
	if err := json.Unmarshal(r.Result, &tr); err != nil {
		s.t.Fatalf("tools/call %s: %s: %v", name, r.Result, err)
	}
	return tr
}

// notify sends a notification from the client (as Claude Code sends
// permission_request).
func (s *mcpSession) notify(method string, params map[string]any) {
	s.t.Helper()
	if r := s.do("notify", map[string]any{"method": method, "params": params}); r.Error != "" {
		s.t.Fatalf("session %s: notify %s: %s", s.name, method, r.Error)
	}
}

func (s *mcpSession) notifications() []mcpNote {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]mcpNote(nil), s.notes...)
}

// waitNote waits for the first notification after the first `after` ones
// that matches, and returns it.
func (s *mcpSession) waitNote(after int, what string, ok func(mcpNote) bool) mcpNote {
	s.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		ns := s.notifications()
		for _, n := range ns[min(after, len(ns)):] {
			if ok(n) {
				return n
			}
		}
		select {
		case <-s.arrived:
		case <-deadline:
			s.t.Fatalf("session %s: no notification %s in 30s; got %+v\n%s", s.name, what, ns, s.stderr.String())
		}
	}
}

// channelNotes are the notifications/claude/channel ones.
func (s *mcpSession) channelNotes() []mcpNote {
	var out []mcpNote
	for _, n := range s.notifications() {
		if n.Method == "notifications/claude/channel" {
			out = append(out, n)
		}
	}
	return out
}

// stopClient pauses (SIGSTOP) or resumes (SIGCONT) the client, as a
// session that stopped reading.
func (s *mcpSession) signalClient(sig syscall.Signal) {
	s.t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatal(err)
	}
}

// close closes the client as Claude Code does at a reload: the server's
// stdin closes. It waits until the server exited.
func (s *mcpSession) close() {
	s.t.Helper()
	s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		s.t.Fatalf("session %s did not end 20s after its stdin closed\n%s", s.name, s.stderr.String())
	}
}

// startPiped starts cmd with pipes to its stdin and from its stdout, and
// its stderr into stderr.
func startPiped(t *testing.T, cmd *exec.Cmd, stderr io.Writer) (io.WriteCloser, io.Reader) {
	t.Helper()
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}
