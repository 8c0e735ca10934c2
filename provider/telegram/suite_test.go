package telegram

import (
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// TestContract: provider-telegram keeps the provider contract, against
// tgtest.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Target{
		Start: func(t *testing.T) providertest.Instance {
			tg := tgtest.New(t)
			tg.AddForum(forum)
			p := newPlatform(t, tg, nil)
			h := providertest.Start(t, child.Config{Name: "telegram", Platform: p.Platform, Health: p.health,
				Logger: zerolog.New(zerolog.NewTestWriter(t))})
			return providertest.InProcess(h, suiteTelegram{tg})
		},
		OutOfScope: []providertest.Call{
			{Method: "sendMessage", Params: `{"chat_id":-1002,"text":"x"}`},
			{Method: "sendMessage", Params: `{"message_thread_id":99999,"text":"x"}`},
			{Method: "sendMessage", Params: `{"text":"x","reply_parameters":{"chat_id":-1002,"message_id":3}}`},
			{Method: "editMessageText", Params: `{"inline_message_id":"abc","text":"x"}`},
		},
	})
}

// suiteTelegram acts on tgtest for the suite; the person is user 42, on
// newPlatform's allow-list.
type suiteTelegram struct{ tg *tgtest.Server }

func suiteThread(t *testing.T, th *providerv1.Target) (int64, int) {
	t.Helper()
	chat, err := strconv.ParseInt(th.GetChat(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	thread, err := strconv.Atoi(th.GetThread())
	if err != nil {
		t.Fatal(err)
	}
	return chat, thread
}

func (s suiteTelegram) Say(t *testing.T, th *providerv1.Target, text string) {
	chat, thread := suiteThread(t, th)
	s.tg.PushMessage(chat, thread, 42, text)
}

func (s suiteTelegram) Sent(t *testing.T, th *providerv1.Target) int {
	chat, thread := suiteThread(t, th)
	return len(s.tg.Sent(chat, thread))
}

func (s suiteTelegram) Fail(t *testing.T, f providertest.Fault) {
	switch f {
	case providertest.RateLimited:
		s.tg.Fail("sendMessage", tgtest.Fault{RetryAfter: 3})
	case providertest.Unavailable:
		s.tg.Fail("sendMessage", tgtest.Fault{Status: 502})
	case providertest.Revoked:
		s.tg.Fail("sendMessage", tgtest.Fault{Status: 401})
	}
}
