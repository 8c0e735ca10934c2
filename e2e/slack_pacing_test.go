package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/slack"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
)

// The outbound scheduler against a Slack stand-in that enforces Slack's
// limits (slacktest.SlackLimits: chat.postMessage one a second per
// channel with bursts of three, each other method its tier's calls a
// minute; 429 with Retry-After beyond them), with the supervisor's
// default settings (the scenarios are in pacing_helpers_test.go). Every
// thread is in the provider's one channel, so the sessions share its one
// message a second: 40 messages take 40 s. Slack has no typing
// indicator.

// slackPaced is a supervisord on a rate-limited Slack stand-in.
type slackPaced struct {
	*slackBus
	oneProvider
}

func startSlackPaced(t *testing.T) *slackPaced {
	sb := startSlackBus(t, slackBusConfig{parallel: true, opts: []slacktest.Option{slacktest.WithRateLimits(slacktest.SlackLimits)}})
	b := &slackPaced{slackBus: sb, oneProvider: oneProvider{sb.c}}
	b.waitNamed(t, "slack", func(pi *chatbusv1.ProviderInfo) bool {
		return len(pi.GetOutbound().GetLimits()) == len(slack.DefaultLimits)
	}, "with Slack's limits")
	return b
}

func (b *slackPaced) limited() int { return b.st.RateLimited() }

func (b *slackPaced) calls(method string) int { return b.st.Calls(method) }

// arrivals: a message's ts grows through the channel.
func (b *slackPaced) arrivals(ss ...*session) []arrival {
	var all []slacktest.Message
	for _, s := range ss {
		all = append(all, b.st.Sent(slackChannel, s.thread())...)
	}
	slices.SortFunc(all, func(a, c slacktest.Message) int { return strings.Compare(a.TS, c.TS) })
	out := make([]arrival, len(all))
	for i, m := range all {
		out[i] = arrival{id: m.TS, text: m.Text}
	}
	return out
}

func (b *slackPaced) text(_ *session, id string) string {
	m, _ := b.st.Message(slackChannel, id)
	return m.Text
}

func TestSlackPacing(t *testing.T) {
	runPacing(t, func(t *testing.T) pacedBus { return startSlackPaced(t) }, []scenario{
		// At one a second, any 20 in a row hold five of each session: at
		// least four of the first 20.
		{"fair and paced", func(t *testing.T, b pacedBus) { paceFair(t, b, 20, 4, 3*time.Minute) }},
		// Three of the backlog are out: the rest goes one a second.
		{"prompt first", func(t *testing.T, b pacedBus) { pacePrompt(t, b, 3) }},
		// chat.update is Tier 3, paced at 5 in 6 s: five edits go at once,
		// the other 25 wait and end as one, "v30".
		{"edits coalesce", func(t *testing.T, b pacedBus) { paceEdits(t, b, "chat.update", 8, verbEdit) }},
		{"backlog", func(t *testing.T, b pacedBus) { paceBacklog(t, b, 3) }},
	})
}

// TestSlackLimitsChecked: supervisord --check-config has provider-slack
// check its limits: a limit it has not got is named with the closest one,
// a rate that is not one is refused, and good ones pass.
func TestSlackLimitsChecked(t *testing.T) {
	section := func(limits string) string {
		return fmt.Sprintf("providers:\n  slack:\n    binary: %s\n    channel_id: %s\n    limits:\n%s",
			filepath.Join(binDir, "provider-slack"), slackChannel, limits)
	}
	env := []string{"CHATBUS_SLACK_APP_TOKEN=" + slacktest.AppToken, "CHATBUS_SLACK_BOT_TOKEN=" + slacktest.BotToken}
	for _, tc := range []struct {
		name, limits string
		code         int
		want         string
	}{
		{"ok", "      chat.postMessage: 3/3s\n      reactions.remove: off\n", 0, "ok (providers checked: slack)"},
		{"unknown", "      chat.postmessage: 1/s\n", 1, "providers.slack.limits.chat.postmessage: unknown limit; did you mean chat.postMessage?"},
		{"not a rate", "      chat.update: fast\n", 1, "providers.slack.limits.chat.update: \"fast\" is not a rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := supervisordRun(t, newProfile(t), env, "--check-config", "--config", writeConfig(t, section(tc.limits)))
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want %d with %q:\n%s%s", code, tc.code, tc.want, out, errOut)
			}
		})
	}
}
