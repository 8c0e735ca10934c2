//go:build chatbus_testhooks

package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/journal/vfs"
	"github.com/chatbus/chatbus/server/journal/vfs/faultfs"
)

// The test hooks of supervisord built with -tags chatbus_testhooks, for
// the end-to-end tests that need a fault inside a real supervisor: none
// of this is in the product's binary.

// journalSyncFault is --test-journal-sync-fault.
var journalSyncFault string

// addTestFlags adds the test builds' flags.
func addTestFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&journalSyncFault, "test-journal-sync-fault", "",
		"test builds: while this file exists, the fdatasync of every journal batch fails with EIO after the batch was written")
}

// applyTestFlags puts what the test flags ask for into cfg: with
// --test-journal-sync-fault, the journal's file system (faultfs) fails
// each batch's fdatasync while the named file exists, as a disk that
// dropped the write would.
func applyTestFlags(cfg *server.Config) {
	path := journalSyncFault
	if path == "" {
		return
	}
	cfg.JournalFS = faultfs.New(vfs.Default, func(op faultfs.Op, run func() error) error {
		if op.Kind == faultfs.SyncData && op.Unsynced.Has(faultfs.WritevAt) { // a batch's fdatasync
			if _, err := os.Stat(path); err == nil {
				return syscall.EIO
			}
		}
		return run()
	})
}

// installTestHooks: SIGUSR1 blocks the store's committer goroutine,
// SIGUSR2 lets it go again. The watchdog test stalls a real loop of a
// real supervisord with it.
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
