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
// channels off (no cached feature flags: what every API-key user has) and
// chatbus-mcp in its .mcp.json: chat messages reach the model through the
// session's inbox socket, saying who wrote them, and the reply lands once
// in the session's own topic, also in a session started with the
// development-channel flag (Claude Code skips the channel there); two
// sessions do not cross;
// busctl followers says "inbox"; /exit + `claude --continue` loses nothing.
// A third session whose project refuses cross-session messages
// (crossSessionInbound "refuse") has no way in: its topic gets one notice,
// its follower says why, and what is written there waits until a later
// session of the project takes it: one that holds it for approval
// ("hold": Claude Code reports it held, and it is acked only once Claude
// Code reports it delivered, when the setting is lifted).
func TestClaudeCodeInbox(t *testing.T) {
	r := startClaudeRig(t, nil, "alpha", "beta", "gamma")
	b, api, term := r.b, r.api, r.term
	alpha, beta, gamma := r.projects[0], r.projects[1], r.projects[2]
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
	r.start("alpha", alpha)
	// beta asks for the channel, as the channel's docs say, where
	// channels are off: Claude Code skips the channel (2.1.328 shows no
	// development-channel warning then; confirm one if it does).
	r.start("beta", beta, "--dangerously-load-development-channels", "server:chatbus")
	r.start("gamma", gamma)
	waitLong(t, "beta started", func() bool {
		sc := term.screen("beta")
		return strings.Contains(sc, "I am using this for local development") || strings.Contains(sc, "❯")
	}, func() string { return term.screen("beta") })
	if strings.Contains(term.screen("beta"), "I am using this for local development") {
		term.keys("beta", "Enter")
	}

	threadA, threadB, threadC := b.topicOf(t, "alpha"), b.topicOf(t, "beta"), b.topicOf(t, "gamma")
	b.waitBound(t, alpha.profileKey, threadA)
	b.waitBound(t, beta.profileKey, threadB)
	b.waitBound(t, gamma.profileKey, threadC)
	for _, p := range []claudeProject{alpha, beta} {
		if f := b.waitWayIn(t, p.profileKey, chatbusv1.WayIn_WAY_IN_INBOX); !strings.Contains(f.GetWayInDetail(), "cc-socks") ||
			p == beta && !strings.Contains(f.GetWayInDetail(), "channels are off") {
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
	r.exit("alpha", alpha)
	b.tg.PushMessage(forumChat, threadA, allowedUser, "while you were away")
	r.start("alpha-2", alpha, "--continue")
	b.waitText(t, threadA, "re: while you were away")

	// gamma: told once, nothing delivered, the message held; with the
	// setting lifted, its next session gets it.
	notices := func() []string { return b.noWayInNotices(threadC) }
	waitLong(t, "the notice in gamma's topic", func() bool { return len(notices()) == 1 }, func() string { return strings.Join(b.replies(threadC), "\n") })
	if u := b.binding(t, gamma.profileKey).GetJournal().GetUnacked(); u != 1 {
		t.Errorf("gamma's journal holds %d unacked, want the message", u)
	}
	// The next session holds messages for approval at its terminal
	// ("hold"): Claude Code reports the message held, and it stays
	// unacked until Claude Code reports it delivered (the setting lifted:
	// Claude Code releases what it holds).
	r.exit("gamma", gamma)
	setInbound("hold")
	r.start("gamma-2", gamma) // no --continue: gamma never had a conversation to continue
	waitLong(t, "Claude Code's report that it holds the message", func() bool {
		out, _, _ := b.busctl("events")
		return strings.Contains(out, "follower_delivery_held")
	}, func() string { out, _, _ := b.busctl("events"); return out })
	if u := b.binding(t, gamma.profileKey).GetJournal().GetUnacked(); u != 1 {
		t.Errorf("gamma's journal holds %d unacked while Claude Code holds the message, want 1", u)
	}
	setInbound("accept")
	b.waitText(t, threadC, "re: hello gamma")
	waitLong(t, "gamma's message acked", func() bool { return b.binding(t, gamma.profileKey).GetJournal().GetUnacked() == 0 },
		func() string { return b.binding(t, gamma.profileKey).String() })

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
