// Command provider-minimal is the minimal provider child of supervisord:
// an echo chat in memory (provider/minimal), the provider
// docs/writing-a-provider.md walks through. It is started by the
// supervisor, not by hand.
package main

import (
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/minimal"
)

const usage = `provider-minimal: the minimal provider child of supervisord, an echo chat.

supervisord starts it for a providers entry with binary: .../provider-minimal;
it is not meant to be run by hand. Contract (provider/README.md): env
CHATBUS_PROVIDER_SOCKET and CHATBUS_PROVIDER_NAME, the settings as JSON on
stdin, one handshake line on stdout; --check validates the settings.

Settings:
  prefix          starts every echo (default "echo: ")
  max_text_chars  the longest text (default 4096)
  limits          {"send": "<count>/<window>" or "off"} (default 5/s a thread)`

func main() { child.Exec(child.Program{Name: "minimal", Usage: usage, Build: build}) }

// build checks the settings and builds the platform.
func build(b child.BuildContext) (provider.Platform, error) {
	s, err := minimal.ParseSettings(b.Settings, b.Getenv)
	if err != nil {
		return nil, err
	}
	return minimal.New(s)
}
