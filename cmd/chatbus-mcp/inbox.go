package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"time"
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
// Inject messages …"), seen with 2.1.328.

// inboxTimeout bounds one post: connect, write, and Claude Code's close.
const inboxTimeout = 10 * time.Second

// maxInboxContent bounds a message's text on the inbox (Claude Code drops
// a connection whose line exceeds 1 MiB).
const maxInboxContent = 512 << 10

// postInbox posts one message into the session's inbox socket at path.
// A nil error means Claude Code read the whole line and closed its side:
// the message is in the session's queue.
func postInbox(ctx context.Context, path, token, content string) error {
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
	msg, err := json.Marshal(map[string]any{"type": "user", "message": map[string]string{"role": "user", "content": content}})
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
