package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
)

// These tests run the real supervisord and provider-slack against the
// Slack stand-in and count at it: what a person sees of the message
// verbs (mrkdwn, Block Kit buttons, reactions by name, ephemeral answers),
// a thread whose root a person deleted, and a bot that is not in its
// channel.

// liveRoots are the bot's thread roots still in the channel (its
// top-level messages not deleted).
func (b *slackBus) liveRoots() []slacktest.Message { return b.st.Sent(slackChannel, "") }

// nextBinding waits for the follower to be told of a new thread.
func (fl *follower) nextBinding(t *testing.T) *chatbusv1.Binding {
	t.Helper()
	select {
	case bnd := <-fl.f.BindingChanges():
		return bnd
	case <-time.After(30 * time.Second):
		t.Fatal("the follower was not told of its new thread")
		return nil
	}
}

// TestSlackDeletedRoot: a person deletes a thread's root before anyone
// replied. Slack would post a reply with that thread_ts at the channel's
// top level (and answer ok); its message_deleted event for the root comes
// first, and the supervisor gives the binding a new root at once and
// tells the follower, before it writes again: the next call lands in the
// new thread once, threaded, and no copy is ever posted at the channel's
// top level (nothing to take back). Both a raw chat.postMessage and the
// send verb. On f923650 the event was not used: the follower kept the
// dead thread until its next call, which Slack un-threaded.
func TestSlackDeletedRoot(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	steps := []struct {
		name, key, dir string
		send           func(f *client.Follower) ([]string, error)
		want           string // the text in the new thread
	}{
		{"raw chat.postMessage", "manual:1", "/home/u/alpha", func(f *client.Follower) ([]string, error) {
			res, err := f.Call(ctx, "chat.postMessage", []byte(`{"text":"still here"}`), "gone-1")
			var ans struct {
				TS string `json:"ts"`
			}
			json.Unmarshal(res, &ans)
			return []string{ans.TS}, err
		}, "still here"},
		{"send verb", "manual:2", "/home/u/beta", func(f *client.Follower) ([]string, error) {
			return f.Send(ctx, client.Message{Text: "still **here**"}, "gone-2")
		}, "still *here*"},
	}
	// Both threads first: a follower that ends leaves its thread to the
	// next one, and that thread has replies.
	fls := make([]*follower, len(steps))
	for i, st := range steps {
		fls[i] = b.follow(t, st.key, st.dir)
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			fl := fls[i]
			old := slackThread(fl)
			name := strings.TrimPrefix(st.dir, "/home/u/")
			deletes := b.st.Calls("chat.delete")
			b.st.DeleteMessage(slackChannel, old)
			// Told before it writes again.
			bnd := fl.nextBinding(t)
			ids, err := st.send(fl.f)
			if err != nil {
				t.Fatalf("into a thread whose root was deleted: %v, want it made in a new thread", err)
			}
			nt := b.rootOf(t, name)
			if roots := b.liveRoots(); len(roots) != len(steps) {
				t.Errorf("roots %+v, want one per follower: a stray message at the channel's top level?", roots)
			}
			if nt == old {
				t.Fatalf("the root %s was deleted, yet it is the thread", old)
			}
			sent := b.st.Sent(slackChannel, nt)
			if len(sent) != 1 || sent[0].Text != st.want || !slices.Equal(ids, []string{sent[0].TS}) {
				t.Fatalf("new thread holds %+v (ids %v), want %q once", sent, ids, st.want)
			}
			if n := b.st.Calls("chat.delete") - deletes; n != 0 {
				t.Errorf("chat.delete called %d times, want none: no stray reply was posted", n)
			}
			if bnd.GetTarget().GetThread() != nt {
				t.Errorf("told of thread %q, want %q", bnd.GetTarget().GetThread(), nt)
			}
			bi := b.binding(t, st.key)
			if bi.GetLastAction() != "thread-replaced" || bi.GetBinding().GetTarget().GetThread() != nt {
				t.Errorf("binding %+v", bi)
			}
			// The new thread is the follower's: a person's reply reaches it.
			b.st.PostMessage(slackChannel, slackPerson, "after "+st.name, nt)
			fl.waitTexts(t, "after "+st.name)
		})
	}
}

// lastIn returns the last message of thread whose text contains sub.
func (b *slackBus) lastIn(thread, sub string) (slacktest.Message, bool) {
	msgs := b.st.Sent(slackChannel, thread)
	for i := len(msgs) - 1; i >= 0; i-- {
		if strings.Contains(msgs[i].Text, sub) {
			return msgs[i], true
		}
	}
	return slacktest.Message{}, false
}

// refID returns the id of the first reference of kind in an update line.
func refID(u map[string]any, kind string) string {
	refs, _ := u["references"].([]any)
	for _, r := range refs {
		m, _ := r.(map[string]any)
		if m["kind"] == kind {
			id, _ := m["id"].(string)
			return id
		}
	}
	return ""
}

