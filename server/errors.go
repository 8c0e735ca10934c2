package server

import (
	"context"
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// errUploadHeader: an upload did not start with its header.
var errUploadHeader = errors.New("the first UploadFile message must be the header")

// ErrorDomain is the google.rpc.ErrorInfo domain of the supervisor's
// reasons. The clients read the reason to tell failures of one code apart
// (a NOT_FOUND session from a NOT_FOUND message).
const ErrorDomain = "chatbus"

// errorCodes maps every sentinel a handler may return to its gRPC code
// and, where one code covers several things, an ErrorInfo reason. It is
// the one place where domain errors become codes; the clients map the
// codes (and reasons) back. First match wins.
var errorCodes = []struct {
	err    error
	code   codes.Code
	reason string
}{
	{registry.ErrSessionUnknown, codes.NotFound, "SESSION_UNKNOWN"},
	{registry.ErrForeignSession, codes.PermissionDenied, "FOREIGN_SESSION"},
	{registry.ErrFull, codes.ResourceExhausted, "TOO_MANY_FOLLOWERS"},
	{registry.ErrPruned, codes.FailedPrecondition, "PRUNED"},
	{registry.ErrReplaced, codes.Aborted, "REPLACED"},
	{registry.ErrTakenOver, codes.Aborted, "TAKEN_OVER"},
	{registry.ErrSuperseded, codes.Aborted, "STREAM_SUPERSEDED"},
	{registry.ErrShutdown, codes.Unavailable, "SHUTTING_DOWN"},
	{errUploadHeader, codes.InvalidArgument, ""},
	{ErrReloadUnsupported, codes.FailedPrecondition, "RELOAD_UNSUPPORTED"},
	{ErrNotServing, codes.Unavailable, "NOT_SERVING_YET"},

	{hub.ErrDetached, codes.FailedPrecondition, "DETACHED"},
	{hub.ErrSuspended, codes.FailedPrecondition, "SUSPENDED"},
	{hub.ErrNotActive, codes.FailedPrecondition, "BINDING_NOT_ACTIVE"},
	{hub.ErrUnknownProvider, codes.InvalidArgument, "UNKNOWN_PROVIDER"},
	{hub.ErrProvision, codes.Unavailable, "PROVISION_FAILED"},
	{hub.ErrHandoff, codes.FailedPrecondition, "HANDOFF_INVALID"},
	{hub.ErrHandoffProfile, codes.InvalidArgument, ""},
	{hub.ErrMethodNotAllowed, codes.PermissionDenied, "METHOD_NOT_ALLOWED"},
	{hub.ErrVerbUnsupported, codes.Unimplemented, "VERB_UNSUPPORTED"},
	{hub.ErrOutOfScope, codes.PermissionDenied, "OUT_OF_SCOPE"},
	{hub.ErrBadParams, codes.InvalidArgument, ""},
	{hub.ErrNotDelivered, codes.InvalidArgument, ""},
	{hub.ErrNotDescribed, codes.Unavailable, "PROVIDER_NOT_READY"},
	{hub.ErrProviderNotServing, codes.Unavailable, "PROVIDER_NOT_SERVING"},

	// A platform's failure keeps its class on the way to the follower.
	{providers.ErrUnknown, codes.NotFound, "UNKNOWN_PROVIDER"},
	{providers.ErrTargetGone, codes.NotFound, "THREAD_GONE"},
	{providers.ErrPlatformNotFound, codes.NotFound, "PLATFORM_NOT_FOUND"},
	{providers.ErrPlatformInvalid, codes.InvalidArgument, "PLATFORM_INVALID"},
	{providers.ErrPlatformDenied, codes.PermissionDenied, "PLATFORM_DENIED"},
	{providers.ErrRateLimited, codes.ResourceExhausted, "RATE_LIMITED"},
	{providers.ErrQueueFull, codes.ResourceExhausted, "QUEUE_FULL"},
	{providers.ErrUnavailable, codes.Unavailable, "PROVIDER_UNAVAILABLE"},
	{providers.ErrRefused, codes.FailedPrecondition, "PROVIDER_REFUSED"},
	{providers.ErrAmbiguous, codes.Unknown, "OUTCOME_UNKNOWN"},

	{providers.ErrHeld, codes.DeadlineExceeded, "CALL_NOT_FINISHED"},
	{providers.ErrTooManyHeld, codes.ResourceExhausted, "TOO_MANY_HELD"},

	{doctor.ErrBusy, codes.Aborted, ""},
	{doctor.ErrAbsent, codes.FailedPrecondition, ""},
	{doctor.ErrOccupied, codes.FailedPrecondition, ""},
	{doctor.ErrRefused, codes.FailedPrecondition, ""},

	{store.ErrNotFound, codes.NotFound, "NOT_FOUND"},
	{store.ErrNoFreeSlot, codes.ResourceExhausted, "NO_FREE_SLOT"},
	{store.ErrClosed, codes.Unavailable, "SHUTTING_DOWN"},
	// A cluster node's supervisor lost its leadership under the call:
	// the new leader serves it once the caller's node follows it.
	{store.ErrFenced, codes.Unavailable, "FENCED"},
	{context.Canceled, codes.Canceled, ""},
	{context.DeadlineExceeded, codes.DeadlineExceeded, ""},
}

// toStatus turns a handler error into a gRPC status error, with a
// google.rpc.ErrorInfo naming its reason and, for a platform's rate
// limit, a google.rpc.RetryInfo with the platform's delay. Errors that
// are statuses already pass through; unknown ones become Internal.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	for _, e := range errorCodes {
		if errors.Is(err, e.err) {
			return withDetails(status.New(e.code, err.Error()), err, e.reason)
		}
	}
	return status.Error(codes.Internal, err.Error())
}

func withDetails(st *status.Status, err error, reason string) error {
	var details []protoadapt.MessageV1
	var ce *providers.CallError
	if errors.As(err, &ce) && ce.RetryAfter > 0 {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(ce.RetryAfter)})
	}
	if reason != "" {
		details = append(details, &errdetails.ErrorInfo{Reason: reason, Domain: ErrorDomain})
	}
	if len(details) == 0 {
		return st.Err()
	}
	ds, derr := st.WithDetails(details...)
	if derr != nil {
		return st.Err()
	}
	return ds.Err()
}
