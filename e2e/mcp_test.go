package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// sessionDir makes a working directory named name (the thread is named
// after it).
func sessionDir(t *testing.T, name string) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// topicOf waits for the forum topic named "<slot> · <name>".
func (b *tgBus) topicOf(t *testing.T, name string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, tp := range b.tg.Topics(forumChat) {
			if strings.HasSuffix(tp.Name, " · "+name) {
				return tp.MessageThreadID
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no topic for %s: %+v", name, b.tg.Topics(forumChat))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitSent waits until the bot has sent n messages in the topic.
func (b *tgBus) waitSent(t *testing.T, thread, n int) []botapi.Message {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		msgs := b.tg.Sent(forumChat, thread)
		if len(msgs) >= n {
			return msgs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d messages in topic %d, want %d: %+v", len(msgs), thread, n, msgs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func messageIDs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestMCPChannel drives two chatbus-mcp sessions with the SDK's client
// against one supervisor and the Telegram stand-in: the handshake, a topic
// per session, inbound messages and files as channel notifications, the
// tools, and the permission relay by button and by text.
func TestMCPChannel(t *testing.T) {
	b := startTelegramBus(t, "")
	alpha := b.startMCP(t, "alpha", sessionDir(t, "alpha"), "test:alpha")
	beta := b.startMCP(t, "beta", sessionDir(t, "beta"), "test:beta")

	// initialize: the channel capabilities, tools, and instructions.
	var caps struct {
		Experimental map[string]json.RawMessage `json:"experimental"`
		Tools        json.RawMessage            `json:"tools"`
	}
	if err := json.Unmarshal(alpha.ready.Capabilities, &caps); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"claude/channel", "claude/channel/permission"} {
		if _, ok := caps.Experimental[c]; !ok {
			t.Errorf("capability %s missing: %s", c, alpha.ready.Capabilities)
		}
	}
	if caps.Tools == nil {
		t.Errorf("tools capability missing: %s", alpha.ready.Capabilities)
	}
	for _, want := range []string{"<channel", "reply tool"} {
		contains(t, "instructions", alpha.ready.Instructions, want)
	}

	// tools/list
	r := alpha.do("listTools", nil)
	var tools struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Required []string `json:"required"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Result, &tools); err != nil || r.Error != "" {
		t.Fatalf("tools/list: %s %s %v", r.Result, r.Error, err)
	}
	required := map[string][]string{}
	for _, tl := range tools.Tools {
		required[tl.Name] = tl.InputSchema.Required
	}
	for name, want := range map[string][]string{
		"reply": {"text"}, "react": {"message_id", "emoji"}, "edit_message": {"message_id", "text"}, "download_attachment": {"file_id"},
	} {
		got := slices.Sorted(slices.Values(required[name]))
		if !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("tool %s: required %v, want %v (tools %+v)", name, got, want, tools.Tools)
		}
	}

	// A topic per session, named after its directory.
	threadA, threadB := b.topicOf(t, "alpha"), b.topicOf(t, "beta")
	if threadA == threadB || len(b.tg.Topics(forumChat)) != 2 {
		t.Fatalf("topics %+v", b.tg.Topics(forumChat))
	}

	// Inbound: a message in topic A reaches session A only.
	b.tg.PushMessage(forumChat, threadA, allowedUser, "hello alpha")
	b.tg.PushMessage(forumChat, threadB, allowedUser, "hello beta")
	inA := alpha.waitNote(0, "hello alpha", func(n mcpNote) bool { return n.content() == "hello alpha" })
	beta.waitNote(0, "hello beta", func(n mcpNote) bool { return n.content() == "hello beta" })
	for k, want := range map[string]string{
		"chat_id": strconv.FormatInt(forumChat, 10), "thread_id": strconv.Itoa(threadA),
		"user": "@user" + strconv.FormatInt(allowedUser, 10), "user_id": strconv.FormatInt(allowedUser, 10), "platform": "telegram",
	} {
		if got := inA.meta(k); got != want {
			t.Errorf("meta %s = %q, want %q (%+v)", k, got, want, inA.Params)
		}
	}
	if _, err := time.Parse(time.RFC3339, inA.meta("ts")); err != nil {
		t.Errorf("meta ts %q: %v", inA.meta("ts"), err)
	}
	inboundID := inA.meta("message_id")
	if inboundID == "" {
		t.Fatalf("no message_id: %+v", inA.Params)
	}
	// Inbound text shows the typing indicator in its topic.
	testkit.Eventually(t, "typing in topic A", func() bool { return slices.Contains(b.tg.ChatActions(forumChat, threadA), "typing") })

	// reply lands in topic A, quoting the message.
	res := alpha.callTool("reply", map[string]any{"text": "hi from alpha", "reply_to": inboundID})
	if res.IsError {
		t.Fatalf("reply: %s", res.text())
	}
	sent := b.waitSent(t, threadA, 1)
	if sent[0].Text != "hi from alpha" || sent[0].ReplyToMessage == nil || strconv.Itoa(sent[0].ReplyToMessage.MessageID) != inboundID {
		t.Errorf("reply in topic A: %+v", sent[0])
	}
	firstReply := messageIDs(res.StructuredContent["message_ids"])[0]

	// A 6000-character reply arrives as two messages, cut at the paragraph.
	para1 := strings.Repeat("word ", 599) + "end1." // 3000 characters
	para2 := strings.Repeat("more ", 598) + "end2." // 2995 characters
	res = alpha.callTool("reply", map[string]any{"text": para1 + "\n\n" + para2})
	if ids := messageIDs(res.StructuredContent["message_ids"]); res.IsError || len(ids) != 2 {
		t.Fatalf("long reply: %s %+v", res.text(), res.StructuredContent)
	}
	sent = b.waitSent(t, threadA, 3)
	if len(sent) != 3 || sent[1].Text != para1 || sent[2].Text != para2 {
		t.Errorf("long reply parts: %d messages; part lengths %d, %d", len(sent), len(sent[1].Text), len(sent[len(sent)-1].Text))
	}

	// react and edit_message.
	if res := alpha.callTool("react", map[string]any{"message_id": inboundID, "emoji": "👀"}); res.IsError {
		t.Errorf("react: %s", res.text())
	}
	mid, _ := strconv.Atoi(inboundID)
	if rs := b.tg.BotReactions(forumChat, mid); len(rs) != 1 || rs[0].Emoji != "👀" {
		t.Errorf("reactions %+v", rs)
	}
	if res := alpha.callTool("edit_message", map[string]any{"message_id": firstReply, "text": "hi from alpha (edited)"}); res.IsError {
		t.Errorf("edit_message: %s", res.text())
	}
	if got := b.tg.Sent(forumChat, threadA)[0].Text; got != "hi from alpha (edited)" {
		t.Errorf("after edit: %q", got)
	}
	// Another topic's message is out of scope: the supervisor's refusal
	// comes back as a tool error.
	inB := beta.channelNotes()[0].meta("message_id")
	res = alpha.callTool("react", map[string]any{"message_id": inB, "emoji": "👍"})
	if !res.IsError || !strings.Contains(res.text(), "refused") {
		t.Errorf("react on topic B's message from A: %+v", res)
	}
	// A 429 is the supervisor's to wait out, not the model's: the reply
	// waits its turn again and lands once.
	limited := len(b.tg.Sent(forumChat, threadA))
	b.tg.Fail("sendMessage", tgtest.Fault{RetryAfter: 1})
	res = alpha.callTool("reply", map[string]any{"text": "too fast"})
	if res.IsError {
		t.Errorf("reply under a 429: %+v", res)
	}
	if sent := b.tg.Sent(forumChat, threadA); len(sent) != limited+1 || sent[len(sent)-1].Text != "too fast" {
		t.Errorf("after a 429, the topic holds %d messages (was %d): %+v", len(sent), limited, sent[len(sent)-1])
	}
	// The platform's refusal too.
	if res := alpha.callTool("react", map[string]any{"message_id": inboundID, "emoji": "🦖"}); !res.IsError {
		t.Errorf("react with an emoji Telegram refuses: %+v", res)
	}

	// Files: a document the person sends is downloaded into the inbox and
	// named in the content; reply uploads files.
	b.tg.PushDocument(forumChat, threadA, allowedUser, "notes.txt", []byte("the notes"), "see attached")
	doc := alpha.waitNote(0, "the document", func(n mcpNote) bool { return strings.HasPrefix(n.content(), "see attached") })
	path := doc.meta("files")
	if !strings.Contains(doc.content(), path) || path == "" {
		t.Errorf("document note: %+v", doc.Params)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "the notes" {
		t.Errorf("downloaded %s: %q %v", path, data, err)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("inbox dir: %v %v", st.Mode(), err)
	}
	b.tg.PushPhoto(forumChat, threadA, allowedUser, "cat.jpg", []byte("jpeg bytes"), "")
	photo := alpha.waitNote(0, "the photo", func(n mcpNote) bool { return strings.HasSuffix(n.meta("files"), ".jpg") })
	if data, _ := os.ReadFile(photo.meta("files")); string(data) != "jpeg bytes" {
		t.Errorf("photo %+v: %q", photo.Params, data)
	}
	if res := alpha.callTool("download_attachment", map[string]any{"file_id": strings.Split(photo.meta("file_ids"), ",")[0]}); res.IsError {
		t.Errorf("download_attachment: %s", res.text())
	} else if data, _ := os.ReadFile(res.text()); string(data) != "jpeg bytes" {
		t.Errorf("download_attachment wrote %q to %s", data, res.text())
	}
	attach := filepath.Join(t.TempDir(), "report.txt")
	os.WriteFile(attach, []byte("report"), 0o600)
	if res := alpha.callTool("reply", map[string]any{"text": "the report", "files": []string{attach}}); res.IsError {
		t.Errorf("reply with a file: %s", res.text())
	}
	sent = b.waitSent(t, threadA, 5)
	if last := sent[len(sent)-1]; last.Document == nil || last.Document.FileName != "report.txt" {
		t.Errorf("uploaded: %+v", last)
	}
	secret := filepath.Join(b.state, "secret")
	if res := alpha.callTool("reply", map[string]any{"text": "x", "files": []string{secret}}); !res.IsError {
		t.Errorf("reply sent the supervisor's secret: %+v", res)
	}

	// Permission relay, by button.
	before := len(alpha.notifications())
	alpha.notify("notifications/claude/channel/permission_request", map[string]any{
		"request_id": "abcde", "tool_name": "Bash", "description": "Run the tests", "input_preview": `{"command":"go test ./..."}`,
	})
	var prompt botapi.Message
	testkit.Eventually(t, "the permission prompt", func() bool {
		for _, m := range b.tg.Sent(forumChat, threadA) {
			if strings.Contains(m.Text, "abcde") {
				prompt = m
				return m.ReplyMarkup != nil
			}
		}
		return false
	})
	contains(t, "prompt", prompt.Text, "Bash")
	contains(t, "prompt", prompt.Text, "Run the tests")
	contains(t, "keyboard", string(prompt.ReplyMarkup), "perm:allow:abcde")
	// A press by someone not on the allow-list never reaches the session.
	b.tg.PushCallbackQuery(forumChat, prompt.MessageID, strangerID, "perm:deny:abcde")
	_, query := b.tg.PushCallbackQuery(forumChat, prompt.MessageID, allowedUser, "perm:allow:abcde")
	v := alpha.waitNote(before, "the verdict", func(n mcpNote) bool { return n.Method == "notifications/claude/channel/permission" })
	if v.Params["request_id"] != "abcde" || v.Params["behavior"] != "allow" {
		t.Errorf("verdict %+v", v.Params)
	}
	testkit.Eventually(t, "the press answered", func() bool { text, ok := b.tg.CallbackAnswer(query); return ok && strings.Contains(text, "Allowed") })
	testkit.Eventually(t, "the prompt edited, buttons gone", func() bool {
		for _, m := range b.tg.Sent(forumChat, threadA) {
			if m.MessageID == prompt.MessageID {
				return m.ReplyMarkup == nil && strings.Contains(m.Text, "Allowed")
			}
		}
		return false
	})
	// A second press answers nothing.
	_, again := b.tg.PushCallbackQuery(forumChat, prompt.MessageID, allowedUser, "perm:deny:abcde")
	testkit.Eventually(t, "the second press answered", func() bool { text, ok := b.tg.CallbackAnswer(again); return ok && strings.Contains(text, "Already") })

	// By text: "no fghij".
	alpha.notify("notifications/claude/channel/permission_request", map[string]any{
		"request_id": "fghij", "tool_name": "Write", "description": "Write main.go", "input_preview": "{}",
	})
	testkit.Eventually(t, "the second prompt", func() bool {
		for _, m := range b.tg.Sent(forumChat, threadA) {
			if strings.Contains(m.Text, "fghij") {
				return true
			}
		}
		return false
	})
	b.tg.PushMessage(forumChat, threadA, allowedUser, "No FGHIJ")
	b.tg.PushMessage(forumChat, threadA, allowedUser, "after the verdicts")
	alpha.waitNote(before, "the message after the verdicts", func(n mcpNote) bool { return n.content() == "after the verdicts" })
	var verdicts []mcpNote
	for _, n := range alpha.notifications()[before:] {
		switch {
		case n.Method == "notifications/claude/channel/permission":
			verdicts = append(verdicts, n)
		case strings.Contains(strings.ToLower(n.content()), "fghij"), strings.Contains(n.content(), "perm:"):
			t.Errorf("a verdict was forwarded as a message: %+v", n.Params)
		}
	}
	if len(verdicts) != 2 || verdicts[1].Params["request_id"] != "fghij" || verdicts[1].Params["behavior"] != "deny" {
		t.Errorf("verdicts %+v", verdicts)
	}

	// Session B saw only its own topic's message.
	if ns := beta.channelNotes(); len(ns) != 1 || ns[0].content() != "hello beta" {
		t.Errorf("session B got %+v", ns)
	}
	if n := len(b.tg.Sent(forumChat, threadB)); n != 0 {
		t.Errorf("%d messages in topic B", n)
	}
}

// pushMany pushes n numbered messages into a topic, each about size
// characters, and returns their texts.
func pushMany(b *tgBus, thread, n, size int, tag string) []string {
	var texts []string
	for i := range n {
		text := fmt.Sprintf("%s %03d %s", tag, i, strings.Repeat("x", size))
		b.tg.PushMessage(forumChat, thread, allowedUser, text)
		texts = append(texts, text)
	}
	return texts
}

// binding returns the admin view of a profile key's binding.
func (b *tgBus) binding(t *testing.T, key string) *chatbusv1.BindingInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := b.c.Admin.ListBindings(ctx, &chatbusv1.ListBindingsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bi := range resp.GetBindings() {
		if bi.GetBinding().GetProfileKey() == key {
			return bi
		}
	}
	t.Fatalf("no binding %q", key)
	return nil
}

// TestMCPKillNineLosesNothing: a session stops reading (its client is
// stopped), so its chatbus-mcp holds updates it could not write and did
// not ack when it is killed with SIGKILL; the successor of the same
// profile key gets every one of them, once. chatbus-mcp coalesces its
// acks, so some it wrote were not acked either: the successor skips those
// (its delivered file). Across the two sessions the only update that may
// be seen twice is the one the first had written but not yet recorded
// when it died: write and record cannot be one step.
func TestMCPKillNineLosesNothing(t *testing.T) {
	b := startTelegramBus(t, "")
	dir := sessionDir(t, "gamma")
	first := b.startMCP(t, "gamma-1", dir, "test:gamma")
	thread := b.topicOf(t, "gamma")
	b.tg.PushMessage(forumChat, thread, allowedUser, "warm up")
	first.waitNote(0, "warm up", func(n mcpNote) bool { return n.content() == "warm up" })
	ingested := b.provider(t).GetIngested()

	// 100 messages of ~3.9 KB are more than the socket to a client that
	// does not read can hold (its send buffer is ~208 KiB).
	first.signalClient(syscall.SIGSTOP)
	const n = 100
	want := pushMany(b, thread, n, 3900, "msg")
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetIngested() >= ingested+n }, "ingested all")
	// Kill it once its acks stopped moving: it is then blocked writing to
	// the full socket. (Should a loaded machine stall it earlier, the kill
	// lands mid-flow instead; the checks below hold either way.)
	var last uint64
	for still, deadline := 0, time.Now().Add(20*time.Second); still < 10 && time.Now().Before(deadline); {
		if at := b.binding(t, "test:gamma").GetJournal().GetAckedThrough(); at != last {
			last, still = at, 0
		} else {
			still++
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := syscall.Kill(first.ready.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.signalClient(syscall.SIGCONT)
	select {
	case <-first.closed:
	case <-time.After(20 * time.Second):
		t.Fatal("the first client never saw its server go")
	}
	held := b.binding(t, "test:gamma").GetJournal()
	if held.GetUnacked() == 0 {
		t.Fatalf("the kill left nothing unacked (%+v): the test proves nothing", held)
	}

	second := b.startMCP(t, "gamma-2", dir, "test:gamma")
	if got := b.topicOf(t, "gamma"); got != thread || len(b.tg.Topics(forumChat)) != 1 {
		t.Fatalf("the successor is in topic %d, want %d (%+v)", got, thread, b.tg.Topics(forumChat))
	}
	second.waitNote(0, "the last message", func(n mcpNote) bool { return n.content() == want[len(want)-1] })

	var got1, got2 []string
	for _, nt := range first.channelNotes() {
		if strings.HasPrefix(nt.content(), "msg ") {
			got1 = append(got1, nt.content())
		}
	}
	for _, nt := range second.channelNotes() {
		got2 = append(got2, nt.content())
	}
	// Each session saw its part in order, once; together everything.
	if !slices.Equal(got1, want[:len(got1)]) {
		t.Errorf("the first session's messages are not the first %d in order", len(got1))
	}
	if len(got2) == 0 || !slices.Equal(got2, want[n-len(got2):]) {
		t.Fatalf("the successor got %d messages, not the last ones in order", len(got2))
	}
	if int(held.GetUnacked()) < len(got2) {
		t.Errorf("%d were unacked at the kill, the successor delivered %d", held.GetUnacked(), len(got2))
	}
	switch overlap := len(got1) + len(got2) - n; {
	case overlap < 0:
		t.Errorf("%d messages lost (first %d, successor %d, of %d)", -overlap, len(got1), len(got2), n)
	case overlap > 1:
		t.Errorf("%d messages delivered twice (first %d, successor %d, of %d)", overlap, len(got1), len(got2), n)
	}
	t.Logf("first session wrote %d before the kill, %d were unacked, the successor delivered %d", len(got1), held.GetUnacked(), len(got2))
}

// TestMCPReloadHandsOver: a session whose stdin closes (a reload)
// suspends, leaves its handoff token in a private file, and exits; the
// next chatbus-mcp of the profile key takes the thread with it (HANDOFF)
// and gets what arrived in between, once.
func TestMCPReloadHandsOver(t *testing.T) {
	b := startTelegramBus(t, "")
	dir := sessionDir(t, "delta")
	first := b.startMCP(t, "delta-1", dir, "test:delta")
	thread := b.topicOf(t, "delta")
	b.tg.PushMessage(forumChat, thread, allowedUser, "before the reload")
	first.waitNote(0, "before", func(n mcpNote) bool { return n.content() == "before the reload" })
	first.close()

	mcpDir := filepath.Join(b.state, "mcp")
	var handoff string
	testkit.Eventually(t, "the handoff file", func() bool {
		m, _ := filepath.Glob(filepath.Join(mcpDir, "handoff-*.json"))
		if len(m) == 1 {
			handoff = m[0]
		}
		return handoff != ""
	})
	for path, mode := range map[string]os.FileMode{mcpDir: 0o700, handoff: 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v (%v), want %v", path, st.Mode().Perm(), err, mode)
		}
	}
	out, _, _ := b.busctl("bindings")
	contains(t, "busctl bindings", out, "suspended")

	b.tg.PushMessage(forumChat, thread, allowedUser, "during the reload")
	second := b.startMCP(t, "delta-2", dir, "test:delta")
	second.waitNote(0, "during", func(n mcpNote) bool { return n.content() == "during the reload" })
	if _, err := os.Stat(handoff); !os.IsNotExist(err) {
		t.Errorf("the handoff file is still there: %v", err)
	}
	out, _, _ = b.busctl("bindings")
	contains(t, "busctl bindings", out, "session-handoff")
	if len(b.tg.Topics(forumChat)) != 1 {
		t.Errorf("topics %+v", b.tg.Topics(forumChat))
	}
	for _, n := range second.channelNotes() {
		if n.content() == "before the reload" {
			t.Error("the acked message came again after the handoff")
		}
	}
}

// TestMCPSupervisorRestart: supervisord is SIGKILLed under a running
// session and started again; chatbus-mcp re-registers by its profile key
// (same topic), resumes after its last ack, and its tools work again.
func TestMCPSupervisorRestart(t *testing.T) {
	b := startTelegramBus(t, "")
	// --no-start: the test restarts the supervisor itself, with its config.
	s := b.startMCP(t, "eps", sessionDir(t, "eps"), "test:eps", "--no-start")
	thread := b.topicOf(t, "eps")
	b.tg.PushMessage(forumChat, thread, allowedUser, "one")
	s.waitNote(0, "one", func(n mcpNote) bool { return n.content() == "one" })

	if err := b.d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-b.d.exited
	b.tg.PushMessage(forumChat, thread, allowedUser, "two") // held by Telegram meanwhile
	d2 := b.start("--config", b.configPath)
	b.waitServing(d2)

	s.waitNote(0, "two", func(n mcpNote) bool { return n.content() == "two" })
	testkit.Eventually(t, "a reply after the restart", func() bool {
		return !s.callTool("reply", map[string]any{"text": "back"}).IsError
	})
	if msgs := b.tg.Sent(forumChat, thread); len(msgs) == 0 || msgs[len(msgs)-1].Text != "back" {
		t.Errorf("sent %+v", msgs)
	}
	var texts []string
	for _, n := range s.channelNotes() {
		texts = append(texts, n.content())
	}
	if !slices.Equal(texts, []string{"one", "two"}) || len(b.tg.Topics(forumChat)) != 1 {
		t.Errorf("notifications %q, topics %+v", texts, b.tg.Topics(forumChat))
	}
}

// TestMCPPresence: what the person sees between their message and the
// answer. With --ack-reaction the message is marked 👀 once Claude Code has
// it; the typing indicator shows from then on and is renewed while the
// session works, the supervisor answering renewals within the indicator's
// lifetime without a platform call; the reply ends it.
func TestMCPPresence(t *testing.T) {
	b := startTelegramBus(t, "")
	s := b.startMCP(t, "delta", sessionDir(t, "delta"), "test:delta", "--ack-reaction", "👀")
	thread := b.topicOf(t, "delta")
	b.tg.PushMessage(forumChat, thread, allowedUser, "are you there?")
	note := s.waitNote(0, "the message", func(n mcpNote) bool { return n.content() == "are you there?" })
	mid, _ := strconv.Atoi(note.meta("message_id"))
	testkit.Eventually(t, "the 👀 on the message", func() bool {
		rs := b.tg.BotReactions(forumChat, mid)
		return len(rs) == 1 && rs[0].Emoji == "👀"
	})
	// Telegram's indicator shows 5 s: a second typing call means it was
	// renewed, the renewals in between answered by the supervisor.
	testkit.Eventually(t, "the typing indicator renewed", func() bool { return len(b.tg.ChatActions(forumChat, thread)) >= 2 })
	if q := b.provider(t).GetOutbound(); q.GetSkipped() == 0 {
		t.Errorf("no typing renewal was answered without a platform call: %+v", q)
	}
	if res := s.callTool("reply", map[string]any{"text": "here"}); res.IsError {
		t.Fatalf("reply: %s", res.text())
	}
	if sent := b.waitSent(t, thread, 1); sent[0].Text != "here" {
		t.Errorf("reply: %+v", sent[0])
	}
}

// TestMCPStopRequested: sessions shows a chatbus-mcp session as Claude
// Code; stop, for a session chatbus did not start, asks it to stop:
// chatbus-mcp suspends the session (its thread kept for the next session
// of the profile), takes no more of the thread's messages, and its tools
// say why; the next chatbus-mcp of the profile gets the thread and what
// was written meanwhile.
func TestMCPStopRequested(t *testing.T) {
	b := startTelegramBus(t, "")
	dir := sessionDir(t, "zeta")
	first := b.startMCP(t, "zeta-1", dir, "test:zeta")
	thread := b.topicOf(t, "zeta")

	b.tg.PushMessage(forumChat, 0, allowedUser, "/sessions")
	contains(t, "sessions", b.controlAnswers(t, forumChat, 1)[0].Text, "A zeta · Claude Code · idle")
	b.tg.PushMessage(forumChat, 0, allowedUser, "/stop A")
	contains(t, "stop", b.controlAnswers(t, forumChat, 2)[1].Text, "A (zeta) was not started by chatbus: it was asked to stop")
	testkit.Eventually(t, "the session suspended", func() bool {
		out, _, _ := b.busctl("bindings")
		return strings.Contains(out, "suspended")
	})
	testkit.Eventually(t, "the tools saying why", func() bool {
		res := first.callTool("reply", map[string]any{"text": "still here?"})
		return res.IsError && strings.Contains(res.text(), "asked from the chat that this session stop")
	})

	b.tg.PushMessage(forumChat, thread, allowedUser, "after the stop")
	second := b.startMCP(t, "zeta-2", dir, "test:zeta")
	second.waitNote(0, "after", func(n mcpNote) bool { return n.content() == "after the stop" })
	for _, n := range first.channelNotes() {
		if n.content() == "after the stop" {
			t.Error("the stopped session took a message after the stop")
		}
	}
	if len(b.tg.Topics(forumChat)) != 1 {
		t.Errorf("topics %+v", b.tg.Topics(forumChat))
	}
}
