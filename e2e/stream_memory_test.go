package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/metrics/metricstest"
)

// streamStackBudget bounds the goroutine stack an open Subscribe stream
// keeps in a release build of supervisord. Its handler parks in Hub.Stream
// under the interceptor chain, about 5 KiB deep: 8 KiB of stack. A stack
// grown by deeper work before it parked stays that size for as long as the
// stream is open (the runtime halves a stack only when under a quarter of
// it is in use): the stored binding read for the platform's name did that,
// 16 KiB a stream (docs/performance.md, memory per follower).
const streamStackBudget = 12 << 10

var release struct {
	once sync.Once
	bin  string
	err  error
}

// releaseSupervisord builds supervisord without -race (once per test
// binary): stack sizes are what a release binary has; a race build's
// frames and stack guard are larger (every stream took 16 KiB there).
func releaseSupervisord(t *testing.T) string {
	t.Helper()
	release.once.Do(func() {
		dir := filepath.Join(binDir, "release")
		out, err := goBuild("-o", dir+"/", "github.com/chatbus/chatbus/cmd/supervisord").CombinedOutput()
		if err != nil {
			release.err = fmt.Errorf("go build supervisord: %v\n%s", err, out)
			return
		}
		release.bin = filepath.Join(dir, "supervisord")
	})
	if release.err != nil {
		t.Fatal(release.err)
	}
	return release.bin
}

// TestStreamStackPerFollower: followers that share one connection each
// open a Subscribe stream on a release supervisord with the real Telegram
// provider; each stream costs supervisord one goroutine and at most
// streamStackBudget of stack, as its own metrics report.
func TestStreamStackPerFollower(t *testing.T) {
	bin := releaseSupervisord(t)
	sock := metricsSocket(t)
	b := startTelegramBusOn(t, bin, "metrics:\n  listen: unix://"+sock+"\n", nil)
	s := unixScraper(t, sock)

	// A first follower warms every path (the provider's client streams,
	// the journal's key state, pools) before the baseline is read.
	follow(t, b.c, "manual:warm", "/home/u/warm")
	waitSubscribed(t, b, 1)
	base := s.scrape(t)
	const n = 64
	fls := make([]*follower, n)
	for i := range n {
		fls[i] = follow(t, b.c, fmt.Sprintf("manual:s%d", i), fmt.Sprintf("/home/u/s%d", i))
	}
	waitSubscribed(t, b, n+1)
	checkStreams(t, "open", n, s, base)

	// Each stream delivers an update: what a send takes must not leave
	// the stream's stack larger once it waits again.
	for i, fl := range fls {
		b.tg.PushMessage(forumChat, int(fl.thread()), allowedUser, fmt.Sprintf("to s%d", i))
	}
	for i, fl := range fls {
		fl.waitTexts(t, fmt.Sprintf("to s%d", i))
	}
	checkStreams(t, "after an update each", n, s, base)
}

// checkStreams checks what n streams added since base, on scrapes taken
// until one holds or 10s passed: goroutines that come and go (a
// heartbeat's call, a timer's function, a queued detach) may be in
// flight at any one scrape, a goroutine or a stack each stream keeps is
// in all of them.
func checkStreams(t *testing.T, when string, n int, s *scraper, base metricstest.Scrape) {
	t.Helper()
	// Transient goroutines a scrape may still catch on a quiet supervisor.
	const inFlight = 2
	deadline := time.Now().Add(10 * time.Second)
	for {
		after := s.scrape(t)
		goroutines := after.Get("go_goroutines") - base.Get("go_goroutines")
		stack := after.Get("go_memstats_stack_inuse_bytes") - base.Get("go_memstats_stack_inuse_bytes")
		okG, okS := goroutines <= float64(n+inFlight), stack <= float64(n*streamStackBudget)
		if okG && okS || time.Now().After(deadline) {
			t.Logf("%d streams, %s: %+.0f goroutines, %+.0f bytes of stack (%.1f KiB a stream)", n, when, goroutines, stack, stack/float64(n)/1024)
			if !okG {
				t.Errorf("%d streams on one connection, %s: %.0f goroutines, want one each", n, when, goroutines)
			}
			if !okS {
				t.Errorf("%d streams, %s: %.0f bytes of stack (%.1f KiB each), want at most %d KiB each",
					n, when, stack, stack/float64(n)/1024, streamStackBudget>>10)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitSubscribed waits until n followers of b have their stream open.
func waitSubscribed(t *testing.T, b *tgBus, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := b.c.Admin.ListFollowers(ctx, &chatbusv1.ListFollowersRequest{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, f := range resp.GetFollowers() {
			if f.GetSubscribed() {
				got++
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d followers subscribed after 30s", got, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
