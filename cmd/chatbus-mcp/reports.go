package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/internal/backoff"
	"github.com/chatbus/chatbus/internal/proc"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Reports from the session's inbox. A line posted to Claude Code's inbox
// socket may name a reply socket in "from" ("uds:<path>") and carry an id
// in "msg_id" (a UUID); Claude Code then tells what became of the message
// by connecting to the reply socket and writing one line:
//
//	{"type":"control","action":"peer_message_status","status":"held",
//	 "reason":"…","from":"uds:<its inbox>","orig_msg_id":"<msg_id>",
//	 "msgV":1,"msg_id":"…"}
//
//   - "held": parked for approval at the terminal (a crossSessionInbound
//     "hold" setting, or, just after start, a permission mode not known
//     yet); another report follows:
//   - "delivered": a held message was released into the session;
//   - "denied": the person at the terminal declined it;
//   - "expired": it left the held buffer unapproved (evicted, or the
//     session ended);
//   - "expired" with "status_detail":"refused": the session refuses
//     cross-session messages (a setting, a policy, the feature off);
//   - "dropped" with "drop_reason" (rate-limited, duplicate, hop-loop,
//     hop-runaway, queue-full) and "dropped_msg_ids": the inbox's guard
//     dropped it. The first drop of a sender and reason in a minute is
//     reported at once, later ones together after a 5 s trail.
//
// A message the session takes into its queue at once gets no report.
// Claude Code writes to a reply socket only in its own socket directory
// (the inbox's directory; the name must end in .sock), only when the
// listening process is the one that posted (it checks the peer's pid and
// uid), and without an auth line on Linux. Seen with 2.1.328: its
// receipt sender, and its reports to a probe.

// Report statuses, as chatbus-mcp names them (refused is Claude Code's
// "expired" with status_detail "refused").
const (
	statusHeld      = "held"
	statusDelivered = "delivered"
	statusDenied    = "denied"
	statusExpired   = "expired"
	statusRefused   = "refused"
	statusDropped   = "dropped"
)

// report is one peer_message_status report.
type report struct {
	status     string // one of the statuses above
	reason     string // Claude Code's text
	dropReason string // with statusDropped
}

// maxReportLine bounds one line on the reply socket.
const maxReportLine = 64 << 10

// maxReportConns bounds the connections read at once.
const maxReportConns = 8

// maxWaiting bounds the posts waiting for their report.
const maxWaiting = 64

// replySocket is chatbus-mcp's reply socket: <dir>/chatbus-<pid>.sock in
// the session's socket directory, 0600. Claude Code connects to it to
// report; posts wait on the reports for their msg_id.
type replySocket struct {
	log zerolog.Logger
	// late is called with a report for a msg_id no post waits for (it
	// came after the post stopped waiting), outside mu.
	late func(id string, r report)

	mu      sync.Mutex // guards ln, path and waiting
	ln      net.Listener
	path    string
	waiting map[string]chan report // by msg_id; each cap 4

	conns chan struct{} // semaphore of maxReportConns
	wg    sync.WaitGroup
}

func newReplySocket(log zerolog.Logger, late func(string, report)) *replySocket {
	return &replySocket{log: log, late: late, waiting: map[string]chan report{}, conns: make(chan struct{}, maxReportConns)}
}

// maxSocketPath is Claude Code's bound on a socket path.
const maxSocketPath = 103

// bind listens in dir (the session's socket directory) unless it does
// already, and returns the from address that names the socket.
func (s *replySocket) bind(dir string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := filepath.Join(dir, "chatbus-"+strconv.Itoa(os.Getpid())+".sock")
	if s.ln != nil && s.path == path {
		return fromAddress(path), nil
	}
	if s.ln != nil {
		s.ln.Close()
		s.ln = nil
	}
	if len(path) > maxSocketPath {
		return "", fmt.Errorf("reply socket %s: the path is longer than Claude Code takes (%d bytes)", path, maxSocketPath)
	}
	// The name carries this process's pid: a file there is a dead
	// process's (with the same pid) or ours.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("reply socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return "", fmt.Errorf("reply socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return "", fmt.Errorf("reply socket: %w", err)
	}
	s.ln, s.path = ln, path
	s.wg.Add(1)
	go s.accept(ln)
	s.log.Info().Str("reply_socket", path).Msg("listening for the session's reports on its inbox")
	return fromAddress(path), nil
}

