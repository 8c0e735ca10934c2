package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// TestClaudeCodeInbox runs the real Claude Code on an API key with
// channels off (no cached feature flags, no channel flag: what every API-key
// user has) and chatbus-mcp in its .mcp.json: chat messages reach the
// model through the session's inbox socket, saying who wrote them, and the
// reply lands once in the session's own topic; two sessions do not cross;
// busctl followers says "inbox"; /exit + `claude --continue` loses nothing.
// A third session whose project refuses cross-session messages
// (crossSessionInbound "refuse") has no way in: its topic gets one notice,
// its follower says why, and what is written there waits until a later
// session of the project, with the setting lifted, takes it.
func TestClaudeCodeInbox(t *testing.T) {
	claude, tmux := claudeCode(t)
	b := startTelegramBus(t, "")
	api := startAnthropicAPI(t, chatbusScript)

	home := t.TempDir()
	root := t.TempDir()
	alpha := claudeProject{name: "alpha", dir: filepath.Join(root, "alpha"), profileKey: "claude:alpha"}
	beta := claudeProject{name: "beta", dir: filepath.Join(root, "beta"), profileKey: "claude:beta"}
	gamma := claudeProject{name: "gamma", dir: filepath.Join(root, "gamma"), profileKey: "claude:gamma"}
	writeClaudeHomeFlags(t, home, nil, alpha, beta, gamma)
	mcpLog := func(p claudeProject) string { return filepath.Join(root, p.name+".mcp.log") }
	for _, p := range []claudeProject{alpha, beta, gamma} {
		writeClaudeProject(t, p, b.socket, b.state, mcpLog(p))
	}
	gammaSettings := filepath.Join(gamma.dir, ".claude", "settings.json")
	setInbound := func(v string) {
		t.Helper()
		var st map[string]any
		data, err := os.ReadFile(gammaSettings)
		if err == nil {
			err = json.Unmarshal(data, &st)
		}
		if err != nil {
			t.Fatal(err)
		}
		st["crossSessionInbound"] = v
		writeJSON(t, gammaSettings, st)
	}
	setInbound("refuse")
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=xterm-256color", "LANG=C.UTF-8",
		"TMPDIR=" + os.TempDir(),
		"ANTHROPIC_BASE_URL=" + api.url, "ANTHROPIC_API_KEY=" + claudeAPIKey,
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1",
		"GORACE=atexit_sleep_ms=0",
	}
	term := newTerminals(t, tmux, env)
	debugLog := func(name string) string { return filepath.Join(root, name+".debug.log") }
	start := func(session string, p claudeProject, extra ...string) {
		t.Helper()
		term.start(session, p.dir, append([]string{claude, "--debug-file", debugLog(session)}, extra...)...)
	}
	sessions := []string{"alpha", "beta", "gamma", "alpha-2", "gamma-2"}
	t.Cleanup(func() {
		if t.Failed() {
			reqs := api.requests()
			for _, r := range reqs[max(0, len(reqs)-3):] {
				t.Logf("a request to the API (%d in all):\n%s", len(reqs), r.summary())
			}
			for _, p := range []claudeProject{alpha, beta, gamma} {
				data, _ := os.ReadFile(mcpLog(p))
				t.Logf("chatbus-mcp's log in %s:\n%s", p.name, data)
			}
			for _, s := range sessions {
				t.Logf("screen of %s:\n%s", s, term.screen(s))
				if data, err := os.ReadFile(debugLog(s)); err == nil {
					t.Logf("Claude Code debug log of %s (chatbus and inbox lines):\n%s\n%s", s, grepLines(string(data), "chatbus"), grepLines(string(data), "messaging]"))
				}
			}
		}
	})
	start("alpha", alpha)
	start("beta", beta)
	start("gamma", gamma)

	threadA, threadB, threadC := b.topicOf(t, "alpha"), b.topicOf(t, "beta"), b.topicOf(t, "gamma")
	b.waitBound(t, alpha.profileKey, threadA)
	b.waitBound(t, beta.profileKey, threadB)
	b.waitBound(t, gamma.profileKey, threadC)
	for _, p := range []claudeProject{alpha, beta} {
		if f := b.waitWayIn(t, p.profileKey, chatbusv1.WayIn_WAY_IN_INBOX); !strings.Contains(f.GetWayInDetail(), "cc-socks") {
			t.Errorf("%s: way in detail %q", p.name, f.GetWayInDetail())
		}
	}
	fc := b.waitWayIn(t, gamma.profileKey, chatbusv1.WayIn_WAY_IN_NONE)
	if !strings.Contains(fc.GetWayInDetail(), `"refuse"`) {
		t.Errorf("gamma: way in detail %q", fc.GetWayInDetail())
	}
	out, _, code := b.busctl("followers")
	if code != 0 || strings.Count(out, " inbox ") != 2 || strings.Count(out, " none ") != 1 {
		t.Errorf("busctl followers: exit %d\n%s", code, out)
	}

	// Through the inbox: each session's message reaches its model, and the
	// reply lands in the same topic.
	b.tg.PushMessage(forumChat, threadA, allowedUser, "hello alpha")
	b.tg.PushMessage(forumChat, threadB, allowedUser, "hello beta")
	b.tg.PushMessage(forumChat, threadC, allowedUser, "hello gamma")
	b.waitText(t, threadA, "re: hello alpha")
	b.waitText(t, threadB, "re: hello beta")
	var seen *apiRequest
	for _, r := range api.requests() {
		for _, c := range r.channels() {
			if c.content == "hello alpha" && seen == nil {
				seen = &r
				if c.source != "chatbus" || !strings.Contains(c.attrs, "reply_with=") {
					t.Errorf("the message's tag: source %q, attributes %s", c.source, c.attrs)
				}
			}
		}
	}
	if seen == nil {
		t.Fatal("no request to the API carried the chat message")
	}
	for _, m := range seen.Messages {
		for _, bl := range apiBlocksOf(m.Content) {
			if strings.Contains(bl.text(), "hello alpha") {
				t.Logf("how the model got the message (%s):\n%s", m.Role, bl.text())
			}
		}
	}
	if !strings.Contains(seen.Raw, "wrote this in the chat thread") || !strings.Contains(seen.Raw, "mcp__chatbus__reply") {
		t.Errorf("the request does not say who wrote the message and how to answer:\n%s", seen.summary())
	}

	// /exit, a message while no session runs, then claude --continue.
	term.waitScreenAfter("alpha", "hello alpha", "Answered in the chat.")
	term.keys("alpha", "/exit")
	term.waitScreen("alpha", "/exit")
	term.keys("alpha", "Enter")
	waitLong(t, "Claude Code in alpha exited", func() bool { return !term.alive("alpha") }, func() string { return "" })
	waitLong(t, "alpha's binding released", func() bool {
		return b.binding(t, alpha.profileKey).GetBinding().GetStatus() != chatbusv1.BindingStatus_BINDING_STATUS_ACTIVE
	}, func() string { return b.binding(t, alpha.profileKey).String() })
	b.tg.PushMessage(forumChat, threadA, allowedUser, "while you were away")
	start("alpha-2", alpha, "--continue")
	b.waitText(t, threadA, "re: while you were away")

	// gamma: told once, nothing delivered, the message held; with the
	// setting lifted, its next session gets it.
	notices := func() []string {
		var n []string
		for _, txt := range b.replies(threadC) {
			if strings.Contains(txt, "cannot receive") {
				n = append(n, txt)
			}
		}
		return n
	}
	waitLong(t, "the notice in gamma's topic", func() bool { return len(notices()) == 1 }, func() string { return strings.Join(b.replies(threadC), "\n") })
	if u := b.binding(t, gamma.profileKey).GetJournal().GetUnacked(); u != 1 {
		t.Errorf("gamma's journal holds %d unacked, want the message", u)
	}
	term.keys("gamma", "/exit")
	term.waitScreen("gamma", "/exit")
	term.keys("gamma", "Enter")
	waitLong(t, "Claude Code in gamma exited", func() bool { return !term.alive("gamma") }, func() string { return "" })
	setInbound("accept")
	start("gamma-2", gamma) // no --continue: gamma never had a conversation to continue
	b.waitText(t, threadC, "re: hello gamma")

	// Every reply landed once, in its own topic; the notice once.
	if got := b.replies(threadA); !slices.Equal(got, []string{"re: hello alpha", "re: while you were away"}) {
		t.Errorf("replies in topic A: %q", got)
	}
	if got := b.replies(threadB); !slices.Equal(got, []string{"re: hello beta"}) {
		t.Errorf("replies in topic B: %q", got)
	}
	if got := b.replies(threadC); len(got) != 2 || got[1] != "re: hello gamma" || len(notices()) != 1 {
		t.Errorf("topic C: %q", got)
	}
	for _, r := range api.requests() {
		var texts []string
		for _, c := range r.channels() {
			texts = append(texts, c.content)
		}
		if slices.Contains(texts, "hello alpha") && slices.Contains(texts, "hello beta") {
			t.Errorf("one conversation carried both topics' messages: %q", texts)
		}
	}
}
