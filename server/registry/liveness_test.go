package registry

import (
	"github.com/chatbus/chatbus/internal/testkit"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server/events"
)

// TestOpenStreamIsLiveness: a follower with an open update stream is not
// pruned for heartbeating at the subscribed interval, is pruned once
// silent beyond SubscribedStaleAfter, and once its stream ends it has the
// ordinary StaleAfter from the stream's end (a follower whose process
// died is pruned as promptly as one that never subscribed).
func TestOpenStreamIsLiveness(t *testing.T) {
	tests := []struct {
		name      string
		subscribe bool
		detachAt  time.Duration // the stream ends this long after register; 0 = stays open
		silent    time.Duration // then the clock moves this much
		pruned    bool
	}{
		{name: "no stream, silent past stale-after", silent: 6 * time.Second, pruned: true},
		{name: "no stream, within stale-after", silent: 4 * time.Second},
		{name: "open stream, silent 60s", subscribe: true, silent: 60 * time.Second},
		{name: "open stream, silent past the subscribed bound", subscribe: true, silent: 126 * time.Second, pruned: true},
		{name: "stream ended, within stale-after of its end", subscribe: true, detachAt: 100 * time.Second, silent: 4 * time.Second},
		{name: "stream ended, past stale-after of its end", subscribe: true, detachAt: 100 * time.Second, silent: 6 * time.Second, pruned: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := testkit.NewClock(time.Unix(1000, 0))
			hub := events.NewHub(zerolog.Nop())
			r := New(Config{StaleAfter: 5 * time.Second, SubscribedStaleAfter: 125 * time.Second, Events: hub, Now: clock.Now})
			f, _, err := r.Register(Info{InstanceID: "a", PID: 1})
			if err != nil {
				t.Fatal(err)
			}
			if tc.subscribe {
				_, detach := f.AttachStream()
				if tc.detachAt > 0 {
					clock.Add(tc.detachAt)
					detach()
				} else {
					defer detach()
				}
			}
			clock.Add(tc.silent)
			pruned := len(r.Prune()) == 1
			if pruned != tc.pruned {
				t.Errorf("pruned = %v, want %v", pruned, tc.pruned)
			}
		})
	}
}
