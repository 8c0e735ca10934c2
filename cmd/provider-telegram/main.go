// Command provider-telegram is the Telegram provider child of supervisord.
// It is started by the supervisor, not by hand: the supervisor sets
// CHATBUS_PROVIDER_SOCKET and CHATBUS_PROVIDER_NAME, writes the provider's
// settings to stdin as JSON, and reads the handshake line from stdout. The
// bot token comes from the settings or from CHATBUS_TELEGRAM_TOKEN.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/telegram"
)

func main() {
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00" // milliseconds
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "provider-telegram:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if len(os.Args) > 1 && (os.Args[1] == "-h" || os.Args[1] == "--help") {
		fmt.Println(`provider-telegram: the Telegram provider child of supervisord.

supervisord starts it for a "telegram" entry in its config's providers
section; it is not meant to be run by hand. Contract: env
CHATBUS_PROVIDER_SOCKET (where to listen) and CHATBUS_PROVIDER_NAME, the
settings as JSON on stdin, one handshake line "1|unix|<socket>|grpc" on
stdout. The bot token is settings.token or $CHATBUS_TELEGRAM_TOKEN.`)
		return nil
	}
	socket := os.Getenv("CHATBUS_PROVIDER_SOCKET")
	if socket == "" {
		return errors.New("CHATBUS_PROVIDER_SOCKET is not set: this binary is started by supervisord (see --help)")
	}
	name := os.Getenv("CHATBUS_PROVIDER_NAME")
	if name == "" {
		name = "telegram"
	}
	raw, err := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	if err != nil {
		return fmt.Errorf("read settings from stdin: %w", err)
	}
	secret, platform, err := provider.SplitSettings(raw)
	if err != nil {
		return err
	}
	s, err := telegram.ParseSettings(platform)
	if err != nil {
		return err
	}
	if s.Token == "" {
		s.Token = os.Getenv("CHATBUS_TELEGRAM_TOKEN")
	}
	if s.Token == "" {
		return errors.New("no bot token: set token in the provider settings or CHATBUS_TELEGRAM_TOKEN")
	}
	log := zerolog.New(os.Stderr).With().Timestamp().Logger()
	health := provider.NewHealth()
	plat, err := telegram.New(s, log, health.Set)
	if err != nil {
		return err
	}
	return provider.Serve(ctx, provider.Config{
		Name:     name,
		Socket:   socket,
		Platform: plat,
		Secret:   secret,
		Logger:   log,
		Health:   health,
	})
}
