package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/inboxtest"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// socketDir is a private directory with a path short enough for Unix
// sockets, removed at the end.
func socketDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "cbin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// claudeCodeEnv is what Claude Code exports to an MCP server it launches
// (CLAUDECODE, and the session's inbox socket when it has one).
func claudeCodeEnv(in *inboxtest.Inbox) []string {
	env := []string{"CLAUDECODE=1"}
	if in != nil {
		env = append(env, "CLAUDE_CODE_MESSAGING_SOCKET="+in.Path, "CLAUDE_CODE_MESSAGING_TOKEN="+in.Token)
	}
	return env
}

// follower returns the follower of the profile key, nil if none is
// registered.
func (b *tgBus) follower(t *testing.T, key string) *chatbusv1.Follower {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := b.c.Admin.ListFollowers(ctx, &chatbusv1.ListFollowersRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range resp.GetFollowers() {
		if f.GetProfileKey() == key {
			return f
		}
	}
	return nil
}

// waitWayIn waits until the follower of key reports the way in.
func (b *tgBus) waitWayIn(t *testing.T, key string, want chatbusv1.WayIn) *chatbusv1.Follower {
	t.Helper()
	var f *chatbusv1.Follower
	testkit.Eventually(t, fmt.Sprintf("%s's way in %v", key, want), func() bool {
		f = b.follower(t, key)
		return f.GetWayIn() == want
	})
	return f
}

// waitInbox waits until the stand-in inbox took a message containing
// text.
func waitInbox(t *testing.T, in *inboxtest.Inbox, text string) inboxtest.Message {
	t.Helper()
	m, ok := in.Wait(testkit.Wait, func(m inboxtest.Message) bool { return strings.Contains(m.Content, text) })
	if !ok {
		t.Fatalf("%q never reached the inbox %s; it took %d messages", text, in.Path, len(in.Messages()))
	}
	return m
}

// inboxTexts are the chat texts (between the tag's lines) of what an
// inbox took, in order.
func inboxTexts(in *inboxtest.Inbox) []string {
	var out []string
	for _, m := range in.Messages() {
		_, body, _ := strings.Cut(m.Content, "\">\n")
		out = append(out, strings.TrimSuffix(body, "\n</channel>"))
	}
	return out
}

// TestMCPInbox: a session that Claude Code did not load as a channel but
// gave an inbox socket gets the thread's messages through the socket (the
// stand-in speaks Claude Code's line format and, for one of them, requires
// the auth line): each in its own session, once, saying who wrote it and
// how to answer; the reply tool answers in the thread; busctl followers
// says which way in each has; no channel notification is written.
func TestMCPInbox(t *testing.T) {
	b := startTelegramBus(t, "")
	dir := socketDir(t)
	inA := inboxtest.Start(t, filepath.Join(dir, "a.sock"), inboxtest.RequireAuth())
	inB := inboxtest.Start(t, filepath.Join(dir, "b.sock"))
	alpha := b.startMCPEnv(t, "alpha", sessionDir(t, "alpha"), "test:alpha", claudeCodeEnv(inA))
	beta := b.startMCPEnv(t, "beta", sessionDir(t, "beta"), "test:beta", claudeCodeEnv(inB))
	threadA, threadB := b.topicOf(t, "alpha"), b.topicOf(t, "beta")

	fa := b.waitWayIn(t, "test:alpha", chatbusv1.WayIn_WAY_IN_INBOX)
	if !strings.Contains(fa.GetWayInDetail(), inA.Path) {
		t.Errorf("way in detail %q does not name the socket", fa.GetWayInDetail())
	}
	b.waitWayIn(t, "test:beta", chatbusv1.WayIn_WAY_IN_INBOX)
	out, _, code := b.busctl("followers", "-o", "wide")
	if code != 0 || !strings.Contains(out, "WAY IN") || strings.Count(out, " inbox ") < 2 || !strings.Contains(out, inA.Path) {
		t.Errorf("busctl followers: exit %d\n%s", code, out)
	}

	b.waitBound(t, "test:alpha", threadA)
	b.waitBound(t, "test:beta", threadB)
	b.tg.PushMessage(forumChat, threadA, allowedUser, "hello alpha")
	b.tg.PushMessage(forumChat, threadB, allowedUser, "hello beta")
	m := waitInbox(t, inA, "hello alpha")
	waitInbox(t, inB, "hello beta")
	if !m.Authenticated {
		t.Errorf("the message came without the session's token")
	}
	user := "@user" + strconv.FormatInt(allowedUser, 10)
	for _, want := range []string{user + " wrote this in the chat thread", "mcp__chatbus__reply",
		`<channel source="chatbus"`, `thread_id="` + strconv.Itoa(threadA) + `"`, `user="` + user + `"`, "reply_with=", "\nhello alpha\n</channel>"} {
		if !strings.Contains(m.Content, want) {
			t.Errorf("the inbox message lacks %q:\n%s", want, m.Content)
		}
	}
	mid := between(m.Content, `message_id="`, `"`)
	res := alpha.callTool("reply", map[string]any{"text": "re: hello alpha", "reply_to": mid})
	if res.IsError {
		t.Fatalf("reply: %s", res.text())
	}
	b.waitText(t, threadA, "re: hello alpha")

	// Files are downloaded and named, as on the channel path.
	b.tg.PushDocument(forumChat, threadA, allowedUser, "notes.txt", []byte("the notes"), "see attached")
	doc := waitInbox(t, inA, "see attached")
	path := between(doc.Content, "[attached file: ", "]")
	if data, err := os.ReadFile(path); err != nil || string(data) != "the notes" {
		t.Errorf("the attached file %q: %q %v\n%s", path, data, err, doc.Content)
	}

	// Acked once the inbox took them: nothing is left in the journal.
	for _, key := range []string{"test:alpha", "test:beta"} {
		testkit.Eventually(t, key+" acked", func() bool { return b.binding(t, key).GetJournal().GetUnacked() == 0 })
	}
	if got := inboxTexts(inA); !slices.Equal(got, []string{"hello alpha", doc.Content[strings.Index(doc.Content, "\">\n")+3 : len(doc.Content)-len("\n</channel>")]}) {
		t.Errorf("inbox A took %q", got)
	}
	if got := inboxTexts(inB); !slices.Equal(got, []string{"hello beta"}) {
		t.Errorf("inbox B took %q", got)
	}
	if n := len(alpha.channelNotes()) + len(beta.channelNotes()); n != 0 {
		t.Errorf("%d channel notifications written on the inbox path", n)
	}
	if r := inA.Refused(); len(r) != 0 {
		t.Errorf("inbox A refused connections: %q", r)
	}
}

// TestMCPHeldUntilAWayIn: a Claude Code session with neither the channel
// nor an inbox socket holds the thread's messages (nothing is acked), the
// thread is told once, busctl followers says none and why; when the
// session's socket binds late the held messages arrive, in order, once;
// what is written while no session runs, and while a later session of the
// profile key has no way in either, reaches the first later session that
// has one. The notice is not repeated for the same reason.
func TestMCPHeldUntilAWayIn(t *testing.T) {
	b := startTelegramBus(t, "")
	dir := socketDir(t)
	cwd := sessionDir(t, "alpha")
	const key = "test:held"
	env := append(claudeCodeEnv(nil), "CLAUDE_CODE_TMPDIR="+dir)
	s1 := b.startMCPEnv(t, "held-1", cwd, key, env)
	thread := b.topicOf(t, "alpha")
	f := b.waitWayIn(t, key, chatbusv1.WayIn_WAY_IN_NONE)
	if !strings.Contains(f.GetWayInDetail(), "no inbox socket") {
		t.Errorf("way in detail: %q", f.GetWayInDetail())
	}
	notices := func() []string { return b.noWayInNotices(thread) }
	testkit.Eventually(t, "the notice in the thread", func() bool { return len(notices()) == 1 })
	for _, want := range []string{"Nothing is lost", "--dangerously-load-development-channels server:chatbus", "2.1.224"} {
		if !strings.Contains(notices()[0], want) {
			t.Errorf("the notice lacks %q: %s", want, notices()[0])
		}
	}
	out, _, code := b.busctl("followers")
	if code != 0 || !strings.Contains(out, "none") {
		t.Errorf("busctl followers: exit %d\n%s", code, out)
	}

	b.waitBound(t, key, thread)
	b.tg.PushMessage(forumChat, thread, allowedUser, "first")
	b.tg.PushMessage(forumChat, thread, allowedUser, "second")
	testkit.Eventually(t, "both journalled", func() bool { return b.binding(t, key).GetJournal().GetUnacked() == 2 })

	// The session's socket binds late, where Claude Code binds it.
	late := inboxtest.Start(t, filepath.Join(dir, "cc-socks", strconv.Itoa(s1.cmd.Process.Pid)+".sock"))
	waitInbox(t, late, "second")
	b.waitWayIn(t, key, chatbusv1.WayIn_WAY_IN_INBOX)
	testkit.Eventually(t, "acked", func() bool { return b.binding(t, key).GetJournal().GetUnacked() == 0 })
	s1.close()

	// Written while no session runs; then a session with no way in holds
	// it (and does not repeat the notice); then one with a socket gets it.
	b.tg.PushMessage(forumChat, thread, allowedUser, "third")
	s2 := b.startMCPEnv(t, "held-2", cwd, key, env)
	b.waitWayIn(t, key, chatbusv1.WayIn_WAY_IN_NONE)
	testkit.Eventually(t, "third journalled", func() bool { return b.binding(t, key).GetJournal().GetUnacked() == 1 })
	s2.close()
	in3 := inboxtest.Start(t, filepath.Join(dir, "s3.sock"))
	s3 := b.startMCPEnv(t, "held-3", cwd, key, claudeCodeEnv(in3))
	waitInbox(t, in3, "third")
	testkit.Eventually(t, "acked", func() bool { return b.binding(t, key).GetJournal().GetUnacked() == 0 })
	s3.close()

	if got := inboxTexts(late); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("the late socket took %q", got)
	}
	if got := inboxTexts(in3); !slices.Equal(got, []string{"third"}) {
		t.Errorf("the third session's socket took %q", got)
	}
	if n := len(notices()); n != 1 {
		t.Errorf("%d notices in the thread, want 1: %q", n, notices())
	}
	if got := b.topicOf(t, "alpha"); got != thread || len(b.tg.Topics(forumChat)) != 1 {
		t.Errorf("topic %d (was %d), topics %+v", got, thread, b.tg.Topics(forumChat))
	}
}

