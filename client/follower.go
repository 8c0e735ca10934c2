package client

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/chatbus/chatbus/internal/backoff"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Registration says who a follower is.
type Registration struct {
	// InstanceID is unique per session process; if empty, "<pid>:<start-ms>".
	InstanceID string
	// ProfileKey is the stable owner identity across reloads (required).
	ProfileKey string
	// ThreadName names the thread; if empty, the supervisor uses Cwd's base.
	ThreadName string
	Cwd        string
	PID        int32
	// Provider to bind on; if empty, the supervisor's default.
	Provider string
	// PreviousTarget and HandoffToken ask for the thread this session had.
	PreviousTarget *chatbusv1.Target
	HandoffToken   string
	// WayIn says how the session takes the thread's updates (chatbus-mcp:
	// Claude Code's channel, the session's inbox socket, or none), with
	// why in WayInDetail; busctl followers shows it. Follower.SetWayIn
	// reports a change.
	WayIn       chatbusv1.WayIn
	WayInDetail string
	// LaunchID is the launch this session is when chatbus started it from
	// a launch template: the session's $CHATBUS_LAUNCH_ID, which the
	// follower passes on (the client reads no environment).
	LaunchID string
	// Agent says what the session is ("claude-code", "pi"; empty: a
	// plain follower), for the chat's sessions command.
	Agent string
}

var processStart = time.Now()

// Follower is a registered session with a background heartbeat. Close it.
//
// A follower outlives a restart of its supervisor: sessions live in the
// supervisor's memory, so after a restart the next heartbeat or call is
// told its session is unknown; the follower then checks that the
// supervisor is a new one (its pid and start time) and registers again
// with the same instance id and profile key, keeping its thread (REUSE).
// A call under way goes on with its idempotency key. The update stream
// ends with the restart: call Updates again.
type Follower struct {
	c    *Client
	reg  Registration // as registered, to register again
	resp atomic.Pointer[chatbusv1.RegisterResponse]

	bindingMu sync.Mutex // guards binding and sends on changes
	binding   *chatbusv1.Binding
	changes   chan *chatbusv1.Binding // cap 1: the latest change not yet taken

	renewMu    sync.Mutex // serializes renew; guards supervisor
	supervisor string     // "<pid>@<start>" of the supervisor registered with

	// streams counts the open Updates streams: while one is open the
	// heartbeat goes at the supervisor's subscribed interval. streamEnded
	// (cap 1) wakes the heartbeat when one ends, to go back to the short
	// interval at once.
	streams     atomic.Int32
	streamEnded chan struct{}

	// acks coalesces Ack (acks.go); nil: every Ack is its own RPC.
	acks *acker

	// wayIn is a way in not yet reported (SetWayIn); the next heartbeat,
	// woken by wayInSet (cap 1), carries it, and the delivery reports not
	// yet sent (ReportDelivery; reportsMu guards reports, at most
	// maxDeliveryReports, the oldest dropped beyond).
	wayIn     atomic.Pointer[wayInReport]
	wayInSet  chan struct{}
	reportsMu sync.Mutex
	reports   []*chatbusv1.DeliveryReport

	stop     context.CancelFunc
	done     chan struct{}
	mu       sync.Mutex // guards err
	err      error
	stopOnce sync.Once

	// asked is closed when the update stream says a person asked the
	// session to stop (StopRequested); askedBy says who.
	askedOnce sync.Once
	asked     chan struct{}
	askedBy   atomic.Pointer[chatbusv1.StopRequest]
}

