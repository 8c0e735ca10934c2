//go:build soak

package e2e

// The soak (make soak DURATION=…): one supervisord runs the four
// providers (Telegram, Slack and Discord against their stand-ins, and
// the playground), a follower on each; people write into every thread
// and every follower sends, while faults are injected at random:
// kill -9 of supervisord and of a provider, a doctor restart, Discord's
// connections dropped, 429s and 5xx from Telegram and Slack, a full disk
// (on Linux: supervisord's RLIMIT_FSIZE at 1 byte for 3 s). It runs in
// rounds: load and one fault, then it settles (every message written is
// delivered, every send answered) and samples supervisord (goroutines,
// open fds, resident memory, from its own metrics). At the end it checks
// 0 lost and 0 duplicated (each message written reached its thread's
// follower exactly once), every idempotency key at most once at the
// platform (each send answered exactly once), and that the samples are
// flat after warm-up: the last third of the rounds stays within a
// margin of the middle third (see flat).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

var (
	soakDuration = flag.Duration("soak.duration", 5*time.Minute, "how long TestSoak loads and faults the bus")
	soakSeed     = flag.Uint64("soak.seed", 0, "the faults' random seed (0: from the clock)")
	soakReport   = flag.String("soak.report", "", "if set, write the soak's figures here as JSON")
	soakFaults   = flag.String("soak.faults", "", "if set, inject only these faults (their names, comma-separated)")
)

// soakProviders are the providers the soak runs, one follower each.
var soakProviders = []string{"telegram", "slack", "discord", "playground"}

// soakBus is the supervisor under soak and its stand-ins.
type soakBus struct {
	t       *testing.T
	p       *profile
	cfgPath string
	metrics string // the metrics socket
	tg      *tgtest.Server
	st      *slacktest.Server
	dc      *discordtest.Server
	alice   discordtest.User

	mu sync.Mutex
	d  *daemon
	c  *client.Client
}

