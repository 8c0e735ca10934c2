package botapi_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

const (
	chat = -100500
	user = 77
)

// recorder collects a Poller's reports and sleeps. Sleep returns at once
// (after adding d to a virtual clock), so backoff costs no real time;
// hook, if set, runs on every sleep with the virtual time elapsed.
type recorder struct {
	mu      sync.Mutex
	states  []botapi.State
	errs    []error
	sleeps  []time.Duration
	virtual time.Duration
	hook    func(elapsed time.Duration)
}

func (r *recorder) onState(st botapi.State, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, st)
	r.errs = append(r.errs, err)
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.sleeps = append(r.sleeps, d)
	r.virtual += d
	elapsed, hook := r.virtual, r.hook
	r.mu.Unlock()
	if hook != nil {
		hook(elapsed)
	}
	return ctx.Err()
}

// run starts p.Run and returns a function that cancels it and returns
// its error. Run must end within a bound after cancellation.
func run(t *testing.T, ctx context.Context, cancel context.CancelFunc, p *botapi.Poller) (wait func() error) {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- p.Run(ctx) }()
	t.Cleanup(cancel)
	return func() error {
		t.Helper()
		select {
		case err := <-errc:
			return err
		case <-time.After(15 * time.Second):
			cancel()
			t.Fatal("Poller.Run did not return")
			return nil
		}
	}
}

// ids returns the update ids of a batch.
func ids(batch []botapi.Update) []int64 {
	out := make([]int64, len(batch))
	for i, u := range batch {
		out[i] = u.UpdateID
	}
	return out
}

// serve runs p until it has handed over last batches and returns the
// update ids of each batch and Run's error (context.Canceled once it
// stopped after the last). ack answers for the nth batch (from 1) what
// Handle returns; nil acknowledges each batch whole.
func serve(t *testing.T, p *botapi.Poller, last int, ack func(n int, b []botapi.Update) (int64, error)) ([][]int64, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var batches [][]int64
	p.Handle = func(_ context.Context, b []botapi.Update) (int64, error) {
		batches = append(batches, ids(b))
		if len(batches) == last {
			cancel()
		}
		if ack != nil {
			return ack(len(batches), b)
		}
		return b[len(b)-1].UpdateID, nil
	}
	err := run(t, ctx, cancel, p)()
	return batches, err
}

// inRange reports whether lo <= d <= hi.
func inRange(d, lo, hi time.Duration) bool { return d >= lo && d <= hi }

// testPoller returns a Poller on s's client with a one-second long poll,
// reporting to rec.
func testPoller(s *tgtest.Server, rec *recorder) *botapi.Poller {
	return &botapi.Poller{
		Client:  s.Client(),
		Timeout: time.Second,
		OnState: rec.onState,
		Sleep:   rec.sleep,
	}
}