// Register registers a follower and starts heartbeating at the interval the
// supervisor asks for: heartbeat_interval, or, while an Updates stream is
// open (the stream is the follower's liveness then), the much longer
// subscribed_heartbeat_interval. The heartbeat stops at Close, when the
// supervisor says the session is gone, or when none got through for
// stale-after (Done is then closed and Err says why); see heartbeatFatal.
func (c *Client) Register(ctx context.Context, r Registration) (*Follower, error) {
	if r.PID == 0 {
		r.PID = int32(os.Getpid())
	}
	if r.InstanceID == "" {
		r.InstanceID = fmt.Sprintf("%d:%d", os.Getpid(), processStart.UnixMilli())
	}
	sup, err := c.supervisorID(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := c.register(ctx, r)
	if err != nil {
		return nil, err
	}
	hbCtx, stop := context.WithCancel(context.Background())
	f := &Follower{c: c, reg: r, supervisor: sup, stop: stop, done: make(chan struct{}), changes: make(chan *chatbusv1.Binding, 1),
		streamEnded: make(chan struct{}, 1), wayInSet: make(chan struct{}, 1), asked: make(chan struct{})}
	f.resp.Store(resp)
	f.binding = resp.GetBinding()
	if c.ackDelay > 0 {
		f.acks = newAcker(f, c.ackDelay, c.ackEvery)
	}
	// A handoff token is spent: registering again is a REUSE.
	f.reg.HandoffToken = ""
	go f.heartbeat(hbCtx, resp.GetHeartbeatInterval().AsDuration())
	return f, nil
}

func (c *Client) register(ctx context.Context, r Registration) (*chatbusv1.RegisterResponse, error) {
	resp, err := c.Bus.Register(ctx, &chatbusv1.RegisterRequest{
		InstanceId:     r.InstanceID,
		ProfileKey:     r.ProfileKey,
		ThreadName:     r.ThreadName,
		Cwd:            r.Cwd,
		Pid:            r.PID,
		Provider:       r.Provider,
		PreviousTarget: r.PreviousTarget,
		HandoffToken:   r.HandoffToken,
		WayIn:          r.WayIn,
		WayInDetail:    r.WayInDetail,
		LaunchId:       r.LaunchID,
		Agent:          r.Agent,
	})
	return resp, Err(err)
}

// wayInReport is a way in to report.
type wayInReport struct {
	w      chatbusv1.WayIn
	detail string
}

// SetWayIn reports how the session takes the thread's updates now (see
// Registration.WayIn): the next heartbeat, sent at once, carries it, and a
// registration after a supervisor restart says it too.
func (f *Follower) SetWayIn(w chatbusv1.WayIn, detail string) {
	f.renewMu.Lock()
	f.reg.WayIn, f.reg.WayInDetail = w, detail
	f.renewMu.Unlock()
	f.wayIn.Store(&wayInReport{w: w, detail: detail})
	select {
	case f.wayInSet <- struct{}{}:
	default:
	}
}

// maxDeliveryReports bounds the delivery reports waiting for a
// heartbeat (the most one heartbeat carries).
const maxDeliveryReports = 32

// ReportDelivery reports what the agent session said of an update handed
// to it (chatbus-mcp: Claude Code's reports on its inbox): the next
// heartbeat, sent at once, carries it, and the supervisor publishes it as
// an event. Reports wait for a heartbeat that gets through; beyond
// maxDeliveryReports the oldest are dropped.
func (f *Follower) ReportDelivery(status chatbusv1.DeliveryStatus, seq uint64, detail string) {
	if len(detail) > 1024 {
		detail = detail[:1024]
	}
	f.reportsMu.Lock()
	f.reports = append(f.reports, &chatbusv1.DeliveryReport{Status: status, Seq: seq, Detail: strings.ToValidUTF8(detail, "")})
	if n := len(f.reports) - maxDeliveryReports; n > 0 {
		f.reports = f.reports[n:]
	}
	f.reportsMu.Unlock()
	select {
	case f.wayInSet <- struct{}{}:
	default:
	}
}

// takeReports returns the reports to send; sent drops them once sent.
func (f *Follower) takeReports() []*chatbusv1.DeliveryReport {
	f.reportsMu.Lock()
	defer f.reportsMu.Unlock()
	return slices.Clone(f.reports)
}

func (f *Follower) sentReports(sent []*chatbusv1.DeliveryReport) {
	if len(sent) == 0 {
		return
	}
	f.reportsMu.Lock()
	defer f.reportsMu.Unlock()
	// The first len(sent) are those sent, unless the oldest were dropped
	// meanwhile: drop what is still there of them.
	f.reports = slices.DeleteFunc(f.reports, func(r *chatbusv1.DeliveryReport) bool { return slices.Contains(sent, r) })
}

// supervisorID names the running supervisor: its pid and start time.
func (c *Client) supervisorID(ctx context.Context) (string, error) {
	info, err := c.Admin.GetInfo(ctx, &chatbusv1.GetInfoRequest{})
	if err != nil {
		return "", Err(err)
	}
	return fmt.Sprintf("%d@%d", info.GetPid(), info.GetStartedAt().AsTime().UnixNano()), nil
}

// renew registers the follower again if the supervisor that answered
// "session unknown" for session is not the one it registered with (it
// restarted). It reports whether the follower now holds a session other
// than session (it renewed, or another caller did).
func (f *Follower) renew(ctx context.Context, session *chatbusv1.Session) (bool, error) {
	f.renewMu.Lock()
	defer f.renewMu.Unlock()
	if f.Session().GetToken() != session.GetToken() {
		return true, nil // renewed meanwhile
	}
	sup, err := f.c.supervisorID(ctx)
	if err != nil {
		return false, err
	}
	if sup == f.supervisor {
		return false, nil // the same supervisor forgot it: pruned, replaced
	}
	reg := f.reg
	if prev := f.Registered().GetBinding().GetTarget(); prev != nil {
		reg.PreviousTarget = prev
	}
	resp, err := f.c.register(ctx, reg)
	if err != nil {
		return false, err
	}
	f.resp.Store(resp)
	f.supervisor = sup
	f.setBinding(resp.GetBinding())
	return true, nil
}

// Binding returns the follower's binding as it is now: the thread it
// registered with, or the one that replaced it (a person deleted the
// thread on the platform; the supervisor gave the binding a new one and
// said so on a heartbeat or the update stream). Nil while detached.
func (f *Follower) Binding() *chatbusv1.Binding {
	f.bindingMu.Lock()
	defer f.bindingMu.Unlock()
	return f.binding
}

// BindingChanges delivers the binding each time its thread changes (see
// Binding); a reader that falls behind gets the latest.
func (f *Follower) BindingChanges() <-chan *chatbusv1.Binding { return f.changes }

// setBinding records b as the binding now, telling BindingChanges if its
// thread differs.
func (f *Follower) setBinding(b *chatbusv1.Binding) {
	if b == nil {
		return
	}
	f.bindingMu.Lock()
	defer f.bindingMu.Unlock()
	if proto.Equal(f.binding.GetTarget(), b.GetTarget()) {
		f.binding = b
		return
	}
	f.binding = b
	select {
	case <-f.changes: // replaced by the newer one
	default:
	}
	f.changes <- b
}

// Session returns the session credentials (instance id and token).
func (f *Follower) Session() *chatbusv1.Session { return f.resp.Load().GetSession() }

// Registered returns the supervisor's answer to Register (the latest, if
// the follower registered again after a supervisor restart).
func (f *Follower) Registered() *chatbusv1.RegisterResponse { return f.resp.Load() }

// Done is closed when the heartbeat stops.
func (f *Follower) Done() <-chan struct{} { return f.done }

// Err says why the heartbeat stopped: nil after Close, else the error that
// ended the session (pruned, replaced, supervisor gone).
func (f *Follower) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *Follower) heartbeat(ctx context.Context, interval time.Duration) {
	defer close(f.done)
	if interval <= 0 {
		interval = time.Second
	}
	staleAfter := f.Registered().GetStaleAfter().AsDuration()
	if staleAfter < interval {
		staleAfter = 5 * interval
	}
	t := time.NewTimer(interval)
	defer t.Stop()
	lastOK := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-f.streamEnded: // the stream was the liveness: heartbeat now
			t.Stop()
		case <-f.wayInSet: // a way in or a delivery to report: heartbeat now
			t.Stop()
		}
		wait := interval
		if f.streams.Load() > 0 {
			if long := f.Registered().GetSubscribedHeartbeatInterval().AsDuration(); long > interval {
				wait = long
			}
			// The open stream is the liveness meanwhile: a heartbeat that
			// fails now is silence only from here on.
			lastOK = time.Now()
		}
		t.Reset(wait)
		callCtx, cancel := context.WithTimeout(ctx, interval)
		sess := f.Session()
		req := &chatbusv1.HeartbeatRequest{Session: sess}
		report := f.wayIn.Load()
		if report != nil {
			req.WayIn, req.WayInDetail = report.w, report.detail
		}
		req.DeliveryReports = f.takeReports()
		resp, err := f.c.Bus.Heartbeat(callCtx, req)
		cancel()
		if err == nil && report != nil {
			f.wayIn.CompareAndSwap(report, nil) // reported, unless a newer one came
		}
		if err == nil {
			f.sentReports(req.DeliveryReports)
		}
		if slices.Contains(resp.GetNotices(), chatbusv1.Notice_NOTICE_THREAD_REPLACED) {
			f.setBinding(resp.GetBinding())
		}
		if err == nil || ctx.Err() != nil {
			lastOK = time.Now()
			continue
		}
		if errors.Is(Err(err), ErrNotFound) {
			rctx, cancel := context.WithTimeout(ctx, 2*interval+time.Second)
			renewed, rerr := f.renew(rctx, sess)
			cancel()
			if renewed {
				lastOK = time.Now()
				continue
			}
			if rerr != nil && !errors.Is(rerr, ErrNotFound) {
				continue // could not tell now: the next heartbeat asks again
			}
		}
		if err := heartbeatFatal(Err(err), time.Since(lastOK), staleAfter); err != nil {
			f.mu.Lock()
			f.err = err
			f.mu.Unlock()
			return
		}
		if wait > interval {
			t.Reset(interval) // a failure while streaming: try again soon
		}
	}
}

