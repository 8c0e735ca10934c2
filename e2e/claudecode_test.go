package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// The real Claude Code (npm @anthropic-ai/claude-code, pinned in
// claudecode/package.json; `make claudecode-deps` installs it) runs
// interactively in tmux against chatbus-mcp, the Telegram stand-in and a
// scripted Anthropic API on loopback. Without the binary or tmux the test
// skips loudly, unless CHATBUS_REQUIRE_CLAUDE_CODE_TESTS=1 (set by
// .ci/run) makes that a failure. CHATBUS_CLAUDE_CODE names another claude
// binary.

// claudeCodeVersion is the pinned version the test is written against.
const claudeCodeVersion = "2.1.328"

// claudeAPIKey is the key Claude Code sends to the scripted API.
const claudeAPIKey = "sk-ant-api03-chatbus-e2e-not-a-real-key-000000"

// replyTool is chatbus's reply tool as Claude Code names it (server
// "chatbus" in .mcp.json).
const replyTool = "mcp__chatbus__reply"

// claudeCode finds the claude binary and tmux, or skips (fails when
// required).
func claudeCode(t *testing.T) (claude, tmux string) {
	t.Helper()
	var why string
	claude = os.Getenv("CHATBUS_CLAUDE_CODE")
	if claude == "" {
		claude, _ = filepath.Abs(filepath.Join("claudecode", "node_modules", ".bin", "claude"))
	}
	out, err := exec.Command(claude, "--version").Output()
	switch {
	case err != nil:
		why = fmt.Sprintf("no Claude Code at %s (%v): make claudecode-deps, or set CHATBUS_CLAUDE_CODE", claude, err)
	case os.Getenv("CHATBUS_CLAUDE_CODE") == "" && !strings.HasPrefix(string(out), claudeCodeVersion+" "):
		why = fmt.Sprintf("%s is %q, not the pinned %s: make claudecode-deps", claude, strings.TrimSpace(string(out)), claudeCodeVersion)
	}
	if why == "" {
		if tmux, err = exec.LookPath("tmux"); err != nil {
			why = "no tmux on PATH (apt-get install -y tmux)"
		}
	}
	if why == "" {
		return claude, tmux
	}
	unavailable(t, "CHATBUS_REQUIRE_CLAUDE_CODE_TESTS", "Claude Code tests cannot run: "+why)
	return "", ""
}

// terminals is a tmux server of its own (socket in a private dir, no
// config file) whose sessions run Claude Code.
type terminals struct {
	t    *testing.T
	tmux string
	sock string
	env  []string
}

func newTerminals(t *testing.T, tmux string, env []string) *terminals {
	dir, err := os.MkdirTemp("", "cbtmux")
	if err != nil {
		t.Fatal(err)
	}
	m := &terminals{t: t, tmux: tmux, sock: filepath.Join(dir, "s"), env: env}
	t.Cleanup(func() {
		m.end()
		os.RemoveAll(dir)
	})
	return m
}

// end ends the tmux server. The programs in the panes go with it
// (SIGHUP); it waits for them, so that none writes into a directory being
// removed.
func (m *terminals) end() {
	out, _ := m.run("list-panes", "-a", "-F", "#{pane_pid}")
	m.run("kill-server")
	for _, pid := range strings.Fields(out) {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if n, err := strconv.Atoi(pid); err != nil || !alive(n) {
				break
			}
		}
	}
}

func (m *terminals) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.tmux, append([]string{"-S", m.sock, "-f", "/dev/null"}, args...)...)
	// The server inherits this environment: the sessions see only it.
	cmd.Env = m.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("tmux %v: %v: %s", args, err, errb.String())
	}
	return out.String(), nil
}

// start runs argv in a new session in dir (a wide window, so that lines
// are not wrapped).
func (m *terminals) start(name, dir string, argv ...string) {
	m.t.Helper()
	if _, err := m.run(append([]string{"new-session", "-d", "-s", name, "-x", "200", "-y", "50", "-c", dir}, argv...)...); err != nil {
		m.t.Fatal(err)
	}
}

func (m *terminals) screen(name string) string {
	out, _ := m.run("capture-pane", "-p", "-t", name)
	return out
}

func (m *terminals) alive(name string) bool {
	_, err := m.run("has-session", "-t", name)
	return err == nil
}

