package client

import (
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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
