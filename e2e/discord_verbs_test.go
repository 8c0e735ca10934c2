package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
)

// threadNamed waits for the thread of the channel named "<slot> · name".
func (b *dcBus) threadNamed(t *testing.T, name string) string {
	t.Helper()
	var id string
	testkit.Eventually(t, "a thread for "+name, func() bool {
		for _, th := range b.dc.Threads(b.dc.Channel()) {
			if strings.HasSuffix(th.Name, " · "+name) {
				id = th.ID
				return true
			}
		}
		return false
	})
	return id
}

// waitBot waits until the bot has sent n messages in thread.
func (b *dcBus) waitBot(t *testing.T, thread string, n int) []discordtest.Message {
	t.Helper()
	var msgs []discordtest.Message
	testkit.Eventually(t, "the bot's messages", func() bool { msgs = b.dc.BotMessages(thread); return len(msgs) >= n })
	return msgs
}

// buttonsOf reads a message's buttons: custom_id → style.
func buttonsOf(t *testing.T, m discordtest.Message) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, raw := range m.Components {
		var row struct {
			Components []struct {
				Style    int    `json:"style"`
				CustomID string `json:"custom_id"`
			} `json:"components"`
		}
		if err := json.Unmarshal(raw, &row); err != nil {
			t.Fatalf("component %s: %v", raw, err)
		}
		for _, c := range row.Components {
			out[c.CustomID] = c.Style
		}
	}
	return out
}

// TestDiscordBusctlFollow: `busctl follow` on Discord: a plain line is a
// message in the thread, as the Markdown it is; a line longer than a
// Discord message arrives as several, each within 2,000 characters.
func TestDiscordBusctlFollow(t *testing.T) {
	b := startDiscordBus(t)
	fl := b.startFollow(t, sessionDir(t, "shelly"), "--profile-key", "shell:test")
	reg := fl.next("registered")
	if reg["platform"] != "discord" || !slices.Equal(messageIDs(reg["verbs"]), []string{"send", "edit", "react", "typing", "answer"}) {
		t.Errorf("registered: platform %v, verbs %v", reg["platform"], reg["verbs"])
	}
	thread := b.threadNamed(t, "shelly")
	in := b.dc.PostMessage(thread, b.alice, "hello shell")
	if u := fl.next("update"); u["text"] != "hello shell" || u["thread"] != thread || u["platform"] != "discord" {
		t.Errorf("update %v", u)
	}

	fl.send("hello from the **shell**, `make test` passed")
	if res := fl.next("result"); res["line"] != float64(1) || len(res["message_ids"].([]any)) != 1 {
		t.Fatalf("result %v", res)
	}
	if m := b.waitBot(t, thread, 1)[0]; m.Content != "hello from the **shell**, `make test` passed" {
		t.Errorf("sent %q", m.Content)
	}
	fl.send(strings.Repeat("a long line ", 300)) // 3,600 characters
	res := fl.next("result")
	if ids := res["message_ids"].([]any); len(ids) != 2 {
		t.Fatalf("long line: %v", res)
	}
	for _, m := range b.waitBot(t, thread, 3)[1:] {
		if n := utf8.RuneCountInString(m.Content); n > 2000 || n == 0 {
			t.Errorf("part of %d characters", n)
		}
	}
	fl.send(`{"verb":"react","message_id":"` + in.ID + `","emoji":"👍"}`)
	if res := fl.next("result"); res["line"] != float64(3) {
		t.Errorf("react %v", res)
	}
	if got := b.dc.BotReactions(thread, in.ID); len(got) != 1 || got[0] != "👍" {
		t.Errorf("reactions %q", got)
	}
}

