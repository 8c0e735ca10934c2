package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// Forum topics have a lifecycle (server/hub/topics.go): reused by fresh
// followers, closed once their binding has been offline a while, replaced
// when a person deletes them. These tests run the real supervisord and
// provider-telegram against the Bot API stand-in and count at it.

// stop ends a follower's session as a session that exits does (its
// stream, then Unregister): its binding goes offline.
func (fl *follower) stop(t *testing.T) {
	t.Helper()
	fl.cancel()
	err := <-fl.done
	fl.done <- err // for the cleanup
	if err := fl.f.Close(context.Background()); err != nil {
		t.Fatalf("close: %v", err)
	}
}

// topic returns the stand-in's topic thread of the forum, failing the test
// if there is none.
func (b *tgBus) topic(t *testing.T, thread int) tgtest.Topic {
	t.Helper()
	for _, tp := range b.tg.Topics(forumChat) {
		if tp.MessageThreadID == thread {
			return tp
		}
	}
	t.Fatalf("no topic %d in %+v", thread, b.tg.Topics(forumChat))
	return tgtest.Topic{}
}

// heldTexts returns the texts of the updates held for a binding.
func (b *tgBus) heldTexts(t *testing.T, key string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := b.c.Admin.ListUpdates(ctx, &chatbusv1.ListUpdatesRequest{Binding: key})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range resp.GetUpdates() {
		out = append(out, u.GetText())
	}
	return out
}

// TestTopicsReusedByFreshFollowers: twelve sessions, never more than two
// at once, leave two topics, each renamed for the session that has it now.
// A session's unread message stays with its own binding when a newcomer
// takes its topic over; the newcomer gets only what comes after.
func TestTopicsReusedByFreshFollowers(t *testing.T) {
	b := startTelegramBus(t, "")
	var live []*follower
	for i := range 12 {
		if len(live) == 2 {
			live[0].stop(t)
			live = live[1:]
		}
		live = append(live, b.follow(t, fmt.Sprint("manual:", i), fmt.Sprint("/home/u/p", i)))
	}
	if n := b.tg.TopicsCreated(forumChat); n != 2 {
		t.Fatalf("%d topics created for 12 sessions, at most 2 at once; want 2", n)
	}
	names := map[string]bool{}
	for _, tp := range b.tg.Topics(forumChat) {
		names[tp.Name] = true
		if tp.Closed {
			t.Errorf("topic %+v is closed", tp)
		}
	}
	if !names["A · p10"] || !names["B · p11"] || len(names) != 2 {
		t.Errorf("topics %v, want A · p10 and B · p11", names)
	}

	// The person writes to a session that has just gone; a newcomer takes
	// its topic.
	gone := live[0]
	th := int(gone.thread())
	gone.stop(t)
	b.tg.PushMessage(forumChat, th, allowedUser, "are you there?")
	testkit.Eventually(t, "the message held for the gone session", func() bool {
		return strings.Join(b.heldTexts(t, "manual:10"), "|") == "are you there?"
	})
	taker := b.follow(t, "manual:taker", "/home/u/taker")
	if int(taker.thread()) != th || b.tg.TopicsCreated(forumChat) != 2 {
		t.Fatalf("newcomer got topic %d (%d created), want the gone session's %d", taker.thread(), b.tg.TopicsCreated(forumChat), th)
	}
	if name := b.topic(t, th).Name; name != "A · taker" {
		t.Errorf("reused topic named %q, want A · taker", name)
	}
	old := b.binding(t, "manual:10")
	if old.GetLastAction() != "superseded" || old.GetBinding().GetTarget().GetThread() != "" || old.GetJournal().GetUnacked() != 1 {
		t.Errorf("the gone session's binding %+v, want superseded, no thread, its message held", old)
	}
	b.tg.PushMessage(forumChat, th, allowedUser, "hello newcomer")
	taker.waitTexts(t, "hello newcomer")

	// The gone session comes back: a fresh thread, and its message.
	back := b.follow(t, "manual:10", "/home/u/p10")
	back.waitTexts(t, "are you there?")
	if back.f.Registered().GetOrigin() != chatbusv1.Origin_ORIGIN_FRESH || int(back.thread()) == th {
		t.Errorf("came back with %v in topic %d", back.f.Registered().GetOrigin(), back.thread())
	}
}