// heartbeatFatal says whether a failed heartbeat ends the session. Only
// the supervisor knows whether it pruned a session. A heartbeat that times
// out is retried for as long as it takes: the supervisor is busy and may
// well still hold the session, and the first heartbeat that gets through
// says. Any other failure (unreachable, refused) is retried until
// stale-after has passed without one getting through: by then the
// supervisor has pruned the session, or it is a new one that never knew it.
func heartbeatFatal(err error, silent, staleAfter time.Duration) error {
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrPermissionDenied), errors.Is(err, ErrUnauthenticated):
		// A heartbeat names nothing but the session: NOT_FOUND is "session
		// unknown" whatever the reason says (older supervisors send none).
		return err
	case status.Code(err) != codes.DeadlineExceeded && silent >= staleAfter:
		return fmt.Errorf("no heartbeat got through for %s (stale-after %s): %w", silent.Round(time.Millisecond), staleAfter, err)
	}
	return nil
}

// UpdatesBatch is how many updates the supervisor may send in one stream
// message (SubscribeRequest.max_batch).
const UpdatesBatch = 256

// Updates opens the update stream, replaying unacknowledged updates after
// afterSeq, and calls fn for each until ctx ends or fn returns an error.
// A change of the binding's thread the stream carries updates Binding.
// While it is open the follower heartbeats at the subscribed interval.
// Before it returns, the acks noted meanwhile are sent (FlushAcks, for up
// to 5s even if ctx ended).
func (f *Follower) Updates(ctx context.Context, afterSeq uint64, fn func(*chatbusv1.Update) error) error {
	f.streams.Add(1)
	defer func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		f.FlushAcks(fctx)
		cancel()
		f.streams.Add(-1)
		select {
		case f.streamEnded <- struct{}{}:
		default:
		}
	}()
	stream, err := f.c.Bus.Subscribe(ctx, &chatbusv1.SubscribeRequest{Session: f.Session(), AfterSeq: afterSeq, MaxBatch: UpdatesBatch})
	if err != nil {
		return Err(err)
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return Err(err)
		}
		f.setBinding(resp.GetBindingChanged())
		if r := resp.GetStopRequested(); r != nil {
			f.askedOnce.Do(func() {
				f.askedBy.Store(r)
				close(f.asked)
			})
		}
		ups := resp.GetUpdates()
		if u := resp.GetUpdate(); u != nil {
			ups = append([]*chatbusv1.Update{u}, ups...)
		}
		for _, u := range ups {
			if err := fn(u); err != nil {
				return err
			}
		}
	}
}

