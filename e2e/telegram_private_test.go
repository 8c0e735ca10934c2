package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// Telegram in the bot's private chat with a person (private_chat_id, the
// bot's threaded mode): each session a topic of that chat. The person is
// allowedUser; their private chat's id is their user id.

// startPrivateBus starts the stand-in, set up by setup (nil: the bot's
// threaded mode on and the person having started it), and a supervisord
// whose telegram provider has private_chat_id.
func startPrivateBus(t *testing.T, extra string, setup func(*tgtest.Server)) *tgBus {
	t.Helper()
	tg := tgtest.New(t)
	if setup == nil {
		setup = func(tg *tgtest.Server) {
			tg.SetThreadedMode(true)
			tg.StartBot(allowedUser)
		}
	}
	setup(tg)
	p := newProfile(t)
	d, c, path := p.serveConfigWith(filepath.Join(binDir, "supervisord"),
		telegramConfigIn(tg, fmt.Sprintf("private_chat_id: %d", allowedUser), extra))
	b := &tgBus{profile: p, d: d, c: c, configPath: path, tg: tg}
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING
	}, "RUNNING")
	return b
}

// privateSent waits until the bot has sent n messages into the private
// chat's topic thread.
func (b *tgBus) privateSent(t *testing.T, thread, n int) []string {
	t.Helper()
	var out []string
	testkit.Eventually(t, fmt.Sprintf("%d messages in topic %d", n, thread), func() bool {
		out = out[:0]
		for _, m := range b.tg.Sent(allowedUser, thread) {
			out = append(out, m.Text)
		}
		return len(out) >= n
	})
	return out
}

