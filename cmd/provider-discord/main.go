// Command provider-discord is the Discord provider child of supervisord.
// It is started by the supervisor, not by hand: the supervisor sets
// CHATBUS_PROVIDER_SOCKET and CHATBUS_PROVIDER_NAME, writes the provider's
// settings to stdin as JSON, and reads the handshake line from stdout. The
// bot token comes from the settings or from CHATBUS_DISCORD_TOKEN.
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
  base_url          REST API root (default https://discord.com/api)
  gateway_url       gateway to identify at (default: what GET /gateway/bot names)`

func main() {
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00" // milliseconds
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "provider-discord:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			fmt.Println(usage)
			return nil
		}
		return fmt.Errorf("unexpected argument %q (see --help)", args[0])
	}
	socket := os.Getenv(provider.EnvSocket)
	if socket == "" {
		return errors.New(provider.EnvSocket + " is not set: this binary is started by supervisord (see --help)")
	}
	name := os.Getenv(provider.EnvName)
	if name == "" {
		name = "discord"
	}
	raw, err := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	if err != nil {
		return fmt.Errorf("read settings from stdin: %w", err)
	}
	secret, settings, err := provider.SplitSettings(raw)
	if err != nil {
		return err
	}
	s, err := discord.ParseSettings(settings)
	if err != nil {
		return err
	}
	if s.Token == "" {
		s.Token = os.Getenv("CHATBUS_DISCORD_TOKEN")
	}
	if s.Token == "" {
		return errors.New("no bot token: set token in the provider settings or CHATBUS_DISCORD_TOKEN")
	}
	log := zerolog.New(os.Stderr).With().Timestamp().Logger()
	health := provider.NewHealth()
	plat, err := discord.New(s, discord.Options{Logger: log, OnState: health.Set})
	if err != nil {
		return err
	}
	defer plat.Close()
	return provider.Serve(ctx, provider.Config{
		Name:     name,
		Socket:   socket,
		Platform: plat,
		Secret:   secret,
		Logger:   log,
		Health:   health,
	})
}
