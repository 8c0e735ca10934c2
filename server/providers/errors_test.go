package providers

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	sdk "github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/server/outbound"
)

// TestContractConstants: the reasons the supervisor reads are the ones
// the provider SDK sends, every value of the contract's enum.
func TestContractConstants(t *testing.T) {
	if errorDomain != sdk.ErrorDomain {
		t.Errorf("supervisor reads domain %q, the SDK sends %q", errorDomain, sdk.ErrorDomain)
	}
	for v := range providerv1.ErrorReason_name {
		r := providerv1.ErrorReason(v)
		if got := parseReason(sdk.ReasonName(r)); got != r {
			t.Errorf("the SDK sends %v as %q, the supervisor reads %v", r, sdk.ReasonName(r), got)
		}
	}
}

func withInfo(code codes.Code, reason string, after time.Duration) error {
	st := status.New(code, "x")
	if reason != "" {
		st, _ = st.WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: errorDomain})
	}
	if after > 0 {
		st, _ = st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(after)})
	}
	return st.Err()
}

// TestRateLimitedOutcome: a rate-limited call waits again, its scope
// (as the provider named it, else its chat) paused for the delay asked.
func TestRateLimitedOutcome(t *testing.T) {
	st := status.New(codes.ResourceExhausted, "slow down")
	st, _ = st.WithDetails(&errdetails.ErrorInfo{Reason: "RATE_LIMITED", Domain: errorDomain, Metadata: map[string]string{"scope": "bot"}},
		&errdetails.RetryInfo{RetryDelay: durationpb.New(3 * time.Second)})
	o, ok := rateLimitedOutcome(classify(st.Err(), nil))
	if !ok || o.RetryAfter != 3*time.Second || o.Scope != outbound.ScopeBot {
		t.Fatalf("outcome %+v, %v", o, ok)
	}
	o, ok = rateLimitedOutcome(classify(status.Error(codes.ResourceExhausted, "no delay named"), nil))
	if !ok || o.RetryAfter != time.Second || o.Scope != outbound.ScopeChat {
		t.Fatalf("outcome without details %+v, %v", o, ok)
	}
	if _, ok := rateLimitedOutcome(classify(status.Error(codes.InvalidArgument, "x"), nil)); ok {
		t.Fatal("a bad request waits again")
	}
}

// TestClassify: a provider's answer keeps its class; an UNAVAILABLE the
// provider did not send itself (the child died mid-call) is outcome
// unknown, never "not sent".
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		class     error
		retryable bool
	}{
		// A rate limit is not retried by the follower: the call waits its
		// turn in the queue again (rateLimitedOutcome).
		{"rate limited", withInfo(codes.ResourceExhausted, "RATE_LIMITED", 2*time.Second), ErrRateLimited, false},
		{"unreachable, said by the provider", withInfo(codes.Unavailable, sdk.ReasonUnreachable, 0), ErrUnavailable, true},
		{"provider stopping", withInfo(codes.Unavailable, sdk.ReasonStopping, 0), ErrUnavailable, true},
		{"connection broke mid-call", status.Error(codes.Unavailable, "error reading from server: EOF"), ErrAmbiguous, false},
		// Whatever the transport's wording: only whether the call reached
		// the child says it was not sent (TestCallToDeadChild).
		{"connection error, reached unknown", status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial unix /run/x.sock: connect: connection refused"`), ErrAmbiguous, false},
		{"a platform's own precondition", withInfo(codes.FailedPrecondition, sdk.ReasonPlatformRefused, 0), ErrRefused, false},
		{"a precondition without a reason", status.Error(codes.FailedPrecondition, "x"), ErrRefused, false},
		{"unknown", status.Error(codes.Unknown, "x"), ErrAmbiguous, false},
		{"deadline mid-call", status.Error(codes.DeadlineExceeded, "x"), ErrAmbiguous, false},
		{"thread deleted", withInfo(codes.NotFound, sdk.ReasonTargetGone, 0), ErrTargetGone, false},
		{"bad request", status.Error(codes.InvalidArgument, "x"), ErrPlatformInvalid, false},
		{"out of scope", withInfo(codes.PermissionDenied, "OUT_OF_SCOPE", 0), ErrPlatformDenied, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := classify(tc.err, nil)
			if !errors.Is(err, tc.class) || retryable(err) != tc.retryable {
				t.Errorf("classify = %v (retryable %v), want %v (retryable %v)", err, retryable(err), tc.class, tc.retryable)
			}
			if d := err.(*CallError).RetryAfter; tc.class == ErrRateLimited && d != 2*time.Second {
				t.Errorf("retry after %v", d)
			}
		})
	}
	if !errors.Is(classify(withInfo(codes.NotFound, sdk.ReasonTargetGone, 0), nil), ErrPlatformNotFound) {
		t.Error("a deleted thread is also not found")
	}
}

// TestCallToDeadChild: a call that never reached a child (nothing listens
// on its socket) certainly did nothing: ErrUnavailable, retryable; one
// that reached a live child is known to have reached it. Neither is read
// from the transport's wording.
func TestCallToDeadChild(t *testing.T) {
	dir, err := os.MkdirTemp("", "pd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	conn, err := grpc.NewClient("unix://"+filepath.Join(dir, "gone.sock"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var at attempt
	_, err = providerv1.NewProviderServiceClient(conn).Identify(ctxT(t), &providerv1.IdentifyRequest{}, at.opt())
	if err == nil || at.reached() {
		t.Fatalf("a call to no child: %v, reached %v", err, at.reached())
	}
	if err := classify(err, &at); !errors.Is(err, ErrUnavailable) || !retryable(err) {
		t.Fatalf("classified %v, want ErrUnavailable, retryable", err)
	}

	e := newEnv(t, spec("fake", childSettings{}))
	var live attempt
	if _, err := providerv1.NewProviderServiceClient(e.waitRunning(t, "fake").Conn).Identify(ctxT(t), &providerv1.IdentifyRequest{}, live.opt()); err != nil {
		t.Fatal(err)
	}
	if !live.reached() {
		t.Fatal("a call a live child answered did not reach it")
	}
}