// rootOf waits for the bot's root message named "<slot> · name" and
// returns its ts: the thread.
func (b *slackBus) rootOf(t *testing.T, name string) string {
	t.Helper()
	var ts string
	testkit.Eventually(t, "the root of "+name, func() bool {
		for _, m := range b.liveRoots() {
			if strings.HasSuffix(m.Text, " · "+name) {
				ts = m.TS
				return true
			}
		}
		return false
	})
	return ts
}

// TestSlackFollowVerbs: busctl follow on Slack. A plain line is a message
// in the thread, Markdown arrives as mrkdwn; the verbs as JSON lines:
// react by emoji (a name at Slack), buttons as Block Kit whose press comes
// back as a callback_query with its data, answered with an ephemeral
// message, and an edit that removes the buttons. On main (before the
// Slack verbs) the plain line was refused: Slack had no send verb.
func TestSlackFollowVerbs(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{})
	fl := b.startFollow(t, sessionDir(t, "shelly"), "--profile-key", "shell:slack")
	reg := fl.next("registered")
	if reg["platform"] != "slack" || !slices.Equal(messageIDs(reg["verbs"]), []string{"send", "edit", "react", "answer"}) {
		t.Fatalf("registered %v", reg)
	}
	thread := b.rootOf(t, "shelly")

	lines := []struct{ in, want string }{
		{"hello from the shell", "hello from the shell"},
		{"Run **make test** then `go vet`.", "Run *make test* then `go vet`."},
	}
	for i, l := range lines {
		fl.send(l.in)
		res := fl.next("result")
		ids := messageIDs(res["message_ids"])
		if res["line"] != float64(i+1) || len(ids) != 1 {
			t.Fatalf("result %v", res)
		}
		if m, ok := b.st.Message(slackChannel, ids[0]); !ok || m.Text != l.want || m.ThreadTS != thread {
			t.Errorf("line %q arrived as %+v, want %q in the thread", l.in, m, l.want)
		}
	}

	b.st.PostMessage(slackChannel, slackPerson, "what now?", thread)
	u := fl.next("update")
	question := refID(u, "message")
	if u["text"] != "what now?" || u["thread"] != thread || question == "" {
		t.Fatalf("update %v", u)
	}
	fl.send(`{"verb":"react","message_id":"` + question + `","emoji":"👀"}`)
	fl.next("result")
	if m, _ := b.st.Message(slackChannel, question); !slices.Equal(m.Reactions["eyes"], []string{slacktest.BotUserID}) {
		t.Errorf("reactions %v, want the bot's eyes", m.Reactions)
	}
	fl.send(`{"verb":"react","message_id":"` + question + `","emoji":"not an emoji"}`)
	if e := fl.next("error"); e["code"] != "InvalidArgument" {
		t.Errorf("react with no emoji: %v", e)
	}

	fl.send(`{"verb":"send","text":"Ship **it**?","buttons":[{"label":"Yes","data":"ship:yes"},{"label":"No","data":"ship:no"}]}`)
	ids := messageIDs(fl.next("result")["message_ids"])
	asked, _ := b.st.Message(slackChannel, ids[0])
	if bs := asked.Buttons(); asked.Text != "Ship *it*?" || len(bs) != 2 || bs[0].Label != "Yes" || bs[1].Value != "ship:no" {
		t.Fatalf("the question %+v with buttons %+v", asked, bs)
	}
	b.st.PressButton(slackChannel, asked.TS, slackPerson, "", "ship:yes")
	press := fl.next("update")
	interaction := refID(press, "interaction")
	if press["kind"] != "callback_query" || press["text"] != "ship:yes" || interaction == "" || refID(press, "message") != asked.TS {
		t.Fatalf("press %v", press)
	}
	fl.send(`{"verb":"answer","interaction_id":"` + interaction + `","text":"shipping"}`)
	fl.next("result")
	if eph := b.st.Ephemeral(slackChannel); len(eph) != 1 || eph[0].Text != "shipping" || eph[0].User != slackPerson || eph[0].ThreadTS != thread {
		t.Errorf("ephemeral %+v", eph)
	}
	fl.send(`{"verb":"edit","message_id":"` + asked.TS + `","text":"Shipped."}`)
	fl.next("result")
	if m, _ := b.st.Message(slackChannel, asked.TS); m.Text != "Shipped." || len(m.Buttons()) != 0 {
		t.Errorf("after the edit %+v (buttons %+v)", m, m.Buttons())
	}
	fl.send(`{"verb":"typing"}`)
	if e := fl.next("error"); !strings.Contains(fmt.Sprint(e["error"]), "slack has no typing verb") {
		t.Errorf("typing on Slack: %v", e)
	}
}