// keys types into a session (tmux key names: "Enter", "Escape").
func (m *terminals) keys(name string, keys ...string) {
	m.t.Helper()
	if _, err := m.run(append([]string{"send-keys", "-t", name}, keys...)...); err != nil {
		m.t.Fatal(err)
	}
}

// waitScreen waits until the session's screen shows text.
func (m *terminals) waitScreen(name, text string) {
	m.t.Helper()
	waitLong(m.t, fmt.Sprintf("%q on the screen of %s", text, name), func() bool { return strings.Contains(m.screen(name), text) },
		func() string { return m.screen(name) })
}

// waitScreenAfter waits until the session's screen shows text below the
// last line that holds anchor.
func (m *terminals) waitScreenAfter(name, anchor, text string) {
	m.t.Helper()
	waitLong(m.t, fmt.Sprintf("%q after %q on the screen of %s", text, anchor, name), func() bool {
		sc := m.screen(name)
		i := strings.LastIndex(sc, anchor)
		return i >= 0 && strings.Contains(sc[i:], text)
	}, func() string { return m.screen(name) })
}

// waitLong polls cond for up to two minutes (Claude Code's turns under a
// race-built supervisor on a loaded machine); what() describes the state
// when it fails.
func waitLong(t *testing.T, what string, cond func() bool, state func() string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s\n%s", what, state())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// claudeProject is one project directory with chatbus in its .mcp.json.
type claudeProject struct {
	name, dir, profileKey string
}

// chatbusScript is the model: it answers the latest <channel> message of
// a conversation in the chat. "run <path>" first asks for Bash `touch
// <path>` (which needs the person's permission); anything else is echoed
// as "re: <text>". The reply tool is deferred, so it is loaded with
// ToolSearch first, as a real model must. Requests without tools (Claude
// Code's side queries) get a short text.
func chatbusScript(r apiRequest) []apiBlock {
	if len(r.Tools) == 0 {
		return []apiBlock{{Text: "ok"}}
	}
	chs := r.channels()
	if len(chs) == 0 {
		return []apiBlock{{Text: "Nothing from the chat yet."}}
	}
	last := chs[len(chs)-1]
	used := r.toolUsesSince(last.msg)
	path, run := strings.CutPrefix(last.content, "run ")
	switch {
	case slices.Contains(used, replyTool):
		return []apiBlock{{Text: "Answered in the chat."}}
	case run && !slices.Contains(used, "Bash"):
		return []apiBlock{{Tool: "Bash", Input: map[string]any{"command": "touch " + path, "description": "Create the file the person asked for"}}}
	case !r.hasTool(replyTool) && !slices.Contains(used, "ToolSearch"):
		return []apiBlock{{Tool: "ToolSearch", Input: map[string]any{"query": "select:" + replyTool, "max_results": 1}}}
	case run:
		return []apiBlock{{Tool: replyTool, Input: map[string]any{"text": "ran " + path}}}
	}
	return []apiBlock{{Tool: replyTool, Input: map[string]any{"text": "re: " + last.content}}}
}

// TestClaudeCode runs two real Claude Code sessions with chatbus-mcp:
// a chat message reaches the model as a <channel> block and its reply
// lands once in the session's own topic; a permission prompt is answered
// from the chat by a button and by "yes <id>", and the tool runs with no
// key pressed at the terminal; after /exit and `claude --continue` the
// session keeps its topic and gets what was written meanwhile.
func TestClaudeCode(t *testing.T) {
	r := startClaudeRig(t, map[string]any{"tengu_harbor": true, "tengu_harbor_permissions": true}, "alpha", "beta")
	b, api, term := r.b, r.api, r.term
	alpha, beta := r.projects[0], r.projects[1]
	channel := []string{"--dangerously-load-development-channels", "server:chatbus"}
	// The development-channel warning: one key at each launch.
	confirm := func(session string) {
		t.Helper()
		term.waitScreen(session, "I am using this for local development")
		term.keys(session, "Enter")
	}
	r.start("alpha", alpha, channel...)
	r.start("beta", beta, channel...)
	confirm("alpha")
	confirm("beta")

	// Each session gets its own topic; what is written there reaches its
	// model as a <channel> block, and the reply lands in the same topic.
	threadA, threadB := b.topicOf(t, "alpha"), b.topicOf(t, "beta")
	// The topic exists a moment before its binding does; a message written
	// in that moment is held as unrouted (no person is that fast).
	b.waitBound(t, alpha.profileKey, threadA)
	b.waitBound(t, beta.profileKey, threadB)
	b.tg.PushMessage(forumChat, threadA, allowedUser, "hello alpha")
	b.tg.PushMessage(forumChat, threadB, allowedUser, "hello beta")
	b.waitText(t, threadA, "re: hello alpha")
	b.waitText(t, threadB, "re: hello beta")

	var seen *channelMsg
	for _, r := range api.requests() {
		for _, c := range r.channels() {
			if c.content == "hello alpha" && seen == nil {
				seen = &c
				// What the tag's reply_with is for: the first request of
				// a turn started by a channel message.
				t.Logf("the first request with the message: server instructions %v, reply tool loaded %v",
					strings.Contains(r.Raw, "MCP Server Instructions"), r.hasTool(replyTool))
			}
		}
	}
	if seen == nil {
		t.Fatal("no request to the API carried the message as a <channel> block")
	}
	if seen.source != "chatbus" || seen.attr("reply_with") == "" || seen.attr("thread_id") != fmt.Sprint(threadA) {
		t.Errorf("the <channel> block: source %q, attributes %s", seen.source, seen.attrs)
	}

	// Permission prompts answered from the chat: a button press, then a
	// "yes <id>" reply. No key is pressed at the terminal.
	for _, how := range []string{"button", "text"} {
		marker := filepath.Join(alpha.dir, "perm-"+how)
		b.tg.PushMessage(forumChat, threadA, allowedUser, "run "+marker)
		prompt := b.waitPrompt(t, threadA, marker)
		id := permissionID(t, prompt.Text)
		if how == "button" {
			b.tg.PushCallbackQuery(forumChat, prompt.MessageID, allowedUser, "perm:allow:"+id)
		} else {
			b.tg.PushMessage(forumChat, threadA, allowedUser, "yes "+id)
		}
		b.waitText(t, threadA, "ran "+marker)
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("the tool allowed from the chat (%s) did not run: %v", how, err)
		}
	}

	// /exit, a message while no session runs, then claude --continue:
	// the same topic, and the message arrives.
	// The turn that answered the last prompt has ended (the script's last
	// word is on the screen, after the message) before /exit is typed.
	term.waitScreenAfter("alpha", "perm-text", "Answered in the chat.")
	r.exit("alpha", alpha)
	b.tg.PushMessage(forumChat, threadA, allowedUser, "while you were away")
	r.start("alpha-2", alpha, append([]string{"--continue"}, channel...)...)
	confirm("alpha-2")
	b.waitText(t, threadA, "re: while you were away")
	if got := b.topicOf(t, "alpha"); got != threadA || len(b.tg.Topics(forumChat)) != 2 {
		t.Errorf("after --continue: topic %d (was %d), topics %+v", got, threadA, b.tg.Topics(forumChat))
	}

	// Every reply landed once, each in its own session's topic.
	wantA := []string{"re: hello alpha", "ran " + filepath.Join(alpha.dir, "perm-button"), "ran " + filepath.Join(alpha.dir, "perm-text"), "re: while you were away"}
	if got := b.replies(threadA); !slices.Equal(got, wantA) {
		t.Errorf("replies in topic A: %q, want %q", got, wantA)
	}
	if got := b.replies(threadB); !slices.Equal(got, []string{"re: hello beta"}) {
		t.Errorf("replies in topic B: %q", got)
	}
	// No crossing: neither conversation ever carried the other's message.
	for _, r := range api.requests() {
		var texts []string
		for _, c := range r.channels() {
			texts = append(texts, c.content)
		}
		if slices.Contains(texts, "hello alpha") && slices.Contains(texts, "hello beta") {
			t.Errorf("one conversation carried both topics' messages: %q", texts)
		}
	}
	// The continued conversation is the old one.
	last := api.requests()
	for i := len(last) - 1; i >= 0; i-- {
		if cs := last[i].channels(); len(cs) > 0 && cs[len(cs)-1].content == "while you were away" {
			if !strings.Contains(last[i].Raw, "hello alpha") {
				t.Errorf("the continued conversation lost its history")
			}
			break
		}
	}
}