func newSoakBus(t *testing.T) *soakBus {
	tg := tgtest.New(t)
	tg.AddForum(forumChat)
	st := slacktest.New(t, slacktest.WithPingInterval(500*time.Millisecond))
	st.AddChannel(slackChannel, "chatbus", true)
	dc := discordtest.New(t)
	b := &soakBus{t: t, p: newProfile(t), tg: tg, st: st, dc: dc, alice: dc.AddUser("alice")}
	b.metrics = filepath.Join(filepath.Dir(b.p.socket), "m.sock")
	cfg := fmt.Sprintf(`heartbeat_interval: 200ms
stale_after: 3s
reconcile_grace: 1s
metrics:
  listen: unix://%s
providers:
  telegram:
    default: true
    binary: %s
    forum_chat_id: %d
    base_url: %s
    token: %q
    allowed_user_ids: [%d]
    poll_timeout: 1s
    backoff_max: 1s
`, b.metrics, filepath.Join(binDir, "provider-telegram"), forumChat, tg.URL(), tg.Token(), allowedUser) +
		slackDiscordConfig(st, dc, b.alice, "    backoff_max: 1s\n") + fmt.Sprintf(`  playground:
    binary: %s
    backoff_max: 1s
`, filepath.Join(binDir, "provider-playground"))
	b.cfgPath = filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(b.cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	b.start()
	return b
}

// start starts supervisord (again) and dials it.
func (b *soakBus) start() {
	b.t.Helper()
	d := b.p.startBinary(filepath.Join(binDir, "supervisord"), nil, "--log-format", "json", "--log-level", "info", "--config", b.cfgPath)
	// A start after a kill -9 recovers the journal: on a busy machine it
	// may take longer than profile.waitServing's 15 s.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, _, code := b.p.busctl("status"); code == 0 {
			break
		}
		select {
		case <-d.exited:
			b.t.Fatalf("supervisord exited: %v\n%s", d.err, d.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("supervisord not serving after 2 minutes\n%s", d.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	c, err := client.Dial(b.p.socket, client.WithSecretFile(filepath.Join(b.p.state, "secret")))
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { c.Close() })
	b.mu.Lock()
	old := b.c
	b.d, b.c = d, c
	b.mu.Unlock()
	if old != nil {
		// The client of the supervisor before: kept open, it reconnects
		// to this one (a follower retrying on it through the restart)
		// and holds a connection, counted as this supervisor's fd and
		// goroutines, one more for each kill -9.
		old.Close()
	}
	for _, name := range soakProviders {
		b.waitServing(name)
	}
}

func (b *soakBus) client() *client.Client {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.c
}

// providers lists the providers as the supervisor sees them now.
func (b *soakBus) providers() map[string]*chatbusv1.ProviderInfo {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := b.client().Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
	out := map[string]*chatbusv1.ProviderInfo{}
	if err != nil {
		return out
	}
	for _, p := range resp.GetProviders() {
		out[p.GetName()] = p
	}
	return out
}

// waitServing waits until provider name runs and serves.
func (b *soakBus) waitServing(name string) {
	b.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		pi := b.providers()[name]
		if pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetServing() {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s not serving after 90s: %v", name, pi)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sample is supervisord's own figures at one settled point.
type sample struct {
	Round      int     `json:"round"`
	Goroutines float64 `json:"goroutines"`
	FDs        float64 `json:"open_fds"`
	RSS        float64 `json:"rss_bytes"`
	Heap       float64 `json:"heap_inuse_bytes"`
	HeapGoal   float64 `json:"heap_goal_bytes"` // twice the heap live at the last collection
	Started    float64 `json:"started"`         // the supervisor's start (its incarnation)
}

// scrape reads supervisord's metrics.
func (b *soakBus) scrape() (sample, error) {
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", b.metrics)
		}}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get("http://metrics/metrics")
	if err != nil {
		return sample{}, err
	}
	defer resp.Body.Close()
	var s sample
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_goroutines":
			s.Goroutines = v
		case "process_open_fds":
			s.FDs = v
		case "process_resident_memory_bytes":
			s.RSS = v
		case "go_memstats_heap_inuse_bytes":
			s.Heap = v
		case "go_memstats_next_gc_bytes":
			s.HeapGoal = v
		case "process_start_time_seconds":
			s.Started = v
		}
	}
	return s, sc.Err()
}

// soakFollower is one provider's follower: it survives supervisor
// restarts (registers again with its profile key and resumes after the
// last seq it handled), counts what it receives, and sends "out <n>"
// messages with the idempotency key "<provider>-out-<n>", one after the
// other, each until it is answered.
type soakFollower struct {
	b        *soakBus
	provider string
	key      string

	mu      sync.Mutex
	cur     *client.Follower
	thread  string
	last    uint64
	seen    map[string]int // inbound texts
	dupSeq  int            // updates delivered again (a seq at or below the last)
	sent    int            // sends answered: "out 0" … "out sent-1"
	unknown map[int]bool   // of those, the ones whose outcome is unknown
	tries   int            // send attempts (retries of a key included)
}

func (f *soakFollower) run(ctx context.Context) {
	for ctx.Err() == nil {
		c := f.b.client()
		rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		fl, err := c.Register(rctx, client.Registration{ProfileKey: f.key, InstanceID: f.key + "-i", Cwd: "/w/" + f.provider, Provider: f.provider})
		cancel()
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		th := fl.Registered().GetBinding().GetTarget().GetThread()
		f.mu.Lock()
		if f.thread != "" && th != f.thread {
			f.b.t.Errorf("%s came back to thread %s, had %s", f.key, th, f.thread)
		}
		f.thread, f.cur = th, fl
		after := f.last
		f.mu.Unlock()
		fl.Updates(ctx, after, func(u *chatbusv1.Update) error {
			f.mu.Lock()
			if u.GetSeq() <= f.last {
				f.dupSeq++
				f.mu.Unlock()
				return nil
			}
			f.last = u.GetSeq()
			f.seen[u.GetText()]++
			f.mu.Unlock()
			return fl.Ack(ctx, u.GetSeq())
		})
		f.mu.Lock()
		if f.cur == fl {
			f.cur = nil
		}
		f.mu.Unlock()
		fl.Close(context.Background())
	}
}

