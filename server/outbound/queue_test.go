package outbound

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// Telegram's limits as its provider declares them: 30 calls a second per
// bot, one message a second per chat (with a burst of three), 20
// messages a minute per group.
var telegramLimits = []Limit{
	{Name: "bot", Scope: ScopeBot, Count: 30, Per: time.Second},
	{Name: "chat", Scope: ScopeChat, Count: 3, Per: 3 * time.Second, Methods: []string{"send", "edit"}},
	{Name: "group", Scope: ScopeChat, Count: 20, Per: time.Minute, Methods: []string{"send"}},
}

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// sim drives a queue on a simulated clock: every job it starts takes
// callTime, and the queue is asked again whenever something changes.
type sim struct {
	t        *testing.T
	q        *queue
	now      time.Time
	callTime time.Duration
	running  []simRun
	started  []string    // labels of the jobs started, in order
	at       []time.Time // when each started
	label    map[*Job]string
	// outcome, if set, is what a call reports when it ends.
	outcome func(label string) Outcome
}

type simRun struct {
	j   *Job
	end time.Time
}

func newSim(t *testing.T, limits []Limit) *sim {
	return &sim{t: t, q: newQueue(limits, 10000, 1000), now: t0, callTime: 50 * time.Millisecond, label: map[*Job]string{}}
}

// add submits a job of thread th at the sim's time, labelled.
func (s *sim) add(th, method string, lane Lane, label string, mod ...func(*Job)) (*Job, int) {
	s.t.Helper()
	j := &Job{Thread: Thread{Chat: "-100", Thread: th}, Method: method, Lane: lane}
	for _, m := range mod {
		m(j)
	}
	s.label[j] = label
	how, replaced, err := s.q.add(j, s.now)
	if err != nil {
		s.t.Fatalf("add %s: %v", label, err)
	}
	if replaced != nil {
		s.label[replaced] += " (superseded)"
	}
	return j, how
}

// step starts what may start now, else moves the clock to the next event
// (a call ending, a limit opening). It reports false when nothing is left.
func (s *sim) step() bool {
	j, wake := s.q.next(s.now)
	if j != nil {
		s.q.start(j, s.now)
		s.running = append(s.running, simRun{j, s.now.Add(s.callTime)})
		s.started = append(s.started, s.label[j])
		s.at = append(s.at, s.now)
		return true
	}
	if len(s.running) == 0 {
		if wake.IsZero() {
			return false
		}
		s.now = wake
		return true
	}
	first := 0
	for i, r := range s.running {
		if r.end.Before(s.running[first].end) {
			first = i
		}
	}
	r := s.running[first]
	if !wake.IsZero() && wake.Before(r.end) {
		s.now = wake
		return true
	}
	s.now = r.end
	s.running = slices.Delete(s.running, first, first+1)
	var o Outcome
	if s.outcome != nil {
		o = s.outcome(s.label[r.j])
	}
	if again, _ := s.q.finish(r.j, o, s.now); again {
		s.started = append(s.started, s.label[r.j]+" (rate limited)")
		s.at = append(s.at, s.now)
	}
	return true
}

// advance processes every event up to to, then sets the clock there.
func (s *sim) advance(to time.Time) {
	s.t.Helper()
	for {
		j, wake := s.q.next(s.now)
		if j != nil {
			s.step()
			continue
		}
		next := wake
		for _, r := range s.running {
			if next.IsZero() || r.end.Before(next) {
				next = r.end
			}
		}
		if next.IsZero() || next.After(to) {
			break
		}
		s.step()
	}
	s.now = to
}

// runAll steps until nothing is left.
func (s *sim) runAll() {
	s.t.Helper()
	for i := 0; s.step(); i++ {
		if i > 100000 {
			s.t.Fatal("the simulation does not end")
		}
	}
}

// runUntil steps until n jobs have started.
func (s *sim) runUntil(n int) {
	s.t.Helper()
	for len(s.started) < n {
		if !s.step() {
			s.t.Fatalf("only %d jobs started, want %d: %v", len(s.started), n, s.started)
		}
	}
}

func threadOf(label string) string { return strings.SplitN(label, "-", 2)[0] }