// fromAddress is Claude Code's form of a socket address: "uds:" and the
// path, its characters outside [A-Za-z0-9:_/.-] percent-escaped.
func fromAddress(path string) string {
	var sb strings.Builder
	sb.WriteString("uds:")
	for _, c := range []byte(path) {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', strings.IndexByte(":_/.-", c) >= 0:
			sb.WriteByte(c)
		default:
			fmt.Fprintf(&sb, "%%%02X", c)
		}
	}
	return sb.String()
}

// close stops listening, removes the socket and waits for the
// connections being read.
func (s *replySocket) close() {
	s.mu.Lock()
	if s.ln != nil {
		s.ln.Close() // removes the file
		s.ln = nil
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// expect registers a post's msg_id; its reports come on the channel
// until forget. ok is false when too many posts wait already.
func (s *replySocket) expect(id string) (<-chan report, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiting) >= maxWaiting {
		return nil, false
	}
	ch := make(chan report, 4)
	s.waiting[id] = ch
	return ch, true
}

func (s *replySocket) forget(id string) {
	s.mu.Lock()
	delete(s.waiting, id)
	s.mu.Unlock()
}

func (s *replySocket) accept(ln net.Listener) {
	defer s.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		select {
		case s.conns <- struct{}{}:
		default:
			c.Close() // too many at once: Claude Code logs the failed send
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.conns }()
			s.serve(c)
		}()
	}
}

