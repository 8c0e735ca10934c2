package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// healthLines returns the provider_health lines of the supervisor's log
// as {level, message}.
func healthLines(t *testing.T, log string) [][2]string {
	t.Helper()
	var out [][2]string
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, `"event":"provider_health"`) {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		out = append(out, [2]string{rec["level"].(string), rec["message"].(string)})
	}
	return out
}

// TestTelegramHealthWhenTheBotAPIIsDown: with the Bot API unreachable the
// provider is NOT_SERVING, saying why, and SERVING again by itself once it
// is back; the log says the first at warn and the second at info.
func TestTelegramHealthWhenTheBotAPIIsDown(t *testing.T) {
	b := startTelegramBus(t, "")
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "serving")

	b.tg.SetUnreachable(true)
	pi := b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return !pi.GetServing() }, "NOT_SERVING while the Bot API is down")
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return strings.Contains(pi.GetLastError(), "connection refused")
	}, "saying the Bot API refuses connections")
	_ = pi
	out, _, _ := b.busctl("providers")
	contains(t, "busctl providers", out, "not-serving")

	b.tg.SetUnreachable(false)
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING again")
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := healthLines(t, b.d.stderr.String())
		var warnDown, infoUp bool
		for _, l := range lines {
			warnDown = warnDown || (l[0] == "warn" && strings.Contains(l[1], "NOT_SERVING"))
			infoUp = infoUp || (l[0] == "info" && strings.HasSuffix(l[1], "health: SERVING"))
			if strings.Contains(l[1], "NOT_SERVING") && l[0] != "warn" || strings.HasSuffix(l[1], ": SERVING") && l[0] != "info" {
				t.Errorf("health line at %s: %s", l[0], l[1])
			}
		}
		if warnDown && infoUp {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health lines %v: want NOT_SERVING at warn and SERVING at info", lines)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTelegramHealthWhenTheChatIsNoForum: a configured chat that is not a
// forum makes the provider NOT_SERVING with the fix in the reason; turning
// Topics on makes it SERVING by itself.
func TestTelegramHealthWhenTheChatIsNoForum(t *testing.T) {
	b := startTelegramBusWith(t, "    chat_recheck: 100ms\n", func(tg *tgtest.Server) { tg.SetForum(forumChat, false) })
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return !pi.GetServing() && strings.Contains(pi.GetLastError(), "is not a forum: turn on Topics")
	}, "NOT_SERVING: not a forum")
	b.tg.SetForum(forumChat, true)
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING once Topics are on")
}

// TestTelegramTopicsPeopleChanged: a follower's call into a topic a
// person closed is delivered once, the topic reopened. (A call into a
// topic a person deleted: TestTopicDeletedByAPerson.)
func TestTelegramTopicsPeopleChanged(t *testing.T) {
	b := startTelegramBus(t, "")
	beta := b.follow(t, "manual:2", "/home/u/beta")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	b.tg.CloseTopic(forumChat, int(beta.thread()))
	b.tg.Fail("sendMessage", tgtest.Fault{Status: 400, Description: "Bad Request: TOPIC_CLOSED"})
	if _, err := beta.f.Call(ctx, "sendMessage", []byte(`{"text":"still talking"}`), "closed-1"); err != nil {
		t.Fatalf("sendMessage into a closed topic: %v", err)
	}
	sent := b.tg.Sent(forumChat, int(beta.thread()))
	if len(sent) != 1 || sent[0].Text != "still talking" {
		t.Errorf("sent into beta's topic: %+v, want the message once", sent)
	}
	for _, tp := range b.tg.Topics(forumChat) {
		if tp.MessageThreadID == int(beta.thread()) && tp.Closed {
			t.Error("beta's topic is still closed")
		}
	}
}
