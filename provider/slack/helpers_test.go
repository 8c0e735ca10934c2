package slack_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/internal/proc"
	"github.com/chatbus/chatbus/internal/testkit"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
	"github.com/chatbus/chatbus/provider/slack"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	chanID   = "C0CHATBUS"
	person   = "U0PERSON"
	stranger = "U0STRANGER"
	// wait bounds every blocking step of a test.
	wait = 20 * time.Second
)

// rig is a provider-slack in-process (the SDK's harness on a real
// socket) against a stand-in Slack.
type rig struct {
	t      *testing.T
	st     *slacktest.Server
	plat   *slack.Platform
	h      *providertest.Harness
	health *provider.Health
	log    *testkit.SyncBuffer
}

type rigConfig struct {
	opts     []slacktest.Option
	settings func(*slack.Settings)
}

func newRig(t *testing.T, cfg rigConfig) *rig {
	t.Helper()
	st := slacktest.New(t, cfg.opts...)
	st.AddChannel(chanID, "chatbus", true)
	st.AddChannel("C0OTHER", "other", true)
	s := slack.Settings{Name: "slack", AppToken: slacktest.AppToken, BotToken: slacktest.BotToken, ChannelID: chanID,
		AllowedUserIDs: []string{person}, BaseURL: st.URL(), DeadAfter: "3s", AuthRetry: "200ms"}
	if cfg.settings != nil {
		cfg.settings(&s)
	}
	logs := &testkit.SyncBuffer{}
	log := zerolog.New(logs).With().Timestamp().Logger()
	health := provider.NewHealth()
	plat, err := slack.New(slack.Config{Settings: s, Logger: log, Health: health,
		HTTPClient: &http.Client{Transport: &http.Transport{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(plat.Close) // runs after the harness stopped (cleanups run last first)
	h := providertest.Start(t, child.Config{Name: "slack", Platform: plat, Health: health, Logger: log})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("provider log:\n%s", logs.String())
		}
	})
	return &rig{t: t, st: st, plat: plat, h: h, health: health, log: logs}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// provision makes a thread through ProvisionTarget.
func (r *rig) provision(name string) *providerv1.Target {
	r.t.Helper()
	resp, err := r.h.Client.ProvisionTarget(testCtx(r.t), &providerv1.ProvisionTargetRequest{Name: name})
	if err != nil {
		r.t.Fatal(err)
	}
	return resp.GetTarget()
}

func (r *rig) call(t *providerv1.Target, method, params string) (string, error) {
	r.t.Helper()
	resp, err := r.h.Client.Call(testCtx(r.t), &providerv1.CallRequest{Method: method, ParamsJson: []byte(params), Target: t})
	return string(resp.GetResultJson()), err
}

// healthOf is the grpc.health.v1 status of the provider's name and the
// reason Status gives.
func (r *rig) healthOf() (grpc_health_v1.HealthCheckResponse_ServingStatus, string) {
	r.t.Helper()
	ctx := testCtx(r.t)
	hr, err := r.h.Health.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: "slack"})
	if err != nil {
		r.t.Fatal(err)
	}
	st, err := r.h.Client.Status(ctx, &providerv1.StatusRequest{})
	if err != nil {
		r.t.Fatal(err)
	}
	return hr.GetStatus(), st.GetHealthDetail()
}

func fence(t *testing.T, requestID string) *providerv1.Fence {
	inc, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	return &providerv1.Fence{RequestId: requestID, Incarnation: &providerv1.Incarnation{Pid: int32(inc.PID), StartTime: inc.StartTime}}
}

// journal plays the supervisor's side of the Updates stream: it records
// every update, journals each dedup id once (as the supervisor's
// de-duplication window does), and acknowledges what it got unless held.
type journal struct {
	t      *testing.T
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	all     []*providerv1.Update // every update sent, redeliveries included
	byDedup map[string]*providerv1.Update
	order   []string // dedup ids in the order first journalled
	hold    bool
	lastID  int64
	acked   int64
	err     error
	stream  providerv1.ProviderService_UpdatesClient
	changed chan struct{}
}