// serve reads one connection's lines (Claude Code writes one and closes).
// A connection from another user is closed unread: the socket is 0600,
// but it is connectable for a moment after it binds, before the chmod.
func (s *replySocket) serve(c net.Conn) {
	defer c.Close()
	if cred, err := proc.PeerCred(c); err != nil || int64(cred.UID) != int64(os.Geteuid()) {
		s.log.Warn().Err(err).Msg("reply socket: a connection not from this user; closed unread")
		return
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 4096), maxReportLine)
	for sc.Scan() {
		var m struct {
			Type          string   `json:"type"`
			Action        string   `json:"action"`
			Status        string   `json:"status"`
			StatusDetail  string   `json:"status_detail"`
			Reason        string   `json:"reason"`
			OrigMsgID     string   `json:"orig_msg_id"`
			DropReason    string   `json:"drop_reason"`
			DroppedMsgIDs []string `json:"dropped_msg_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.Type != "control" || m.Action != "peer_message_status" {
			s.log.Debug().Str("line", string(truncate(sc.Bytes(), 200))).Msg("reply socket: not a report; ignored")
			continue
		}
		r := report{status: m.Status, reason: m.Reason, dropReason: m.DropReason}
		if m.Status == statusExpired && m.StatusDetail == "refused" {
			r.status = statusRefused
		}
		switch r.status {
		case statusHeld, statusDelivered, statusDenied, statusExpired, statusRefused, statusDropped:
		default:
			s.log.Debug().Str("status", m.Status).Msg("reply socket: a report of an unknown status; ignored")
			continue
		}
		ids := []string{m.OrigMsgID}
		for _, id := range m.DroppedMsgIDs {
			if id != m.OrigMsgID {
				ids = append(ids, id)
			}
		}
		for _, id := range ids {
			if id != "" {
				s.dispatch(id, r)
			}
		}
	}
}

// dispatch hands a report to the post waiting for id, or to late.
func (s *replySocket) dispatch(id string, r report) {
	s.mu.Lock()
	ch, ok := s.waiting[id]
	if ok {
		select {
		case ch <- r:
		default: // a post reads its reports as they come: never full
		}
	}
	s.mu.Unlock()
	if !ok && s.late != nil {
		s.late(id, r)
	}
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// inboxRetry paces posting again what Claude Code did not deliver (a
// drop, an expiry); after a refusal the wait is at least refusedRetry.
var inboxRetry = backoff.Policy{Initial: 2 * time.Second, Max: 5 * time.Minute, Jitter: 0.2}

const refusedRetry = 30 * time.Second

// notDeliveredError: Claude Code reported that it did not deliver the
// update (its report says why); the update stays unacked.
type notDeliveredError struct {
	seq  uint64
	r    report
	text string
}

func (e *notDeliveredError) Error() string {
	return fmt.Sprintf("Claude Code did not deliver update %d: %s (%s)", e.seq, e.r.status, e.r.reason)
}

// onHeld is called when Claude Code holds update seq's message for
// approval at the terminal (follow's goroutine).
func (b *bridge) onHeld(seq uint64, r report) {
	b.log.Info().Str("reason", r.reason).Msg("Claude Code holds the message for approval at the terminal; it is acked once delivered")
	b.reportDelivery(seq, r, "")
}

// onLateReport is called with a report no post waits for any more (the
// reply socket's goroutine).
func (b *bridge) onLateReport(id string, r report) {
	switch r.status {
	case statusHeld, statusDelivered:
		b.log.Debug().Str("msg_id", id).Str("status", r.status).Msg("a late report; nothing to do")
		return
	}
	b.log.Warn().Str("msg_id", id).Str("status", r.status).Str("drop_reason", r.dropReason).Msg("Claude Code reported late that a message counted as delivered was not")
	b.reportDelivery(0, r, "a message counted as delivered")
	b.tell("late "+r.status+" "+r.dropReason, fmt.Sprintf("⚠️ Claude Code reported late that one of your recent messages did not reach the session (%s). Please send it again.", r.reason))
}

// notDelivered logs and accounts for a message Claude Code did not
// deliver, and tells the thread once per status and reason.
func (b *bridge) notDelivered(seq uint64, r report, text string) {
	b.log.Warn().Uint64("seq", seq).Str("status", r.status).Str("drop_reason", r.dropReason).Str("reason", r.reason).Msg("Claude Code did not deliver a message")
	b.reportDelivery(seq, r, "«"+preview(text)+"»")
	b.tell(r.status+" "+r.dropReason, notDeliveredNotice(r, b.ways.name, preview(text)))
}

// notDeliveredNotice is what the thread is told: what happened, whether
// it comes again, and what the person can do.
func notDeliveredNotice(r report, name, preview string) string {
	switch r.status {
	case statusDenied:
		return fmt.Sprintf("⚠️ The person at the session's terminal declined your message «%s»: it did not reach the session. Send it again if it should.", preview)
	case statusRefused:
		return fmt.Sprintf("⚠️ This session refuses your messages: Claude Code does not accept messages from chatbus there (%s).\n\n"+
			"Nothing is lost: your messages wait here, and chatbus offers them again from time to time. To let them in, set crossSessionInbound to \"accept\" "+
			"(or remove it) in the session's Claude Code settings, or restart the session with --dangerously-load-development-channels server:%s on a claude.ai login.", r.reason, name)
	case statusExpired:
		return fmt.Sprintf("⚠️ Your message «%s» waited for approval at the session's terminal and expired (%s). Nothing is lost: chatbus offers it again; approve it at the terminal, or set crossSessionInbound to \"accept\" in the session's settings.", preview, r.reason)
	default:
		return fmt.Sprintf("⚠️ Claude Code dropped your message «%s» at the session's inbox (%s). Nothing is lost: chatbus sends it again shortly. If this repeats, the session is busy: wait for it, or write fewer messages at once.", preview, firstNonEmpty(r.dropReason, r.reason))
	}
}

// preview is the start of a message's text, for a notice.
func preview(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return text
}

// tell posts text in the thread once per key in this process.
func (b *bridge) tell(key, text string) {
	b.mu.Lock()
	if b.told[key] || len(b.told) >= maxTold {
		b.mu.Unlock()
		return
	}
	b.told[key] = true
	b.mu.Unlock()
	b.notice(text, nil)
}

// maxTold bounds the notices of one process.
const maxTold = 32

// deliveryStatuses are the reports the supervisor is told of.
var deliveryStatuses = map[string]chatbusv1.DeliveryStatus{
	statusHeld:    chatbusv1.DeliveryStatus_DELIVERY_STATUS_HELD,
	statusRefused: chatbusv1.DeliveryStatus_DELIVERY_STATUS_REFUSED,
	statusDropped: chatbusv1.DeliveryStatus_DELIVERY_STATUS_DROPPED,
	statusDenied:  chatbusv1.DeliveryStatus_DELIVERY_STATUS_DENIED,
	statusExpired: chatbusv1.DeliveryStatus_DELIVERY_STATUS_EXPIRED,
}

// reportDelivery accounts for a report of update seq (0: not known): the
// supervisor publishes it as an event (busctl events). what, if set,
// names the message.
func (b *bridge) reportDelivery(seq uint64, r report, what string) {
	st, ok := deliveryStatuses[r.status]
	if !ok {
		return
	}
	detail := r.reason
	if r.dropReason != "" {
		detail = r.dropReason + ": " + detail
	}
	if what != "" {
		detail += " (" + what + ")"
	}
	b.mu.Lock()
	f := b.sess.f
	b.mu.Unlock()
	if f != nil {
		f.ReportDelivery(st, seq, detail)
	}
}
