package telegram

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// person is the user whose private chat with the bot holds the threads.
const person = int64(4242)

// privatePlatform is a stand-in whose bot has threaded mode on and that
// person started, and a platform with private_chat_id person (and no
// allowed_user_ids: the person is allowed by being the chat's).
func privatePlatform(t *testing.T) (*tgtest.Server, platform) {
	t.Helper()
	tg := tgtest.New(t)
	tg.SetThreadedMode(true)
	tg.StartBot(person)
	return tg, newPlatform(t, tg, func(s *Settings) { s.ForumChatID, s.PrivateChatID, s.AllowedUserIDs = 0, person, nil })
}

// TestPrivateChatHealth: the provider is NOT_SERVING, saying what to do,
// while the bot's threaded mode is off or the person has not started the
// bot, and SERVING once both are fixed.
func TestPrivateChatHealth(t *testing.T) {
	tg := tgtest.New(t)
	p := newPlatform(t, tg, func(s *Settings) { s.ForumChatID, s.PrivateChatID = 0, person })
	p.run(t)
	p.waitHealth(t, false, "threaded mode is off for @chatbus_test_bot, so it cannot have topics in your private chat: in @BotFather open the bot's settings and turn on Threaded Mode")
	tg.SetThreadedMode(true)
	p.waitHealth(t, false, "private_chat_id 4242 has not started @chatbus_test_bot (or blocked it): Bad Request: chat not found; open https://t.me/chatbus_test_bot and press Start")
	tg.StartBot(person)
	p.waitHealth(t, true, "")
}

// TestPrivateChatThreads: each session's topic is made in the private
// chat, messages and verbs go there, the person's messages come back with
// their thread, and a topic is reused (renamed, never reopened: private
// chats have no closing) or replaced when the person deleted it.
func TestPrivateChatThreads(t *testing.T) {
	tg, p := privatePlatform(t)
	ctx := ctxT(t)
	a := provision(t, p, provider.ProvisionRequest{Name: "A · alpha"})
	if a.Chat != strconv.FormatInt(person, 10) || a.Thread == "" {
		t.Fatalf("provisioned %+v", a)
	}
	th := threadOf(t, a.Target)
	if topics := tg.Topics(person); len(topics) != 1 || topics[0].Name != "A · alpha" {
		t.Fatalf("topics %+v", topics)
	}

	// Verbs: a 9,000-character answer in valid parts, with buttons on the
	// last; an edit; a reaction; typing.
	long := strings.Repeat("A sentence of an answer that goes on. ", 240)
	res, err := p.Send(ctx, a.Target, provider.Message{Text: long, Buttons: []provider.Button{{Label: "OK", Data: "ok"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	sent := tg.Sent(person, th)
	if len(sent) != 3 || len(res.Refs) != 3 {
		t.Fatalf("%d messages, %d refs", len(sent), len(res.Refs))
	}
	for i, m := range sent {
		if u16(m.Text) > MaxTextChars || !m.IsTopicMessage || (len(m.ReplyMarkup) > 0) != (i == 2) {
			t.Errorf("part %d: %d units, topic message %v, keyboard %s", i, u16(m.Text), m.IsTopicMessage, m.ReplyMarkup)
		}
	}
	last := strconv.Itoa(sent[2].MessageID)
	if _, err := p.Edit(ctx, a.Target, last, provider.Message{Text: "**done**"}); err != nil {
		t.Fatal(err)
	}
	if err := p.React(ctx, a.Target, last, "👍"); err != nil {
		t.Fatal(err)
	}
	if err := p.Typing(ctx, a.Target); err != nil {
		t.Fatal(err)
	}
	if got := tg.Sent(person, th); got[2].Text != "done" || len(got[2].Entities) != 1 {
		t.Errorf("edited %+v", got[2])
	}

	// Inbound: the person's message in the topic carries the thread and is
	// allowed (the chat is theirs); a stranger writing to the bot is not.
	sink := p.run(t)
	tg.PushMessage(person, th, person, "hello alpha")
	tg.PushMessage(777, 0, 777, "hello bot")
	ups := waitUpdates(t, sink, 2)
	if u := ups[0]; u.GetThread() != a.Thread || u.GetChat() != a.Chat || !u.GetAllowed() || u.GetText() != "hello alpha" {
		t.Errorf("the person's update: %v", u)
	}
	if u := ups[1]; u.GetAllowed() {
		t.Errorf("a stranger's update is allowed: %v", u)
	}

	// Closing leaves the topic open; reuse renames it without reopening.
	if err := p.CloseTarget(ctx, a.Target); err != nil {
		t.Fatal(err)
	}
	got, err := p.Provision(ctx, provider.ProvisionRequest{Name: "A · beta", Reuse: &a.Target})
	if err != nil || !got.Reused || got.Thread != a.Thread {
		t.Fatalf("reuse: %+v %v", got, err)
	}
	if n := tg.Calls("closeForumTopic") + tg.Calls("reopenForumTopic"); n != 0 {
		t.Errorf("%d close/reopen calls in a private chat", n)
	}
	if topics := tg.Topics(person); len(topics) != 1 || topics[0].Name != "A · beta" || topics[0].Closed {
		t.Fatalf("topics %+v", topics)
	}

	// Deleted by the person: calls find the thread gone, reuse makes a new one.
	tg.DeleteTopic(person, th)
	if _, err := p.Send(ctx, a.Target, provider.Message{Text: "hi"}, ""); !errors.Is(err, provider.ErrTargetGone) {
		t.Errorf("send into a deleted topic: %v", err)
	}
	got, err = p.Provision(ctx, provider.ProvisionRequest{Name: "A · beta", Reuse: &a.Target})
	if err != nil || got.Reused || got.Thread == a.Thread {
		t.Fatalf("reuse of a deleted topic: %+v %v", got, err)
	}
}

// TestPrivateChatRefusals: what Telegram refuses in a private chat reaches
// the follower as an error of the right class, saying why.
func TestPrivateChatRefusals(t *testing.T) {
	tg, p := privatePlatform(t)
	ctx := ctxT(t)
	a := provision(t, p, provider.ProvisionRequest{Name: "A · a"})
	tg.BlockBot(person, true)
	if _, err := p.Send(ctx, a.Target, provider.Message{Text: "hi"}, ""); !errors.Is(err, provider.ErrPermissionDenied) || !strings.Contains(err.Error(), "blocked by the user") {
		t.Errorf("send to a person who blocked the bot: %v", err)
	}
	tg.BlockBot(person, false)
	tg.SetThreadedMode(false)
	if _, err := p.Provision(ctx, provider.ProvisionRequest{Name: "B · b"}); !errors.Is(err, provider.ErrInvalid) {
		t.Errorf("a topic without threaded mode: %v", err)
	}
	if _, err := p.Call(ctx, a.Target, "closeForumTopic", json.RawMessage(`{}`), ""); err == nil {
		t.Error("closeForumTopic in a private chat succeeded")
	}
}

// TestPrivateChatLimits: a private chat is paced by the chat's limit,
// with no group limit.
func TestPrivateChatLimits(t *testing.T) {
	_, p := privatePlatform(t)
	var names []string
	for _, l := range p.Describe().Limits {
		names = append(names, l.Name)
	}
	if strings.Join(names, ",") != "bot,chat" {
		t.Errorf("limits %v, want bot,chat", names)
	}
}

// waitUpdates waits until sink holds n updates.
func waitUpdates(t *testing.T, sink *ackSink, n int) []*providerv1.Update {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		sink.mu.Lock()
		got := append([]*providerv1.Update(nil), sink.got...)
		sink.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %d updates, want %d", len(got), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
