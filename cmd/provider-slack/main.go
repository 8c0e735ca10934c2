// Command provider-slack is the Slack provider child of supervisord. It is
// started by the supervisor, not by hand: the supervisor sets
// CHATBUS_PROVIDER_SOCKET and CHATBUS_PROVIDER_NAME, writes the provider's
// settings to stdin as JSON, and reads the handshake line from stdout. The
// tokens come from the settings or from CHATBUS_SLACK_APP_TOKEN and
// CHATBUS_SLACK_BOT_TOKEN.
package main

import (
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/slack"
)

const help = `provider-slack: the Slack provider child of supervisord.

supervisord starts it for a "slack" entry in its config's providers
section; it is not meant to be run by hand. Contract: env
CHATBUS_PROVIDER_SOCKET (where to listen) and CHATBUS_PROVIDER_NAME, the
settings as JSON on stdin, one handshake line "1|unix|<socket>|grpc" on
stdout, the log on stderr. With --check it only validates the settings:
exit 0 printing nothing, or 1 printing which setting is wrong and why.

Settings (the providers.slack section of the supervisor's config):
  channel_id        the channel the threads live in (C0123ABCD); required
  allowed_user_ids  member ids that reach followers ([U0123ABCD]); empty: nobody
  app_token         app-level token, xapp-… with connections:write
                    (or $CHATBUS_SLACK_APP_TOKEN)
  bot_token         bot token, xoxb-… (or $CHATBUS_SLACK_BOT_TOKEN)
  base_url          the Web API (default https://slack.com/api/)
  dead_after        a Socket Mode connection silent this long is replaced (30s)
  auth_retry        wait after a refused token or link_disabled, and between
                    looks while the bot is not in its channel (1m)
  limits            rate limits calls are paced to, by method:
                    chat.postMessage (1/s per channel), chat.update,
                    chat.delete, reactions.add (5/6s), reactions.remove
                    (2/6s), chat.postEphemeral, upload (10/6s);
                    "<count>/<window>" or "off"

See docs/slack.md for the app manifest.`

func main() { child.Exec(child.Program{Name: "slack", Usage: help, Build: build}) }

// build checks the settings (the tokens from the environment where the
// settings have none) and builds the platform; it does not contact Slack.
func build(b child.BuildContext) (provider.Platform, error) {
	s, err := slack.ParseSettings(b.Settings, b.Getenv)
	if err != nil {
		return nil, err
	}
	return slack.New(slack.Config{Settings: s, Logger: b.Logger, Health: b.Health})
}
