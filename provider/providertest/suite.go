package providertest

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// Target is a provider under [Run] and the stand-in of its platform.
//
// The suite speaks to the provider only through its gRPC contract
// (proto/chatbus/provider/v1, provider/README.md), the way the supervisor
// does, so it holds of a provider in any language; Start is its only way
// in.
type Target struct {
	// Start starts the provider against a fresh stand-in of its platform
	// (one per rule: rules do not share state) and returns it serving,
	// the handshake made. Everything it starts is stopped in t.Cleanup.
	//
	// The settings must allow the person [Platform.Say] writes as (the
	// allow-list) and name a chat the provider may create threads in
	// (ProvisionTarget with an empty chat).
	Start func(t *testing.T) Instance

	// NotApplicable names the rules (the subtest names, e.g.
	// "errors/rate_limited") that do not apply to this platform, each with
	// the reason, which the suite logs. Keep it short: a rule the platform
	// could keep but does not is a bug, not an exception.
	NotApplicable map[string]string

	// OutOfScope are calls of the provider's own methods (Describe's
	// methods, not verbs) that name another chat or thread than their
	// target: each must be refused as out of scope, with nothing sent.
	OutOfScope []Call

	// UnknownFileID is a file id of the form the platform gives that
	// names no file (DownloadFile must answer NOT_FOUND); empty: any text.
	UnknownFileID string
}

// Call is one CallRequest's method and params.
type Call struct {
	Method string
	Params string // JSON
}

// Instance is a provider the suite talks to, and its platform.
type Instance struct {
	// Socket is the Unix socket it serves on; Secret the bearer secret it
	// requires of every call but health.
	Socket string
	Secret string
	// Done is closed once the provider has exited (a doctor's Commit
	// settled).
	Done <-chan struct{}
	// Platform acts on the stand-in.
	Platform Platform
}

// Platform is what the suite needs to do and see on the platform side,
// through the stand-in. Every method fails t rather than return an error.
type Platform interface {
	// Say makes a person on the provider's allow-list write text in the
	// thread, as people do in the chat app.
	Say(t *testing.T, thread *providerv1.Target, text string)
	// Sent is how many messages the bot has posted in the thread, as the
	// platform holds them.
	Sent(t *testing.T, thread *providerv1.Target) int
	// Fail makes the platform answer the provider's next attempt to post
	// a message (once) with f; nothing is posted.
	Fail(t *testing.T, f Fault)
}

// Fault is a failure of the platform, as [Platform.Fail] injects it.
type Fault int

const (
	// RateLimited: the platform asks to slow down (HTTP 429) with a retry
	// delay of at least a second.
	RateLimited Fault = iota + 1
	// Unavailable: the platform fails inside (HTTP 5xx).
	Unavailable
	// Revoked: the platform no longer accepts the provider's credentials
	// (the token was revoked).
	Revoked
)

func (f Fault) String() string {
	switch f {
	case RateLimited:
		return "rate limited (429)"
	case Unavailable:
		return "unavailable (5xx)"
	case Revoked:
		return "token revoked"
	}
	return "no fault"
}

// InProcess is the Instance of a provider served in-process by Start.
func InProcess(h *Harness, p Platform) Instance {
	return Instance{Socket: h.Socket, Secret: h.Secret, Done: h.Done(), Platform: p}
}

// errorDomain is the ErrorInfo domain of the contract's error reasons
// (provider/README.md, "Error codes").
const errorDomain = "provider.chatbus"

// rule is one rule of the contract, checked by a subtest of its name.
type rule struct {
	name  string
	check func(s *session)
}

// Run checks that the provider keeps the contract: one subtest per rule,
// each against a provider of its own.
func Run(t *testing.T, target Target) {
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			if why, ok := target.NotApplicable[r.name]; ok {
				t.Logf("does not apply: %s", why)
				return
			}
			r.check(newSession(t, target))
		})
	}
	for name := range target.NotApplicable {
		if !hasRule(name) {
			t.Errorf("NotApplicable names %q, which is no rule", name)
		}
	}
}

