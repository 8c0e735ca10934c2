package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
)

// The chat's control surface (docs/control.md) on Slack and Discord: the
// /chatbus command and mentions of the bot, answered in the channel.

// slackAnswers waits until the bot has posted n answers at the channel's
// top level after its roots (the followers' threads), and returns them.
func (b *slackBus) slackAnswers(t *testing.T, roots, n int) []string {
	t.Helper()
	var out []string
	testkit.Eventually(t, fmt.Sprintf("%d answers at the channel's top level", n), func() bool {
		out = nil
		for _, m := range b.st.Sent(slackChannel, "")[roots:] {
			out = append(out, m.Text)
		}
		return len(out) >= n
	})
	if len(out) > n {
		t.Fatalf("%d answers, want %d: %q", len(out), n, out)
	}
	return out
}

// TestControlSlack: /chatbus sessions lists the two live followers,
// status names the provider's state, a mention of the bot is a command
// too, a stranger's command shows nothing and runs nothing, /chatbus in
// another channel is answered with where chatbus listens, and restart
// runs the doctor and reports it (answered by the successor).
func TestControlSlack(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{})
	alpha := followAgent(t, b.c, "manual:1", "/home/u/alpha", "claude-code")
	beta := followAgent(t, b.c, "manual:2", "/home/u/beta", "")
	roots := len(b.st.Sent(slackChannel, ""))
	if roots != 2 {
		t.Fatalf("%d roots", roots)
	}

	b.st.SlashCommand(slackChannel, slackPerson, "", "sessions")
	sessions := b.slackAnswers(t, roots, 1)[0]
	// Markdown rendered as mrkdwn; Slack threads have no link.
	contains(t, "sessions", sessions, "*Sessions*: 2 live, 0 parked")
	contains(t, "sessions", sessions, "• *A* alpha · Claude Code · idle · `/home/u/alpha`")
	contains(t, "sessions", sessions, "• *B* beta · follower · idle · `/home/u/beta`")

	b.st.PostMessage(slackChannel, slackPerson, "<@"+slacktest.BotUserID+"> status", "")
	contains(t, "status", b.slackAnswers(t, roots, 2)[1], "• *slack*: running, serving, 2 attached, 0 queued")

	// A stranger, and /chatbus in another channel: nothing runs, nothing
	// is posted; the other channel's user is told where chatbus listens.
	before := b.named(t, "slack")
	strange := b.st.SlashCommand(slackChannel, slackStranger, "", "restart slack")
	elsewhere := b.st.SlashCommand("C0OTHER", slackPerson, "", "restart slack")
	testkit.Eventually(t, "both acknowledged", func() bool { return b.st.Event(strange).Acked && b.st.Event(elsewhere).Acked })
	if r := b.st.Event(strange).Response; r != nil {
		t.Errorf("the stranger was answered %s", r)
	}
	var told struct {
		ResponseType string `json:"response_type"`
		Text         string `json:"text"`
	}
	if err := json.Unmarshal(b.st.Event(elsewhere).Response, &told); err != nil || told.ResponseType != "ephemeral" {
		t.Errorf("elsewhere answered %s", b.st.Event(elsewhere).Response)
	}
	contains(t, "elsewhere", told.Text, "chatbus listens in <#"+slackChannel+">")
	testkit.Eventually(t, "the stranger's command an event", func() bool {
		return strings.Contains(b.commandEvents(t), "control_not_allowed")
	})
	b.st.SlashCommand(slackChannel, slackPerson, "", "help")
	contains(t, "help", b.slackAnswers(t, roots, 3)[2], "/chatbus restart")
	if after := b.named(t, "slack"); after.GetPid() != before.GetPid() {
		t.Errorf("a stranger's restart ran: pid %d → %d", before.GetPid(), after.GetPid())
	}

	b.st.SlashCommand(slackChannel, slackPerson, "", "restart slack")
	// One message, sent as the restart begins and edited as its steps
	// pass: the answer replaces it.
	var restarted string
	testkit.Eventually(t, "the restart's answer", func() bool {
		restarted = b.slackAnswers(t, roots, 4)[3]
		return strings.Contains(restarted, "*slack restarted*: restarted")
	})
	for _, step := range []string{"prepare", "commit", "successor"} {
		contains(t, "restart steps", restarted, step)
	}
	if after := b.named(t, "slack"); after.GetPid() == before.GetPid() {
		t.Errorf("restart answered, but the provider's child is the same (pid %d)", after.GetPid())
	}
	evs := b.commandEvents(t)
	for _, want := range []string{`command "sessions"`, `command "status"`, `command "help"`, `command "restart slack"`} {
		contains(t, "events", evs, want)
	}
	if len(alpha.texts()) != 0 || len(beta.texts()) != 0 {
		t.Errorf("followers got %q and %q", alpha.texts(), beta.texts())
	}
}