// TestFairAndPaced: four sessions each sending ten messages at once into
// one group: every message goes, within Telegram's limits (never more
// than 20 in a minute, three in three seconds), the first 20 hold at
// least four of each session, and each session's order is kept.
func TestFairAndPaced(t *testing.T) {
	s := newSim(t, telegramLimits)
	for _, th := range []string{"a", "b", "c", "d"} {
		for i := range 10 {
			s.add(th, "send", LaneMessage, fmt.Sprintf("%s-%02d", th, i))
		}
	}
	s.runAll()
	if len(s.started) != 40 {
		t.Fatalf("%d started: %v", len(s.started), s.started)
	}
	per := map[string]int{}
	for _, l := range s.started[:20] {
		per[threadOf(l)]++
	}
	for _, th := range []string{"a", "b", "c", "d"} {
		if per[th] < 4 {
			t.Errorf("session %s has %d of the first 20: %v", th, per[th], s.started[:20])
		}
	}
	last := map[string]string{}
	for _, l := range s.started {
		if prev := last[threadOf(l)]; prev > l {
			t.Errorf("%s went after %s", l, prev)
		}
		last[threadOf(l)] = l
	}
	for i := range s.at {
		if i >= 20 && s.at[i].Sub(s.at[i-20]) < time.Minute {
			t.Errorf("messages %d and %d only %s apart: more than 20 a minute", i-20, i, s.at[i].Sub(s.at[i-20]))
		}
		if i >= 3 && s.at[i].Sub(s.at[i-3]) < 3*time.Second {
			t.Errorf("messages %d and %d only %s apart: more than 3 in 3s", i-3, i, s.at[i].Sub(s.at[i-3]))
		}
	}
}

// TestPromptFirst: a permission prompt behind a 30-message backlog of
// other sessions is the next call to start.
func TestPromptFirst(t *testing.T) {
	s := newSim(t, telegramLimits)
	for _, th := range []string{"a", "b", "c"} {
		for i := range 10 {
			s.add(th, "send", LaneMessage, fmt.Sprintf("%s-%02d", th, i))
		}
	}
	s.runUntil(4) // the backlog is under way, the chat's burst spent
	s.add("p", "send", LanePrompt, "p-prompt")
	s.runUntil(5)
	if s.started[4] != "p-prompt" {
		t.Fatalf("after the prompt was queued, %v started", s.started[4:])
	}
}

// TestOneBacklogDoesNotHoldBackAnother: a 40-message backlog of one
// session delays another session's single message by two calls at most.
func TestOneBacklogDoesNotHoldBackAnother(t *testing.T) {
	s := newSim(t, telegramLimits)
	for i := range 40 {
		s.add("a", "send", LaneMessage, fmt.Sprintf("a-%02d", i))
	}
	s.runUntil(5)
	s.add("b", "send", LaneMessage, "b-00")
	s.runUntil(8)
	i := slices.Index(s.started, "b-00")
	if i < 0 || i > 5+2 {
		t.Fatalf("b's message started %dth: %v", i, s.started)
	}
}

// TestEditsCoalesce: 30 edits of one message in two seconds reach the
// platform as a few edits, the last one the last text.
func TestEditsCoalesce(t *testing.T) {
	s := newSim(t, telegramLimits)
	edit := func(j *Job) { j.Coalesce = "edit/77" }
	var last *Job
	for i := 1; i <= 30; i++ {
		last, _ = s.add("a", "edit", LaneEdit, fmt.Sprintf("a-v%d", i), edit)
		s.advance(s.now.Add(2 * time.Second / 30)) // while the agent streams
	}
	s.runAll()
	if n := len(s.started); n > 8 || n < 2 {
		t.Fatalf("%d edits reached the platform: %v", n, s.started)
	}
	if s.started[len(s.started)-1] != "a-v30" || s.label[last] != "a-v30" {
		t.Fatalf("the last edit was %s", s.started[len(s.started)-1])
	}
	if s.q.stats.Coalesced < 22 {
		t.Fatalf("%d coalesced", s.q.stats.Coalesced)
	}
}

// TestTypingLasts: 20 typing calls in a second make one platform call
// while the indicator shows, and a message ends it.
func TestTypingLasts(t *testing.T) {
	s := newSim(t, telegramLimits)
	typing := func(j *Job) { j.Lasts = 5 * time.Second }
	skipped := 0
	for i := range 20 {
		if _, how := s.add("a", "typing", LaneAmbient, fmt.Sprintf("a-t%d", i), typing); how == skippedJob {
			skipped++
		}
		s.advance(s.now.Add(50 * time.Millisecond))
	}
	s.runAll()
	if len(s.started) > 3 || skipped < 17 {
		t.Fatalf("%d typing calls made, %d skipped: %v", len(s.started), skipped, s.started)
	}
	s.add("a", "send", LaneMessage, "a-msg")
	s.runAll()
	if _, how := s.add("a", "typing", LaneAmbient, "a-t-after", typing); how != queuedJob {
		t.Fatal("typing after a message was skipped: the message ended the indicator")
	}
}