func hasRule(name string) bool {
	for _, r := range rules {
		if r.name == name {
			return true
		}
	}
	return false
}

// wait bounds every step of a rule that waits for the provider or the
// platform.
const wait = 20 * time.Second

// session is one rule's provider and the supervisor's side of it.
type session struct {
	t      *testing.T
	target Target
	in     Instance
	conn   *grpc.ClientConn
	c      providerv1.ProviderServiceClient
	health grpc_health_v1.HealthClient
	ctx    context.Context
	name   string // Identify's name
}

func newSession(t *testing.T, target Target) *session {
	t.Helper()
	in := target.Start(t)
	conn, err := grpc.NewClient("unix://"+in.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(Bearer(in.Secret)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	t.Cleanup(cancel)
	s := &session{t: t, target: target, in: in, conn: conn, c: providerv1.NewProviderServiceClient(conn),
		health: grpc_health_v1.NewHealthClient(conn), ctx: ctx}
	id, err := s.c.Identify(ctx, &providerv1.IdentifyRequest{})
	if err != nil {
		t.Fatalf("Identify: %v", err)
	}
	s.name = id.GetName()
	return s
}

// thread provisions a thread for the rule (ProvisionTarget in the
// provider's configured chat).
func (s *session) thread(name string) *providerv1.Target {
	s.t.Helper()
	resp, err := s.c.ProvisionTarget(s.ctx, &providerv1.ProvisionTargetRequest{Name: name})
	if err != nil {
		s.t.Fatalf("ProvisionTarget %q: %v", name, err)
	}
	th := resp.GetTarget()
	if th.GetChat() == "" || th.GetThread() == "" {
		s.t.Fatalf("ProvisionTarget %q answered target %v: want a chat and a thread", name, th)
	}
	return th
}

// bound provisions a thread and attaches a follower to it, as the
// supervisor does before it opens the Updates stream of a thread's
// follower (a platform may watch only the threads bound: Discord catches
// up on them after a gateway session it could not resume).
func (s *session) bound(name string) *providerv1.Target {
	s.t.Helper()
	th := s.thread(name)
	_, err := s.c.Attach(s.ctx, &providerv1.AttachRequest{InstanceId: "follower-" + name, Target: th})
	s.ok("Attach", err)
	return th
}

// errorInfo is the contract's ErrorInfo of err, nil if it carries none.
func errorInfo(err error) *errdetails.ErrorInfo {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok && ei.GetDomain() == errorDomain {
			return ei
		}
	}
	return nil
}

// retryInfo is err's RetryInfo, nil if it carries none.
func retryInfo(err error) *errdetails.RetryInfo {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			return ri
		}
	}
	return nil
}

// refused fails the rule unless err has code and reason (the
// ErrorReason's name without its prefix).
func (s *session) refused(what string, err error, code codes.Code, reason string) {
	s.t.Helper()
	if err == nil {
		s.t.Errorf("%s succeeded; want %v (%s)", what, code, reason)
		return
	}
	if got := status.Code(err); got != code {
		s.t.Errorf("%s: %v; want code %v (%s)", what, err, code, reason)
		return
	}
	if got := errorInfo(err).GetReason(); got != reason {
		s.t.Errorf("%s: %v; want reason %s, got %q", what, err, reason, got)
	}
}

// ok fails the rule now if err is not nil.
func (s *session) ok(what string, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
}

// eventually polls cond until it holds or the wait runs out.
func (s *session) eventually(what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// bare is a connection to the provider without the secret.
func (s *session) bare() providerv1.ProviderServiceClient {
	conn, err := grpc.NewClient("unix://"+s.in.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { conn.Close() })
	return providerv1.NewProviderServiceClient(conn)
}

// incarnation is the Identify answer's incarnation.
func (s *session) identify() *providerv1.IdentifyResponse {
	s.t.Helper()
	id, err := s.c.Identify(s.ctx, &providerv1.IdentifyRequest{})
	s.ok("Identify", err)
	return id
}
