package providers

import (
	"errors"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	sdk "github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/server/outbound"
)

// TestContractConstants: the reasons the supervisor reads are the ones
// the provider SDK sends.
func TestContractConstants(t *testing.T) {
	for got, want := range map[string]string{
		errorDomain: sdk.ErrorDomain, reasonTargetGone: sdk.ReasonTargetGone,
		reasonUnreachable: sdk.ReasonUnreachable, reasonStopping: sdk.ReasonStopping,
	} {
		if got != want {
			t.Errorf("supervisor reads %q, the SDK sends %q", got, want)
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
	o, ok := rateLimitedOutcome(classify(st.Err()))
	if !ok || o.RetryAfter != 3*time.Second || o.Scope != outbound.ScopeBot {
		t.Fatalf("outcome %+v, %v", o, ok)
	}
	o, ok = rateLimitedOutcome(classify(status.Error(codes.ResourceExhausted, "no delay named")))
	if !ok || o.RetryAfter != time.Second || o.Scope != outbound.ScopeChat {
		t.Fatalf("outcome without details %+v, %v", o, ok)
	}
	if _, ok := rateLimitedOutcome(classify(status.Error(codes.InvalidArgument, "x"))); ok {
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
		{"unreachable, said by the provider", withInfo(codes.Unavailable, reasonUnreachable, 0), ErrUnavailable, true},
		{"provider stopping", withInfo(codes.Unavailable, reasonStopping, 0), ErrUnavailable, true},
		{"connection broke mid-call", status.Error(codes.Unavailable, "error reading from server: EOF"), ErrAmbiguous, false},
		{"child gone before the call", status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial unix /run/x.sock: connect: connection refused"`), ErrUnavailable, true},
		{"unknown", status.Error(codes.Unknown, "x"), ErrAmbiguous, false},
		{"deadline mid-call", status.Error(codes.DeadlineExceeded, "x"), ErrAmbiguous, false},
		{"thread deleted", withInfo(codes.NotFound, reasonTargetGone, 0), ErrTargetGone, false},
		{"bad request", status.Error(codes.InvalidArgument, "x"), ErrPlatformInvalid, false},
		{"out of scope", withInfo(codes.PermissionDenied, "OUT_OF_SCOPE", 0), ErrPlatformDenied, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := classify(tc.err)
			if !errors.Is(err, tc.class) || retryable(err) != tc.retryable {
				t.Errorf("classify = %v (retryable %v), want %v (retryable %v)", err, retryable(err), tc.class, tc.retryable)
			}
			if d := err.(*CallError).RetryAfter; tc.class == ErrRateLimited && d != 2*time.Second {
				t.Errorf("retry after %v", d)
			}
		})
	}
	if !errors.Is(classify(withInfo(codes.NotFound, reasonTargetGone, 0)), ErrPlatformNotFound) {
		t.Error("a deleted thread is also not found")
	}
}
