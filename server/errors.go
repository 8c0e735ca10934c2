package server

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
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

// reasonPrefix is what a chatbus.v1.ErrorReason value's name has and its
// ErrorInfo.reason string has not.
const reasonPrefix = "ERROR_REASON_"

// reasonString is r as ErrorInfo.reason: its name less the prefix.
func reasonString(r chatbusv1.ErrorReason) string {
	return strings.TrimPrefix(r.String(), reasonPrefix)
}

// errorCodes maps every sentinel a handler may return to its gRPC code
// and its chatbus.v1.ErrorReason, sent as a google.rpc.ErrorInfo. It is the
// one place where domain errors become codes; the clients map the codes
// and reasons back. Each sentinel has exactly one code and one reason, and
// a reason the same code wherever it appears (errors_test.go holds both
// true, and that every reason of the enum is produced). One exception:
// an owner's refusal (doctor.RefusedError) keeps the code the owner
// answered with. First match wins: a sentinel that also matches a later
// one (ErrTargetGone is a platform not-found) comes first.
var errorCodes = []struct {
	err    error
	code   codes.Code
	reason chatbusv1.ErrorReason
}{
	{registry.ErrSessionUnknown, codes.NotFound, chatbusv1.ErrorReason_ERROR_REASON_SESSION_UNKNOWN},
	{registry.ErrForeignSession, codes.PermissionDenied, chatbusv1.ErrorReason_ERROR_REASON_FOREIGN_SESSION},
	{registry.ErrFull, codes.ResourceExhausted, chatbusv1.ErrorReason_ERROR_REASON_TOO_MANY_FOLLOWERS},
	{registry.ErrPruned, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_PRUNED},
	{registry.ErrReplaced, codes.Aborted, chatbusv1.ErrorReason_ERROR_REASON_REPLACED},
	{registry.ErrTakenOver, codes.Aborted, chatbusv1.ErrorReason_ERROR_REASON_TAKEN_OVER},
	{registry.ErrSuperseded, codes.Aborted, chatbusv1.ErrorReason_ERROR_REASON_STREAM_SUPERSEDED},
	{registry.ErrShutdown, codes.Unavailable, chatbusv1.ErrorReason_ERROR_REASON_SHUTTING_DOWN},
	{errUploadHeader, codes.InvalidArgument, chatbusv1.ErrorReason_ERROR_REASON_UPLOAD_HEADER_MISSING},
	{ErrReloadUnsupported, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_RELOAD_UNSUPPORTED},
	{ErrNotServing, codes.Unavailable, chatbusv1.ErrorReason_ERROR_REASON_NOT_SERVING_YET},

	{hub.ErrDetached, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_DETACHED},
	{hub.ErrSuspended, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_SUSPENDED},
	{hub.ErrNotActive, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_BINDING_NOT_ACTIVE},
	{hub.ErrUnknownProvider, codes.NotFound, chatbusv1.ErrorReason_ERROR_REASON_UNKNOWN_PROVIDER},
	{hub.ErrProvision, codes.Unavailable, chatbusv1.ErrorReason_ERROR_REASON_PROVISION_FAILED},
	{hub.ErrHandoff, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_HANDOFF_INVALID},
	{hub.ErrHandoffProfile, codes.InvalidArgument, chatbusv1.ErrorReason_ERROR_REASON_HANDOFF_PROFILE_MISMATCH},
	{hub.ErrMethodNotAllowed, codes.PermissionDenied, chatbusv1.ErrorReason_ERROR_REASON_METHOD_NOT_ALLOWED},
	{hub.ErrVerbUnsupported, codes.Unimplemented, chatbusv1.ErrorReason_ERROR_REASON_VERB_UNSUPPORTED},
	{hub.ErrOutOfScope, codes.PermissionDenied, chatbusv1.ErrorReason_ERROR_REASON_OUT_OF_SCOPE},
	{hub.ErrBadParams, codes.InvalidArgument, chatbusv1.ErrorReason_ERROR_REASON_BAD_PARAMS},
	{hub.ErrNotDelivered, codes.InvalidArgument, chatbusv1.ErrorReason_ERROR_REASON_NOT_DELIVERED},
	{hub.ErrNotDescribed, codes.Unavailable, chatbusv1.ErrorReason_ERROR_REASON_PROVIDER_NOT_READY},
	{hub.ErrProviderNotServing, codes.Unavailable, chatbusv1.ErrorReason_ERROR_REASON_PROVIDER_NOT_SERVING},

	// A platform's failure keeps its class on the way to the follower.
	{providers.ErrUnknown, codes.NotFound, chatbusv1.ErrorReason_ERROR_REASON_UNKNOWN_PROVIDER},
	{providers.ErrTargetGone, codes.NotFound, chatbusv1.ErrorReason_ERROR_REASON_THREAD_GONE},
	{providers.ErrPlatformNotFound, codes.NotFound, chatbusv1.ErrorReason_ERROR_REASON_PLATFORM_NOT_FOUND},
	{providers.ErrPlatformInvalid, codes.InvalidArgument, chatbusv1.ErrorReason_ERROR_REASON_PLATFORM_INVALID},
	{providers.ErrPlatformDenied, codes.PermissionDenied, chatbusv1.ErrorReason_ERROR_REASON_PLATFORM_DENIED},
	{providers.ErrRateLimited, codes.ResourceExhausted, chatbusv1.ErrorReason_ERROR_REASON_RATE_LIMITED},
	{providers.ErrQueueFull, codes.ResourceExhausted, chatbusv1.ErrorReason_ERROR_REASON_QUEUE_FULL},
	{providers.ErrUnavailable, codes.Unavailable, chatbusv1.ErrorReason_ERROR_REASON_PROVIDER_UNAVAILABLE},
	{providers.ErrRefused, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_PROVIDER_REFUSED},
	{providers.ErrAmbiguous, codes.Unknown, chatbusv1.ErrorReason_ERROR_REASON_OUTCOME_UNKNOWN},
	{providers.ErrDeadLetterUnconverted, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_DEAD_LETTER_UNCONVERTED},
	{providers.ErrDeadLetterNotJournalled, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_DEAD_LETTER_NOT_JOURNALLED},

	{providers.ErrHeld, codes.DeadlineExceeded, chatbusv1.ErrorReason_ERROR_REASON_CALL_NOT_FINISHED},
	{providers.ErrTooManyHeld, codes.ResourceExhausted, chatbusv1.ErrorReason_ERROR_REASON_TOO_MANY_HELD},

	{doctor.ErrBusy, codes.Aborted, chatbusv1.ErrorReason_ERROR_REASON_RESTART_IN_PROGRESS},
	{doctor.ErrAbsent, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_OWNER_ABSENT},
	{doctor.ErrOccupied, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_OWNER_OCCUPIED},
	// FailedPrecondition where the owner gave no code of its own.
	{doctor.ErrRefused, codes.FailedPrecondition, chatbusv1.ErrorReason_ERROR_REASON_OWNER_REFUSED},

	{store.ErrNotFound, codes.NotFound, chatbusv1.ErrorReason_ERROR_REASON_NOT_FOUND},
	{store.ErrNoFreeSlot, codes.ResourceExhausted, chatbusv1.ErrorReason_ERROR_REASON_NO_FREE_SLOT},
	{store.ErrClosed, codes.Unavailable, chatbusv1.ErrorReason_ERROR_REASON_SHUTTING_DOWN},
	// A cluster node's supervisor lost its leadership under the call:
	// the new leader serves it once the caller's node follows it.
	{store.ErrFenced, codes.Unavailable, chatbusv1.ErrorReason_ERROR_REASON_FENCED},
}

// contextCodes are the codes of a call its caller cancelled or let expire:
// no reason, the code says it all.
var contextCodes = []struct {
	err  error
	code codes.Code
}{
	{context.Canceled, codes.Canceled},
	{context.DeadlineExceeded, codes.DeadlineExceeded},
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
			code := e.code
			if re := (*doctor.RefusedError)(nil); errors.As(err, &re) && re.Code != codes.OK {
				code = re.Code
			}
			return withDetails(status.New(code, err.Error()), err, reasonString(e.reason))
		}
	}
	for _, e := range contextCodes {
		if errors.Is(err, e.err) {
			return status.Error(e.code, err.Error())
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