// StopRequested returns a channel closed once the update stream (Updates)
// said that a person asked, from the chat (the stop command), that this
// session stop, and who asked (nil until then). chatbus did not start the
// session, so it can only ask: the follower decides how it ends (close
// its agent, Suspend so the next session keeps the thread, or go on).
func (f *Follower) StopRequested() (<-chan struct{}, *chatbusv1.StopRequest) {
	return f.asked, f.askedBy.Load()
}

// Call makes a platform call in the follower's own thread and returns the
// platform's JSON result. params is a JSON object.
//
// A call is made at most once per idempotency key: the supervisor records
// it before the platform is called, and a repeat of the key gets the first
// call's outcome without calling the platform again. If idempotencyKey is
// empty, Call makes one for this call. While the supervisor or the
// provider is unavailable (restarting), Call tries again, with the same
// key, until ctx ends. When ctx ends first, the error (DEADLINE_EXCEEDED)
// does not mean the call is lost: it is held and made once; call again
// with the same key for its outcome.
func (f *Follower) Call(ctx context.Context, method string, paramsJSON []byte, idempotencyKey string) ([]byte, error) {
	resp, err := f.Do(ctx, method, paramsJSON, idempotencyKey)
	return resp.GetResultJson(), err
}

// Do is Call returning the whole response: the result and the references
// (message, file ids) it made available to the thread.
func (f *Follower) Do(ctx context.Context, method string, paramsJSON []byte, idempotencyKey string) (*chatbusv1.CallResponse, error) {
	idempotencyKey = keyOr(idempotencyKey)
	return retried(ctx, f, func(sess *chatbusv1.Session) (*chatbusv1.CallResponse, error) {
		return f.c.Bus.Call(ctx, &chatbusv1.CallRequest{Session: sess, Method: method, ParamsJson: paramsJSON, IdempotencyKey: idempotencyKey})
	})
}

