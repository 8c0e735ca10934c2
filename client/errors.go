package client

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Sentinel errors. Err maps gRPC status codes (and the supervisor's
// ErrorInfo reasons, where one code covers several things) back to these,
// so callers test with errors.Is and still see the supervisor's message.
var (
	ErrNotRunning         = errors.New("supervisord is not running")
	ErrUnauthenticated    = errors.New("unauthenticated")
	ErrPermissionDenied   = errors.New("permission denied")
	ErrInvalidArgument    = errors.New("invalid argument")
	ErrSessionUnknown     = errors.New("session unknown")
	ErrNotFound           = errors.New("not found")
	ErrFailedPrecondition = errors.New("failed precondition")
	ErrReplaced           = errors.New("session replaced")
	ErrUnavailable        = errors.New("supervisor unavailable")
	ErrResourceExhausted  = errors.New("resource exhausted")
	// ErrRateLimited: the platform asked to slow down; RetryDelay says for
	// how long. It also matches ErrResourceExhausted.
	ErrRateLimited = errors.New("rate limited by the platform")
	// ErrOutcomeUnknown: the call may or may not have reached the
	// platform (its provider died mid-call). Repeating it with the same
	// idempotency key reports the same, never sends it twice.
	ErrOutcomeUnknown = errors.New("outcome unknown")
)

// ErrorDomain is the ErrorInfo domain of the supervisor's reasons.
const ErrorDomain = "chatbus"

var codeErrors = map[codes.Code]error{
	codes.Unauthenticated:    ErrUnauthenticated,
	codes.PermissionDenied:   ErrPermissionDenied,
	codes.InvalidArgument:    ErrInvalidArgument,
	codes.NotFound:           ErrNotFound,
	codes.FailedPrecondition: ErrFailedPrecondition,
	codes.Aborted:            ErrReplaced,
	codes.Unavailable:        ErrUnavailable,
	codes.ResourceExhausted:  ErrResourceExhausted,
	codes.Unknown:            ErrOutcomeUnknown,
}

// reasonErrors refine a code by the supervisor's reason.
var reasonErrors = map[string]error{
	"SESSION_UNKNOWN": ErrSessionUnknown,
	"RATE_LIMITED":    ErrRateLimited,
	// The platform's limits would hold the call past its deadline, or the
	// queue is full: slow down by RetryDelay too.
	"QUEUE_FULL": ErrRateLimited,
}

// Err maps a gRPC error to one wrapping the matching sentinel. Other errors
// pass through unchanged.
func Err(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	e := &Error{Code: st.Code(), Msg: st.Message(), status: err}
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if d.GetDomain() == ErrorDomain {
				e.Reason = d.GetReason()
			}
		case *errdetails.RetryInfo:
			e.RetryDelay = d.GetRetryDelay().AsDuration()
		}
	}
	e.sentinel = reasonErrors[e.Reason]
	if e.sentinel == nil {
		e.sentinel = codeErrors[st.Code()]
	}
	if e.sentinel == nil {
		return err
	}
	return e
}

// Error is a supervisor error with its gRPC code and details.
type Error struct {
	sentinel error
	status   error
	Code     codes.Code
	Msg      string
	// Reason is the supervisor's ErrorInfo reason ("SESSION_UNKNOWN",
	// "RATE_LIMITED", "THREAD_GONE", …), "" if none.
	Reason string
	// RetryDelay is how long the platform asked to wait before trying
	// again (rate limits); zero if it did not say.
	RetryDelay time.Duration
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.sentinel, e.Msg) }

// Is matches the sentinel (ErrRateLimited also ErrResourceExhausted,
// ErrSessionUnknown also ErrNotFound).
func (e *Error) Is(target error) bool {
	return target == e.sentinel || (target == codeErrors[e.Code] && target != nil)
}

// Unwrap returns the gRPC status error, so status.Code still works.
func (e *Error) Unwrap() error { return e.status }

// RetryDelay returns the delay a rate-limited call's platform asked for.
func RetryDelay(err error) (time.Duration, bool) {
	var e *Error
	if errors.As(err, &e) && e.RetryDelay > 0 {
		return e.RetryDelay, true
	}
	return 0, false
}
