package discord_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/discord"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// disgo's REST rate limiter starts a cleanup ticker per client
		// that never stops (one per provider process).
		goleak.IgnoreTopFunction("github.com/disgoorg/disgo/rest.(*rateLimiterImpl).cleanup"),
	)
}

// fast are timings for tests: reconnects in milliseconds.
var fast = discord.Timing{
	BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond,
	FatalMin: 50 * time.Millisecond, FatalMax: 300 * time.Millisecond,
	IdentifyMin: 10 * time.Millisecond, IdentifyMax: 40 * time.Millisecond,
	Retry: 20 * time.Millisecond,
}

// sink is the supervisor's side of the Updates stream: it checks update
// ids, journals each dedup id once (as the supervisor's window does),
// keeps the cursor of the last durable update, and can refuse deliveries
// like a closed admission.
type sink struct {
	t       *testing.T
	mu      sync.Mutex
	last    int64
	all     []*providerv1.Update // every update delivered, duplicates too
	journal []*providerv1.Update // each dedup id once
	seen    map[string]bool
	cursor  []byte
	refuse  bool
	refused int
	changed chan struct{}
}

func newSink(t *testing.T) *sink {
	return &sink{t: t, seen: map[string]bool{}, changed: make(chan struct{})}
}

func (s *sink) Deliver(ctx context.Context, ups []*providerv1.Update) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse {
		s.refused++
		return s.last, &provider.AdmissionClosedError{RequestID: "test-doctor"}
	}
	for _, u := range ups {
		if u.GetUpdateId() <= s.last {
			s.t.Errorf("update id %d after %d", u.GetUpdateId(), s.last)
			return s.last, provider.ErrInvalid
		}
		if len(u.GetCursor()) == 0 || u.GetDedupId() == "" {
			s.t.Errorf("update %d without cursor or dedup id: %v", u.GetUpdateId(), u)
		}
		s.last = u.GetUpdateId()
		s.all = append(s.all, u)
		if !s.seen[u.GetDedupId()] {
			s.seen[u.GetDedupId()] = true
			s.journal = append(s.journal, u)
		}
		s.cursor = u.GetCursor()
	}
	close(s.changed)
	s.changed = make(chan struct{})
	return s.last, nil
}

// newStream starts a new Updates stream for a successor: update ids
// start again; the journal and the stored cursor stay.
func (s *sink) newStream() *sink {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = 0
	return s
}

func (s *sink) setRefuse(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = v
}

func (s *sink) refusals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// state is the cursor the supervisor would hand the next Run.
func (s *sink) state() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.cursor...)
}

// texts are the journalled updates' texts, in order.
func (s *sink) texts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.journal))
	for _, u := range s.journal {
		out = append(out, u.GetText())
	}
	return out
}

func (s *sink) delivered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.all)
}

// deliveriesOf counts the deliveries (duplicates too) of updates whose
// text is one of texts.
func (s *sink) deliveriesOf(texts ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, u := range s.all {
		if slices.Contains(texts, u.GetText()) {
			n++
		}
	}
	return n
}

// waitFor waits until the journal satisfies ok.
func (s *sink) waitFor(t *testing.T, what string, ok func(journal []*providerv1.Update) bool) []*providerv1.Update {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		s.mu.Lock()
		j := append([]*providerv1.Update(nil), s.journal...)
		ch := s.changed
		s.mu.Unlock()
		if ok(j) {
			return j
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s: journal has %d updates: %q", what, len(j), textsOf(j))
		}
	}
}

// waitTexts waits for exactly want (in order) in the journal.
func (s *sink) waitTexts(t *testing.T, want ...string) []*providerv1.Update {
	t.Helper()
	j := s.waitFor(t, fmt.Sprintf("want %d updates", len(want)), func(j []*providerv1.Update) bool { return len(j) >= len(want) })
	if got := textsOf(j); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("journal %q, want %q", got, want)
	}
	return j
}

// waitTextSet is waitTexts for a test of where updates go, not of their
// order: a thread the supervisor attached while the runner had READY
// still queued is caught up by REST then, so its messages may come before
// a reaction or a press that came between them (the supervisor's
// de-duplication drops the gateway's copies).
func (s *sink) waitTextSet(t *testing.T, want ...string) []*providerv1.Update {
	t.Helper()
	j := s.waitFor(t, fmt.Sprintf("want %d updates", len(want)), func(j []*providerv1.Update) bool { return len(j) >= len(want) })
	got := textsOf(j)
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Fatalf("journal %q, want %q in any order", got, want)
	}
	return j
}

