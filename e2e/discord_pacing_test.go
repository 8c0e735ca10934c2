package e2e

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/discord"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
)

// The outbound scheduler against a Discord stand-in that enforces
// Discord's buckets (discordtest.DiscordLimits: 5 messages in 5 s per
// channel, edits 5 in 5 s, typing 5 in 5 s, 50 requests a second in all;
// bucket headers on every answer, 429 with retry_after beyond them), with
// the supervisor's default settings (the scenarios are in
// pacing_helpers_test.go). A thread is a channel of its own with buckets
// of its own: the sessions share only the global limit, so 40 messages
// in four threads take one bucket's reset, about 5 s.

// dcPaced is a supervisord on a rate-limited Discord stand-in.
type dcPaced struct {
	*dcBus
	oneProvider
}

func startDiscordPaced(t *testing.T) *dcPaced {
	dc := startDiscordBus(t, discordtest.WithRateLimits(discordtest.DiscordLimits))
	b := &dcPaced{dcBus: dc, oneProvider: oneProvider{dc.c}}
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return len(pi.GetOutbound().GetLimits()) == len(discord.DefaultLimits)
	}, "with Discord's limits")
	return b
}

func (b *dcPaced) limited() int { return b.dc.RateLimited() }

func (b *dcPaced) calls(route string) int { return b.dc.Calls(route) }

// arrivals: message ids are snowflakes, growing through the guild.
func (b *dcPaced) arrivals(ss ...*session) []arrival {
	var all []discordtest.Message
	for _, s := range ss {
		all = append(all, b.dc.BotMessages(s.thread())...)
	}
	id := func(m discordtest.Message) uint64 { n, _ := strconv.ParseUint(m.ID, 10, 64); return n }
	slices.SortFunc(all, func(a, c discordtest.Message) int { return cmp.Compare(id(a), id(c)) })
	out := make([]arrival, len(all))
	for i, m := range all {
		out[i] = arrival{id: m.ID, text: m.Content}
	}
	return out
}

func (b *dcPaced) text(s *session, id string) string {
	m, _ := b.dc.Message(s.thread(), id)
	return m.Content
}

func TestDiscordPacing(t *testing.T) {
	runPacing(t, func(t *testing.T) pacedBus { return startDiscordPaced(t) }, []scenario{
		// Each thread's first bucket of five goes at once: the first 20
		// accepted are five of each session.
		{"fair and paced", func(t *testing.T, b pacedBus) { paceFair(t, b, 20, 5, time.Minute) }},
		// The prompt's thread has its own bucket: once the three others'
		// first buckets (15 messages) are out and the rest waits for them
		// to refill, it is the next message.
		{"prompt first", func(t *testing.T, b pacedBus) { pacePrompt(t, b, 15) }},
		// Edits have a bucket of 5 in 5 s per thread: five go at once, the
		// other 25 wait and end as one, "v30".
		{"edits coalesce", func(t *testing.T, b pacedBus) { paceEdits(t, b, "PATCH /channels/{id}/messages/{mid}", 8, verbEdit) }},
		// Discord shows the bot typing for 10 s: one call.
		{"typing", func(t *testing.T, b pacedBus) { paceTyping(t, b, "POST /channels/{id}/typing", 3, "") }},
		// A's first bucket is out; b's thread has its own.
		{"backlog", func(t *testing.T, b pacedBus) { paceBacklog(t, b, 5) }},
	})
}

// TestDiscordLimitsChecked: supervisord --check-config has
// provider-discord check its limits.
func TestDiscordLimitsChecked(t *testing.T) {
	section := func(limits string) string {
		return fmt.Sprintf("providers:\n  discord:\n    binary: %s\n    guild_id: \"1100\"\n    channel_id: \"1200\"\n    limits:\n%s",
			filepath.Join(binDir, "provider-discord"), limits)
	}
	env := []string{"CHATBUS_DISCORD_TOKEN=a-token"}
	for _, tc := range []struct {
		name, limits string
		code         int
		want         string
	}{
		{"ok", "      global: 40/1s\n      typing: off\n", 0, "ok (providers checked: discord)"},
		{"unknown", "      messages: 5/5s\n", 1, "providers.discord.limits.messages: unknown limit; did you mean message?"},
		{"not a rate", "      reaction: 0/1s\n", 1, "providers.discord.limits.reaction: \"0/1s\": the count must be a whole number from 1 to 10000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := supervisordRun(t, newProfile(t), env, "--check-config", "--config", writeConfig(t, section(tc.limits)))
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want %d with %q:\n%s%s", code, tc.code, tc.want, out, errOut)
			}
		})
	}
}
