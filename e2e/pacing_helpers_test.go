package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// The outbound scheduler's pacing, as the same scenarios on every
// platform: each runs against a supervisord on a stand-in that enforces
// the platform's limits (a pacedBus), with the default settings, and
// checks what the issue asks of the scheduler (fair between sessions,
// prompts first, edits coalesced, typing once, one backlog not holding
// another). The parameters say what the platform's limits make of them.

// pacedBus is a supervisord on a rate-limited stand-in, as the pacing
// scenarios see it.
type pacedBus interface {
	// session registers a follower that only sends, in a thread of its
	// own named after name.
	session(t *testing.T, name string) *session
	// outbound is the provider's outbound queue now.
	outbound(t *testing.T) *chatbusv1.OutboundQueue
	// arrivals are the bot's messages in the sessions' threads, in the
	// order the platform took them.
	arrivals(ss ...*session) []arrival
	// limited is how many calls the stand-in answered 429 so far.
	limited() int
	// calls is how many requests of a platform method reached the
	// stand-in.
	calls(method string) int
	// text is what message id of s's thread reads now.
	text(s *session, id string) string
}

// scenario is one pacing scenario with the platform's parameters.
type scenario struct {
	name string
	run  func(t *testing.T, b pacedBus)
}

// runPacing runs each scenario as a parallel subtest, on a bus of its own
// that start makes.
func runPacing(t *testing.T, start func(t *testing.T) pacedBus, scenarios []scenario) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, start(t))
		})
	}
}

// session is a follower that only sends.
type session struct {
	name string
	f    *client.Follower
}

// oneProvider is the half of a pacedBus that speaks to the supervisor:
// its sessions, and its one provider's queue.
type oneProvider struct{ c *client.Client }

func (o oneProvider) session(t *testing.T, name string) *session {
	t.Helper()
	return &session{name: name, f: follow(t, o.c, "pace:"+name, sessionDir(t, name)).f}
}

func (o oneProvider) outbound(t *testing.T) *chatbusv1.OutboundQueue {
	return onlyProvider(t, o.c, "").GetOutbound()
}

// thread is the session's thread id.
func (s *session) thread() string { return s.f.Registered().GetBinding().GetTarget().GetThread() }

// arrival is a message the platform took: its id and text.
type arrival struct{ id, text string }

func arrivalTexts(as []arrival) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.text
	}
	return out
}

// indexOf is where the message id is in as, -1 if it is not.
func indexOfArrival(as []arrival, id string) int {
	return slices.IndexFunc(as, func(a arrival) bool { return a.id == id })
}

// taken is how many calls the provider's queue has taken so far.
func taken(q *chatbusv1.OutboundQueue) uint64 {
	return q.GetSent() + uint64(q.GetQueued()) + q.GetCoalesced() + q.GetSkipped()
}

