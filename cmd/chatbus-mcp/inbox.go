package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
	"golang.org/x/time/rate"
)

// The inbox socket of a Claude Code session (cross-session messaging):
// a Unix socket that takes JSON lines. A poster connects, may first send
// {"type":"auth","token":"$CLAUDE_CODE_MESSAGING_TOKEN"} (required on some
// platforms, optional on Linux, where Claude Code knows its own children
// by their process ancestry), then one line
// {"type":"user","message":{"role":"user","content":"…"}} per message,
// and closes its side; Claude Code reads to the end, queues each message
// as input to the session, and closes its own side. It writes nothing
// back on that connection. A line is at most 1 MiB; a connection that
// sends no complete line within 30 s is closed. This is the form Claude
// Code's own debug log prints when the inbox binds ("[uds-messaging]
// Inject messages …"), seen with 2.1.328. The user line also names
// chatbus-mcp's reply socket ("from") and the message's id ("msg_id"):
// Claude Code reports there what became of a message it did not take at
// once (reports.go).

// inboxTimeout bounds one post: connect, write, and Claude Code's close.
const inboxTimeout = 10 * time.Second

// maxInboxContent bounds a message's text on the inbox (Claude Code drops
// a connection whose line exceeds 1 MiB).
const maxInboxContent = 512 << 10