// discordAnswer waits until interaction id's deferred response is
// answered and returns its text.
func (b *dcBus) discordAnswer(t *testing.T, id string) string {
	t.Helper()
	var m discordtest.Message
	testkit.Eventually(t, "the command answered", func() bool {
		var ok bool
		m, ok = b.dc.Original(id)
		return ok && !m.Loading()
	})
	return m.Content
}

// TestControlDiscord: /chatbus, registered for the guild at start:
// sessions lists the two live followers (their threads linked), status
// names the provider's state, a stranger is told they are not allowed
// and nothing runs, and restart runs the doctor and reports it in the
// command's response (edited by the successor provider).
func TestControlDiscord(t *testing.T) {
	b := startDiscordBus(t)
	testkit.Eventually(t, "/chatbus registered", func() bool { return strings.Contains(string(b.dc.Commands()), `"chatbus"`) })
	alpha := followAgent(t, b.c, "manual:1", "/home/u/alpha", "claude-code")
	beta := followAgent(t, b.c, "manual:2", "/home/u/beta", "pi")
	channel := b.dc.Channel()

	iid, _ := b.dc.RunCommand(discordtest.Invocation{Channel: channel, User: b.alice, Sub: "sessions"})
	sessions := b.discordAnswer(t, iid)
	// Markdown as it is (Discord renders it); each thread linked.
	contains(t, "sessions", sessions, "**Sessions**: 2 live, 0 parked")
	link := func(fl *follower) string {
		return "(https://discord.com/channels/" + b.dc.GuildID() + "/" + threadOf(fl) + ")"
	}
	contains(t, "sessions", sessions, "- **A** [alpha]"+link(alpha)+" · Claude Code · idle · `/home/u/alpha`")
	contains(t, "sessions", sessions, "- **B** [beta]"+link(beta)+" · pi · idle · `/home/u/beta`")

	iid, _ = b.dc.RunCommand(discordtest.Invocation{Channel: channel, User: b.alice, Sub: "status"})
	contains(t, "status", b.discordAnswer(t, iid), "- **discord**: running, serving, 2 attached, 0 queued")

	before := namedProvider(t, b.c, "discord")
	iid, _ = b.dc.RunCommand(discordtest.Invocation{Channel: channel, User: b.stranger, Sub: "restart", Options: map[string]string{"provider": "discord"}})
	testkit.Eventually(t, "the stranger told", func() bool { return len(b.dc.Answers(iid)) == 1 })
	if a := b.dc.Answers(iid)[0]; a.Flags != 64 || !strings.Contains(a.Content, "not on chatbus's allowed_user_ids") {
		t.Errorf("the stranger was answered %+v", a)
	}
	testkit.Eventually(t, "the stranger's command an event", func() bool {
		return strings.Contains(b.commandEvents(t), "control_not_allowed")
	})
	iid, _ = b.dc.RunCommand(discordtest.Invocation{Channel: channel, User: b.alice, Sub: "help"})
	contains(t, "help", b.discordAnswer(t, iid), "/chatbus restart")
	if after := namedProvider(t, b.c, "discord"); after.GetPid() != before.GetPid() {
		t.Errorf("a stranger's restart ran: pid %d → %d", before.GetPid(), after.GetPid())
	}

	iid, _ = b.dc.RunCommand(discordtest.Invocation{Channel: channel, User: b.alice, Sub: "restart", Options: map[string]string{"provider": "discord"}})
	// The response shows the restart beginning, then its steps; the
	// answer replaces it.
	var restarted string
	testkit.Eventually(t, "the restart's answer", func() bool {
		restarted = b.discordAnswer(t, iid)
		return strings.Contains(restarted, "**discord restarted**: restarted")
	})
	for _, step := range []string{"prepare", "commit", "successor"} {
		contains(t, "restart steps", restarted, step)
	}
	if after := namedProvider(t, b.c, "discord"); after.GetPid() == before.GetPid() {
		t.Errorf("restart answered, but the provider's child is the same (pid %d)", after.GetPid())
	}
	// Every answer was the command's response: nothing else was posted
	// in the channel.
	for _, m := range b.dc.BotMessages(channel) {
		if m.Type != 20 {
			b, _ := json.Marshal(m)
			t.Errorf("a message posted in the channel: %s", b)
		}
	}
	evs := b.commandEvents(t)
	for _, want := range []string{`command "sessions"`, `command "status"`, `command "help"`, `command "restart discord"`} {
		contains(t, "events", evs, want)
	}
	if len(alpha.texts()) != 0 || len(beta.texts()) != 0 {
		t.Errorf("followers got %q and %q", alpha.texts(), beta.texts())
	}
}