// claudeRig is what a test of the real Claude Code runs on: the
// Telegram stand-in and a supervisor, the scripted API, a home with
// ~/.claude.json, one project directory per name with chatbus-mcp in its
// .mcp.json (profile key "claude:<name>"), and a tmux server whose
// sessions run Claude Code on the API key. On failure it logs the last
// requests, chatbus-mcp's logs, the screens and Claude Code's debug logs.
type claudeRig struct {
	t        *testing.T
	claude   string
	b        *tgBus
	api      *anthropicAPI
	term     *terminals
	root     string
	projects []claudeProject

	sessions []string // started, for the failure log
}

// startClaudeRig starts the rig with these cached feature flags (nil:
// none, channels off) and projects.
func startClaudeRig(t *testing.T, flags map[string]any, names ...string) *claudeRig {
	t.Helper()
	return startClaudeRigWith(t, flags, nil, names...)
}

// startClaudeRigWith is startClaudeRig with config(root, env) added to
// the supervisor's config file (top-level keys): root holds the projects,
// env is the environment Claude Code runs with.
func startClaudeRigWith(t *testing.T, flags map[string]any, config func(root string, env []string) string, names ...string) *claudeRig {
	t.Helper()
	claude, tmux := claudeCode(t)
	r := &claudeRig{t: t, claude: claude, api: startAnthropicAPI(t, chatbusScript), root: t.TempDir()}
	home := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=xterm-256color", "LANG=C.UTF-8",
		"TMPDIR=" + os.TempDir(),
		"ANTHROPIC_BASE_URL=" + r.api.url, "ANTHROPIC_API_KEY=" + claudeAPIKey,
		// Nothing leaves the machine, nothing waits on the network.
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1",
		// The feature flags (channels, the permission relay) from the
		// cache in ~/.claude.json.
		"CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF=1",
		// chatbus-mcp is race-built: no wait at its exit.
		"GORACE=atexit_sleep_ms=0",
	}
	extra := ""
	if config != nil {
		extra = config(r.root, env)
	}
	r.b = startTelegramBus(t, extra)
	for _, n := range names {
		r.projects = append(r.projects, claudeProject{name: n, dir: filepath.Join(r.root, n), profileKey: "claude:" + n})
	}
	writeClaudeHomeFlags(t, home, flags, r.projects...)
	for _, p := range r.projects {
		writeClaudeProject(t, p, r.b.socket, r.b.state, r.mcpLog(p))
	}
	r.term = newTerminals(t, tmux, env)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		reqs := r.api.requests()
		for _, rq := range reqs[max(0, len(reqs)-3):] {
			t.Logf("a request to the API (%d in all):\n%s", len(reqs), rq.summary())
		}
		for _, p := range r.projects {
			data, _ := os.ReadFile(r.mcpLog(p))
			t.Logf("chatbus-mcp's log in %s:\n%s", p.name, data)
		}
		for _, s := range r.sessions {
			t.Logf("screen of %s:\n%s", s, r.term.screen(s))
			if data, err := os.ReadFile(r.debugLog(s)); err == nil {
				t.Logf("Claude Code debug log of %s (chatbus and inbox lines):\n%s\n%s", s, grepLines(string(data), "chatbus"), grepLines(string(data), "messaging]"))
			}
		}
	})
	return r
}

