package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// TestThreePlatformsOneSupervisor: one supervisord runs the Telegram,
// Slack and Discord providers from one config; a follower on each gets its
// own thread on its platform, receives only that thread's messages, and
// what it sends lands there and nowhere else.
func TestThreePlatformsOneSupervisor(t *testing.T) {
	tg := tgtest.New(t)
	tg.AddForum(forumChat)
	st := slacktest.New(t, slacktest.WithPingInterval(500*time.Millisecond))
	st.AddChannel(slackChannel, "chatbus", true)
	dc := discordtest.New(t)
	alice := dc.AddUser("alice")

	cfg := fmt.Sprintf(`heartbeat_interval: 200ms
stale_after: 3s
providers:
  telegram:
    default: true
    binary: %s
    forum_chat_id: %d
    base_url: %s
    token: %q
    allowed_user_ids: [%d]
    poll_timeout: 1s
`, filepath.Join(binDir, "provider-telegram"), forumChat, tg.URL(), tg.Token(), allowedUser) + slackDiscordConfig(st, dc, alice, "")
	p := newProfile(t)
	_, c, _ := p.serveConfig(cfg)
	for _, name := range []string{"telegram", "slack", "discord"} {
		testkit.Eventually(t, name+" RUNNING, serving, platform "+name, func() bool {
			pi := namedProvider(t, c, name)
			return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetServing() && pi.GetPlatform() == name
		})
	}
	out, _, code := p.busctl("providers")
	if code != 0 {
		t.Fatalf("busctl providers: exit %d", code)
	}
	for _, name := range []string{"telegram", "slack", "discord"} {
		contains(t, "busctl providers", out, name)
	}

	onTG := followProvider(t, c, "telegram", "manual:tg", "/w/tg")
	onSlack := followProvider(t, c, "slack", "manual:slack", "/w/slack")
	onDiscord := followProvider(t, c, "discord", "manual:discord", "/w/discord")
	for fl, want := range map[*follower]string{onTG: "telegram", onSlack: "slack", onDiscord: "discord"} {
		b := fl.f.Registered().GetBinding()
		if b.GetTarget().GetProvider() != want || b.GetPlatform() != want || b.GetTarget().GetThread() == "" {
			t.Errorf("%s follower's binding %v", want, b)
		}
	}

	tg.PushMessage(forumChat, int(onTG.thread()), allowedUser, "hello telegram")
	st.PostMessage(slackChannel, slackPerson, "hello slack", slackThread(onSlack))
	dc.PostMessage(threadOf(onDiscord), alice, "hello discord")
	onTG.waitTexts(t, "hello telegram")
	onSlack.waitTexts(t, "hello slack")
	onDiscord.waitTexts(t, "hello discord")
	for fl, want := range map[*follower]string{onTG: "telegram", onSlack: "slack", onDiscord: "discord"} {
		fl.mu.Lock()
		if u := fl.got[0]; u.GetPlatform() != want {
			t.Errorf("update %v: platform %q, want %q", u, u.GetPlatform(), want)
		}
		fl.mu.Unlock()
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	calls := []struct {
		fl             *follower
		method, params string
	}{
		{onTG, "sendMessage", `{"text":"from the telegram follower"}`},
		{onSlack, "chat.postMessage", `{"text":"from the slack follower"}`},
		{onDiscord, "createMessage", `{"content":"from the discord follower"}`},
	}
	for _, cl := range calls {
		if _, err := cl.fl.f.Call(ctx, cl.method, []byte(cl.params), ""); err != nil {
			t.Fatalf("%s: %v", cl.method, err)
		}
	}
	if m := tg.Sent(forumChat, int(onTG.thread())); len(m) != 1 || m[0].Text != "from the telegram follower" {
		t.Errorf("telegram thread holds %+v", m)
	}
	if m := st.Sent(slackChannel, slackThread(onSlack)); len(m) != 1 || m[0].Text != "from the slack follower" {
		t.Errorf("slack thread holds %+v", m)
	}
	if m := dc.BotMessages(threadOf(onDiscord)); len(m) != 1 || m[0].Content != "from the discord follower" {
		t.Errorf("discord thread holds %+v", m)
	}
	// A method of one platform is not one of another's.
	if _, err := onSlack.f.Call(ctx, "sendMessage", []byte(`{"text":"x"}`), ""); err == nil {
		t.Error("a Telegram method was accepted on the Slack thread")
	}
}

// namedProvider returns the provider called name c's supervisor runs.
func namedProvider(t *testing.T, c *client.Client, name string) *chatbusv1.ProviderInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pi := range resp.GetProviders() {
		if pi.GetName() == name {
			return pi
		}
	}
	t.Fatalf("no provider %s in %v", name, resp)
	return nil
}

// slackDiscordConfig is the entries of a config's providers: for
// provider-slack and provider-discord against the stand-ins st and dc
// (alice allowed on Discord), each followed by the lines of extra.
func slackDiscordConfig(st *slacktest.Server, dc *discordtest.Server, alice discordtest.User, extra string) string {
	return fmt.Sprintf(`  slack:
    binary: %s
    channel_id: %s
    base_url: %s
    app_token: %q
    bot_token: %q
    allowed_user_ids: [%s]
%s  discord:
    binary: %s
    token: %q
    guild_id: %q
    channel_id: %s
    allowed_user_ids: [%s]
    base_url: %s
%s`, filepath.Join(binDir, "provider-slack"), slackChannel, st.URL(), slacktest.AppToken, slacktest.BotToken, slackPerson, extra,
		filepath.Join(binDir, "provider-discord"), dc.Token(), dc.GuildID(), dc.Channel(), alice.ID, dc.URL(), extra)
}
