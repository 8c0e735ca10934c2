package client

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func TestHeartbeatFatal(t *testing.T) {
	const stale = 5 * time.Second
	for _, tc := range []struct {
		code   codes.Code
		silent time.Duration
		fatal  bool
	}{
		{codes.NotFound, 0, true},
		{codes.PermissionDenied, 0, true},
		{codes.Unauthenticated, 0, true},
		{codes.Unavailable, stale - time.Millisecond, false},
		{codes.Unavailable, stale, true},
		// A supervisor too busy to answer in time still holds the session:
		// only it can say it pruned it.
		{codes.DeadlineExceeded, time.Hour, false},
		{codes.Internal, stale - time.Millisecond, false},
		{codes.Internal, stale, true},
	} {
		err := Err(status.Error(tc.code, "x"))
		got := heartbeatFatal(err, tc.silent, stale)
		if (got != nil) != tc.fatal {
			t.Errorf("%s after %s of silence: fatal=%v, want %v", tc.code, tc.silent, got != nil, tc.fatal)
		}
		if got != nil && !errors.Is(got, err) && status.Code(got) != tc.code {
			t.Errorf("%s: the ending error %v lost the cause", tc.code, got)
		}
	}
}

// TestErrReasons: the supervisor's ErrorInfo reason tells a NOT_FOUND
// session from a NOT_FOUND message, and a rate limit carries the
// platform's delay.
func TestErrReasons(t *testing.T) {
	withDetails := func(code codes.Code, reason string, delay time.Duration) error {
		st := status.New(code, "x")
		var ds []protoadapt.MessageV1
		if reason != "" {
			ds = append(ds, &errdetails.ErrorInfo{Reason: reason, Domain: ErrorDomain})
		}
		if delay > 0 {
			ds = append(ds, &errdetails.RetryInfo{RetryDelay: durationpb.New(delay)})
		}
		st, err := st.WithDetails(ds...)
		if err != nil {
			t.Fatal(err)
		}
		return st.Err()
	}
	const (
		unspecified     = chatbusv1.ErrorReason_ERROR_REASON_UNSPECIFIED
		sessionUnknown  = chatbusv1.ErrorReason_ERROR_REASON_SESSION_UNKNOWN
		rateLimited     = chatbusv1.ErrorReason_ERROR_REASON_RATE_LIMITED
		outcomeUnknown  = chatbusv1.ErrorReason_ERROR_REASON_OUTCOME_UNKNOWN
		platformMissing = chatbusv1.ErrorReason_ERROR_REASON_PLATFORM_NOT_FOUND
	)
	for _, tc := range []struct {
		name   string
		err    error
		is     []error
		isNot  []error
		delay  time.Duration
		reason chatbusv1.ErrorReason
	}{
		{"session unknown", withDetails(codes.NotFound, "SESSION_UNKNOWN", 0), []error{ErrSessionUnknown, ErrNotFound}, nil, 0, sessionUnknown},
		{"message not found", withDetails(codes.NotFound, "PLATFORM_NOT_FOUND", 0), []error{ErrNotFound}, []error{ErrSessionUnknown}, 0, platformMissing},
		{"bare not found", status.Error(codes.NotFound, "x"), []error{ErrNotFound}, []error{ErrSessionUnknown}, 0, unspecified},
		{"rate limited", withDetails(codes.ResourceExhausted, "RATE_LIMITED", 2*time.Second), []error{ErrRateLimited, ErrResourceExhausted}, nil, 2 * time.Second, rateLimited},
		{"too many followers", withDetails(codes.ResourceExhausted, "TOO_MANY_FOLLOWERS", 0), []error{ErrResourceExhausted}, []error{ErrRateLimited}, 0,
			chatbusv1.ErrorReason_ERROR_REASON_TOO_MANY_FOLLOWERS},
		{"outcome unknown", withDetails(codes.Unknown, "OUTCOME_UNKNOWN", 0), []error{ErrOutcomeUnknown}, nil, 0, outcomeUnknown},
		{"a newer supervisor's reason", withDetails(codes.NotFound, "SOMETHING_NEW", 0), []error{ErrNotFound}, []error{ErrSessionUnknown}, 0, unspecified},
		{"another domain's reason", status.Error(codes.NotFound, "x"), []error{ErrNotFound}, nil, 0, unspecified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Err(tc.err)
			for _, want := range tc.is {
				if !errors.Is(err, want) {
					t.Errorf("%v is not %v", err, want)
				}
			}
			for _, not := range tc.isNot {
				if errors.Is(err, not) {
					t.Errorf("%v is %v", err, not)
				}
			}
			if d, _ := RetryDelay(err); d != tc.delay {
				t.Errorf("RetryDelay = %v, want %v", d, tc.delay)
			}
			if status.Code(err) != status.Code(tc.err) {
				t.Errorf("code %v lost", status.Code(tc.err))
			}
			if got := Reason(fmt.Errorf("wrapped: %w", err)); got != tc.reason {
				t.Errorf("Reason = %v, want %v", got, tc.reason)
			}
		})
	}
}

// TestReasonNames: every chatbus.v1.ErrorReason reads back from its
// ErrorInfo string (its name less the prefix).
func TestReasonNames(t *testing.T) {
	vals := chatbusv1.ErrorReason(0).Descriptor().Values()
	for i := range vals.Len() {
		r := chatbusv1.ErrorReason(vals.Get(i).Number())
		if r == chatbusv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
			continue
		}
		s := strings.TrimPrefix(string(vals.Get(i).Name()), reasonPrefix)
		if s == string(vals.Get(i).Name()) {
			t.Errorf("%v lacks the prefix %s", r, reasonPrefix)
		}
		if got := parseReason(s); got != r {
			t.Errorf("%q reads as %v, want %v", s, got, r)
		}
	}
	if got := Reason(errors.New("not a supervisor error")); got != chatbusv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
		t.Errorf("Reason of a plain error = %v", got)
	}
}
