// Command provider-slack is the Slack provider child of supervisord. It is
// started by the supervisor, not by hand: the supervisor sets
// CHATBUS_PROVIDER_SOCKET and CHATBUS_PROVIDER_NAME, writes the provider's
// settings to stdin as JSON, and reads the handshake line from stdout. The
// tokens come from the settings or from CHATBUS_SLACK_APP_TOKEN and
// CHATBUS_SLACK_BOT_TOKEN.
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
	"github.com/chatbus/chatbus/provider/slack"
)

const help = `provider-slack: the Slack provider child of supervisord.

supervisord starts it for a "slack" entry in its config's providers
section; it is not meant to be run by hand. Contract: env
CHATBUS_PROVIDER_SOCKET (where to listen) and CHATBUS_PROVIDER_NAME, the
settings as JSON on stdin, one handshake line "1|unix|<socket>|grpc" on
stdout, the log on stderr.

Settings (the providers.slack section of the supervisor's config):
  channel_id        the channel the threads live in (C0123ABCD); required
  allowed_user_ids  member ids that reach followers ([U0123ABCD]); empty: nobody
  app_token         app-level token, xapp-… with connections:write
                    (or $CHATBUS_SLACK_APP_TOKEN)
  bot_token         bot token, xoxb-… (or $CHATBUS_SLACK_BOT_TOKEN)
  base_url          the Web API (default https://slack.com/api/)
  dead_after        a Socket Mode connection silent this long is replaced (30s)
  auth_retry        wait after a refused token or link_disabled (1m)

See "Connecting a Slack app" in the README for the app manifest.`

func main() {
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00" // milliseconds
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "provider-slack:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Println(help)
		return nil
	}
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", args[0])
	}
	socket := os.Getenv(provider.EnvSocket)
	if socket == "" {
		return errors.New(provider.EnvSocket + " is not set: this binary is started by supervisord (see --help)")
	}
	name := os.Getenv(provider.EnvName)
	if name == "" {
		name = "slack"
	}
	raw, err := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	if err != nil {
		return fmt.Errorf("read settings from stdin: %w", err)
	}
	secret, platform, err := provider.SplitSettings(raw)
	if err != nil {
		return err
	}
	s, err := slack.ParseSettings(platform)
	if err != nil {
		return err
	}
	if s.AppToken == "" {
		s.AppToken = os.Getenv("CHATBUS_SLACK_APP_TOKEN")
	}
	if s.BotToken == "" {
		s.BotToken = os.Getenv("CHATBUS_SLACK_BOT_TOKEN")
	}
	log := zerolog.New(os.Stderr).With().Timestamp().Logger()
	health := provider.NewHealth()
	plat, err := slack.New(slack.Config{Settings: s, Logger: log, Health: health})
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