// TestTopicsClosedAfterOffline: the topic of a session gone for
// close_offline_after is closed once; it is reopened when the session
// comes back, and when a person writes in it.
func TestTopicsClosedAfterOffline(t *testing.T) {
	b := startTelegramBus(t, "close_offline_after: 1s\n")
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	beta := b.follow(t, "manual:2", "/home/u/beta")
	ta, tb := int(alpha.thread()), int(beta.thread())
	alpha.stop(t)
	beta.stop(t)
	testkit.Eventually(t, "both topics closed", func() bool { return b.topic(t, ta).Closed && b.topic(t, tb).Closed })
	if n := b.tg.Calls("closeForumTopic"); n != 2 {
		t.Errorf("closeForumTopic called %d times, want 2", n)
	}

	// alpha's session comes back: its topic, open again.
	again := b.follow(t, "manual:1", "/home/u/alpha")
	if again.f.Registered().GetOrigin() != chatbusv1.Origin_ORIGIN_REUSE || int(again.thread()) != ta || b.topic(t, ta).Closed {
		t.Fatalf("came back with %v to topic %d (closed %v), want REUSE of %d, open",
			again.f.Registered().GetOrigin(), again.thread(), b.topic(t, ta).Closed, ta)
	}

	// A person writes in beta's closed topic: it is reopened, and the
	// message waits for beta.
	b.tg.PushMessage(forumChat, tb, allowedUser, "wake up")
	testkit.Eventually(t, "beta's topic reopened", func() bool { return !b.topic(t, tb).Closed })
	if got := b.heldTexts(t, "manual:2"); strings.Join(got, "|") != "wake up" {
		t.Errorf("held for beta %q", got)
	}
	// ... and closed again once beta has been gone long enough.
	testkit.Eventually(t, "beta's topic closed again", func() bool { return b.topic(t, tb).Closed })
	if b.topic(t, ta).Closed {
		t.Error("alpha's topic was closed while alpha is back")
	}
}

