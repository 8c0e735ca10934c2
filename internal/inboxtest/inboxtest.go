// Package inboxtest is a stand-in for a Claude Code session's inbox
// socket (cross-session messaging), speaking its wire format as Claude
// Code 2.1.328 does: a Unix socket taking JSON lines, per connection an
// optional first line {"type":"auth","token":"…"} (required when the
// stand-in is told so, as on platforms where Claude Code requires it),
// then {"type":"user","message":{"role":"user","content":"…"}} lines; a
// line is at most 1 MiB; Claude Code writes nothing back and closes its
// side once it has read to the poster's end. Tests of chatbus-mcp point
// CLAUDE_CODE_MESSAGING_SOCKET (and _TOKEN) at it and read what arrived.
//
// Reports, as Claude Code sends them: a user line may name a reply
// socket in "from" ("uds:<path>", the path percent-escaped, in the same
// directory as the inbox and ending in .sock) and its id in "msg_id" (a
// UUID). Claude Code then reports what became of the message by
// connecting to the reply socket and writing one line
//
//	{"type":"control","action":"peer_message_status","status":"held",
//	 "reason":"…","from":"uds:<inbox>","orig_msg_id":"<msg_id>",
//	 "msgV":1,"msg_id":"<a new UUID>"}
//
// with status "held" (parked for approval at the terminal: the
// crossSessionInbound setting, or the permission mode not known yet),
// later "delivered" (released to the session), "denied" (declined at the
// terminal), "expired" (evicted from the held buffer, or the session
// ended), status "expired" with "status_detail":"refused" (the session
// refuses cross-session messages), or "dropped" with "drop_reason"
// (rate-limited, duplicate, hop-loop, hop-runaway, queue-full) and
// "dropped_msg_ids". A message the session takes at once gets no report
// at all. Seen with 2.1.328 (its binary's receipt sender, and its
// reports to a probe).
package inboxtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// maxLine is Claude Code's bound on one line.
const maxLine = 1 << 20

// Message is one user message the inbox took.
type Message struct {
	Content string
	// Authenticated: the connection sent the right token first.
	Authenticated bool
	// ID and From are the line's msg_id and from ("" if absent).
	ID, From string
}

// Policy is what the session does with a message: Claude Code's
// crossSessionInbound (accept, hold, refuse).
type Policy int

const (
	Accept Policy = iota // into the session's queue, no report
	Hold                 // held for approval: "held", later another report
	Refuse               // not delivered: "expired" with status_detail "refused"
)

// Report is one peer_message_status report the stand-in sent.
type Report struct {
	Status, Detail string // Detail is status_detail ("refused")
	OrigID         string
	DropReason     string
	DroppedIDs     []string
	// Err is why it could not be sent (nil: written).
	Err error
}

// Inbox is a listening stand-in. Its methods are safe for concurrent use.
type Inbox struct {
	Path  string
	Token string

	ln          net.Listener
	requireAuth bool

	mu       sync.Mutex // guards everything below, and changed
	msgs     []Message  // taken into the session, in order
	held     []Message  // held for approval, oldest first
	policy   Policy
	drops    []string // the drop reasons of the next messages
	reports  []Report
	refused  []string      // why connections were dropped
	changed  chan struct{} // closed and replaced at each message and report
	wg       sync.WaitGroup
	received int // user lines with content
}

// Option configures Start.
type Option func(*Inbox)

// RequireAuth drops a connection whose first line is not the right auth
// line, as Claude Code does where the auth line is required.
func RequireAuth() Option { return func(in *Inbox) { in.requireAuth = true } }

// WithPolicy starts the inbox with policy p (default Accept).
func WithPolicy(p Policy) Option { return func(in *Inbox) { in.policy = p } }

// maxHeld is Claude Code's bound on held messages: the oldest is evicted
// ("expired") beyond it.
const maxHeld = 100

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
			From    string `json:"from"`
			MsgID   string `json:"msg_id"`
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
		msg := Message{Content: content, Authenticated: authed, ID: m.MsgID, From: m.From}
		in.mu.Lock()
		in.received++
		switch {
		case in.policy == Refuse:
			in.reportLocked(msg, "refused", "")
		case len(in.drops) > 0:
			reason := in.drops[0]
			in.drops = in.drops[1:]
			in.reportLocked(msg, "dropped", reason)
		case in.policy == Hold:
			if len(in.held) == maxHeld {
				in.reportLocked(in.held[0], "expired", "")
				in.held = in.held[1:]
			}
			in.held = append(in.held, msg)
			in.reportLocked(msg, "held", "")
		default:
			in.msgs = append(in.msgs, msg)
		}
		in.wakeLocked()
		in.mu.Unlock()
	}
	if err := sc.Err(); err != nil && !errors.Is(err, net.ErrClosed) {
		in.refuse("read: " + err.Error())
	}
}

