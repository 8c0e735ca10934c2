package e2e

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// The outbound scheduler against a Telegram stand-in that enforces
// Telegram's limits (tgtest.TelegramLimits: 30 calls a second, 3 in 3 s
// in a chat, 20 a minute in a group, 429 with retry_after beyond them),
// with the supervisor's default settings (the scenarios are in
// pacing_helpers_test.go). The subtests run in parallel: the first takes
// a minute of real time, which is what 40 messages in one group take at
// 20 a minute.

// tgPaced is a supervisord on a rate-limited Telegram stand-in.
type tgPaced struct {
	*tgBus
	oneProvider
}

func startTelegramPaced(t *testing.T) *tgPaced {
	tg := tgtest.New(t, tgtest.WithRateLimits(tgtest.TelegramLimits))
	tg.AddForum(forumChat)
	b := startBus(t, newProfile(t), telegramConfig(tg, ""))
	b.tg = tg
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetOutbound() != nil && len(pi.GetOutbound().GetLimits()) == 3
	}, "RUNNING with Telegram's limits")
	return &tgPaced{tgBus: b, oneProvider: oneProvider{b.c}}
}

func (b *tgPaced) limited() int { return b.tg.RateLimited() }

func (b *tgPaced) calls(method string) int { return b.tg.Calls(method) }

func topic(s *session) int {
	n, _ := strconv.Atoi(s.thread())
	return n
}

// arrivals: message ids grow per chat.
func (b *tgPaced) arrivals(ss ...*session) []arrival {
	var all []botapi.Message
	for _, s := range ss {
		all = append(all, b.tg.Sent(forumChat, topic(s))...)
	}
	slices.SortFunc(all, func(a, c botapi.Message) int { return a.MessageID - c.MessageID })
	out := make([]arrival, len(all))
	for i, m := range all {
		out[i] = arrival{id: strconv.Itoa(m.MessageID), text: m.Text}
	}
	return out
}

func (b *tgPaced) text(s *session, id string) string {
	for _, m := range b.tg.Sent(forumChat, topic(s)) {
		if strconv.Itoa(m.MessageID) == id {
			return m.Text
		}
	}
	return ""
}

func TestTelegramPacing(t *testing.T) {
	runPacing(t, func(t *testing.T) pacedBus { return startTelegramPaced(t) }, []scenario{
		// The first 20 accepted (the group's minute) hold at least four
		// of each session.
		{"fair and paced", func(t *testing.T, b pacedBus) { paceFair(t, b, 20, 4, 3*time.Minute) }},
		// Two bursts of the chat's three are out when the prompt comes:
		// the next opens in about three seconds, with 24 messages waiting.
		{"prompt first", func(t *testing.T, b pacedBus) { pacePrompt(t, b, 6) }},
		{"edits coalesce", func(t *testing.T, b pacedBus) { paceEdits(t, b, "editMessageText", 8, verbEdit) }},
		{"typing", func(t *testing.T, b pacedBus) { paceTyping(t, b, "sendChatAction", 3, "") }},
		// Raw calls are coalesced as the verbs are: the provider declares
		// editMessageText as overwriting its message, sendChatAction as
		// lasting.
		{"raw edits coalesce", func(t *testing.T, b pacedBus) {
			paceEdits(t, b, "editMessageText", 8, rawCall("editMessageText", func(id, text string) string {
				return fmt.Sprintf(`{"message_id":%s,"text":%q}`, id, text)
			}))
		}},
		{"raw typing", func(t *testing.T, b pacedBus) {
			paceTyping(t, b, "sendChatAction", 3, `{"action":"typing"}`)
		}},
		{"backlog", func(t *testing.T, b pacedBus) { paceBacklog(t, b, 3) }},
	})
}
