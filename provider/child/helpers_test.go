package child_test

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/internal/proc"
	"github.com/chatbus/chatbus/internal/testkit"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wait bounds every blocking step of a test.
const wait = 10 * time.Second

func start(t *testing.T, f *providertest.Fake, mods ...func(*child.Config)) *providertest.Harness {
	t.Helper()
	cfg := child.Config{Name: "fake", Platform: f}
	for _, m := range mods {
		m(&cfg)
	}
	return providertest.Start(t, cfg)
}

func wantCode(t *testing.T, err error, code codes.Code, contains string) {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != code {
		t.Fatalf("got %v, want code %v", err, code)
	}
	if contains != "" && !strings.Contains(st.Message(), contains) {
		t.Fatalf("message %q does not contain %q", st.Message(), contains)
	}
}

// self is this process's incarnation as a fence names it.
func self(t *testing.T) *providerv1.Incarnation {
	t.Helper()
	inc, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	return &providerv1.Incarnation{Pid: int32(inc.PID), StartTime: inc.StartTime}
}

func fence(t *testing.T, requestID string) *providerv1.Fence {
	return &providerv1.Fence{RequestId: requestID, Incarnation: self(t)}
}

// blocker holds a fake platform call in flight until released.
type blocker struct {
	entered chan struct{}
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (b *blocker) block(ctx context.Context) error {
	b.entered <- struct{}{}
	select {
	case <-b.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *blocker) waitEntered(t *testing.T) {
	t.Helper()
	select {
	case <-b.entered:
	case <-time.After(wait):
		t.Fatal("platform call never started")
	}
}

// occWatch follows WatchOccupancy.
type occWatch struct {
	ch     chan child.Occupancy
	cancel context.CancelFunc
	last   child.Occupancy
}

func watchOccupancy(t *testing.T, h *providertest.Harness) *occWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := h.Client.WatchOccupancy(ctx, &providerv1.WatchOccupancyRequest{})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	w := &occWatch{ch: make(chan child.Occupancy, 1024), cancel: cancel}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			m, err := stream.Recv()
			if err != nil {
				return
			}
			w.ch <- child.OccupancyFromProto(m.GetOccupancy())
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return w
}

// waitFor reads values until one equals want.
func (w *occWatch) waitFor(t *testing.T, want child.Occupancy) {
	t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case o := <-w.ch:
			w.last = o
			if o == want {
				return
			}
		case <-timeout:
			t.Fatalf("occupancy: last saw {%v}, want {%v}", w.last, want)
		}
	}
}

// runProbe is a Platform.Run that hands its cursor, sink and ctx to the
// test and records when its ctx ended.
type runProbe struct {
	started chan runStart
	mu      sync.Mutex
	log     []string
}

type runStart struct {
	ctx    context.Context
	cursor int64
	sink   provider.Sink
}

func newRunProbe() *runProbe { return &runProbe{started: make(chan runStart, 8)} }

func (p *runProbe) run(ctx context.Context, state []byte, sink provider.Sink) error {
	cursor, _ := strconv.ParseInt(string(state), 10, 64)
	p.record("start", cursor)
	p.started <- runStart{ctx: ctx, cursor: cursor, sink: sink}
	<-ctx.Done()
	p.record("end", cursor)
	return ctx.Err()
}

func (p *runProbe) record(what string, cursor int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = append(p.log, what+" "+itoa(cursor))
}

func (p *runProbe) events() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

func (p *runProbe) next(t *testing.T) runStart {
	t.Helper()
	select {
	case r := <-p.started:
		return r
	case <-time.After(wait):
		t.Fatal("Run was not started")
		return runStart{}
	}
}

// startProbed starts a fake provider whose Run is a runProbe.
func startProbed(t *testing.T) (*runProbe, *providertest.Harness) {
	t.Helper()
	p := newRunProbe()
	return p, start(t, &providertest.Fake{RunFunc: p.run})
}

