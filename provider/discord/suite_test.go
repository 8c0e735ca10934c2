package discord_test

import (
	"testing"
	"time"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/discord"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
	"github.com/chatbus/chatbus/provider/providertest"
)

// TestContract: provider-discord keeps the provider contract, against
// discordtest.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Target{
		Start: func(t *testing.T) providertest.Instance {
			f := newFixture(t)
			health := provider.NewHealth()
			p := f.platform(func(_ *discord.Settings, o *discord.Options) { o.OnState = health.Set })
			h := providertest.Start(t, child.Config{Name: "discord", Platform: p, Health: health, Logger: testLogger(t)})
			return providertest.InProcess(h, suiteDiscord{f})
		},
		// channel/message/attachment
		UnknownFileID: "1234567890123/1234567890124/1234567890125",
		OutOfScope: []providertest.Call{
			{Method: discord.MethodCreateMessage, Params: `{"channel_id":"1234567890123","content":"x"}`},
			{Method: discord.MethodCreateMessage, Params: `{"guild_id":"1234567890123","content":"x"}`},
			{Method: discord.MethodCreateMessage, Params: `{"content":"x","message_reference":{"channel_id":"1234567890123","message_id":"1"}}`},
			{Method: discord.MethodCreateMessage, Params: `{"content":"x","application_id":"1234567890123"}`},
		},
	})
}

// suiteDiscord acts on discordtest for the suite; the person is alice,
// on the fixture's allow-list.
type suiteDiscord struct{ f *fixture }

func (s suiteDiscord) Say(_ *testing.T, th *providerv1.Target, text string) {
	s.f.dc.PostMessage(th.GetThread(), s.f.alice, text)
}

func (s suiteDiscord) Sent(_ *testing.T, th *providerv1.Target) int {
	return len(s.f.dc.BotMessages(th.GetThread()))
}

func (s suiteDiscord) Fail(_ *testing.T, f providertest.Fault) {
	const create = "POST /channels/{id}/messages"
	switch f {
	case providertest.RateLimited:
		s.f.dc.Fail(create, discordtest.Fault{Status: 429, RetryAfter: 3 * time.Second})
	case providertest.Unavailable:
		s.f.dc.Fail(create, discordtest.Fault{Status: 502})
	case providertest.Revoked:
		s.f.dc.Fail(create, discordtest.Fault{Status: 401, Code: 0, Message: "401: Unauthorized"})
	}
}