// TestTopicDeletedByAPerson: a call into a topic a person deleted gives
// the binding a new topic and lands there, once; the follower learns its
// new thread; the binding's journal goes on.
func TestTopicDeletedByAPerson(t *testing.T) {
	b := startTelegramBus(t, "")
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	old := int(alpha.thread())
	b.tg.PushMessage(forumChat, old, allowedUser, "before")
	alpha.waitTexts(t, "before")

	b.tg.DeleteTopic(forumChat, old)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := alpha.f.Call(ctx, "sendMessage", []byte(`{"text":"still here"}`), "gone-1")
	if err != nil {
		t.Fatalf("sendMessage into a deleted topic: %v, want it made in a new topic", err)
	}
	topics := b.tg.Topics(forumChat)
	if len(topics) != 1 || topics[0].MessageThreadID == old || topics[0].Name != "A · alpha" || b.tg.TopicsCreated(forumChat) != 2 {
		t.Fatalf("topics %+v (%d created), want one new A · alpha", topics, b.tg.TopicsCreated(forumChat))
	}
	nt := topics[0].MessageThreadID
	if sent := b.tg.Sent(forumChat, nt); len(sent) != 1 || sent[0].Text != "still here" || !strings.Contains(string(res), strconv.Itoa(sent[0].MessageID)) {
		t.Fatalf("sent into the new topic %+v (result %s), want the message once", sent, res)
	}
	// The same key again is answered from its record: nothing more sent.
	if _, err := alpha.f.Call(ctx, "sendMessage", []byte(`{"text":"still here"}`), "gone-1"); err != nil || len(b.tg.Sent(forumChat, nt)) != 1 {
		t.Errorf("repeat of the key: %v, %d sent", err, len(b.tg.Sent(forumChat, nt)))
	}

	// The follower is told: its binding names the new topic.
	select {
	case bnd := <-alpha.f.BindingChanges():
		if bnd.GetTarget().GetThreadId() != int64(nt) {
			t.Errorf("told of thread %d, want %d", bnd.GetTarget().GetThreadId(), nt)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the follower was not told of its new thread")
	}
	if got := alpha.f.Binding().GetTarget().GetThreadId(); got != int64(nt) {
		t.Errorf("Binding() names thread %d, want %d", got, nt)
	}
	bi := b.binding(t, "manual:1")
	if bi.GetLastAction() != "thread-replaced" || bi.GetBinding().GetTarget().GetThreadId() != int64(nt) || !bi.GetLive() {
		t.Errorf("binding %+v", bi)
	}
	evs, err := b.c.Admin.ListEvents(ctx, &chatbusv1.ListEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	replaced := 0
	for _, ev := range evs.GetEvents() {
		if ev.GetAttrs()["change"] == "thread_replaced" && ev.GetAttrs()["binding"] == "manual:1" {
			replaced++
		}
	}
	if replaced != 1 {
		t.Errorf("%d thread_replaced events, want 1", replaced)
	}

	// The same binding, the same journal: the new topic's messages follow.
	b.tg.PushMessage(forumChat, nt, allowedUser, "after")
	alpha.waitTexts(t, "before", "after")
	alpha.mu.Lock()
	seqs := []uint64{alpha.got[0].GetSeq(), alpha.got[1].GetSeq()}
	alpha.mu.Unlock()
	if seqs[1] != seqs[0]+1 {
		t.Errorf("seqs %v: the journal did not go on", seqs)
	}
}

// TestTopicClosedByAPerson: a person closing a topic is seen (the
// forum_topic_closed service message), so a person writing in it later
// reopens it; reopened by a person, it is left alone.
func TestTopicClosedByAPerson(t *testing.T) {
	b := startTelegramBus(t, "")
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	th := int(alpha.thread())

	b.tg.CloseTopicBy(forumChat, th, allowedUser)
	alpha.waitTexts(t, "") // the service message is an update of the thread
	b.tg.PushMessage(forumChat, th, allowedUser, "one more thing")
	alpha.waitTexts(t, "", "one more thing")
	testkit.Eventually(t, "the topic reopened", func() bool { return !b.topic(t, th).Closed })
	if n := b.tg.Calls("reopenForumTopic"); n != 1 {
		t.Errorf("reopenForumTopic called %d times, want 1", n)
	}

	b.tg.CloseTopicBy(forumChat, th, allowedUser)
	b.tg.ReopenTopicBy(forumChat, th, allowedUser)
	b.tg.PushMessage(forumChat, th, allowedUser, "and another")
	alpha.waitTexts(t, "", "one more thing", "", "", "and another")
	// The supervisor has seen the reopening before the message (one
	// batch or two, in order): nothing to reopen.
	if n := b.tg.Calls("reopenForumTopic"); n != 1 {
		t.Errorf("reopenForumTopic called %d times, want still 1", n)
	}
}

// TestCloseOfflineAfterConfig: close_offline_after takes a duration or
// off; 0 is refused, naming the way to turn it off.
func TestCloseOfflineAfterConfig(t *testing.T) {
	p := newProfile(t)
	for _, tc := range []struct {
		name, value string
		ok          bool
		want        string
	}{
		{name: "a duration", value: "12h", ok: true},
		{name: "off", value: "off", ok: true},
		{name: "zero", value: "0s", want: "close_offline_after: 0s is out of range: more than 0, or off to never close threads"},
		{name: "not a duration", value: "soon", want: `close_offline_after: "soon" is not a duration (use e.g. 24h, 30m, or off)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, "close_offline_after: "+tc.value+"\n")
			out, errOut, code := supervisordRun(t, p, nil, "--check-config", "--config", cfg)
			if tc.ok != (code == 0) || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("exit %d\n%s%s\nwant ok=%v with %q", code, out, errOut, tc.ok, tc.want)
			}
		})
	}
}

// TestTopicWrittenInBeforeRegisterReturns: a person writes in a new topic
// the moment it appears, while the supervisor still waits for Telegram's
// answer to createForumTopic (so before the follower's Register returns,
// and before its binding is stored). The message is journalled then (the
// stand-in sees it confirmed) and reaches the follower first, before what
// is written after; nothing is left unrouted.
func TestTopicWrittenInBeforeRegisterReturns(t *testing.T) {
	b := startTelegramBus(t, "")
	took, release := b.tg.HoldAnswer("createForumTopic")
	defer release()
	type registered struct {
		f   *client.Follower
		err error
	}
	regd := make(chan registered, 1)
	go func() {
		f, err := registerOn(b.c, "", "manual:early", "/home/u/early")
		regd <- registered{f, err}
	}()
	testkit.Recv(t, took, "createForumTopic to take effect") // the topic exists; the provider has not heard back
	topics := b.tg.Topics(forumChat)
	if len(topics) != 1 {
		t.Fatalf("topics %+v, want the one being made", topics)
	}
	id := b.tg.PushMessage(forumChat, topics[0].MessageThreadID, allowedUser, "first, in the new topic")
	// Journalled: the provider confirms only what the supervisor has.
	testkit.Eventually(t, fmt.Sprintf("update %d confirmed", id), func() bool { return b.tg.Confirmed() >= id })
	release()
	r := testkit.Recv(t, regd, "Register to return")
	if r.err != nil {
		t.Fatalf("register: %v", r.err)
	}
	fl := attach(t, r.f)
	b.tg.PushMessage(forumChat, int(fl.thread()), allowedUser, "second")
	fl.waitTexts(t, "first, in the new topic", "second")
	if out, _, code := b.busctl("updates", "--unrouted"); code != 0 || strings.Contains(out, "first, in the new topic") {
		t.Errorf("busctl updates --unrouted (exit %d):\n%s", code, out)
	}
}