// sends runs calls in the background, each once the previous one was
// taken by the supervisor's queue, so that they are queued in this order
// (and at once: each is taken in milliseconds, long before the limits let
// them go). wait returns their errors in that order.
type sends struct {
	t    *testing.T
	b    pacedBus
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

func newSends(t *testing.T, b pacedBus) *sends { return &sends{t: t, b: b} }

func (ss *sends) add(call func() error) {
	ss.t.Helper()
	before := taken(ss.b.outbound(ss.t))
	ss.mu.Lock()
	i := len(ss.errs)
	ss.errs = append(ss.errs, nil)
	ss.mu.Unlock()
	ss.wg.Add(1)
	go func() {
		defer ss.wg.Done()
		err := call()
		ss.mu.Lock()
		ss.errs[i] = err
		ss.mu.Unlock()
	}()
	deadline := time.Now().Add(20 * time.Second)
	for taken(ss.b.outbound(ss.t)) == before {
		if time.Now().After(deadline) {
			ss.t.Fatalf("call %d was never taken by the queue", i)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// send queues a message of s.
func (ss *sends) send(ctx context.Context, s *session, text string) {
	ss.t.Helper()
	ss.add(func() error { _, err := s.f.Send(ctx, client.Message{Text: text}, ""); return err })
}

func (ss *sends) wait() []error {
	ss.wg.Wait()
	return ss.errs
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func sessions(t *testing.T, b pacedBus, names ...string) []*session {
	out := make([]*session, len(names))
	for i, n := range names {
		out[i] = b.session(t, n)
	}
	return out
}

// paceFair: four sessions each send ten messages at once into one chat:
// all get OK, the stand-in gives at most one 429 (counted from when the
// sends begin: on Slack a thread's root is posted by provisioning, which
// the scheduler does not pace), the first firstN accepted hold at least
// minEach of each session, each session's order is kept and every text
// lands once.
func paceFair(t *testing.T, b pacedBus, firstN, minEach int, within time.Duration) {
	ctx := ctxFor(t, within)
	ss := sessions(t, b, "a", "b", "c", "d")
	limited := b.limited()
	start := time.Now()
	q := newSends(t, b)
	for i := range 10 {
		for _, s := range ss {
			q.send(ctx, s, fmt.Sprintf("%s-%02d", s.name, i))
		}
	}
	for i, err := range q.wait() {
		if err != nil {
			t.Errorf("send %d: %v", i, err)
		}
	}
	took := time.Since(start)
	got := b.arrivals(ss...)
	if n := b.limited() - limited; n > 1 {
		t.Errorf("the stand-in answered 429 %d times", n)
	}
	if len(got) != 40 {
		t.Fatalf("%d messages arrived, want 40: %v", len(got), arrivalTexts(got))
	}
	per := map[string]int{}
	for _, m := range got[:firstN] {
		per[m.text[:1]]++
	}
	for _, s := range ss {
		if per[s.name] < minEach {
			t.Errorf("session %s has %d of the first %d: %v", s.name, per[s.name], firstN, arrivalTexts(got[:firstN]))
		}
	}
	seen := map[string]bool{}
	last := map[string]string{}
	for _, m := range got {
		if seen[m.text] {
			t.Errorf("%s arrived twice", m.text)
		}
		seen[m.text] = true
		if prev := last[m.text[:1]]; prev > m.text {
			t.Errorf("%s arrived after %s", m.text, prev)
		}
		last[m.text[:1]] = m.text
	}
	o := b.outbound(t)
	t.Logf("40 messages sent in %s; 429s %d; queue: sent %d, rate limited %d, refused %d; arrival order %v",
		took.Round(time.Millisecond), b.limited()-limited, o.GetSent(), o.GetRateLimited(), o.GetRefused(), arrivalTexts(got))
}

// pacePrompt: a permission prompt sent behind a 30-message backlog of
// three other sessions is the next message sent, at most one other before
// it (one under way when it came). underway is how many of the backlog
// arrive first: enough that the rest waits for the limits.
func pacePrompt(t *testing.T, b pacedBus, underway int) {
	ctx := ctxFor(t, 3*time.Minute)
	ss := sessions(t, b, "a", "b", "c", "p")
	limited := b.limited()
	q := newSends(t, b)
	for i := range 10 {
		for _, s := range ss[:3] {
			q.send(ctx, s, fmt.Sprintf("%s-%02d", s.name, i))
		}
	}
	testkit.Eventually(t, "the backlog to be under way", func() bool { return len(b.arrivals(ss...)) >= underway })
	before := int(b.outbound(t).GetSent())
	ids, err := ss[3].f.Send(ctx, client.Message{Text: "🔐 may I run `make test`?", Prompt: true,
		Buttons: []client.Button{{Label: "Allow", Data: "perm:allow:abcde"}, {Label: "Deny", Data: "perm:deny:abcde"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	got := b.arrivals(ss...)
	if i := indexOfArrival(got, ids[0]); i < 0 || i > before+1 {
		t.Fatalf("the prompt arrived %dth; %d had been sent when it was: %v", i, before, arrivalTexts(got))
	}
	if n := b.limited() - limited; n > 1 {
		t.Errorf("the stand-in answered 429 %d times", n)
	}
}

// editFunc edits message id of s's thread to text: through the verb
// (verbEdit) or a raw call of the platform's.
type editFunc func(ctx context.Context, s *session, id, text string) error

func verbEdit(ctx context.Context, s *session, id, text string) error {
	return s.f.Edit(ctx, id, text, nil, "")
}

// rawCall is a raw call of method with the params params makes of a
// message id and a text.
func rawCall(method string, params func(id, text string) string) editFunc {
	return func(ctx context.Context, s *session, id, text string) error {
		_, err := s.f.Call(ctx, method, []byte(params(id, text)), "")
		return err
	}
}

// paceEdits: 30 edits of one message in two seconds reach the platform
// (as method) as at most max edits, the last one "v30"; every caller
// gets OK.
func paceEdits(t *testing.T, b pacedBus, method string, max int, edit editFunc) {
	ctx := ctxFor(t, time.Minute)
	s := b.session(t, "a")
	ids, err := s.f.Send(ctx, client.Message{Text: "v0"}, "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 31)
	tick := time.NewTicker(2 * time.Second / 30)
	defer tick.Stop()
	for i := 1; i <= 30; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = edit(ctx, s, ids[0], fmt.Sprintf("v%d", i)) }()
		<-tick.C
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("edit v%d: %v", i, err)
		}
	}
	n := b.calls(method)
	t.Logf("30 edits: %d reached the platform as %s", n, method)
	if n > max || n < 1 {
		t.Errorf("%d edits reached the platform, want 1 to %d", n, max)
	}
	if got := b.text(s, ids[0]); got != "v30" {
		t.Errorf("the message reads %q, want v30", got)
	}
	if q := b.outbound(t); q.GetCoalesced() < 20 {
		t.Errorf("coalesced %d", q.GetCoalesced())
	}
}

// paceTyping: 20 typing calls in a second make at most max platform
// calls (as method). raw, if set, are the params of a raw call of method
// to make instead of the verb.
func paceTyping(t *testing.T, b pacedBus, method string, max int, raw string) {
	ctx := ctxFor(t, time.Minute)
	s := b.session(t, "a")
	typing := func() error {
		if raw != "" {
			_, err := s.f.Call(ctx, method, []byte(raw), "")
			return err
		}
		return s.f.Typing(ctx)
	}
	for range 20 {
		if err := typing(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	n := b.calls(method)
	t.Logf("20 typing calls: %d reached the platform as %s", n, method)
	if n > max || n < 1 {
		t.Errorf("%d typing calls reached the platform, want 1 to %d", n, max)
	}
}

// paceBacklog: one session's 40-message backlog does not delay another
// session's single message by more than two sends, nor get it refused
// with a minute's deadline (the backlog takes minutes: the estimate
// counts the other session's turn, not the whole queue). underway is how
// many of the backlog arrive first: enough that the rest waits for the
// limits.
func paceBacklog(t *testing.T, b pacedBus, underway int) {
	ctx := ctxFor(t, 3*time.Minute)
	a, other := b.session(t, "a"), b.session(t, "b")
	q := newSends(t, b)
	for i := range 40 {
		q.send(ctx, a, fmt.Sprintf("a-%02d", i))
	}
	testkit.Eventually(t, "the backlog to be under way", func() bool { return len(b.arrivals(a, other)) >= underway })
	before := int(b.outbound(t).GetSent())
	ids, err := other.f.Send(ctxFor(t, time.Minute), client.Message{Text: "b-00"}, "")
	if err != nil {
		t.Fatal(err)
	}
	got := b.arrivals(a, other)
	if i := indexOfArrival(got, ids[0]); i < 0 || i > before+2 {
		t.Fatalf("b's message arrived %dth; %d had been sent when it was: %v", i, before, arrivalTexts(got))
	}
}
