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
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/playground"
)

func main() {
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00" // milliseconds
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "provider-playground:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if len(os.Args) > 1 && (os.Args[1] == "-h" || os.Args[1] == "--help") {
		fmt.Println(`provider-playground: the playground provider child of supervisord.

A chat of its own on a web page at 127.0.0.1 (a room per follower thread),
speaking the Telegram Bot API's methods. supervisord starts it when no
provider is configured (or for a "playground" entry in its config's
providers section) and logs the page's URL; it is not meant to be run by
hand. Contract: env CHATBUS_PROVIDER_SOCKET (where to listen) and
CHATBUS_PROVIDER_NAME, the settings as JSON on stdin (secret, state_dir,
optional port, max_file_bytes, title), one handshake line
"1|unix|<socket>|grpc" on stdout.`)
		return nil
	}
	socket := os.Getenv(provider.EnvSocket)
	if socket == "" {
		return errors.New("CHATBUS_PROVIDER_SOCKET is not set: this binary is started by supervisord (see --help)")
	}
	name := os.Getenv(provider.EnvName)
	if name == "" {
		name = "playground"
	}
	raw, err := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	if err != nil {
		return fmt.Errorf("read settings from stdin: %w", err)
	}
	child, rest, err := provider.ParseChildSettings(raw)
	if err != nil {
		return err
	}
	s, err := playground.ParseSettings(rest)
	if err != nil {
		return err
	}
	log := zerolog.New(os.Stderr).With().Timestamp().Logger()
	plat, err := playground.New(playground.Config{Settings: s, StateDir: child.StateDir, Logger: log})
	if err != nil {
		return err
	}
	defer plat.Close()
	return provider.Serve(ctx, provider.Config{
		Name:     name,
		Socket:   socket,
		Platform: plat,
		Secret:   child.Secret,
		Logger:   log,
	})
}
