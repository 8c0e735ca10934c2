package server

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/server/registry"
)

// Errors of the server package itself.
var (
	// ErrNotBound: the follower has no thread (no provider configured).
	ErrNotBound = errors.New("follower is not bound to a thread: no provider is configured")
	// ErrNotDelivered: an Ack names a seq beyond what was delivered.
	ErrNotDelivered = errors.New("seq was never delivered")
)

// errorCodes maps every sentinel a handler may return to its gRPC code. It
// is the one place where domain errors become codes; the client maps the
// codes back.
var errorCodes = []struct {
	err  error
	code codes.Code
}{
	{registry.ErrSessionUnknown, codes.NotFound},
	{registry.ErrForeignSession, codes.PermissionDenied},
	{registry.ErrFull, codes.ResourceExhausted},
	{registry.ErrPruned, codes.FailedPrecondition},
	{registry.ErrReplaced, codes.Aborted},
	{registry.ErrSuperseded, codes.Aborted},
	{registry.ErrShutdown, codes.Unavailable},
	{ErrNotBound, codes.FailedPrecondition},
	{ErrNotDelivered, codes.InvalidArgument},
	{context.Canceled, codes.Canceled},
	{context.DeadlineExceeded, codes.DeadlineExceeded},
}

// toStatus turns a handler error into a gRPC status error. Errors that are
// statuses already pass through; unknown ones become Internal.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	for _, e := range errorCodes {
		if errors.Is(err, e.err) {
			return status.Error(e.code, err.Error())
		}
	}
	return status.Error(codes.Internal, err.Error())
}