// TestRateLimitedRequeued: a call the platform refused as rate limited
// goes back to the head of its thread, its chat paused for the retry-after.
func TestRateLimitedRequeued(t *testing.T) {
	s := newSim(t, nil)
	refused := false
	s.outcome = func(label string) Outcome {
		if label == "a-0" && !refused {
			refused = true
			return Outcome{RetryAfter: 5 * time.Second}
		}
		return Outcome{}
	}
	s.add("a", "send", LaneMessage, "a-0")
	s.add("a", "send", LaneMessage, "a-1")
	s.add("b", "send", LaneMessage, "b-0")
	s.runAll()
	want := []string{"a-0", "b-0", "a-0 (rate limited)", "a-0", "a-1"}
	if !slices.Equal(s.started, want) {
		t.Fatalf("order %v, want %v", s.started, want)
	}
	if d := s.at[3].Sub(s.at[2]); d != 5*time.Second {
		t.Fatalf("the chat was paused %s, want 5s", d)
	}
	if s.q.stats.RateLimited != 1 {
		t.Fatalf("rate limited counted %d", s.q.stats.RateLimited)
	}
}

// TestLowerLaneWaits: a waiting message holds its chat's room: a typing
// call of the same chat does not take it, one of another chat does.
func TestLowerLaneWaits(t *testing.T) {
	limits := []Limit{{Name: "chat", Scope: ScopeChat, Count: 1, Per: time.Second}}
	s := newSim(t, limits)
	s.add("a", "send", LaneMessage, "a-0")
	s.runUntil(1)
	s.add("b", "send", LaneMessage, "b-0")
	s.add("c", "react", LaneAmbient, "c-react")
	j := &Job{Thread: Thread{Chat: "-200", Thread: "x"}, Method: "react", Lane: LaneAmbient}
	s.label[j] = "x-react"
	if _, _, err := s.q.add(j, s.now); err != nil {
		t.Fatal(err)
	}
	s.runAll()
	want := []string{"a-0", "x-react", "b-0", "c-react"}
	if !slices.Equal(s.started, want) {
		t.Fatalf("order %v, want %v", s.started, want)
	}
}