// TestTelegramPrivateChat: sessions registered against a private-chat
// configuration get topics in the person's private chat with the bot,
// and everything a forum does holds there: inbound routing, reply, edit,
// react, buttons, a 9,000-character answer in valid parts, a session's
// reload keeping its topic and what arrived meanwhile, and a doctor
// restart of the provider losing nothing.
func TestTelegramPrivateChat(t *testing.T) {
	b := startPrivateBus(t, "", nil)
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING")
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	beta := b.follow(t, "manual:2", "/home/u/beta")
	for _, fl := range []*follower{alpha, beta} {
		if r := fl.f.Registered(); r.GetOrigin() != chatbusv1.Origin_ORIGIN_FRESH || r.GetBinding().GetTarget().GetChatId() != allowedUser {
			t.Fatalf("registration %v", r)
		}
	}
	if topics := b.tg.Topics(allowedUser); len(topics) != 2 || topics[0].Name != "A · alpha" || topics[1].Name != "B · beta" {
		t.Fatalf("topics in the private chat %+v", topics)
	}

	// Inbound: each topic's messages reach exactly its session; what the
	// person writes outside the topics is unrouted.
	b.tg.PushMessage(allowedUser, int(alpha.thread()), allowedUser, "to alpha")
	b.tg.PushMessage(allowedUser, int(beta.thread()), allowedUser, "to beta")
	b.tg.PushMessage(allowedUser, 0, allowedUser, "outside the topics")
	alpha.waitTexts(t, "to alpha")
	beta.waitTexts(t, "to beta")
	out, _, code := b.busctl("updates", "--unrouted")
	if code != 0 || !strings.Contains(out, "outside the topics") {
		t.Errorf("updates --unrouted (exit %d):\n%s", code, out)
	}

	// Reply, edit, react, buttons.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	th := int(alpha.thread())
	asked := alpha.got0(t).GetReferences()[0].GetId()
	ids, err := alpha.f.Send(ctx, client.Message{Text: "On **it**.", ReplyTo: asked, Buttons: []client.Button{{Label: "Stop", Data: "stop"}}}, "reply-1")
	if err != nil {
		t.Fatal(err)
	}
	sent := b.tg.Sent(allowedUser, th)
	if len(sent) != 1 || sent[0].Text != "On it." || sent[0].ReplyToMessage == nil || strconv.Itoa(sent[0].ReplyToMessage.MessageID) != asked ||
		len(sent[0].ReplyMarkup) == 0 || !sent[0].IsTopicMessage {
		t.Fatalf("reply %+v", sent)
	}
	if err := alpha.f.Edit(ctx, ids[0], "On it, *still*.", nil, "edit-1"); err != nil {
		t.Fatal(err)
	}
	if err := alpha.f.React(ctx, asked, "👍", "react-1"); err != nil {
		t.Fatal(err)
	}
	if got := b.tg.Sent(allowedUser, th); got[0].Text != "On it, still." || len(got[0].ReplyMarkup) != 0 {
		t.Errorf("edited %+v", got[0])
	}
	msgID, _ := strconv.Atoi(ids[0])
	_, query := b.tg.PushCallbackQuery(allowedUser, msgID, allowedUser, "stop")
	alpha.waitTexts(t, "to alpha", "stop")
	if err := alpha.f.Answer(ctx, query, "stopping", "answer-1"); err != nil {
		t.Fatal(err)
	}
	if text, ok := b.tg.CallbackAnswer(query); !ok || text != "stopping" {
		t.Errorf("callback answered %v %q", ok, text)
	}

	// A 9,000-character answer: three messages, each valid.
	long := strings.Repeat("A sentence of a long answer goes on. ", 250)[:9000]
	ids, err = alpha.f.Send(ctx, client.Message{Text: long}, "long-1")
	if err != nil || len(ids) != 3 {
		t.Fatalf("long answer: %v %v", ids, err)
	}
	texts := b.privateSent(t, th, 4)
	if !slices.Equal(strings.Fields(strings.Join(texts[1:], " ")), strings.Fields(long)) {
		t.Errorf("the parts do not make the answer: %d, %d, %d characters", len(texts[1]), len(texts[2]), len(texts[3]))
	}
	for i, tx := range texts[1:] {
		if n := len(utf16.Encode([]rune(tx))); n > 4096 {
			t.Errorf("part %d: %d UTF-16 units", i+1, n)
		}
	}

	// A reload: the session suspends, the person writes, its successor
	// gets the same topic and that message.
	alpha.cancel()
	<-alpha.done
	alpha.done <- nil
	h, err := alpha.f.Suspend(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.tg.PushMessage(allowedUser, th, allowedUser, "while reloading")
	succ, err := b.c.Register(ctx, client.Registration{ProfileKey: "manual:1", Cwd: "/home/u/alpha", InstanceID: "manual:1-2", HandoffToken: h.Token})
	if err != nil {
		t.Fatal(err)
	}
	again := attach(t, succ)
	if r := succ.Registered(); r.GetOrigin() != chatbusv1.Origin_ORIGIN_HANDOFF || int(again.thread()) != th {
		t.Fatalf("after the reload: %v", r)
	}
	again.waitTexts(t, "while reloading")

	// A doctor restart: what the person writes meanwhile arrives, once;
	// the session's next answer goes out.
	old := b.provider(t)
	outR, errOut, code := b.busctl("doctor", "restart", "telegram", "--deadline", "40s")
	if code != 0 || !strings.Contains(outR, "outcome: restarted") {
		t.Fatalf("doctor restart: exit %d\n%s\n%s", code, outR, errOut)
	}
	b.tg.PushMessage(allowedUser, th, allowedUser, "after the restart")
	again.waitTexts(t, "while reloading", "after the restart")
	if _, err := succ.Send(ctx, client.Message{Text: "still here"}, "after-1"); err != nil {
		t.Fatal(err)
	}
	if now := b.provider(t); now.GetPid() == old.GetPid() {
		t.Errorf("the provider was not restarted: pid %d", now.GetPid())
	}
	if texts := b.privateSent(t, th, 5); texts[4] != "still here" {
		t.Errorf("after the restart: %q", texts)
	}
	if n := len(b.tg.Topics(allowedUser)); n != 2 {
		t.Errorf("%d topics, want 2", n)
	}
	if n := b.tg.Calls("closeForumTopic") + b.tg.Calls("reopenForumTopic"); n != 0 {
		t.Errorf("%d close/reopen calls in a private chat", n)
	}
}

// got0 is the first update the follower got.
func (fl *follower) got0(t *testing.T) *chatbusv1.Update {
	t.Helper()
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if len(fl.got) == 0 {
		t.Fatal("no update")
	}
	return fl.got[0]
}

// TestTelegramPrivateChatHealth: threaded mode off, then a person who
// never started the bot: the provider is NOT_SERVING saying what to do,
// and SERVING by itself once both are done.
func TestTelegramPrivateChatHealth(t *testing.T) {
	b := startPrivateBus(t, "    chat_recheck: 100ms\n", func(*tgtest.Server) {})
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return !pi.GetServing() && strings.Contains(pi.GetLastError(), "threaded mode is off") && strings.Contains(pi.GetLastError(), "turn on Threaded Mode")
	}, "NOT_SERVING: threaded mode off")
	b.tg.SetThreadedMode(true)
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return !pi.GetServing() && strings.Contains(pi.GetLastError(), fmt.Sprintf("private_chat_id %d has not started", allowedUser)) &&
			strings.Contains(pi.GetLastError(), "press Start")
	}, "NOT_SERVING: never started")
	out, _, _ := b.busctl("providers")
	contains(t, "busctl providers", out, "press Start")
	b.tg.StartBot(allowedUser)
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING once the bot is started")
}

// TestCheckConfigOnlinePrivateChat: supervisord --check-config --online
// names the private chat's problems before anything starts (threaded mode
// off, then a person who never started the bot) and says ok once both
// are fixed; plain --check-config never contacts Telegram.
func TestCheckConfigOnlinePrivateChat(t *testing.T) {
	tg := tgtest.New(t)
	p := newProfile(t)
	path := writeConfig(t, telegramConfigIn(tg, fmt.Sprintf("private_chat_id: %d", allowedUser), ""))
	check := func(wantCode int, want string, args ...string) {
		t.Helper()
		out, errOut, code := supervisordRun(t, p, nil, append([]string{"--check-config", "--config", path}, args...)...)
		if code != wantCode || !strings.Contains(out, want) {
			t.Fatalf("%v: exit %d, want %d with %q\n%s%s", args, code, wantCode, want, out, errOut)
		}
	}
	check(1, "providers.telegram.private_chat_id: threaded mode is off for @chatbus_test_bot", "--online")
	tg.SetThreadedMode(true)
	check(1, fmt.Sprintf("providers.telegram.private_chat_id: private_chat_id %d has not started @chatbus_test_bot", allowedUser), "--online")
	tg.StartBot(allowedUser)
	check(0, "ok (providers checked: telegram)", "--online")
	calls := tg.Calls("getMe")
	tg.SetThreadedMode(false)
	check(0, "ok (providers checked: telegram)")
	if n := tg.Calls("getMe") - calls; n != 0 {
		t.Errorf("--check-config without --online called getMe %d times", n)
	}
}