func (r *claudeRig) mcpLog(p claudeProject) string { return filepath.Join(r.root, p.name+".mcp.log") }
func (r *claudeRig) debugLog(session string) string {
	return filepath.Join(r.root, session+".debug.log")
}

// start runs claude with args in a new tmux session in p's directory.
func (r *claudeRig) start(session string, p claudeProject, args ...string) {
	r.t.Helper()
	r.sessions = append(r.sessions, session)
	r.term.start(session, p.dir, append([]string{r.claude, "--debug-file", r.debugLog(session)}, args...)...)
}

// exit types /exit in the session and waits until Claude Code exited and
// p's binding is no longer held.
func (r *claudeRig) exit(session string, p claudeProject) {
	r.t.Helper()
	r.term.keys(session, "/exit")
	r.term.waitScreen(session, "/exit")
	r.term.keys(session, "Enter")
	waitLong(r.t, "Claude Code in "+session+" exited", func() bool { return !r.term.alive(session) }, func() string { return "" })
	waitLong(r.t, p.name+"'s binding released", func() bool {
		return r.b.binding(r.t, p.profileKey).GetBinding().GetStatus() != chatbusv1.BindingStatus_BINDING_STATUS_ACTIVE
	}, func() string { return r.b.binding(r.t, p.profileKey).String() })
}

