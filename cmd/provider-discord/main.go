// Command provider-discord is the Discord provider child of supervisord.
// It is started by the supervisor, not by hand: the supervisor sets
// CHATBUS_PROVIDER_SOCKET and CHATBUS_PROVIDER_NAME, writes the provider's
// settings to stdin as JSON, and reads the handshake line from stdout. The
// bot token comes from the settings or from CHATBUS_DISCORD_TOKEN.
package main

import (
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/discord"
)

const usage = `provider-discord: the Discord provider child of supervisord.

supervisord starts it for a "discord" entry in its config's providers
section; it is not meant to be run by hand. Contract: env
CHATBUS_PROVIDER_SOCKET (where to listen) and CHATBUS_PROVIDER_NAME, the
settings as JSON on stdin, one handshake line "1|unix|<socket>|grpc" on
stdout.

Settings (providers.discord in the supervisor's config):
  token             the bot token, or $CHATBUS_DISCORD_TOKEN
  guild_id          the server's id (required)
  channel_id        the text channel the followers' threads go in (required)
  allowed_user_ids  the people whose messages reach followers
  base_url          REST API root without the version (default https://discord.com/api)
  gateway_url       gateway to identify at (default: what GET /gateway/bot names)
  limits            rate limits calls are paced to, by name: global (50/s),
                    message (5/5s), edit (5/5s), delete (5/s), reaction
                    (1/250ms), typing (5/5s); "<count>/<window>" or "off"`

func main() { child.Exec(child.Program{Name: "discord", Usage: usage, Build: build}) }

// build checks the settings (the token from the environment where the
// settings have none) and builds the platform; it does not contact Discord.
func build(b child.BuildContext) (provider.Platform, error) {
	s, err := discord.ParseSettings(b.Settings, b.Getenv)
	if err != nil {
		return nil, err
	}
	return discord.New(s, discord.Options{Logger: b.Logger, OnState: b.Health.Set})
}
