package server

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// errUploadHeader: an upload did not start with its header.
var errUploadHeader = errors.New("the first UploadFile message must be the header")

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
	{errUploadHeader, codes.InvalidArgument},

	{hub.ErrDetached, codes.FailedPrecondition},
	{hub.ErrNotActive, codes.FailedPrecondition},
	{hub.ErrUnknownProvider, codes.InvalidArgument},
	{hub.ErrProvision, codes.Unavailable},
	{hub.ErrHandoff, codes.FailedPrecondition},
	{hub.ErrHandoffProfile, codes.InvalidArgument},
	{hub.ErrMethodNotAllowed, codes.PermissionDenied},
	{hub.ErrOutOfScope, codes.PermissionDenied},
	{hub.ErrBadParams, codes.InvalidArgument},
	{hub.ErrNotDelivered, codes.InvalidArgument},

	{providers.ErrUnknown, codes.InvalidArgument},
	{providers.ErrUnavailable, codes.Unavailable},
	{providers.ErrRefused, codes.FailedPrecondition},
	{providers.ErrAmbiguous, codes.Unknown},

	{providers.ErrHeld, codes.DeadlineExceeded},

	{doctor.ErrBusy, codes.Aborted},
	{doctor.ErrAbsent, codes.FailedPrecondition},
	{doctor.ErrOccupied, codes.FailedPrecondition},
	{doctor.ErrRefused, codes.FailedPrecondition},

	{store.ErrNotFound, codes.NotFound},
	{store.ErrNoFreeSlot, codes.ResourceExhausted},
	{store.ErrClosed, codes.Unavailable},
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