// current is the registered follower and its thread, nil while none.
func (f *soakFollower) current() (*client.Follower, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur, f.thread
}

// send sends "out <n>" for the next n, repeating its key until it is
// answered or ctx ends.
func (f *soakFollower) send(ctx context.Context) {
	f.mu.Lock()
	n := f.sent
	f.mu.Unlock()
	text := fmt.Sprintf("out %s %d", f.provider, n)
	key := fmt.Sprintf("%s-out-%d", f.provider, n)
	var last string
	for ctx.Err() == nil {
		fl, _ := f.current()
		if fl != nil {
			f.mu.Lock()
			f.tries++
			f.mu.Unlock()
			sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			_, err := fl.Send(sctx, client.Message{Text: text}, key)
			cancel()
			// Sent, or its outcome unknown (the platform answered a 5xx
			// after the request went out: the key keeps that answer, it
			// is never sent again): the next key.
			unknown := errors.Is(client.Err(err), client.ErrOutcomeUnknown)
			if err == nil || unknown {
				f.mu.Lock()
				if unknown {
					f.unknown[n] = true
				}
				f.sent++
				f.mu.Unlock()
				return
			}
			wait := 200 * time.Millisecond
			var ce *client.Error
			if errors.As(client.Err(err), &ce) && ce.RetryDelay > 0 {
				wait = ce.RetryDelay // the platform's limits: as a follower should
			}
			if why := strings.SplitN(err.Error(), ":", 2)[0]; why != last {
				last = why
				f.b.t.Logf("%s: send %s: %v (repeating the key)", f.provider, key, err)
			}
			time.Sleep(wait)
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// page is a person at the playground's page: it opens the page's current
// URL (with its start's token) again whenever the playground refuses it.
type page struct {
	b  *soakBus
	hc *http.Client
	at string // scheme://host
}

func (pg *page) open() bool {
	u := pg.b.providers()["playground"].GetWebUrl()
	if u == "" {
		return false
	}
	jar, _ := cookiejar.New(nil)
	pg.hc = &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := pg.hc.Get(u)
	if err != nil {
		return false
	}
	resp.Body.Close()
	pu, _ := url.Parse(u)
	pg.at = pu.Scheme + "://" + pu.Host
	return resp.StatusCode == 200
}

// say writes text into room, as the page does (a client id makes a
// repeat of the same message one message), until the playground takes it.
func (pg *page) say(ctx context.Context, room, clientID, text string) {
	body, _ := json.Marshal(map[string]string{"client_id": clientID, "text": text})
	for ctx.Err() == nil {
		if pg.hc != nil || pg.open() {
			req, _ := http.NewRequest("POST", pg.at+"/api/rooms/"+room+"/messages", bytes.NewReader(body))
			req.Header.Set("Origin", pg.at)
			req.Header.Set("Content-Type", "application/json")
			resp, err := pg.hc.Do(req)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode < 300 {
					return
				}
				if resp.StatusCode == 401 || resp.StatusCode == 403 {
					pg.hc = nil // a new start's token
				}
			} else {
				pg.hc = nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// writer is the people writing into one follower's thread.
type writer struct {
	f      *soakFollower
	posted []string
	post   func(ctx context.Context, thread, text string)
}

// soakFault is one fault the soak injects.
type soakFault struct {
	name   string
	inject func()
}

func TestSoak(t *testing.T) {
	seed := *soakSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	t.Logf("soak: %s, seed %d", *soakDuration, seed)
	b := newSoakBus(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	fls := map[string]*soakFollower{}
	var wg sync.WaitGroup
	for _, name := range soakProviders {
		f := &soakFollower{b: b, provider: name, key: "soak:" + name, seen: map[string]int{}, unknown: map[int]bool{}}
		fls[name] = f
		wg.Go(func() { f.run(ctx) })
	}
	defer wg.Wait()
	defer cancel()
	for _, f := range fls {
		deadline := time.Now().Add(60 * time.Second)
		for {
			if fl, _ := f.current(); fl != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s follower never registered", f.provider)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	pg := &page{b: b}
	tally := &roomTally{pg: pg}
	writers := []*writer{
		{f: fls["telegram"], post: func(_ context.Context, thread, text string) {
			th, _ := strconv.Atoi(thread)
			b.tg.PushMessage(forumChat, th, allowedUser, text)
		}},
		{f: fls["slack"], post: func(_ context.Context, thread, text string) {
			b.st.PostMessage(slackChannel, slackPerson, text, thread)
		}},
		{f: fls["discord"], post: func(_ context.Context, thread, text string) { b.dc.PostMessage(thread, b.alice, text) }},
		{f: fls["playground"], post: func(ctx context.Context, thread, text string) { pg.say(ctx, thread, text, text) }},
	}

	faults := []soakFault{
		{"kill -9 supervisord", func() {
			b.mu.Lock()
			d := b.d
			b.mu.Unlock()
			d.cmd.Process.Signal(syscall.SIGKILL)
			<-d.exited
			b.start()
		}},
		{"kill -9 a provider", func() {
			name := soakProviders[rng.IntN(len(soakProviders))]
			if pid := b.providers()[name].GetPid(); pid > 0 {
				syscall.Kill(int(pid), syscall.SIGKILL)
			}
		}},
		{"doctor restart", func() {
			name := soakProviders[rng.IntN(len(soakProviders))]
			if out, errOut, code := b.p.busctl("doctor", "restart", name); code != 0 {
				t.Logf("doctor restart %s: %d %s %s", name, code, out, errOut)
			}
		}},
		{"discord disconnect", func() { b.dc.DropConnections() }},
		{"telegram 429 and 5xx", func() {
			b.tg.Fail("sendMessage", tgtest.Fault{RetryAfter: 2})
			b.tg.Fail("sendMessage", tgtest.Fault{Status: 502, HTML5xx: true})
			b.tg.Fail("getUpdates", tgtest.Fault{Status: 500})
		}},
		{"slack 429 and 5xx", func() {
			b.st.Fail("chat.postMessage", slacktest.Fault{Status: 429, RetryAfter: 1})
			b.st.Fail("chat.postMessage", slacktest.Fault{Status: 503})
		}},
		{"full disk", func() {
			// For 3 s every write of supervisord to a file fails with
			// EFBIG (its RLIMIT_FSIZE at 1 byte; no root needed, unlike
			// a small tmpfs): its journal, its state file. That is
			// harsher than a full disk, whose preallocated journal
			// segment would still take writes. The children it starts
			// meanwhile inherit the limit: every child's is lifted
			// after.
			b.mu.Lock()
			pid := b.d.cmd.Process.Pid
			b.mu.Unlock()
			if err := limitFileSize(pid, 1); err != nil {
				t.Logf("full disk: %v", err)
				return
			}
			time.Sleep(3 * time.Second)
			if err := limitFileSize(pid, noFileSizeLimit); err != nil {
				t.Errorf("full disk: lifting the limit: %v", err)
			}
			for _, p := range b.providers() {
				if p.GetPid() > 0 {
					limitFileSize(int(p.GetPid()), noFileSizeLimit)
				}
			}
		}},
	}
	if *soakFaults != "" {
		names := strings.Split(*soakFaults, ",")
		faults = slices.DeleteFunc(faults, func(f soakFault) bool { return !slices.Contains(names, f.name) })
		if len(faults) == 0 {
			t.Fatalf("-soak.faults %q names no fault", *soakFaults)
		}
	}

	// Messages written into, and sent from, each thread a round: sends
	// stay under Telegram's 20 a minute in a group.
	const perRound, sendsPerRound = 8, 3
	var samples []sample
	faultCounts := map[string]int{}
	start := time.Now()
	round, sinceStart := 0, 0
	for ; time.Since(start) < *soakDuration; round++ {
		// Load: people write, followers send, a fault lands among it.
		var lg sync.WaitGroup
		for _, w := range writers {
			lg.Go(func() {
				_, thread := w.f.current()
				for i := range perRound {
					text := fmt.Sprintf("in %s %d-%d", w.f.provider, round, i)
					w.post(ctx, thread, text)
					w.posted = append(w.posted, text)
					time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond) // rng is the fault loop's
				}
			})
			lg.Go(func() {
				for range sendsPerRound {
					w.f.send(ctx)
				}
			})
		}
		time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
		fault := faults[rng.IntN(len(faults))]
		for fault.name == "kill -9 supervisord" && sinceStart < 8 && len(faults) > 1 {
			// Each supervisor runs 8 rounds at least: its samples are
			// judged (flat) within it.
			fault = faults[rng.IntN(len(faults))]
		}
		if fault.name == "kill -9 supervisord" {
			sinceStart = -1
		}
		sinceStart++
		faultCounts[fault.name]++
		fault.inject()
		lg.Wait()
		// Settle: everything written delivered; then a sample.
		for _, name := range soakProviders {
			b.waitServing(name)
		}
		settle(t, writers)
		if _, room := fls["playground"].current(); room != "" {
			if err := tally.read(room); err != nil {
				t.Logf("round %d: playground: %v (the next read reads it)", round, err)
			}
		}
		s, err := b.scrape()
		if err != nil {
			t.Logf("round %d: metrics: %v", round, err)
			continue
		}
		s.Round = round
		samples = append(samples, s)
		t.Logf("round %d (%s): goroutines %.0f, fds %.0f, rss %.1f MiB, heap %.1f MiB (goal %.1f MiB)",
			round, fault.name, s.Goroutines, s.FDs, s.RSS/(1<<20), s.Heap/(1<<20), s.HeapGoal/(1<<20))
	}

	// 0 lost, 0 duplicated; every key at most once.
	inbound, outbound, outUnknown := 0, 0, 0
	var sendsWrong []string
	for _, w := range writers {
		f := w.f
		f.mu.Lock()
		for _, text := range w.posted {
			if n := f.seen[text]; n != 1 {
				t.Errorf("%s: %q delivered %d times, want once", f.provider, text, n)
			}
		}
		if f.dupSeq > 0 {
			t.Errorf("%s: %d updates delivered again after they were handled", f.provider, f.dupSeq)
		}
		inbound += len(w.posted)
		outbound += f.sent
		sent, thread, unknown := f.sent, f.thread, maps.Clone(f.unknown)
		f.mu.Unlock()
		outUnknown += len(unknown)
		for _, wrong := range sentOnce(f.provider, sent, unknown, b.platformTexts(t, f.provider, thread, tally)) {
			t.Error(wrong)
			sendsWrong = append(sendsWrong, wrong)
		}
	}
	verdicts := flat(samples)
	for _, v := range verdicts {
		if !v.Flat {
			t.Errorf("%s grew: %s", v.Name, v.Why)
		}
	}
	t.Logf("soak: %d rounds in %s; %d messages in, %d out (%d of them outcome unknown); faults %v",
		round, time.Since(start).Round(time.Second), inbound, outbound, outUnknown, faultCounts)
	for _, v := range verdicts {
		t.Logf("%s: %s", v.Name, v.Why)
	}
	if *soakReport != "" {
		out, _ := json.MarshalIndent(map[string]any{
			"duration": time.Since(start).Round(time.Second).String(), "rounds": round, "seed": seed,
			"inbound": inbound, "outbound": outbound, "outbound_unknown": outUnknown, "faults": faultCounts, "samples": samples, "verdicts": verdicts,
			"sends_wrong": sendsWrong, "playground_bot_messages_read": len(tally.texts),
		}, "", "  ")
		os.WriteFile(*soakReport, out, 0o644)
	}
}

// settle waits until each thread's follower has every message written.
func settle(t *testing.T, writers []*writer) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for _, w := range writers {
		for {
			w.f.mu.Lock()
			missing := 0
			for _, text := range w.posted {
				if w.f.seen[text] == 0 {
					missing++
				}
			}
			w.f.mu.Unlock()
			if missing == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d messages written were not delivered within 3 minutes", w.f.provider, missing)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// platformTexts counts the bot's messages in thread at the platform, by
// text. The playground's are those its room showed the tally (pt) read
// after every round: the room keeps only its last 2,000 messages, fewer
// than a long soak writes into it.
func (b *soakBus) platformTexts(t *testing.T, provider, thread string, pt *roomTally) map[string]int {
	out := map[string]int{}
	switch provider {
	case "telegram":
		th, _ := strconv.Atoi(thread)
		for _, m := range b.tg.Sent(forumChat, th) {
			out[m.Text]++
		}
	case "slack":
		for _, m := range b.st.Sent(slackChannel, thread) {
			out[m.Text]++
		}
	case "discord":
		for _, m := range b.dc.BotMessages(thread) {
			out[m.Content]++
		}
	case "playground":
		if err := pt.read(thread); err != nil {
			t.Errorf("playground: %v", err)
		}
		for _, gap := range pt.gaps {
			t.Errorf("playground: %s", gap)
		}
		for _, text := range pt.texts {
			out[text]++
		}
	}
	return out
}

// sentOnce checks that each of the sent texts "out <provider> <n>", n
// below sent, is in got (the platform's texts) once, or at most once if
// its outcome is unknown; it returns what is not.
func sentOnce(provider string, sent int, unknown map[int]bool, got map[string]int) []string {
	var wrong []string
	for n := range sent {
		text := fmt.Sprintf("out %s %d", provider, n)
		if c := got[text]; c > 1 || c == 0 && !unknown[n] {
			wrong = append(wrong, fmt.Sprintf("%s: %q (key %s-out-%d) is at the platform %d times, want once (at most once if its outcome is unknown: %v)",
				provider, text, provider, n, c, unknown[n]))
		}
	}
	return wrong
}

// roomTally keeps the bot's messages of a playground room, read as they
// are made. A room holds its last 2,000 messages (docs/playground.md): a
// long soak writes more, so its history read at the end lacks the first
// ones. The tally reads the room after each round, back to the newest
// message it read before; a room that no longer holds that message may
// have dropped others unread, which fails the check (it cannot tell).
type roomTally struct {
	pg     *page
	room   string
	texts  map[int64]string // the bot's messages read, by message id
	newest int64            // the newest message read, 0 before the first read
	gaps   []string         // where messages may have been dropped unread
}

// read reads room's messages made since the last read.
func (pt *roomTally) read(room string) error {
	if pt.room != room {
		if pt.room != "" {
			pt.gaps = append(pt.gaps, fmt.Sprintf("the follower's room changed from %s to %s", pt.room, room))
		}
		pt.room, pt.texts, pt.newest = room, map[int64]string{}, 0
	}
	newest := pt.newest
	for before := int64(0); ; {
		page, ok := pt.pg.history(room, before)
		if !ok {
			return fmt.Errorf("the history of room %s before message %d could not be read", room, before)
		}
		for _, m := range page.Messages {
			if m.ID > pt.newest && m.From == "bot" && !m.Deleted {
				pt.texts[m.ID] = m.Text
			}
			newest = max(newest, m.ID)
		}
		switch {
		case len(page.Messages) > 0 && page.Messages[0].ID <= pt.newest:
			// Back to what the last read saw.
		case page.More:
			before = page.Messages[0].ID
			continue
		case pt.newest > 0:
			pt.gaps = append(pt.gaps, fmt.Sprintf("room %s no longer holds message %d, the newest of the read before: messages made since may have been dropped unread", room, pt.newest))
		}
		pt.newest = newest
		return nil
	}
}

// historyPage is a page of a playground room's history, oldest first.
type historyPage struct {
	Messages []pageMessage
	More     bool
}

// history reads the page of room's history before message before (0: the
// newest page), opening the page again when the playground refuses it.
func (pg *page) history(room string, before int64) (historyPage, bool) {
	for range 50 {
		if pg.hc != nil || pg.open() {
			u := pg.at + "/api/rooms/" + room + "/messages"
			if before > 0 {
				u += "?before=" + strconv.FormatInt(before, 10)
			}
			resp, err := pg.hc.Get(u)
			if err == nil {
				var h historyPage
				err = json.NewDecoder(resp.Body).Decode(&h)
				resp.Body.Close()
				if err == nil && resp.StatusCode == 200 {
					return h, true
				}
			}
			pg.hc = nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return historyPage{}, false
}

// verdict is whether one figure stayed flat.
type verdict struct {
	Name string `json:"name"`
	Flat bool   `json:"flat"`
	Why  string `json:"why"`
}

// flat judges the settled samples of each supervisor (a kill -9 starts
// another, whose memory starts again) that has 6 at least: its first
// third is warm-up; a figure is flat when the largest value of its last
// third is at most the largest of its middle third plus a margin (10%
// and 16 goroutines or 8 fds; 25% and 16 MiB of memory). A run with no
// supervisor of 6 samples cannot be judged: it fails.
func flat(samples []sample) []verdict {
	figures := []struct {
		name   string
		of     func(sample) float64
		rel    float64
		abs    float64
		format func(float64) string
	}{
		{"goroutines", func(s sample) float64 { return s.Goroutines }, 0.10, 16, func(v float64) string { return fmt.Sprintf("%.0f", v) }},
		{"open fds", func(s sample) float64 { return s.FDs }, 0.10, 8, func(v float64) string { return fmt.Sprintf("%.0f", v) }},
		{"resident memory", func(s sample) float64 { return s.RSS }, 0.25, 16 << 20, func(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }},
		{"heap in use", func(s sample) float64 { return s.Heap }, 0.25, 16 << 20, func(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }},
		{"heap goal", func(s sample) float64 { return s.HeapGoal }, 0.25, 16 << 20, func(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }},
	}
	var runs [][]sample // by supervisor, in order
	for i, s := range samples {
		if i == 0 || s.Started != samples[i-1].Started {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], s)
	}
	var out []verdict
	for _, fg := range figures {
		v := verdict{Name: fg.name, Flat: true}
		var whys []string
		for i, run := range runs {
			if len(run) < 6 {
				continue
			}
			third := len(run) / 3
			var middle, last []float64
			for _, s := range run[third : 2*third] {
				middle = append(middle, fg.of(s))
			}
			for _, s := range run[2*third:] {
				last = append(last, fg.of(s))
			}
			mid, end := slices.Max(middle), slices.Max(last)
			bound := mid*(1+fg.rel) + fg.abs
			v.Flat = v.Flat && end <= bound
			whys = append(whys, fmt.Sprintf("supervisor %d (%d rounds): first %s, middle third max %s, last third max %s (bound %s)",
				i+1, len(run), fg.format(fg.of(run[0])), fg.format(mid), fg.format(end), fg.format(bound)))
		}
		if len(whys) == 0 {
			v.Flat, whys = false, []string{"no supervisor ran 6 settled rounds: too few to judge"}
		}
		v.Why = strings.Join(whys, "; ")
		out = append(out, v)
	}
	return out
}
