package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// TestKilledAndRestartedOnTheSameStateDoesNotGrow: supervisord with the
// four providers (Telegram, Slack and Discord against their stand-ins,
// the playground) is SIGKILLed and started again on the same state three
// times, its follower coming back and a message delivered each time. Each
// restarted supervisor, settled, holds the same open files and about the
// same number of goroutines as the first one: nothing of a recovery (a
// segment, a child's pipe, a socket, a watcher) is kept beyond it. (The
// soak once saw one more fd and a few more goroutines after each kill -9:
// its own client of the supervisor before, which it kept open and which
// reconnected to the new one.)
func TestKilledAndRestartedOnTheSameStateDoesNotGrow(t *testing.T) {
	sock := metricsSocket(t)
	tg := tgtest.New(t)
	tg.AddForum(forumChat)
	st := slacktest.New(t, slacktest.WithPingInterval(500*time.Millisecond))
	st.AddChannel(slackChannel, "chatbus", true)
	dc := discordtest.New(t)
	alice := dc.AddUser("alice")
	cfg := telegramConfig(tg, "    default: true\n") + slackDiscordConfig(st, dc, alice, "    backoff_max: 1s\n") + fmt.Sprintf(`  playground:
    binary: %s
    backoff_max: 1s
metrics:
  listen: unix://%s
`, filepath.Join(binDir, "provider-playground"), sock)
	b := startBus(t, newProfile(t), cfg)
	b.tg = tg
	s := unixScraper(t, sock)
	// The test's own client is connected to every supervisor alike.
	waitAllServing(t, b.c)
	d := b.d
	type sample struct {
		fds, goroutines float64
		files           []string
	}
	var samples []sample
	// One follower that registers again after each restart, as an agent
	// session's does.
	ctx, cancel := context.WithCancel(context.Background())
	r := &resumer{key: "manual:1", seen: map[string]int{}}
	ready := make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Go(func() { r.run(ctx, t, b.profile, ready) })
	defer wg.Wait()
	defer cancel()
	<-ready
	for round := range 4 {
		text := fmt.Sprintf("round %d", round)
		b.tg.PushMessage(forumChat, int(r.threadID()), allowedUser, text)
		deadline := time.Now().Add(60 * time.Second)
		for r.count() != round+1 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %q not delivered (%d delivered)", round, text, r.count())
			}
			time.Sleep(10 * time.Millisecond)
		}
		// Settled: the least of a few scrapes (a scrape's own connection
		// and a request in flight come and go).
		sm := sample{fds: 1e9, goroutines: 1e9}
		for range 5 {
			sc := s.scrape(t)
			sm.fds = min(sm.fds, sc.Get("process_open_fds"))
			sm.goroutines = min(sm.goroutines, sc.Get("go_goroutines"))
			time.Sleep(200 * time.Millisecond)
		}
		sm.files = openFiles(d.cmd.Process.Pid)
		samples = append(samples, sm)
		t.Logf("supervisor %d: %.0f fds, %.0f goroutines", round, sm.fds, sm.goroutines)

		if err := d.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-d.exited
		d = b.start("--config", b.configPath)
		b.waitServing(d)
		b.d = d
		waitAllServing(t, b.c)
	}
	// The first supervisor started on no state; the others each after a
	// kill -9, with a recovery.
	first, last := samples[0], samples[len(samples)-1]
	if last.fds > first.fds {
		t.Errorf("open fds grew from %.0f to %.0f over %d restarts; files kept since:\n%s", first.fds, last.fds,
			len(samples)-1, strings.Join(added(first.files, last.files), "\n"))
	}
	// Goroutines: a margin of 4 for what comes and goes (a heartbeat, a
	// poll in flight); a connection kept is 3 and a leak per restart
	// would be 3 or more each time.
	if last.goroutines > first.goroutines+4 {
		t.Errorf("goroutines grew from %.0f to %.0f over %d restarts", first.goroutines, last.goroutines, len(samples)-1)
	}
}

// openFiles lists what the process pid holds open, each fd as its target
// with numbers masked (pipe:[123] → pipe:[N]), sorted.
func openFiles(pid int) []string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return []string{"(" + err.Error() + ")"}
	}
	var out []string
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		out = append(out, digits.ReplaceAllString(target, "N"))
	}
	slices.Sort(out)
	return out
}

var digits = regexp.MustCompile(`[0-9]+`)

// added is what later holds more of than earlier (a multiset difference).
func added(earlier, later []string) []string {
	n := map[string]int{}
	for _, f := range earlier {
		n[f]++
	}
	var out []string
	for _, f := range later {
		if n[f] > 0 {
			n[f]--
			continue
		}
		out = append(out, f)
	}
	return out
}

// waitAllServing waits until every configured provider runs and serves.
func waitAllServing(t *testing.T, c *client.Client) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
		cancel()
		all := err == nil && len(resp.GetProviders()) > 0
		for _, p := range resp.GetProviders() {
			all = all && p.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && p.GetServing()
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not every provider serving after 90s: %v %v", resp, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