func (r *rig) journal() *journal {
	r.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := r.h.Client.Updates(ctx)
	if err != nil {
		cancel()
		r.t.Fatal(err)
	}
	if err := stream.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Start_{Start: &providerv1.UpdatesRequest_Start{}}}); err != nil {
		cancel()
		r.t.Fatal(err)
	}
	j := &journal{t: r.t, cancel: cancel, done: make(chan struct{}), byDedup: map[string]*providerv1.Update{}, stream: stream, changed: make(chan struct{}, 1)}
	go j.run()
	r.t.Cleanup(j.close)
	return j
}

func (j *journal) run() {
	defer close(j.done)
	for {
		resp, err := j.stream.Recv()
		if err != nil {
			j.mu.Lock()
			j.err = err
			j.mu.Unlock()
			j.kick()
			return
		}
		ups := resp.GetUpdates()
		if len(ups) == 0 {
			continue
		}
		j.mu.Lock()
		for _, u := range ups {
			j.all = append(j.all, u)
			if _, dup := j.byDedup[u.GetDedupId()]; !dup {
				j.byDedup[u.GetDedupId()] = u
				j.order = append(j.order, u.GetDedupId())
			}
		}
		last := ups[len(ups)-1].GetUpdateId()
		j.lastID = last
		hold := j.hold
		j.mu.Unlock()
		if !hold {
			j.ackThrough(last)
		}
		j.kick()
	}
}

func (j *journal) kick() {
	select {
	case j.changed <- struct{}{}:
	default:
	}
}

func (j *journal) ackThrough(id int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if id <= j.acked {
		return
	}
	j.acked = id
	j.stream.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Ack_{Ack: &providerv1.UpdatesRequest_Ack{UpdateId: id}}})
}

// setHold stops (true) or resumes (false) acknowledging; resuming
// acknowledges everything received.
func (j *journal) setHold(hold bool) {
	j.mu.Lock()
	j.hold = hold
	last := j.lastID
	j.mu.Unlock()
	if !hold {
		j.ackThrough(last)
	}
}

// close ends the stream (the supervisor going away) and waits for it.
func (j *journal) close() {
	j.cancel()
	<-j.done
}

// waitFor waits until cond holds of the journal (under its lock).
func (j *journal) waitFor(what string, cond func(j *journal) bool) {
	j.t.Helper()
	deadline := time.After(wait)
	for {
		j.mu.Lock()
		ok := cond(j)
		err := j.err
		n := len(j.all)
		j.mu.Unlock()
		if ok {
			return
		}
		if err != nil && !errors.Is(err, context.Canceled) && status.Code(err) != codes.Canceled {
			j.t.Fatalf("waiting for %s: the stream ended: %v", what, err)
		}
		select {
		case <-j.changed:
		case <-deadline:
			j.t.Fatalf("timed out waiting for %s (%d updates so far)", what, n)
		}
	}
}

// update waits for the update with dedup id and returns it.
func (j *journal) update(dedup string) *providerv1.Update {
	j.t.Helper()
	var u *providerv1.Update
	j.waitFor("update "+dedup, func(j *journal) bool { u = j.byDedup[dedup]; return u != nil })
	return u
}

// texts are the texts journalled, in order, once each.
func (j *journal) texts() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, d := range j.order {
		out = append(out, j.byDedup[d].GetText())
	}
	return out
}

func (j *journal) count() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.all)
}

func wantCode(t *testing.T, err error, code codes.Code, reason string) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("got %v, want %v", err, code)
	}
	if reason != "" && provider.Reason(err) != reason {
		t.Fatalf("got reason %q (%v), want %q", provider.Reason(err), err, reason)
	}
}

// limitScope is the scope a rate-limited call's ErrorInfo names ("bot",
// "chat", "thread"), "" if none.
func limitScope(err error) string {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok && ei.GetDomain() == provider.ErrorDomain {
			return ei.GetMetadata()["scope"]
		}
	}
	return ""
}
