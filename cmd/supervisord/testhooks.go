//go:build chatbus_testhooks

package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server"
)

// installTestHooks (test builds only: -tags chatbus_testhooks): SIGUSR1
// blocks the store's committer goroutine, SIGUSR2 lets it go again. The
// watchdog test stalls a real loop of a real supervisord with it.
func installTestHooks(ctx context.Context, srv *server.Server, log zerolog.Logger) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		release := func() {}
		for {
			select {
			case <-ctx.Done():
				release()
				return
			case s := <-sig:
				if s == syscall.SIGUSR2 {
					release()
					release = func() {}
					log.Warn().Msg("test hook: store committer released")
					continue
				}
				rel, err := srv.StallStore()
				if err != nil {
					log.Error().Err(err).Msg("test hook: cannot stall the store")
					continue
				}
				release()
				release = rel
				log.Warn().Msg("test hook: store committer stalled")
			}
		}
	}()
}
