package outbound

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// runScheduler runs s until the test ends.
func runScheduler(t *testing.T, s *Scheduler) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// TestSchedulerRuns: jobs run only while open, in their thread's order,
// superseded ones are told, withdrawn ones never run, and a rate-limited
// one runs again.
func TestSchedulerRuns(t *testing.T) {
	s, err := New(Config{Limits: []Limit{{Name: "chat", Scope: ScopeChat, Count: 1, Per: 20 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	runScheduler(t, s)
	var mu sync.Mutex
	var ran []string
	var wg sync.WaitGroup
	job := func(label, coalesce string, o Outcome) *Job {
		wg.Add(1)
		first := true
		return &Job{Thread: Thread{"c", "t"}, Method: "send", Lane: LaneMessage, Coalesce: coalesce,
			Run: func() Outcome {
				mu.Lock()
				defer mu.Unlock()
				ran = append(ran, label)
				if first && o.RetryAfter > 0 {
					first = false
					return o
				}
				wg.Done()
				return Outcome{}
			},
			Superseded: func(*Job) {
				mu.Lock()
				defer mu.Unlock()
				ran = append(ran, label+" superseded")
				wg.Done()
			},
		}
	}
	submit := func(j *Job) Status {
		st, err := s.Submit(j)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	submit(job("1", "", Outcome{RetryAfter: 30 * time.Millisecond}))
	submit(job("2", "e", Outcome{}))
	if st := submit(job("3", "e", Outcome{})); st != Coalesced {
		t.Fatalf("status %v, want Coalesced", st)
	}
	w := job("4", "", Outcome{})
	submit(w)
	if !s.Withdraw(w) {
		t.Fatal("a queued job was not withdrawn")
	}
	wg.Done()
	mu.Lock()
	if len(ran) != 1 || ran[0] != "2 superseded" {
		t.Fatalf("ran before open: %v", ran)
	}
	mu.Unlock()
	s.SetOpen(true)
	wg.Wait()
	want := []string{"2 superseded", "1", "1", "3"}
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != len(want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
	for i := range want {
		if ran[i] != want[i] {
			t.Fatalf("ran %v, want %v", ran, want)
		}
	}
	st := s.Stats()
	if st.Queued != 0 || st.RateLimited != 1 || st.Coalesced != 1 || st.Dispatched != 3 {
		t.Fatalf("stats %+v", st)
	}
}

// TestSchedulerBadLimits: limits the scheduler cannot keep are refused.
func TestSchedulerBadLimits(t *testing.T) {
	for _, l := range []Limit{
		{Name: "zero", Scope: ScopeChat, Count: 0, Per: time.Second},
		{Name: "no window", Scope: ScopeChat, Count: 1},
		{Name: "no scope", Count: 1, Per: time.Second},
		{Name: "huge", Scope: ScopeBot, Count: maxWindow + 1, Per: time.Second},
	} {
		if _, err := New(Config{Limits: []Limit{l}}); err == nil {
			t.Errorf("%s accepted", l.Name)
		}
	}
	var we *WaitError
	if !errors.As(error(&WaitError{Err: ErrFull}), &we) {
		t.Fatal("WaitError")
	}
}

// TestSchedulerStartsOnSubmit: a job with room to go starts from Submit
// itself, and the next of its thread from the finished one's goroutine:
// neither waits for Run's goroutine to wake (Run only times the jobs that
// wait). Run is not running here.
func TestSchedulerStartsOnSubmit(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetOpen(true)
	ran := make(chan string, 2)
	release := make(chan struct{})
	job := func(label string) *Job {
		return &Job{Thread: Thread{"c", "t"}, Method: "send", Lane: LaneMessage, Run: func() Outcome {
			ran <- label
			<-release
			return Outcome{}
		}}
	}
	for _, label := range []string{"first", "second"} {
		if st, err := s.Submit(job(label)); err != nil || st != Queued {
			t.Fatalf("submit %s: %v %v", label, st, err)
		}
	}
	if got := testkit.Recv(t, ran, "the first job to start"); got != "first" {
		t.Fatalf("%s ran first", got)
	}
	release <- struct{}{}
	if got := testkit.Recv(t, ran, "the second job to start"); got != "second" {
		t.Fatalf("%s ran second", got)
	}
	release <- struct{}{}
	testkit.Eventually(t, "the scheduler idle", func() bool { st := s.Stats(); return st.Running == 0 && st.Queued == 0 })
}

// TestSchedulerLateAfterRateLimit: a call the platform refused as rate
// limited for longer than its caller's deadline leaves is aborted at
// once with ErrLate and the wait (not run again, not held until the
// deadline passes); one whose deadline the pause leaves room for runs
// again.
func TestSchedulerLateAfterRateLimit(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetOpen(true)
	aborted := make(chan error, 2)
	ran := make(chan string, 4)
	job := func(label string, deadline time.Duration) *Job {
		first := true
		return &Job{Thread: Thread{"c", label}, Method: "send", Lane: LaneMessage, Deadline: time.Now().Add(deadline),
			Run: func() Outcome {
				ran <- label
				if first {
					first = false
					return Outcome{RetryAfter: 30 * time.Second, Scope: ScopeThread}
				}
				return Outcome{}
			},
			Abort: func(err error) { aborted <- err },
		}
	}
	if _, err := s.Submit(job("short", 4*time.Second)); err != nil {
		t.Fatal(err)
	}
	testkit.Recv(t, ran, "the call to be made")
	err = testkit.Recv(t, aborted, "the call to be aborted")
	var we *WaitError
	if !errors.Is(err, ErrLate) || !errors.As(err, &we) || we.RetryAfter < 29*time.Second {
		t.Fatalf("aborted with %v", err)
	}
	if st := s.Stats(); st.Queued != 0 || st.Refused != 1 || st.RateLimited != 1 {
		t.Fatalf("stats %+v", st)
	}
	// A deadline past the pause: queued again, not aborted.
	if _, err := s.Submit(job("long", time.Hour)); err != nil {
		t.Fatal(err)
	}
	testkit.Recv(t, ran, "the second call to be made")
	testkit.Eventually(t, "the call queued again", func() bool { return s.Stats().Queued == 1 })
	select {
	case err := <-aborted:
		t.Fatalf("a call with an hour left aborted: %v", err)
	default:
	}
}

// TestSchedulerPanic: a Run that panics fails its call (Abort with a
// *PanicError) and the scheduler goes on: the thread's next call runs.
func TestSchedulerPanic(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	runScheduler(t, s)
	s.SetOpen(true)
	aborted := make(chan error, 1)
	ran := make(chan string, 1)
	if _, err := s.Submit(&Job{Thread: Thread{"c", "t"}, Method: "send", Lane: LaneMessage,
		Run:   func() Outcome { panic("converting the reply") },
		Abort: func(err error) { aborted <- err },
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(&Job{Thread: Thread{"c", "t"}, Method: "send", Lane: LaneMessage,
		Run: func() Outcome { ran <- "next"; return Outcome{} },
	}); err != nil {
		t.Fatal(err)
	}
	err = testkit.Recv(t, aborted, "the panicking call to be aborted")
	var pe *PanicError
	if !errors.Is(err, ErrPanicked) || !errors.As(err, &pe) || pe.Value != "converting the reply" || len(pe.Stack) == 0 {
		t.Fatalf("aborted with %v", err)
	}
	testkit.Recv(t, ran, "the next call to run")
	testkit.Eventually(t, "the scheduler idle", func() bool { st := s.Stats(); return st.Running == 0 && st.Queued == 0 })
}

// TestWindowsRestored: the windows a scheduler saved, taken up by a new
// one (before its limits are declared), hold back its calls as the old
// one's would have: a restart does not send as if no call had gone out.
func TestWindowsRestored(t *testing.T) {
	now := t0
	clock := func() time.Time { return now }
	limits := []Limit{{Name: "group", Scope: ScopeChat, Count: 3, Per: time.Minute, Methods: []string{"send"}}}
	s, err := New(Config{Limits: limits, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	s.SetOpen(true)
	var wg sync.WaitGroup
	made := make(chan struct{}, 3)
	s2cfg := Config{Now: clock}
	s.onMade = func() { made <- struct{}{} }
	for i := range 3 {
		wg.Add(1)
		if _, err := s.Submit(&Job{Thread: Thread{"-100", fmt.Sprint(i)}, Method: "send", Lane: LaneMessage,
			Run: func() Outcome { wg.Done(); return Outcome{} }}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	for range 3 {
		testkit.Recv(t, made, "a call counted")
	}
	now = now.Add(10 * time.Second)
	probe := &Job{Thread: Thread{"-100", "x"}, Method: "send", Lane: LaneMessage}
	want := s.Estimate(probe)
	if want != 50*time.Second {
		t.Fatalf("the old scheduler estimates %s", want)
	}
	saved := s.Windows()
	if len(saved) != 1 || saved[0].Limit != "group" || saved[0].Key != "-100" || len(saved[0].Times) != 3 {
		t.Fatalf("saved %+v", saved)
	}

	s2, err := New(s2cfg)
	if err != nil {
		t.Fatal(err)
	}
	s2.Restore(saved)
	if err := s2.SetLimits(limits); err != nil {
		t.Fatal(err)
	}
	if got := s2.Estimate(probe); got != want {
		t.Fatalf("after a restart the estimate is %s, want %s", got, want)
	}
	// A limit of another name, or a lower count, keeps what it can.
	s3, _ := New(Config{Now: clock, Limits: []Limit{{Name: "group", Scope: ScopeChat, Count: 2, Per: time.Minute}}})
	s3.Restore(saved)
	if got := s3.Estimate(probe); got != 50*time.Second {
		t.Fatalf("with a lower count the estimate is %s", got)
	}
}