func TestPollerAdvancesOnlyPastAcknowledged(t *testing.T) {
	s := tgtest.New(t)
	var pushed []int64
	for range 10 {
		pushed = append(pushed, s.PushMessage(chat, 0, user, "m"))
	}
	rec := &recorder{}
	var sentinel int64
	batches, err := serve(t, testPoller(s, rec), 3, func(n int, b []botapi.Update) (int64, error) {
		switch n {
		case 1: // nothing confirmed yet; acknowledge half
			if s.Confirmed() != 0 || s.Pending() != 10 {
				t.Errorf("batch 1: Confirmed %d Pending %d, want 0 and 10", s.Confirmed(), s.Pending())
			}
			return b[4].UpdateID, nil
		case 2: // the offset confirmed exactly the acknowledged half
			if s.Confirmed() != pushed[4] || s.Pending() != 5 {
				t.Errorf("batch 2: Confirmed %d Pending %d, want %d and 5", s.Confirmed(), s.Pending(), pushed[4])
			}
			sentinel = s.PushMessage(chat, 0, user, "sentinel")
			return b[len(b)-1].UpdateID, nil
		default: // fetching the sentinel confirmed everything before it
			if s.Confirmed() != pushed[9] || s.Pending() != 1 {
				t.Errorf("batch 3: Confirmed %d Pending %d, want %d and 1", s.Confirmed(), s.Pending(), pushed[9])
			}
			return b[len(b)-1].UpdateID, nil
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	want := [][]int64{pushed, pushed[5:], {sentinel}}
	if len(batches) != len(want) {
		t.Fatalf("batches %v, want %v", batches, want)
	}
	for i := range want {
		if !slices.Equal(batches[i], want[i]) {
			t.Errorf("batch %d = %v, want %v", i+1, batches[i], want[i])
		}
	}
	if len(rec.sleeps) != 0 || len(rec.states) != 1 || rec.states[0] != botapi.StateServing {
		t.Errorf("sleeps %v states %v, want no sleep and [serving]", rec.sleeps, rec.states)
	}
}

func TestPollerStartsAtOffset(t *testing.T) {
	s := tgtest.New(t)
	var pushed []int64
	for range 4 {
		pushed = append(pushed, s.PushMessage(chat, 0, user, "m"))
	}
	p := testPoller(s, &recorder{})
	p.Offset = pushed[1] + 1 // the store says 0 and 1 are durable
	got, _ := serve(t, p, 1, nil)
	if len(got) == 0 || !slices.Equal(got[0], pushed[2:]) || s.Confirmed() != pushed[1] {
		t.Errorf("batches %v, Confirmed %d; want first %v and %d", got, s.Confirmed(), pushed[2:], pushed[1])
	}
}

func TestPollerHandlerFailure(t *testing.T) {
	tests := []struct {
		name    string
		first   func(b []botapi.Update) (int64, error)
		wantErr error // nil: any non-nil error
		// index of the first update redelivered in the second batch
		redeliverFrom int
	}{
		{name: "error after partial ack", redeliverFrom: 1,
			first: func(b []botapi.Update) (int64, error) { return b[0].UpdateID, errors.New("disk full") }},
		{name: "error without ack", redeliverFrom: 0,
			first: func(b []botapi.Update) (int64, error) { return 0, errors.New("disk full") }},
		{name: "no progress", redeliverFrom: 0, wantErr: botapi.ErrNoProgress,
			first: func(b []botapi.Update) (int64, error) { return b[0].UpdateID - 1, nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tgtest.New(t)
			var pushed []int64
			for range 3 {
				pushed = append(pushed, s.PushMessage(chat, 0, user, "m"))
			}
			rec := &recorder{}
			batches, _ := serve(t, testPoller(s, rec), 2, func(n int, b []botapi.Update) (int64, error) {
				if n == 1 {
					return tt.first(b)
				}
				return b[len(b)-1].UpdateID, nil
			})
			if len(batches) != 2 || !slices.Equal(batches[1], pushed[tt.redeliverFrom:]) {
				t.Fatalf("batches %v, want the second to be %v", batches, pushed[tt.redeliverFrom:])
			}
			wantStates := []botapi.State{botapi.StateServing, botapi.StateHandlerFailed, botapi.StateServing}
			if !slices.Equal(rec.states, wantStates) {
				t.Errorf("states %v, want %v", rec.states, wantStates)
			}
			if rec.errs[1] == nil || (tt.wantErr != nil && !errors.Is(rec.errs[1], tt.wantErr)) {
				t.Errorf("handler failure reported as %v, want %v", rec.errs[1], tt.wantErr)
			}
			if len(rec.sleeps) != 1 || !inRange(rec.sleeps[0], 200*time.Millisecond, 250*time.Millisecond) {
				t.Errorf("sleeps %v, want one of 200..250ms", rec.sleeps)
			}
		})
	}
}

func TestPollerConflictBacksOff(t *testing.T) {
	s := tgtest.New(t)
	s.FailAlways("getUpdates", tgtest.Fault{Status: http.StatusConflict})
	rec := &recorder{}
	var (
		recovered bool
		msg       int64
		callsAt5m int
	)
	// After five virtual minutes of conflict, the other poller goes away.
	rec.hook = func(elapsed time.Duration) {
		if elapsed >= 5*time.Minute && !recovered {
			recovered = true
			callsAt5m = s.Calls("getUpdates")
			s.ClearFaults()
			msg = s.PushMessage(chat, 0, user, "after the conflict")
		}
	}
	got, _ := serve(t, testPoller(s, rec), 1, nil)

	// 1+2+4+8+16 s, then 30 s steps, each less up to 20% jitter: 5 min
	// take 14..17 calls. A busy loop would make thousands.
	if callsAt5m < 10 || callsAt5m > 20 {
		t.Errorf("%d getUpdates calls in 5 virtual minutes of conflict, want 10..20", callsAt5m)
	}
	if len(rec.sleeps) != callsAt5m {
		t.Errorf("%d sleeps for %d failed calls", len(rec.sleeps), callsAt5m)
	}
	for i, d := range rec.sleeps {
		want := min(time.Second<<i, 30*time.Second)
		if !inRange(d, want*4/5, want) {
			t.Errorf("sleep %d = %v, want %v less at most 20%%", i, d, want)
		}
	}
	for i, st := range rec.states[:len(rec.states)-1] {
		if st != botapi.StateConflict || !botapi.IsConflict(rec.errs[i]) {
			t.Fatalf("state %d = %v (%v), want conflict", i, st, rec.errs[i])
		}
	}
	if last := rec.states[len(rec.states)-1]; last != botapi.StateServing {
		t.Errorf("last state %v, want serving", last)
	}
	if len(got) != 1 || !slices.Equal(got[0], []int64{msg}) {
		t.Errorf("delivered %v, want [[%d]]", got, msg)
	}
}

func TestPollerHonoursRetryAfter(t *testing.T) {
	s := tgtest.New(t)
	s.Fail("getUpdates", tgtest.Fault{RetryAfter: 7})
	msg := s.PushMessage(chat, 0, user, "m")
	rec := &recorder{}
	got, _ := serve(t, testPoller(s, rec), 1, nil)
	if len(rec.sleeps) != 1 || !inRange(rec.sleeps[0], 7*time.Second, 7*time.Second+250*time.Millisecond) {
		t.Errorf("sleeps %v, want one of 7s plus at most 250ms", rec.sleeps)
	}
	if !slices.Equal(rec.states, []botapi.State{botapi.StateRateLimited, botapi.StateServing}) {
		t.Errorf("states %v", rec.states)
	}
	if d, ok := botapi.IsRateLimited(rec.errs[0]); !ok || d != 7*time.Second {
		t.Errorf("reported error %v: IsRateLimited = %v, %v", rec.errs[0], d, ok)
	}
	if len(got) != 1 || !slices.Equal(got[0], []int64{msg}) {
		t.Errorf("delivered %v, want [[%d]]", got, msg)
	}
}

func TestPollerRecoversFromTransientFailures(t *testing.T) {
	tests := []struct {
		name   string
		faults []tgtest.Fault
	}{
		{name: "html 502", faults: []tgtest.Fault{{HTML5xx: true}}},
		{name: "malformed json", faults: []tgtest.Fault{{Malformed: true}}},
		{name: "500 envelope", faults: []tgtest.Fault{{Status: 500}}},
		{name: "400 envelope", faults: []tgtest.Fault{{Status: 400, Description: "Bad Request: wrong offset"}}},
		{name: "three in a row", faults: []tgtest.Fault{{Status: 502}, {Malformed: true}, {HTML5xx: true, Status: 503}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tgtest.New(t)
			for _, f := range tt.faults {
				s.Fail("getUpdates", f)
			}
			msg := s.PushMessage(chat, 0, user, "m")
			rec := &recorder{}
			got, _ := serve(t, testPoller(s, rec), 1, nil)
			n := len(tt.faults)
			if len(rec.sleeps) != n {
				t.Fatalf("sleeps %v, want %d", rec.sleeps, n)
			}
			for i, d := range rec.sleeps {
				want := 250 * time.Millisecond << i
				if !inRange(d, want*4/5, want) {
					t.Errorf("sleep %d = %v, want %v less at most 20%%", i, d, want)
				}
				if rec.states[i] != botapi.StateRetrying || rec.errs[i] == nil {
					t.Errorf("state %d = %v (%v), want retrying", i, rec.states[i], rec.errs[i])
				}
			}
			if rec.states[n] != botapi.StateServing || rec.errs[n] != nil {
				t.Errorf("state after recovery %v (%v), want serving", rec.states[n], rec.errs[n])
			}
			if len(got) != 1 || !slices.Equal(got[0], []int64{msg}) {
				t.Errorf("delivered %v, want [[%d]]", got, msg)
			}
		})
	}
}

func TestPollerHungRequestTimesOut(t *testing.T) {
	s := tgtest.New(t)
	s.Fail("getUpdates", tgtest.Fault{Hang: time.Hour})
	msg := s.PushMessage(chat, 0, user, "m")
	cfg := s.Config()
	cfg.PollGrace = 200 * time.Millisecond
	rec := &recorder{}
	p := testPoller(s, rec)
	p.Client = newClient(t, cfg)
	got, _ := serve(t, p, 1, nil)
	if len(rec.states) != 2 || rec.states[0] != botapi.StateRetrying || !errors.Is(rec.errs[0], context.DeadlineExceeded) {
		t.Fatalf("states %v errs %v, want a timeout then serving", rec.states, rec.errs)
	}
	if len(got) != 1 || !slices.Equal(got[0], []int64{msg}) {
		t.Errorf("delivered %v, want [[%d]]", got, msg)
	}
}

func TestPollerUnauthorized(t *testing.T) {
	s := tgtest.New(t)
	cfg := s.Config()
	cfg.Token = "1:revoked"
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{hook: func(time.Duration) { cancel() }}
	p := testPoller(s, rec)
	p.Client = newClient(t, cfg)
	p.Handle = func(context.Context, []botapi.Update) (int64, error) { return 0, nil }
	if err := run(t, ctx, cancel, p)(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	if len(rec.states) != 1 || rec.states[0] != botapi.StateUnauthorized || !botapi.IsUnauthorized(rec.errs[0]) {
		t.Errorf("states %v errs %v, want unauthorized", rec.states, rec.errs)
	}
	if len(rec.sleeps) != 1 || !inRange(rec.sleeps[0], 24*time.Second, 30*time.Second) {
		t.Errorf("sleeps %v, want one at the 30s cap less jitter", rec.sleeps)
	}
}

// signalTransport signals on polls each time a getUpdates request is
// sent.
type signalTransport struct {
	base  http.RoundTripper
	polls chan<- struct{}
}

func (t signalTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/getUpdates") {
		t.polls <- struct{}{}
	}
	return t.base.RoundTrip(r)
}

func TestPollerCancelReturnsPromptly(t *testing.T) {
	s := tgtest.New(t)
	polls := make(chan struct{}, 4)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	cfg := s.Config()
	cfg.HTTPClient = &http.Client{Transport: signalTransport{base: tr, polls: polls}}
	t.Cleanup(tr.CloseIdleConnections)
	ctx, cancel := context.WithCancel(context.Background())
	p := &botapi.Poller{
		Client:  newClient(t, cfg),
		Timeout: time.Hour, // the server would hold the poll for an hour
		Handle:  func(context.Context, []botapi.Update) (int64, error) { return 0, nil },
	}
	wait := run(t, ctx, cancel, p)
	testkit.Recv(t, polls, "the first poll")
	start := time.Now()
	cancel()
	if err := wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run took %v to return after cancel", d)
	}
}

func TestTwoPollersConflict(t *testing.T) {
	s := tgtest.New(t)
	first := s.PushMessage(chat, 0, user, "first")
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu        sync.Mutex
		delivered = make(map[int64]int)
		conflicts int
	)
	conflicted := make(chan struct{}, 2)
	handled := make(chan struct{}, 2)
	newPoller := func() *botapi.Poller {
		return &botapi.Poller{
			Client:  s.Client(),
			Timeout: 30 * time.Second,
			Handle: func(_ context.Context, b []botapi.Update) (int64, error) {
				mu.Lock()
				for _, u := range b {
					delivered[u.UpdateID]++
				}
				mu.Unlock()
				handled <- struct{}{}
				return b[len(b)-1].UpdateID, nil
			},
			OnState: func(st botapi.State, err error) {
				if st == botapi.StateConflict {
					mu.Lock()
					conflicts++
					mu.Unlock()
					conflicted <- struct{}{}
				}
			},
			// The loser stays out of the way until the test ends.
			Sleep: func(ctx context.Context, d time.Duration) error { <-ctx.Done(); return ctx.Err() },
		}
	}
	a, b := newPoller(), newPoller()
	waitA := run(t, ctx, cancel, a)
	testkit.Recv(t, handled, "a to take the first update") // a polls again
	// b starts from the durable cursor a just advanced, as a second
	// provider process sharing the store would.
	b.Offset = first + 1
	waitB := run(t, ctx, cancel, b)
	testkit.Recv(t, conflicted, "a conflict") // one of them was terminated by the other
	second := s.PushMessage(chat, 0, user, "second")
	testkit.Recv(t, handled, "the second update") // the other one serves on
	cancel()
	waitA()
	waitB()
	if conflicts != 1 {
		t.Errorf("%d conflicts, want 1", conflicts)
	}
	if len(delivered) != 2 || delivered[first] != 1 || delivered[second] != 1 {
		t.Errorf("deliveries %v, want %d and %d once each", delivered, first, second)
	}
}