// writeClaudeHomeFlags writes ~/.claude.json for the projects: onboarding
// done, the folders trusted, the test's API key approved, and these cached
// feature flags ({"tengu_harbor": true, "tengu_harbor_permissions": true}
// turn channels and the permission relay on; nil: none, as on a machine
// that never fetched them: channels off).
func writeClaudeHomeFlags(t *testing.T, home string, flags map[string]any, projects ...claudeProject) {
	t.Helper()
	trusted := map[string]any{}
	for _, p := range projects {
		trusted[p.dir] = map[string]any{"hasTrustDialogAccepted": true}
	}
	cfg := map[string]any{
		"hasCompletedOnboarding": true,
		"projects":               trusted,
		// Claude Code asks once whether to use ANTHROPIC_API_KEY; the
		// answer is kept by the key's last 20 characters.
		"customApiKeyResponses": map[string]any{"approved": []string{claudeAPIKey[len(claudeAPIKey)-20:]}, "rejected": []string{}},
	}
	if flags != nil {
		cfg["cachedGrowthBookFeatures"] = flags
	}
	writeJSON(t, filepath.Join(home, ".claude.json"), cfg)
}

// writeClaudeProject makes the project directory: .mcp.json launching
// chatbus-mcp (the test's build) on the test's supervisor with a fixed
// profile key, its log appended to mcpLog (through sh, which execs it:
// Claude Code keeps only what a server writes while it connects), and
// settings that start in manual permission mode with the reply tool
// allowed (everything else asks).
func writeClaudeProject(t *testing.T, p claudeProject, socket, state, mcpLog string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(p.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeJSON(t, filepath.Join(p.dir, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"chatbus": map[string]any{
		"command": "/bin/sh",
		"args": []string{"-c", `exec "$0" "$@" 2>>` + mcpLog, filepath.Join(binDir, "chatbus-mcp"),
			"--no-start", "--socket", socket, "--state-dir", state, "--log-level", "debug"},
		"env": map[string]string{"CHATBUS_PROFILE_KEY": p.profileKey},
	}}})
	writeJSON(t, filepath.Join(p.dir, ".claude", "settings.json"), map[string]any{
		"permissions":           map[string]any{"defaultMode": "manual", "allow": []string{replyTool}},
		"enabledMcpjsonServers": []string{"chatbus"},
	})
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitBound waits until the supervisor has the binding of key on thread.
func (b *tgBus) waitBound(t *testing.T, key string, thread int) {
	t.Helper()
	bound := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := b.c.Admin.ListBindings(ctx, &chatbusv1.ListBindingsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, bi := range resp.GetBindings() {
			if bi.GetBinding().GetProfileKey() == key {
				return bi.GetBinding().GetTarget().GetThread() == fmt.Sprint(thread)
			}
		}
		return false
	}
	waitLong(t, fmt.Sprintf("binding %s on thread %d", key, thread), bound, func() string { return "" })
}

// waitText waits until the bot has sent text in the topic.
func (b *tgBus) waitText(t *testing.T, thread int, text string) {
	t.Helper()
	waitLong(t, fmt.Sprintf("%q in topic %d", text, thread), func() bool { return slices.Contains(b.replies(thread), text) },
		func() string { return fmt.Sprintf("sent there: %q", b.replies(thread)) })
}

// replies are the texts the bot sent in the topic, permission prompts
// left out.
func (b *tgBus) replies(thread int) []string {
	var out []string
	for _, m := range b.tg.Sent(forumChat, thread) {
		if !strings.Contains(m.Text, "Permission request") {
			out = append(out, m.Text)
		}
	}
	return out
}

// waitPrompt waits for the permission prompt (with its buttons) whose
// text names what.
func (b *tgBus) waitPrompt(t *testing.T, thread int, what string) botapi.Message {
	t.Helper()
	var prompt botapi.Message
	waitLong(t, "a permission prompt for "+what, func() bool {
		for _, m := range b.tg.Sent(forumChat, thread) {
			if strings.Contains(m.Text, "Permission request") && strings.Contains(m.Text, what) && m.ReplyMarkup != nil {
				prompt = m
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("%+v", b.tg.Sent(forumChat, thread)) })
	return prompt
}

var permissionIDRE = regexp.MustCompile(`Permission request ([a-z]+):`)

func permissionID(t *testing.T, text string) string {
	t.Helper()
	m := permissionIDRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no request id in the prompt %q", text)
	}
	return m[1]
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