// TestSlackMCP: chatbus-mcp on Slack through the MCP SDK's client: reply
// (mrkdwn), edit_message, react (an emoji, by name at Slack) and a
// permission prompt with Block Kit buttons whose press answers it. On
// main every tool failed: Slack had no verbs.
func TestSlackMCP(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{})
	s := b.startMCP(t, "alpha", sessionDir(t, "alpha"), "test:alpha")
	thread := b.rootOf(t, "alpha")

	b.st.PostMessage(slackChannel, slackPerson, "hello alpha", thread)
	in := s.waitNote(0, "hello alpha", func(n mcpNote) bool { return n.content() == "hello alpha" })
	if in.meta("platform") != "slack" || in.meta("thread_id") != thread {
		t.Errorf("note %+v", in.Params)
	}
	inboundID := in.meta("message_id")

	res := s.callTool("reply", map[string]any{"text": "**Done**: see `main.go`.", "reply_to": inboundID})
	if res.IsError {
		t.Fatalf("reply: %s", res.text())
	}
	replyID := messageIDs(res.StructuredContent["message_ids"])[0]
	if m, _ := b.st.Message(slackChannel, replyID); m.Text != "*Done*: see `main.go`." || m.ThreadTS != thread {
		t.Errorf("reply %+v", m)
	}
	if res := s.callTool("edit_message", map[string]any{"message_id": replyID, "text": "_Done_, edited"}); res.IsError {
		t.Errorf("edit_message: %s", res.text())
	}
	if m, _ := b.st.Message(slackChannel, replyID); m.Text != "_Done_, edited" {
		t.Errorf("after edit_message %+v", m)
	}
	if res := s.callTool("react", map[string]any{"message_id": inboundID, "emoji": "👍"}); res.IsError {
		t.Errorf("react: %s", res.text())
	}
	if m, _ := b.st.Message(slackChannel, inboundID); !slices.Equal(m.Reactions["+1"], []string{slacktest.BotUserID}) {
		t.Errorf("reactions %v, want the bot's +1", m.Reactions)
	}

	// The permission prompt: Block Kit buttons; a press answers it.
	before := len(s.notifications())
	s.notify("notifications/claude/channel/permission_request", map[string]any{
		"request_id": "abcde", "tool_name": "Bash", "description": "Run the tests", "input_preview": `{"command":"go test ./..."}`,
	})
	var prompt slacktest.Message
	testkit.Eventually(t, "the permission prompt", func() bool {
		var ok bool
		prompt, ok = b.lastIn(thread, "abcde")
		return ok && len(prompt.Buttons()) == 2
	})
	contains(t, "prompt", prompt.Text, "*Permission request*")
	contains(t, "prompt", prompt.Text, "Run the tests")
	if bs := prompt.Buttons(); bs[0].Value != "perm:allow:abcde" || bs[1].Value != "perm:deny:abcde" {
		t.Errorf("buttons %+v", bs)
	}
	b.st.PressButton(slackChannel, prompt.TS, slackPerson, "", "perm:allow:abcde")
	v := s.waitNote(before, "the verdict", func(n mcpNote) bool { return n.Method == "notifications/claude/channel/permission" })
	if v.Params["request_id"] != "abcde" || v.Params["behavior"] != "allow" {
		t.Errorf("verdict %+v", v.Params)
	}
	testkit.Eventually(t, "the press answered to the presser", func() bool {
		eph := b.st.Ephemeral(slackChannel)
		return len(eph) == 1 && strings.Contains(eph[0].Text, "Allowed") && eph[0].User == slackPerson
	})
	testkit.Eventually(t, "the prompt edited, buttons gone", func() bool {
		m, _ := b.st.Message(slackChannel, prompt.TS)
		return len(m.Buttons()) == 0 && strings.Contains(m.Text, "Allowed")
	})
	for _, n := range s.channelNotes() {
		if strings.Contains(n.content(), "perm:") {
			t.Errorf("a press was forwarded as a message: %+v", n.Params)
		}
	}
}

// TestSlackNotInChannel: a bot that is not in its channel: busctl
// providers says NOT_SERVING and what to do (/invite), a follower cannot
// register; once invited the provider serves by itself and a follower
// gets its thread. On main it showed serving and every Register failed
// with not_in_channel.
func TestSlackNotInChannel(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{outside: true})
	b.waitNamed(t, "slack", func(pi *chatbusv1.ProviderInfo) bool { return !pi.GetServing() }, "NOT_SERVING")
	testkit.Eventually(t, "the reason in busctl providers", func() bool {
		out, _, _ := b.busctl("providers")
		return strings.Contains(out, "not-serving") && strings.Contains(out, "/invite @chatbus")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := b.c.Register(ctx, client.Registration{ProfileKey: "manual:early", Cwd: "/w/early", InstanceID: "early-1"}); !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("register while the bot is outside its channel: %v, want UNAVAILABLE", err)
	}
	b.st.SetMember(slackChannel, true)
	b.waitNamed(t, "slack", func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "serving once invited")
	fl := b.follow(t, "manual:1", "/w/one")
	b.st.PostMessage(slackChannel, slackPerson, "welcome", slackThread(fl))
	fl.waitTexts(t, "welcome")
}