// postInbox posts one message into the session's inbox socket at path,
// naming the reply socket from ("" for none) and the message's id. A nil
// error means Claude Code read the whole line and closed its side; what
// it did with the message comes as a report, if any (inboxPoster).
func postInbox(ctx context.Context, path, token, content, from, id string) error {
	ctx, cancel := context.WithTimeout(ctx, inboxTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("inbox socket: %w", err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	var lines []byte
	if token != "" {
		auth, _ := json.Marshal(map[string]string{"type": "auth", "token": token})
		lines = append(append(lines, auth...), '\n')
	}
	line := map[string]any{"type": "user", "message": map[string]string{"role": "user", "content": content}}
	if from != "" {
		line["from"], line["msg_id"] = from, id
	}
	msg, err := json.Marshal(line)
	if err != nil {
		return err
	}
	lines = append(append(lines, msg...), '\n')
	if _, err := c.Write(lines); err != nil {
		return fmt.Errorf("inbox socket %s: writing: %w", path, err)
	}
	if err := c.(*net.UnixConn).CloseWrite(); err != nil {
		return fmt.Errorf("inbox socket %s: %w", path, err)
	}
	// Claude Code closes its side once it has read to our end.
	if _, err := io.Copy(io.Discard, c); err != nil {
		return fmt.Errorf("inbox socket %s: waiting for the session to take the message: %w", path, err)
	}
	return nil
}

// Settling a post. Claude Code sends no report for a message it takes
// into the session's queue, and its reports of the others come right
// after it read the line (measured in milliseconds), except a drop that
// follows another of the same reason within a minute, which is reported
// after a 5 s trail. So a post with no report within settleQuick is taken;
// within dropWindow after a drop, the wait is settleTrail. A held message
// waits for the report that ends its hold, as long as the session's
// inbox answers (a session that ended settles its held messages as
// expired; heldCheck is how often that is looked at).
const (
	settleQuick = time.Second
	settleTrail = 6 * time.Second
	dropWindow  = time.Minute
	heldCheck   = 30 * time.Second
)

// Pacing: Claude Code admits at most 30 messages of a sender in a burst,
// then one every 2 s, and drops the rest ("rate-limited"); chatbus-mcp
// posts a little under that, so a backlog arrives whole.
const (
	paceBurst = 20
	paceEvery = 2 * time.Second
)

// inboxPoster posts the thread's messages into the session's inbox and
// learns what became of each. Only the update loop posts; post is not
// safe for concurrent use.
type inboxPoster struct {
	log     zerolog.Logger
	replies *replySocket
	pacer   *rate.Limiter
	// settle and trail are settleQuick and settleTrail (tests shorten
	// them).
	settle, trail time.Duration

	lastDrop  time.Time
	noReports string // why no reply socket, as last logged
}

func newInboxPoster(log zerolog.Logger, late func(string, report)) *inboxPoster {
	return &inboxPoster{
		log: log, settle: settleQuick, trail: settleTrail,
		replies: newReplySocket(log, late),
		pacer:   rate.NewLimiter(rate.Every(paceEvery), paceBurst),
	}
}

// post posts content into the inbox at socket and returns what became of
// it: a report whose status is statusDelivered when the session took it
// (no report within the settle time, or "delivered" after "held"), else
// the report that says why not; onHeld, if set, is called when it is
// held. An error means the post itself failed
// (the inbox did not take the line), or ctx ended while the message was
// held (Claude Code settles what it holds as expired when the session
// ends: it comes again). ctx ending while a post waits for a report that
// has not come counts as delivered.
func (p *inboxPoster) post(ctx context.Context, socket, token, content string, onHeld func(report)) (report, error) {
	if err := p.pacer.Wait(ctx); err != nil {
		return report{}, err
	}
	from, err := p.replies.bind(filepath.Dir(socket))
	if err != nil {
		if why := err.Error(); why != p.noReports {
			p.noReports = why
			p.log.Warn().Err(err).Msg("no reply socket: what Claude Code holds, refuses or drops goes unreported, and a message counts as delivered once the inbox took it")
		}
		if err := postInbox(ctx, socket, token, content, "", ""); err != nil {
			return report{}, err
		}
		return report{status: statusDelivered}, nil
	}
	id := uuid.NewString()
	reports, ok := p.replies.expect(id)
	if !ok {
		return report{}, errors.New("too many posts wait for their report")
	}
	defer p.replies.forget(id)
	if err := postInbox(ctx, socket, token, content, from, id); err != nil {
		return report{}, err
	}
	settle := p.settle
	if time.Since(p.lastDrop) < dropWindow {
		settle = p.trail
	}
	timer := time.NewTimer(settle)
	defer timer.Stop()
	var check <-chan time.Time
	held := false
	for {
		select {
		case r := <-reports:
			switch r.status {
			case statusHeld:
				if !held {
					held = true
					timer.Stop()
					t := time.NewTicker(heldCheck)
					defer t.Stop()
					check = t.C
					if onHeld != nil {
						onHeld(r)
					}
				}
				continue
			case statusDropped:
				p.lastDrop = time.Now()
			}
			return r, nil
		case <-timer.C:
			return report{status: statusDelivered}, nil
		case <-check:
			if !answers(socket) {
				return report{status: statusExpired, reason: "the session's inbox is gone while the message was held (the session ended)"}, nil
			}
		case <-ctx.Done():
			if !held {
				// Shutting down (the session ends) while waiting for a
				// report that did not come: Claude Code reports a hold
				// or a refusal at once, so the session took it. Counting
				// it delivered keeps the next session from getting it
				// twice.
				return report{status: statusDelivered}, nil
			}
			return report{}, ctx.Err()
		}
	}
}

// close removes the reply socket.
func (p *inboxPoster) close() { p.replies.close() }

// inboxMessage is the text of a chat message on the inbox path. Claude
// Code shows it to the model as a message from another session; the text
// says whose it is and where the answer goes, in the same <channel> tag
// the channel path produces (so the server's instructions hold for both):
//
//	A message from <user> in this session's chat thread (chatbus) …
//	<channel source="chatbus" chat_id="…" … reply_with="…">
//	text
//	</channel>
func inboxMessage(name, content string, meta map[string]string) string {
	keys := make([]string, 0, len(meta))
	for k, v := range meta {
		if v != "" && metaKey.MatchString(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var sb strings.Builder
	user := meta["user"]
	if user == "" {
		user = "the person"
	}
	fmt.Fprintf(&sb, "%s wrote this in the chat thread of this session (through chatbus); it was not typed at this terminal and comes from no other Claude session. "+
		"%s reads the chat, not this terminal: answer with the reply tool of the MCP server %q (mcp__%s__reply).\n", user, user, name, name)
	fmt.Fprintf(&sb, "<channel source=%q", name)
	for _, k := range keys {
		fmt.Fprintf(&sb, " %s=\"%s\"", k, attrEscape(meta[k]))
	}
	fmt.Fprintf(&sb, " reply_with=\"%s\">\n", attrEscape(replyWith))
	if len(content) > maxInboxContent {
		content = content[:maxInboxContent] + "\n[… cut: the message was longer than the inbox takes]"
	}
	sb.WriteString(strings.ReplaceAll(content, "</channel>", "</ channel>"))
	sb.WriteString("\n</channel>")
	return sb.String()
}

// attrEscape escapes an attribute value of the tag.
func attrEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;", "\n", " ").Replace(s)
}
