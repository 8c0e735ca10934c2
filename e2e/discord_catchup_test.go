package e2e

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// TestDiscordSupervisorKill9CatchesUpQuietThread: supervisord is
// SIGKILLed (its followers end with it) while nothing was journalled yet
// in a follower's thread; a person writes in it while no supervisor runs;
// the session cannot be resumed (none was stored: the cursor is empty; or
// it expired). The new supervisord's provider identifies afresh, and the
// follower, back only after the new session is up, gets every message
// written meanwhile exactly once, in order, in its own thread.
func TestDiscordSupervisorKill9CatchesUpQuietThread(t *testing.T) {
	tests := []struct {
		name string
		// journalled: another thread had a message journalled, so the
		// stored cursor names a session, which expires meanwhile.
		journalled bool
	}{
		{name: "empty cursor"},
		{name: "expired session", journalled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := startDiscordBus(t)
			alpha := follow(t, b.c, "manual:1", "/w/alpha")
			beta := follow(t, b.c, "manual:2", "/w/beta")
			thread := threadOf(alpha)
			if tt.journalled {
				b.dc.PostMessage(threadOf(beta), b.alice, "b0")
				beta.waitTexts(t, "b0")
			}

			if err := b.d.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-b.d.exited
			// The followers end with it (their Unregister reaches nobody):
			// they come back only after the new session is up.
			for _, fl := range []*follower{alpha, beta} {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				fl.cancel()
				fl.f.Close(ctx)
				cancel()
			}
			// The kernel tells the provider child to stop; it leaves the
			// gateway.
			testkit.Eventually(t, "the provider left the gateway", func() bool { return b.dc.Connected() == 0 })
			if tt.journalled {
				b.dc.ExpireSessions()
			}
			outage := []string{"while down 1", "while down 2", "while down 3"}
			for _, text := range outage {
				b.dc.PostMessage(thread, b.alice, text)
			}

			d2 := b.start("--config", b.configPath)
			b.waitServing(d2)
			c2, err := client.Dial(b.socket, client.WithSecretFile(filepath.Join(b.state, "secret")))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c2.Close() })
			testkit.Eventually(t, "a fresh session", func() bool { return b.dc.Count("ready") == 2 && b.dc.Connected() == 1 })
			// A message in the channel itself, once journalled, says the
			// new session's READY (dispatched before it) was processed:
			// the follower comes back after it.
			b.dc.PostMessage(b.dc.Channel(), b.alice, "beacon")
			waitOnlyProvider(t, c2, d2, "", func(pi *chatbusv1.ProviderInfo) bool { return pi.GetIngested() >= 1 }, "ingested the beacon")

			again := follow(t, c2, "manual:1", "/w/alpha")
			if got := threadOf(again); got != thread {
				t.Fatalf("came back to thread %s, had %s", got, thread)
			}
			b.dc.PostMessage(thread, b.alice, "after")
			again.waitTexts(t, append(outage, "after")...)
			if c := b.dc.Counts(); c["identify"] != 2 {
				t.Errorf("gateway counts %v: want a fresh IDENTIFY", c)
			}
		})
	}
}
