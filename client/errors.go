package client

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Sentinel errors. Err maps gRPC status codes back to these, so callers
// test with errors.Is and still see the supervisor's message.
var (
	ErrNotRunning         = errors.New("supervisord is not running")
	ErrUnauthenticated    = errors.New("unauthenticated")
	ErrPermissionDenied   = errors.New("permission denied")
	ErrInvalidArgument    = errors.New("invalid argument")
	ErrSessionUnknown     = errors.New("session unknown")
	ErrFailedPrecondition = errors.New("failed precondition")
	ErrReplaced           = errors.New("session replaced")
	ErrUnavailable        = errors.New("supervisor unavailable")
	ErrResourceExhausted  = errors.New("resource exhausted")
)

var codeErrors = map[codes.Code]error{
	codes.Unauthenticated:    ErrUnauthenticated,
	codes.PermissionDenied:   ErrPermissionDenied,
	codes.InvalidArgument:    ErrInvalidArgument,
	codes.NotFound:           ErrSessionUnknown,
	codes.FailedPrecondition: ErrFailedPrecondition,
	codes.Aborted:            ErrReplaced,
	codes.Unavailable:        ErrUnavailable,
	codes.ResourceExhausted:  ErrResourceExhausted,
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
	if sentinel, ok := codeErrors[st.Code()]; ok {
		return &Error{sentinel: sentinel, Code: st.Code(), Msg: st.Message(), status: err}
	}
	return err
}

// Error is a supervisor error with its gRPC code.
type Error struct {
	sentinel error
	status   error
	Code     codes.Code
	Msg      string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.sentinel, e.Msg) }

// Is matches the sentinel.
func (e *Error) Is(target error) bool { return target == e.sentinel }

// Unwrap returns the gRPC status error, so status.Code still works.
func (e *Error) Unwrap() error { return e.status }
