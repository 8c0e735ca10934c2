// Command provider-playground is the playground provider child of
// supervisord: a chat of its own, served as a web page on 127.0.0.1, so
// that chatbus runs end to end without a chat account. supervisord starts
// it when no provider is configured. It is started by the supervisor, not
// by hand: the supervisor sets CHATBUS_PROVIDER_SOCKET and
// CHATBUS_PROVIDER_NAME, writes the settings (with its secret and the
// child's state_dir) to stdin as JSON, and reads the handshake line from
// stdout.
package main

import (
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/playground"
)

const usage = `provider-playground: the playground provider child of supervisord.

A chat of its own on a web page at 127.0.0.1 (a room per follower thread),
where followers speak the message verbs and their Markdown is shown
rendered. supervisord starts it when no
provider is configured (or for a "playground" entry in its config's
providers section) and logs the page's URL; it is not meant to be run by
hand. Contract: env CHATBUS_PROVIDER_SOCKET (where to listen) and
CHATBUS_PROVIDER_NAME, the settings as JSON on stdin (secret, state_dir,
optional port, max_file_bytes, title), one handshake line
"1|unix|<socket>|grpc" on stdout. With --check it only validates the
settings: exit 0 printing nothing, or 1 printing what is wrong.`

func main() { child.Exec(child.Program{Name: "playground", Usage: usage, Build: build}) }

// build checks the settings and, unless checking only, opens the
// playground's store in its state dir.
func build(b child.BuildContext) (provider.Platform, error) {
	s, err := playground.ParseSettings(b.Settings, b.Getenv)
	if err != nil || b.Check {
		return nil, err
	}
	if b.StateDir == "" {
		return nil, provider.Settingf("state_dir", "missing: the playground keeps its rooms in the state dir the supervisor names")
	}
	return playground.New(playground.Config{Settings: s, StateDir: b.StateDir, Logger: b.Logger})
}