// wakeLocked wakes the waiters; in.mu is held.
func (in *Inbox) wakeLocked() {
	close(in.changed)
	in.changed = make(chan struct{})
}

// SetPolicy changes the policy, as an edit of crossSessionInbound does in
// Claude Code: held messages are gated again, those now accepted are
// released into the session ("delivered"), those now refused are dropped
// with "refused".
func (in *Inbox) SetPolicy(p Policy) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.policy = p
	if p == Hold {
		return
	}
	for _, m := range in.held {
		if p == Accept {
			in.msgs = append(in.msgs, m)
			in.reportLocked(m, "delivered", "")
		} else {
			in.reportLocked(m, "refused", "")
		}
	}
	in.held = nil
	in.wakeLocked()
}

// Deny declines the held messages at the terminal: "denied".
func (in *Inbox) Deny() {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, m := range in.held {
		in.reportLocked(m, "denied", "")
	}
	in.held = nil
	in.wakeLocked()
}

// DropNext drops the next messages at the ingress guard, one per reason
// ("rate-limited", "queue-full", "duplicate"…), each reported at once.
func (in *Inbox) DropNext(reasons ...string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.drops = append(in.drops, reasons...)
}

// Held returns the messages held for approval.
func (in *Inbox) Held() []Message {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Message(nil), in.held...)
}

// Received counts the user messages that came, whatever became of them.
func (in *Inbox) Received() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.received
}

// Reports returns the reports sent (or tried), in order.
func (in *Inbox) Reports() []Report {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Report(nil), in.reports...)
}

// reportLocked sends m's report as Claude Code does, if m named a reply
// socket it may write to; in.mu is held (the write is quick: a local
// socket, bounded by 5 s as Claude Code bounds it).
func (in *Inbox) reportLocked(m Message, status, dropReason string) {
	target, ok := in.replyTarget(m.From)
	if !ok {
		return // Claude Code: "hold-receipt skipped: reply address unshaped or outside our socket namespace"
	}
	line := map[string]any{"type": "control", "action": "peer_message_status", "status": status, "reason": reasons[status],
		"from": "uds:" + in.Path, "msgV": 1, "msg_id": uuid.NewString()}
	r := Report{Status: status, DropReason: dropReason}
	if status == "refused" {
		line["status"], line["status_detail"] = "expired", "refused"
		r.Status, r.Detail = "expired", "refused"
	}
	if msgID.MatchString(m.ID) {
		line["orig_msg_id"] = m.ID
		r.OrigID = m.ID
	}
	if status == "dropped" {
		line["drop_reason"], line["dropped_msg_ids"] = dropReason, []string{}
	}
	r.Err = send(target, line)
	in.reports = append(in.reports, r)
}

// msgID is the shape of an id Claude Code keeps.
var msgID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// replyTarget is the reply socket a from names, if Claude Code would
// write to it: "uds:" and a path (percent-escapes decoded) ending in
// .sock in the inbox's own directory.
func (in *Inbox) replyTarget(from string) (string, bool) {
	rest, ok := strings.CutPrefix(from, "uds:")
	if !ok || len(rest) == 0 || len(rest) > 200 {
		return "", false
	}
	path, err := url.PathUnescape(rest)
	if err != nil {
		path = rest
	}
	if filepath.Dir(filepath.Clean(path)) != filepath.Dir(filepath.Clean(in.Path)) || !strings.HasSuffix(path, ".sock") {
		return "", false
	}
	return path, true
}

// send writes one control line to a reply socket and closes it.
func send(path string, line map[string]any) error {
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	c, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = c.Write(append(b, '\n'))
	return err
}

// reasons are Claude Code's texts of each status.
var reasons = map[string]string{
	"held":      "Your message is held for the recipient user's approval before it reaches their Claude session (permission-mode parity).",
	"denied":    "The recipient user declined your message; it was not delivered to their Claude session.",
	"expired":   "Your held message expired without approval and was not delivered to the recipient's Claude session.",
	"delivered": "Your previously-held message was approved and released to the recipient's Claude session.",
	"refused":   "The recipient session is not accepting cross-session messages (the feature is off there, or a setting or policy there refuses them); your message was not delivered to its Claude.",
	"dropped":   "The recipient's session dropped your message at its inbox (rate limit, duplicate, relay loop, or full queue); it was not delivered and will not be.",
}

func (in *Inbox) refuse(why string) {
	in.mu.Lock()
	in.refused = append(in.refused, why)
	in.mu.Unlock()
}

// Messages returns what the session took, in order (held, refused and
// dropped messages are not among them).
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