// open opens an Updates stream on h with Start{state: cursor} and returns
// it with the Run it started.
func (p *runProbe) open(t *testing.T, ctx context.Context, h *providertest.Harness, cursor int64) (updatesClient, runStart) {
	t.Helper()
	s := openUpdates(t, ctx, h, cursor)
	return s, p.next(t)
}

// openEndable is open on a stream the test ends, as the supervisor's
// going away would, with the returned cancel.
func (p *runProbe) openEndable(t *testing.T, ctx context.Context, h *providertest.Harness, cursor int64) (updatesClient, runStart, context.CancelFunc) {
	t.Helper()
	sctx, cancel := context.WithCancel(ctx)
	s, run := p.open(t, sctx, h, cursor)
	return s, run, cancel
}

// wantAcked waits for a Deliver's, Send's or Flush's result (what names
// it) and wants acked and no error.
func wantAcked(t *testing.T, ch <-chan deliverResult, what string, acked int64) {
	t.Helper()
	if r := testkit.Recv(t, ch, what); r.acked != acked || r.err != nil {
		t.Fatalf("%s = %d, %v; want %d, nil", what, r.acked, r.err, acked)
	}
}

// redeliver delivers id again, the last id delivered and acknowledged:
// ids must keep increasing, so it is refused (ErrInvalid) and the ack
// point, id, returned.
func redeliver(t *testing.T, ctx context.Context, sink provider.Sink, id int64) {
	t.Helper()
	if a, err := sink.Deliver(ctx, updates(id)); a != id || !errors.Is(err, provider.ErrInvalid) {
		t.Fatalf("Deliver of an id delivered before = %d, %v; want %d, ErrInvalid", a, err, id)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

type updatesClient = grpc.BidiStreamingClient[providerv1.UpdatesRequest, providerv1.UpdatesResponse]

// startState is the Start.state a supervisor sends for a cursor stored
// in decimal; 0: none.
func startState(cursor int64) []byte {
	if cursor == 0 {
		return nil
	}
	return strconv.AppendInt(nil, cursor, 10)
}

// openUpdates opens an Updates stream with Start{state: cursor}.
func openUpdates(t *testing.T, ctx context.Context, h *providertest.Harness, cursor int64) updatesClient {
	t.Helper()
	s, err := h.Client.Updates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Start_{Start: &providerv1.UpdatesRequest_Start{State: startState(cursor)}}}); err != nil {
		t.Fatal(err)
	}
	return s
}

func ack(t *testing.T, s updatesClient, id int64) {
	t.Helper()
	if err := s.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Ack_{Ack: &providerv1.UpdatesRequest_Ack{UpdateId: id}}}); err != nil {
		t.Fatal(err)
	}
}

func updates(ids ...int64) []*providerv1.Update {
	out := make([]*providerv1.Update, len(ids))
	for i, id := range ids {
		out[i] = &providerv1.Update{UpdateId: id, Chat: "-100", Text: "u" + itoa(id), Allowed: true}
	}
	return out
}

type deliverResult struct {
	acked int64
	err   error
}

func deliverAsync(ctx context.Context, sink provider.Sink, us []*providerv1.Update) <-chan deliverResult {
	ch := make(chan deliverResult, 1)
	go func() {
		a, err := sink.Deliver(ctx, us)
		ch <- deliverResult{a, err}
	}()
	return ch
}

func notYet[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("%s returned early: %v", what, v)
	case <-time.After(50 * time.Millisecond):
	}
}

var errBoom = errors.New("boom")

func durationOf(d time.Duration) *durationpb.Duration { return durationpb.New(d) }

func zerologTo(w io.Writer) zerolog.Logger { return zerolog.New(w) }

// fakeClock is a settable clock.
type fakeClock = testkit.Clock

func newFakeClock(t time.Time) *fakeClock { return testkit.NewClock(t) }
