// Command provider-telegram is the Telegram provider child of supervisord.
// It is started by the supervisor, not by hand: the supervisor sets
// CHATBUS_PROVIDER_SOCKET and CHATBUS_PROVIDER_NAME, writes the provider's
// settings to stdin as JSON, and reads the handshake line from stdout; with
// --check it only validates the settings. The bot token comes from the
// settings or from CHATBUS_TELEGRAM_TOKEN.
package main

import (
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/telegram"
)

const usage = `provider-telegram: the Telegram provider child of supervisord.

supervisord starts it for a "telegram" entry in its config's providers
section; it is not meant to be run by hand. Contract (provider/README.md):
env CHATBUS_PROVIDER_SOCKET (where to listen) and CHATBUS_PROVIDER_NAME, the
settings as JSON on stdin, one handshake line "1|unix|<socket>|grpc" on
stdout. The bot token is settings.token or $CHATBUS_TELEGRAM_TOKEN.

  provider-telegram --check   validate the settings on stdin and exit:
                              0 and nothing printed, or 1 and one line
                              saying which setting is wrong and why`

func main() { child.Exec(child.Program{Name: "telegram", Usage: usage, Build: build}) }

// build checks the settings and builds the platform; it does not contact
// Telegram.
func build(b child.BuildContext) (provider.Platform, error) {
	s, err := telegram.ParseSettings(b.Settings, b.Getenv)
	if err != nil {
		return nil, err
	}
	return telegram.New(s, b.Logger, b.Health)
}