// retried makes one logical call of the session: while the supervisor or
// the provider is unavailable (restarting) it tries again until ctx ends,
// and a session the supervisor no longer knows (it restarted) is renewed
// first. Only calls that are safe to repeat go through it: they carry an
// idempotency key, or repeating them changes nothing.
func retried[R any](ctx context.Context, f *Follower, call func(*chatbusv1.Session) (R, error)) (R, error) {
	retry := backoff.Policy{Initial: 50 * time.Millisecond, Max: 2 * time.Second}.New()
	for {
		sess := f.Session()
		resp, err := call(sess)
		if err != nil && errors.Is(Err(err), ErrSessionUnknown) && ctx.Err() == nil {
			// The supervisor may have restarted: the session is renewed
			// and the call goes on, with its key.
			if renewed, _ := f.renew(ctx, sess); renewed {
				continue
			}
		}
		if err == nil || status.Code(err) != codes.Unavailable || ctx.Err() != nil {
			return resp, Err(err)
		}
		// Unavailable: try again, the key makes it safe.
		if backoff.Sleep(ctx, retry.NextBackOff()) != nil {
			return resp, Err(err)
		}
	}
}

// NewIdempotencyKey returns a random key for one logical call.
func NewIdempotencyKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "go:" + base64.RawURLEncoding.EncodeToString(b)
}

// Close sends the acks noted (FlushAcks), stops the heartbeat and
// unregisters. The binding is kept by the supervisor for a later REUSE.
func (f *Follower) Close(ctx context.Context) error {
	var err error
	f.stopOnce.Do(func() {
		if f.acks != nil {
			f.acks.flush(ctx)
			f.acks.stop()
		}
		f.stop()
		<-f.done
		_, err = f.c.Bus.Unregister(ctx, &chatbusv1.UnregisterRequest{Session: f.Session()})
		err = Err(err)
	})
	return err
}