// TestRefusals: a full queue, and a deadline the limits cannot meet, are
// refused with the wait estimated.
func TestRefusals(t *testing.T) {
	limits := []Limit{{Name: "chat", Scope: ScopeChat, Count: 1, Per: time.Second}}
	q := newQueue(limits, 10, 3)
	add := func(th string, deadline time.Time) error {
		_, _, err := q.add(&Job{Thread: Thread{"-100", th}, Method: "send", Lane: LaneMessage, Deadline: deadline}, t0)
		return err
	}
	for range 3 {
		if err := add("a", time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	var we *WaitError
	if err := add("a", time.Time{}); !errors.Is(err, ErrFull) || !errors.As(err, &we) || we.RetryAfter < 3*time.Second {
		t.Fatalf("a fourth call of the thread: %v", err)
	}
	// Another thread waits one turn of a's, not its three.
	if err := add("b", t0.Add(500*time.Millisecond)); !errors.Is(err, ErrLate) || !errors.As(err, &we) || we.RetryAfter != time.Second {
		t.Fatalf("a call with 0.5s left one turn behind a: %v", err)
	}
	if err := add("b", t0.Add(4*time.Second)); err != nil {
		t.Fatalf("a call with 4s left behind three: %v", err)
	}
	// With a call under way: it counts as done now.
	j, _ := q.next(t0)
	q.start(j, t0)
	if err := add("f", t0.Add(10*time.Second)); err != nil {
		t.Fatalf("a call with 10s left behind four, one under way: %v", err)
	}
	for _, th := range []string{"c", "c", "c", "e", "e", "e"} {
		if err := add(th, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := add("d", time.Time{}); !errors.Is(err, ErrFull) {
		t.Fatalf("an eleventh call: %v", err)
	}
}

// TestWindow: the sliding window's arithmetic: calls count from when
// they were done, a call under way holds its place.
func TestWindow(t *testing.T) {
	w := &window{count: 2, per: time.Second}
	if got, ok := w.freeAt(t0); !ok || !got.Equal(t0) {
		t.Fatalf("empty window free at %v %v", got, ok)
	}
	w.start()
	w.start()
	if _, ok := w.freeAt(t0); ok {
		t.Fatal("two calls under way: the window must wait for one to finish")
	}
	w.finish(t0.Add(50*time.Millisecond), 1)
	w.finish(t0.Add(100*time.Millisecond), 1)
	if got, _ := w.freeAt(t0.Add(200 * time.Millisecond)); !got.Equal(t0.Add(1050 * time.Millisecond)) {
		t.Fatalf("full window free at %v", got.Sub(t0))
	}
	// Three more: at 1.05s, 1.1s, 2.05s.
	if got := w.freeAfter(t0.Add(200*time.Millisecond), 3); !got.Equal(t0.Add(2050 * time.Millisecond)) {
		t.Fatalf("the third more at %v, want 2.05s", got.Sub(t0))
	}
	if w.idle(t0.Add(time.Second)) || !w.idle(t0.Add(1100*time.Millisecond)) {
		t.Fatal("idle wrong")
	}
	w.start()
	w.finish(t0.Add(2*time.Second), 0) // not made: gives its place back
	if len(w.times) != 2 || w.running != 0 {
		t.Fatalf("a call not made counted: %v running %d", w.times, w.running)
	}
	w.start()
	w.finish(t0.Add(3*time.Second), 3) // a long text in three messages
	if len(w.times) != 2 || !w.times[0].Equal(t0.Add(3*time.Second)) {
		t.Fatalf("three messages: %v", w.times)
	}
}

// TestBacklogDoesNotRefuseAnother: with one session's 40 messages
// waiting for the group's minute, another session's first message with a
// minute's deadline is accepted (it waits one turn, not the backlog) and
// starts before its deadline.
func TestBacklogDoesNotRefuseAnother(t *testing.T) {
	s := newSim(t, telegramLimits)
	for i := range 40 {
		s.add("u", "send", LaneMessage, fmt.Sprintf("u-%02d", i))
	}
	s.runUntil(20) // the group's minute is spent
	deadline := s.now.Add(time.Minute)
	j := &Job{Thread: Thread{Chat: "-100", Thread: "v"}, Method: "send", Lane: LaneMessage, Deadline: deadline}
	s.label[j] = "v-00"
	if _, _, err := s.q.add(j, s.now); err != nil {
		t.Fatalf("v's first message behind u's backlog: %v", err)
	}
	// u's next message, behind its own 20, is still refused with a
	// minute: its own backlog counts.
	late := &Job{Thread: Thread{Chat: "-100", Thread: "u"}, Method: "send", Lane: LaneMessage}
	late.Deadline = s.now.Add(time.Minute)
	if _, _, err := s.q.add(late, s.now); !errors.Is(err, ErrLate) {
		t.Fatalf("u's 21st queued message with a minute: %v", err)
	}
	s.runAll()
	i := slices.Index(s.started, "v-00")
	if i < 0 || i > 20+2 {
		t.Fatalf("v's message started %dth: %v", i, s.started)
	}
	if s.at[i].After(deadline) {
		t.Fatalf("v's message started %s after its deadline", s.at[i].Sub(deadline))
	}
}

// TestExpiredIsNotLate: a call whose deadline has passed by the time it
// reaches an idle queue is refused as expired (its caller's deadline, a
// DEADLINE_EXCEEDED a keyed caller repeats), not as late for the
// platform's limits (RESOURCE_EXHAUSTED, "about 0s to wait"), which no
// limit caused.
func TestExpiredIsNotLate(t *testing.T) {
	s := newSim(t, telegramLimits)
	j := &Job{Thread: Thread{Chat: "-100", Thread: "v"}, Method: "send", Lane: LaneMessage, Deadline: s.now.Add(-44 * time.Millisecond)}
	_, _, err := s.q.add(j, s.now)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrLate) {
		t.Fatalf("a job past its deadline on an idle queue: %v, want context.DeadlineExceeded and not ErrLate", err)
	}
	var we *WaitError
	if errors.As(err, &we) {
		t.Fatalf("a job past its deadline refused with a wait (%v): no limit made it late", we)
	}
}
