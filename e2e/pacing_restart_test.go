package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// TestTelegramPacingSurvivesKill: a supervisord killed with SIGKILL right
// after it spent a group's limit, with two calls queued behind it, paces
// them after its restart as it would have (its windows were saved in its
// state file): the stand-in, which enforces the same limit, answers no
// 429, and every message lands once. (Before, the new supervisor sent as
// if no message had gone out in the window.)
func TestTelegramPacingSurvivesKill(t *testing.T) {
	tg := tgtest.New(t, tgtest.WithRateLimits(tgtest.RateLimits{BotCount: 30, BotPer: time.Second,
		ChatCount: 100, ChatPer: time.Second, GroupCount: 4, GroupPer: 15 * time.Second}))
	tg.AddForum(forumChat)
	b := startBus(t, newProfile(t), telegramConfig(tg, "    limits:\n      group: 4/15s\n      chat: off\n"))
	b.tg = tg
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && len(pi.GetOutbound().GetLimits()) == 2
	}, "RUNNING with the test's limits")
	s := &session{name: "a", f: follow(t, b.c, "pace:a", sessionDir(t, "a")).f}
	ctx := ctxFor(t, 2*time.Minute)
	for i := range 4 {
		if _, err := s.f.Send(ctx, client.Message{Text: fmt.Sprintf("m-%d", i)}, fmt.Sprintf("k%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// Two more wait for the group's window; their callers go with the
	// supervisor (their records stay, queued).
	qctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 4; i < 6; i++ {
		go s.f.Send(qctx, client.Message{Text: fmt.Sprintf("m-%d", i)}, fmt.Sprintf("k%d", i))
	}
	testkit.Eventually(t, "two calls queued", func() bool { return b.outboundQueued(t) == 2 })
	// A provider's windows are saved at most every 100 ms (docs/pacing.md:
	// the calls of the last moment before a kill may be forgotten); the
	// kill comes after the last save of the four calls.
	time.Sleep(300 * time.Millisecond)
	if err := b.d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-b.d.exited
	cancel()

	b.startAgain(t)
	testkit.Eventually(t, "the queued messages sent after the restart", func() bool { return len(tg.Sent(forumChat, topic(s))) >= 6 })
	seen := map[string]int{}
	for _, m := range tg.Sent(forumChat, topic(s)) {
		seen[m.Text]++
	}
	for i := range 6 {
		if n := seen[fmt.Sprintf("m-%d", i)]; n != 1 {
			t.Errorf("m-%d landed %d times", i, n)
		}
	}
	if n := tg.RateLimited(); n != 0 {
		t.Errorf("the stand-in answered 429 %d times: the restarted supervisor did not pace as before", n)
	}
}

// outboundQueued is how many calls the provider's queue holds now.
func (b *tgBus) outboundQueued(t *testing.T) int {
	return int(b.provider(t).GetOutbound().GetQueued())
}