// TestDiscordMCP drives chatbus-mcp with the MCP SDK's client against the
// Discord stand-in: inbound messages as channel notifications, reply
// (quoting, Markdown kept, long text split), react, edit_message, the
// typing indicator, and a permission prompt answered by a button press:
// the press reaches the session as the verdict, is answered (only the
// person who pressed sees the answer), and the prompt is edited to say so,
// its buttons gone.
func TestDiscordMCP(t *testing.T) {
	b := startDiscordBus(t)
	s := b.startMCP(t, "alpha", sessionDir(t, "alpha"), "test:alpha")
	thread := b.threadNamed(t, "alpha")

	in := b.dc.PostMessage(thread, b.alice, "hello alpha")
	note := s.waitNote(0, "hello alpha", func(n mcpNote) bool { return n.content() == "hello alpha" })
	if note.meta("message_id") != in.ID || note.meta("thread_id") != thread || note.meta("platform") != "discord" {
		t.Errorf("notification %+v", note.Params)
	}

	reply := "Run **make test** then `go vet`.\n\n```go\nfunc main() {}\n```\n\nSee [the docs](https://example.com/docs)."
	res := s.callTool("reply", map[string]any{"text": reply, "reply_to": in.ID})
	if res.IsError {
		t.Fatalf("reply: %s", res.text())
	}
	first := b.waitBot(t, thread, 1)[0]
	if first.Content != reply || first.MessageReference == nil || first.MessageReference.MessageID != in.ID {
		t.Errorf("reply %+v", first)
	}
	if ids := messageIDs(res.StructuredContent["message_ids"]); len(ids) != 1 || ids[0] != first.ID {
		t.Errorf("reply ids %v", res.StructuredContent)
	}
	// The inbound message showed the typing indicator.
	testkit.Eventually(t, "typing in the thread", func() bool { return b.dc.Typing(thread) > 0 })
	long := "```\n" + strings.Repeat("a line of output\n", 200) + "```" // 3,400 characters in one fence
	res = s.callTool("reply", map[string]any{"text": long})
	if ids := messageIDs(res.StructuredContent["message_ids"]); res.IsError || len(ids) != 2 {
		t.Fatalf("long reply: %s %+v", res.text(), res.StructuredContent)
	}
	for _, m := range b.waitBot(t, thread, 3)[1:] {
		if !strings.HasPrefix(m.Content, "```\n") || !strings.HasSuffix(m.Content, "\n```") || utf8.RuneCountInString(m.Content) > 2000 {
			t.Errorf("a part of the long reply is not a whole code block of at most 2,000 characters: %.40q … %.40q", m.Content, m.Content[max(0, len(m.Content)-40):])
		}
	}

	if res := s.callTool("react", map[string]any{"message_id": in.ID, "emoji": "👀"}); res.IsError {
		t.Errorf("react: %s", res.text())
	}
	if got := b.dc.BotReactions(thread, in.ID); len(got) != 1 || got[0] != "👀" {
		t.Errorf("reactions %q", got)
	}
	if res := s.callTool("edit_message", map[string]any{"message_id": first.ID, "text": "Run **make test** (done)."}); res.IsError {
		t.Errorf("edit_message: %s", res.text())
	}
	if m, _ := b.dc.Message(thread, first.ID); m.Content != "Run **make test** (done)." || m.EditedTimestamp == nil {
		t.Errorf("after the edit: %+v", m)
	}

	// A permission prompt: buttons under it, allow green, deny red.
	before := len(s.notifications())
	s.notify("notifications/claude/channel/permission_request", map[string]any{
		"request_id": "abcde", "tool_name": "Bash", "description": "Run the tests", "input_preview": `{"command":"go test ./..."}`,
	})
	var prompt discordtest.Message
	testkit.Eventually(t, "the permission prompt", func() bool {
		for _, m := range b.dc.BotMessages(thread) {
			if strings.Contains(m.Content, "abcde") {
				prompt = m
				return true
			}
		}
		return false
	})
	contains(t, "prompt", prompt.Content, "Bash")
	contains(t, "prompt", prompt.Content, "Run the tests")
	if bs := buttonsOf(t, prompt); bs["perm:allow:abcde"] != 3 || bs["perm:deny:abcde"] != 4 {
		t.Fatalf("prompt buttons %v", bs)
	}
	// A press by someone not allowed reaches nobody and is not answered.
	strange, _ := b.dc.Press(thread, prompt.ID, b.stranger, "perm:deny:abcde")
	iid, _ := b.dc.Press(thread, prompt.ID, b.alice, "perm:allow:abcde")
	v := s.waitNote(before, "the verdict", func(n mcpNote) bool { return n.Method == "notifications/claude/channel/permission" })
	if v.Params["request_id"] != "abcde" || v.Params["behavior"] != "allow" {
		t.Errorf("verdict %+v", v.Params)
	}
	testkit.Eventually(t, "the press acknowledged and answered", func() bool {
		typ, _ := b.dc.Interaction(iid)
		a := b.dc.Answers(iid)
		return typ == 6 && len(a) == 1 && strings.Contains(a[0].Content, "Allowed") && a[0].Flags == 64
	})
	testkit.Eventually(t, "the prompt edited, its buttons gone", func() bool {
		m, _ := b.dc.Message(thread, prompt.ID)
		return strings.Contains(m.Content, "Allowed") && len(m.Components) == 0
	})
	if typ, n := b.dc.Interaction(strange); typ != 0 || n != 0 {
		t.Errorf("the stranger's press was answered (type %d, %d requests)", typ, n)
	}
	for _, n := range s.notifications()[before:] {
		if n.Method == "notifications/claude/channel" {
			t.Errorf("a press was forwarded as a message: %+v", n.Params)
		}
	}
	// The answers are not in the thread: only the person who pressed saw
	// them.
	for _, m := range b.dc.BotMessages(thread) {
		if strings.Contains(m.Content, "Allowed") && m.ID != prompt.ID {
			t.Errorf("an answer in the thread: %q", m.Content)
		}
	}
}