func textsOf(us []*providerv1.Update) []string {
	out := make([]string, 0, len(us))
	for _, u := range us {
		out = append(out, u.GetText())
	}
	return out
}

// fixture is a stand-in Discord with a person and a platform on it.
type fixture struct {
	t       *testing.T
	dc      *discordtest.Server
	alice   discordtest.User // allowed
	mallory discordtest.User // not allowed
	p       *discord.Platform
	health  *healthLog
}

// healthLog records what the platform reports about its connection.
type healthLog struct {
	mu      sync.Mutex
	serving bool
	why     string
	changes []string
}

func (h *healthLog) set(serving bool, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if serving != h.serving || why != h.why {
		h.changes = append(h.changes, fmt.Sprintf("%v %s", serving, why))
	}
	h.serving, h.why = serving, why
}

func (h *healthLog) get() (bool, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.serving, h.why
}

func newFixture(t *testing.T, opts ...discordtest.Option) *fixture {
	t.Helper()
	dc := discordtest.New(t, opts...)
	f := &fixture{t: t, dc: dc, alice: dc.AddUser("alice"), mallory: dc.AddUser("mallory"), health: &healthLog{}}
	f.p = f.platform(nil)
	return f
}

// platform makes a Platform on the stand-in; mod adjusts its options.
func (f *fixture) platform(mod func(*discord.Settings, *discord.Options)) *discord.Platform {
	f.t.Helper()
	s := discord.Settings{
		Token:          f.dc.Token(),
		GuildID:        discord.Snowflake(f.dc.GuildID()),
		ChannelID:      discord.Snowflake(f.dc.Channel()),
		AllowedUserIDs: []discord.Snowflake{discord.Snowflake(f.alice.ID)},
		BaseURL:        f.dc.URL(),
	}
	o := discord.Options{Logger: testLogger(f.t), OnState: f.health.set, Timing: fast}
	if mod != nil {
		mod(&s, &o)
	}
	p, err := discord.New(s, o)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(p.Close)
	return p
}

// run runs p.Run from state into sk until the returned stop is called
// (or the test ends).
func (f *fixture) run(p *discord.Platform, state []byte, sk provider.Sink) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, state, sk) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					f.t.Errorf("Run: %v", err)
				}
			case <-time.After(15 * time.Second):
				f.t.Fatal("Run did not return after its context ended")
			}
		})
	}
	f.t.Cleanup(stop)
	return stop
}

// start runs f.p from no cursor into a new sink, waits until its session
// is up and provisions (and attaches) the thread "A · alpha".
func (f *fixture) start() (sk *sink, stop func(), alpha provider.Target) {
	f.t.Helper()
	sk = newSink(f.t)
	stop = f.run(f.p, nil, sk)
	f.waitConnected(1)
	return sk, stop, f.thread(f.p, "A · alpha")
}

// waitConnected waits until n gateway connections are identified.
func (f *fixture) waitConnected(n int) {
	f.t.Helper()
	f.waitUntil("gateway connected", func() bool { return f.dc.Connected() == n })
}

func (f *fixture) waitUntil(what string, ok func() bool) {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			f.t.Fatalf("never %s (stand-in counts %v)", what, f.dc.Counts())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// thread provisions a thread through the platform and attaches a
// follower to it.
func (f *fixture) thread(p *discord.Platform, name string) provider.Target {
	f.t.Helper()
	th, err := p.Provision(context.Background(), provider.ProvisionRequest{Name: name})
	if err != nil {
		f.t.Fatalf("provision %s: %v", name, err)
	}
	p.Attached("follower-"+name, th.Target)
	return th.Target
}

func (f *fixture) call(p *discord.Platform, t provider.Target, method, params string) (provider.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return p.Call(ctx, t, method, json.RawMessage(params), "")
}

func testLogger(t *testing.T) zerolog.Logger {
	return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel).With().Timestamp().Logger()
}

func wantErr(t *testing.T, err, class error, contains string) {
	t.Helper()
	if !errors.Is(err, class) {
		t.Fatalf("got %v, want %v", err, class)
	}
	if contains != "" && !strings.Contains(err.Error(), contains) {
		t.Fatalf("%v does not say %q", err, contains)
	}
}
