// Package inboxtest is a stand-in for a Claude Code session's inbox
// socket (cross-session messaging), speaking its wire format as Claude
// Code 2.1.328 does: a Unix socket taking JSON lines, per connection an
// optional first line {"type":"auth","token":"…"} (required when the
// stand-in is told so, as on platforms where Claude Code requires it),
// then {"type":"user","message":{"role":"user","content":"…"}} lines; a
// line is at most 1 MiB; Claude Code writes nothing back and closes its
// side once it has read to the poster's end. Tests of chatbus-mcp point
// CLAUDE_CODE_MESSAGING_SOCKET (and _TOKEN) at it and read what arrived.
package inboxtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// maxLine is Claude Code's bound on one line.
const maxLine = 1 << 20

// Message is one user message the inbox took.
type Message struct {
	Content string
	// Authenticated: the connection sent the right token first.
	Authenticated bool
}

// Inbox is a listening stand-in. Its methods are safe for concurrent use.
type Inbox struct {
	Path  string
	Token string

	ln          net.Listener
	requireAuth bool

	mu      sync.Mutex // guards msgs, refused and changed
	msgs    []Message
	refused []string      // why connections were dropped
	changed chan struct{} // closed and replaced at each message
	wg      sync.WaitGroup
}

// Option configures Start.
type Option func(*Inbox)

// RequireAuth drops a connection whose first line is not the right auth
// line, as Claude Code does where the auth line is required.
func RequireAuth() Option { return func(in *Inbox) { in.requireAuth = true } }

// Start listens at path (its directory is made 0700) and stops at the
// test's end.
func Start(t testing.TB, path string, opts ...Option) *Inbox {
	t.Helper()
	in, err := Listen(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	return in
}

// Listen listens at path; Close stops it.
func Listen(path string, opts ...Option) (*Inbox, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	in := &Inbox{Path: path, Token: fmt.Sprintf("%032x", time.Now().UnixNano()), ln: ln, changed: make(chan struct{})}
	for _, o := range opts {
		o(in)
	}
	in.wg.Add(1)
	go in.accept()
	return in, nil
}

// Close stops listening, removes the socket and waits for the
// connections being read.
func (in *Inbox) Close() {
	in.ln.Close()
	in.wg.Wait()
}

func (in *Inbox) accept() {
	defer in.wg.Done()
	for {
		c, err := in.ln.Accept()
		if err != nil {
			return
		}
		in.wg.Add(1)
		go func() {
			defer in.wg.Done()
			in.serve(c)
		}()
	}
}

// serve reads one connection to its end, then closes it.
func (in *Inbox) serve(c net.Conn) {
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(30 * time.Second)) // Claude Code's first-line deadline, loosely
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	first, authed := true, false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var m struct {
			Type    string `json:"type"`
			Token   string `json:"token"`
			Message struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			if in.requireAuth && !authed {
				in.refuse("an unparseable line before auth")
				return
			}
			continue // Claude Code logs it and reads on
		}
		wasFirst := first
		first = false
		if m.Type == "auth" && wasFirst {
			authed = m.Token == in.Token
			if !authed && in.requireAuth {
				in.refuse("a bad auth frame")
				return
			}
			continue
		}
		if in.requireAuth && !authed {
			in.refuse(fmt.Sprintf("a %q line without auth", m.Type))
			return
		}
		content, ok := m.Message.Content.(string)
		if m.Type != "user" || !ok || content == "" {
			continue // Claude Code ignores it
		}
		in.mu.Lock()
		in.msgs = append(in.msgs, Message{Content: content, Authenticated: authed})
		close(in.changed)
		in.changed = make(chan struct{})
		in.mu.Unlock()
	}
	if err := sc.Err(); err != nil && !errors.Is(err, net.ErrClosed) {
		in.refuse("read: " + err.Error())
	}
}

func (in *Inbox) refuse(why string) {
	in.mu.Lock()
	in.refused = append(in.refused, why)
	in.mu.Unlock()
}

// Messages returns what arrived, in order.
func (in *Inbox) Messages() []Message {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Message(nil), in.msgs...)
}

// Refused says why connections were dropped.
func (in *Inbox) Refused() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]string(nil), in.refused...)
}

// Wait waits up to timeout until a message satisfies match and returns
// it; ok is false if none did.
func (in *Inbox) Wait(timeout time.Duration, match func(Message) bool) (Message, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		in.mu.Lock()
		for _, m := range in.msgs {
			if match(m) {
				in.mu.Unlock()
				return m, true
			}
		}
		changed := in.changed
		in.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			return Message{}, false
		}
	}
}