// between returns the text between the first from and the next to.
func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

// noWayInNotices are chatbus-mcp's notices in the topic that the session
// has no way in.
func (b *tgBus) noWayInNotices(thread int) []string {
	var out []string
	for _, txt := range b.replies(thread) {
		if strings.Contains(txt, "cannot receive") {
			out = append(out, txt)
		}
	}
	return out
}

// TestMCPInboxReports: Claude Code reports what became of a message that
// it did not take at once (the stand-in reports as Claude Code does, to
// the reply socket chatbus-mcp names): a held message is acked only once
// delivered, and nothing after it is posted meanwhile; a dropped one is
// posted again; one refused while held is not acked, the thread is told
// once and busctl followers says why, and a later session of the profile
// key delivers it. Every message reaches the session once, in order.
func TestMCPInboxReports(t *testing.T) {
	b := startTelegramBus(t, "")
	dir := socketDir(t)
	cwd := sessionDir(t, "alpha")
	const key = "test:reports"
	in := inboxtest.Start(t, filepath.Join(dir, "a.sock"), inboxtest.WithPolicy(inboxtest.Hold))
	s1 := b.startMCPEnv(t, "reports-1", cwd, key, claudeCodeEnv(in))
	thread := b.topicOf(t, "alpha")
	b.waitWayIn(t, key, chatbusv1.WayIn_WAY_IN_INBOX)
	b.waitBound(t, key, thread)
	unacked := func() uint32 { return b.binding(t, key).GetJournal().GetUnacked() }

	// Held: not acked, and the next message waits behind it.
	b.tg.PushMessage(forumChat, thread, allowedUser, "first")
	testkit.Eventually(t, "first held", func() bool { return len(in.Held()) == 1 })
	b.tg.PushMessage(forumChat, thread, allowedUser, "second")
	testkit.Eventually(t, "second journalled", func() bool { return unacked() == 2 })
	if n := in.Received(); n != 1 {
		t.Errorf("%d messages posted while the first is held, want 1", n)
	}
	events := func() string { out, _, _ := b.busctl("events"); return out }
	testkit.Eventually(t, "the held event", func() bool { return strings.Contains(events(), "follower_delivery_held") })
	if u := unacked(); u != 2 {
		t.Errorf("%d unacked while the first is held, want 2", u)
	}
	in.SetPolicy(inboxtest.Accept) // approved at the terminal: delivered
	testkit.Eventually(t, "both acked", func() bool { return unacked() == 0 })

	// Dropped at the inbox's guard: posted again.
	in.DropNext("rate-limited")
	b.tg.PushMessage(forumChat, thread, allowedUser, "third")
	waitInbox(t, in, "third")
	testkit.Eventually(t, "third acked", func() bool { return unacked() == 0 })

	// Refused while held: not acked, told once; the next session has it.
	in.SetPolicy(inboxtest.Hold)
	b.tg.PushMessage(forumChat, thread, allowedUser, "fourth")
	testkit.Eventually(t, "fourth held", func() bool { return len(in.Held()) == 1 })
	in.SetPolicy(inboxtest.Refuse)
	f := b.waitWayIn(t, key, chatbusv1.WayIn_WAY_IN_NONE)
	if !strings.Contains(f.GetWayInDetail(), "refuses") {
		t.Errorf("way in detail: %q", f.GetWayInDetail())
	}
	refusals := func() []string { return textsWith(b.replies(thread), "refuses your messages") }
	testkit.Eventually(t, "the refusal told in the thread", func() bool { return len(refusals()) == 1 })
	if u := unacked(); u != 1 {
		t.Errorf("%d unacked after the refusal, want 1", u)
	}
	s1.close()
	in.SetPolicy(inboxtest.Accept)
	s2 := b.startMCPEnv(t, "reports-2", cwd, key, claudeCodeEnv(in))
	waitInbox(t, in, "fourth")
	testkit.Eventually(t, "fourth acked", func() bool { return unacked() == 0 })
	s2.close()

	if got := inboxTexts(in); !slices.Equal(got, []string{"first", "second", "third", "fourth"}) {
		t.Errorf("the session took %q", got)
	}
	drops := textsWith(b.replies(thread), "dropped your message")
	if len(drops) != 1 || len(refusals()) != 1 || !strings.Contains(refusals()[0], "Nothing is lost") {
		t.Errorf("notices: drops %q, refusals %q", drops, refusals())
	}
	if ev := events(); strings.Count(ev, "follower_delivery_failed") != 2 || !strings.Contains(ev, "rate-limited") || !strings.Contains(ev, "refused") {
		t.Errorf("busctl events:\n%s", ev)
	}
	var statuses []string
	for _, r := range in.Reports() {
		if r.Err != nil {
			t.Errorf("a report could not be sent: %+v", r)
		}
		statuses = append(statuses, r.Status+r.Detail)
	}
	if want := []string{"held", "delivered", "dropped", "held", "expiredrefused"}; !slices.Equal(statuses, want) {
		t.Errorf("reports %q, want %q", statuses, want)
	}
}

// textsWith are the texts that contain sub.
func textsWith(texts []string, sub string) []string {
	var out []string
	for _, s := range texts {
		if strings.Contains(s, sub) {
			out = append(out, s)
		}
	}
	return out
}
