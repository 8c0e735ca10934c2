package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/internal/enumtab"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// Sentinels a Platform returns (wrapped with context, e.g.
// fmt.Errorf("topic %d: %w", id, provider.ErrNotFound)) to say what kind of
// failure it was. Each maps to one gRPC code; see errorCodes.
var (
	// ErrNotFound: the chat, thread, message or file does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: the platform rejected the request as malformed; repeating
	// it will not help.
	ErrInvalid = errors.New("invalid request")
	// ErrRateLimited: the platform asked to slow down. Use [RateLimited] to
	// carry its retry-after.
	ErrRateLimited = errors.New("rate limited")
	// ErrAmbiguous: the platform may or may not have done it (the request
	// was sent, the answer was lost). The supervisor never retries such a
	// call blindly; for ProvisionTarget it must look before creating
	// another thread.
	ErrAmbiguous = errors.New("outcome unknown: the platform may or may not have done it")
	// ErrUnavailable: the platform could not be reached and certainly did
	// nothing; the call may be retried.
	ErrUnavailable = errors.New("platform unavailable")
	// ErrPermissionDenied: the platform refused (Telegram: 403, the bot was
	// removed from the chat or lacks the right).
	ErrPermissionDenied = errors.New("permission denied by the platform")
	// ErrOutOfScope: the call's parameters name another chat or thread
	// than the caller's (or something that cannot be scoped to a thread,
	// like Telegram's inline messages). Nothing was sent.
	ErrOutOfScope = errors.New("outside the caller's thread")
	// ErrTargetGone: the call's thread no longer exists on the platform (a
	// person deleted it). Nothing was sent; the supervisor provisions a
	// new thread for the binding and may retry there.
	ErrTargetGone = errors.New("thread deleted on the platform")
)

// ErrorInfo reasons the SDK sends (google.rpc.ErrorInfo, domain
// [ErrorDomain]): the names of chatbus.provider.v1.ErrorReason values
// without their prefix ([ReasonName]). Every error the SDK answers with
// carries one, so the supervisor decides on the reason, never on the bare
// code or the message.
const (
	ErrorDomain = "provider.chatbus"
	// ReasonTargetGone: the thread was deleted on the platform.
	ReasonTargetGone = "TARGET_GONE"
	// ReasonOutOfScope: the call named another chat or thread.
	ReasonOutOfScope = "OUT_OF_SCOPE"
	// ReasonRateLimited: the platform asked to slow down (RetryInfo says
	// for how long).
	ReasonRateLimited = "RATE_LIMITED"
	// ReasonNotFound: what the call named does not exist (the message
	// says what).
	ReasonNotFound = "NOT_FOUND"
	// ReasonUnreachable: the platform could not be reached; nothing was
	// sent, trying again may work. (An UNAVAILABLE without a reason comes
	// from the transport: a child that died mid-call, whose outcome the
	// supervisor cannot know.)
	ReasonUnreachable = "PLATFORM_UNREACHABLE"
	// ReasonStopping: the provider is shutting down and took nothing new.
	ReasonStopping = "PROVIDER_STOPPING"
	// ReasonNotAdmitting: the doctor fence closed admission; nothing was
	// done (the supervisor holds the call for the successor).
	ReasonNotAdmitting = "NOT_ADMITTING"
	// ReasonPlatformRefused: the platform refused for a reason of its own
	// (an [*Error] of a code no sentinel has, FAILED_PRECONDITION say).
	ReasonPlatformRefused = "PLATFORM_REFUSED"
)

// reasonPrefix is what every ErrorReason value's name starts with.
const reasonPrefix = "ERROR_REASON_"

// ReasonName is r as an ErrorInfo reason ("TARGET_GONE"); "" for
// ERROR_REASON_UNSPECIFIED.
func ReasonName(r providerv1.ErrorReason) string { return enumtab.Name(r, reasonPrefix) }

// ParseReason reads an ErrorInfo reason; ERROR_REASON_UNSPECIFIED if it
// names none this build knows.
func ParseReason(name string) providerv1.ErrorReason {
	return enumtab.Parse[providerv1.ErrorReason](name, reasonPrefix, providerv1.ErrorReason_value)
}

// Errors of the SDK itself.
var (
	// ErrNotAdmitting: admission is closed (a doctor prepared or committed,
	// or the provider is shutting down). Refused RPCs and Sink.Deliver
	// return an [*AdmissionClosedError], which matches it.
	ErrNotAdmitting = errors.New("admission closed")
	// ErrStreamEnded: the Updates stream a Sink belongs to has ended.
	ErrStreamEnded = errors.New("updates stream ended")
	// ErrSuperseded: a newer Updates stream replaced this one.
	ErrSuperseded = errors.New("superseded by a newer Updates stream")
	// ErrShuttingDown: the provider is stopping.
	ErrShuttingDown = errors.New("provider shutting down")
	// ErrFenceMismatch: a doctor request names another owner id,
	// generation or incarnation than this process.
	ErrFenceMismatch = errors.New("fence does not match this owner")
	// ErrFenceHeld: another doctor request holds the fence.
	ErrFenceHeld = errors.New("fence held by another doctor request")
	// ErrNotPrepared: Commit or Cancel for a request that has not prepared
	// this owner (never did, another one did, or its lease expired).
	ErrNotPrepared = errors.New("not prepared by this doctor request")
	// ErrCommitted: the fence is committed; it can no longer be cancelled.
	ErrCommitted = errors.New("fence committed: the provider exits once settled")
	// ErrProtocol: the supervisor broke the Updates protocol (no Start
	// first, Start twice, an Ack beyond what was delivered).
	ErrProtocol = errors.New("updates protocol violation")
	// ErrAlreadyRunning: something already answers on the socket.
	ErrAlreadyRunning = errors.New("already running")
)

// Error is a platform failure with an explicit gRPC code. It matches the
// sentinel of its code with errors.Is (codes.NotFound matches
// [ErrNotFound], …).
type Error struct {
	// Code is the gRPC code the supervisor sees.
	Code codes.Code
	// Message describes the failure; if empty, Err's text.
	Message string
	// RetryAfter is how long the platform asked to wait (rate limits);
	// sent as a google.rpc.RetryInfo detail. Zero: none.
	RetryAfter time.Duration
	// Reason, if set, is sent as a google.rpc.ErrorInfo detail (domain
	// ErrorDomain), e.g. ReasonTargetGone, with Metadata.
	Reason   string
	Metadata map[string]string
	// Err is the cause, if any.
	Err error
}

func (e *Error) Error() string {
	msg := e.Message
	switch {
	case msg == "" && e.Err != nil:
		msg = e.Err.Error()
	case e.Err != nil:
		msg += ": " + e.Err.Error()
	case msg == "":
		msg = e.Code.String()
	}
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel for e's code. The sentinels
// that refine a code with a reason ([ErrTargetGone], [ErrOutOfScope])
// match only an Error of that reason.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrTargetGone:
		return e.Code == codes.NotFound && e.Reason == ReasonTargetGone
	case ErrOutOfScope:
		return e.Code == codes.PermissionDenied && e.Reason == ReasonOutOfScope
	}
	for _, s := range platformErrorCodes {
		if s.err == target {
			return s.code == e.Code
		}
	}
	return false
}

// RateLimited returns an error matching [ErrRateLimited] (ResourceExhausted)
// that carries the platform's retry-after; cause may be nil.
func RateLimited(after time.Duration, cause error) error {
	return &Error{Code: codes.ResourceExhausted, Message: ErrRateLimited.Error(), RetryAfter: after, Reason: ReasonRateLimited, Err: cause}
}

// RetryAfter returns the retry-after an error carries: from an [*Error] in
// its chain, or from the google.rpc.RetryInfo detail of a gRPC status (what
// the supervisor receives).
func RetryAfter(err error) (time.Duration, bool) {
	var pe *Error
	if errors.As(err, &pe) && pe.RetryAfter > 0 {
		return pe.RetryAfter, true
	}
	st, ok := status.FromError(err)
	if !ok {
		return 0, false
	}
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay() != nil {
			return ri.GetRetryDelay().AsDuration(), true
		}
	}
	return 0, false
}

// AdmissionClosedError is what work refused by the fence gets. It matches
// [ErrNotAdmitting]; while shutting down it also matches [ErrShuttingDown].
type AdmissionClosedError struct {
	// RequestID is the doctor request that closed admission ("" when the
	// provider is shutting down for another reason).
	RequestID string
	// Committed: the request committed; the provider exits once settled.
	Committed bool
	// ShuttingDown: the provider is stopping; nothing is admitted again.
	ShuttingDown bool
}

func (e *AdmissionClosedError) Error() string {
	switch {
	case e.ShuttingDown:
		return "admission closed: provider shutting down"
	case e.Committed:
		return fmt.Sprintf("admission closed: doctor %s committed", e.RequestID)
	}
	return fmt.Sprintf("admission closed: doctor %s prepared", e.RequestID)
}

// Is matches ErrNotAdmitting, and ErrShuttingDown while shutting down.
func (e *AdmissionClosedError) Is(target error) bool {
	return target == ErrNotAdmitting || (e.ShuttingDown && target == ErrShuttingDown)
}

// errorCode pairs a sentinel with its gRPC code.
type errorCode struct {
	err  error
	code codes.Code
}

// platformErrorCodes are the platform sentinels; [*Error] matches them by
// code.
var platformErrorCodes = []errorCode{
	{ErrNotFound, codes.NotFound},
	{ErrInvalid, codes.InvalidArgument},
	{ErrRateLimited, codes.ResourceExhausted},
	{ErrAmbiguous, codes.Unknown},
	{ErrUnavailable, codes.Unavailable},
	{ErrPermissionDenied, codes.PermissionDenied},
	{ErrOutOfScope, codes.PermissionDenied},
	{ErrTargetGone, codes.NotFound},
}

// errorReasons are the reasons of the sentinels, sent with their code,
// first match wins (the platform's first, as in errorCodes).
var errorReasons = []struct {
	err    error
	reason providerv1.ErrorReason
}{
	{ErrTargetGone, providerv1.ErrorReason_ERROR_REASON_TARGET_GONE},
	{ErrOutOfScope, providerv1.ErrorReason_ERROR_REASON_OUT_OF_SCOPE},
	{ErrRateLimited, providerv1.ErrorReason_ERROR_REASON_RATE_LIMITED},
	{ErrNotFound, providerv1.ErrorReason_ERROR_REASON_NOT_FOUND},
	{ErrInvalid, providerv1.ErrorReason_ERROR_REASON_INVALID},
	{ErrAmbiguous, providerv1.ErrorReason_ERROR_REASON_AMBIGUOUS},
	{ErrUnavailable, providerv1.ErrorReason_ERROR_REASON_PLATFORM_UNREACHABLE},
	{ErrPermissionDenied, providerv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED},
	{ErrShuttingDown, providerv1.ErrorReason_ERROR_REASON_PROVIDER_STOPPING},
	{ErrNotAdmitting, providerv1.ErrorReason_ERROR_REASON_NOT_ADMITTING},
	{ErrSuperseded, providerv1.ErrorReason_ERROR_REASON_SUPERSEDED},
	{ErrStreamEnded, providerv1.ErrorReason_ERROR_REASON_STREAM_ENDED},
	{ErrFenceMismatch, providerv1.ErrorReason_ERROR_REASON_FENCE_MISMATCH},
	{ErrFenceHeld, providerv1.ErrorReason_ERROR_REASON_FENCE_HELD},
	{ErrNotPrepared, providerv1.ErrorReason_ERROR_REASON_NOT_PREPARED},
	{ErrCommitted, providerv1.ErrorReason_ERROR_REASON_COMMITTED},
	{ErrProtocol, providerv1.ErrorReason_ERROR_REASON_PROTOCOL},
}

// errorCodes maps every sentinel to its gRPC code, first match wins. It is
// the one place where errors become codes. The platform sentinels come
// first, so fmt.Errorf("%w: %w", ErrAmbiguous, ctx.Err()) stays ambiguous.
var errorCodes = append(append([]errorCode(nil), platformErrorCodes...), []errorCode{
	{ErrShuttingDown, codes.Unavailable},
	{ErrNotAdmitting, codes.FailedPrecondition},
	{ErrSuperseded, codes.Aborted},
	{ErrStreamEnded, codes.Unavailable},
	{ErrFenceMismatch, codes.FailedPrecondition},
	{ErrFenceHeld, codes.Aborted},
	{ErrNotPrepared, codes.FailedPrecondition},
	{ErrCommitted, codes.FailedPrecondition},
	{ErrProtocol, codes.InvalidArgument},
	{context.Canceled, codes.Canceled},
	{context.DeadlineExceeded, codes.DeadlineExceeded},
}...)

// toStatus turns an error into a gRPC status error: an [*Error] keeps its
// code (and retry-after), sentinels map by errorCodes, gRPC status errors
// pass through, and anything else is codes.Unknown: the SDK cannot tell
// whether the platform acted, so the supervisor must not assume it did not.
func ToStatus(err error) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		reason := pe.Reason
		if reason == "" {
			reason = reasonOf(err)
		}
		if reason == "" {
			// A code of the platform's own answer with no sentinel of
			// its own: the platform refused the call.
			reason = ReasonPlatformRefused
		}
		return withDetails(status.New(pe.Code, err.Error()), pe.RetryAfter, reason, pe.Metadata)
	}
	for _, e := range errorCodes {
		if errors.Is(err, e.err) {
			return withDetails(status.New(e.code, err.Error()), 0, reasonOf(err), nil)
		}
	}
	if st, ok := status.FromError(err); ok {
		return st.Err()
	}
	return status.Error(codes.Unknown, err.Error())
}

// reasonOf returns the ErrorInfo reason of the first reasoned sentinel err
// matches, "" if none.
func reasonOf(err error) string {
	for _, r := range errorReasons {
		if errors.Is(err, r.err) {
			return ReasonName(r.reason)
		}
	}
	return ""
}

// withDetails adds a RetryInfo (after > 0) and an ErrorInfo (reason set,
// with metadata).
func withDetails(st *status.Status, after time.Duration, reason string, metadata map[string]string) error {
	var details []protoadapt.MessageV1
	if after > 0 {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(after)})
	}
	if reason != "" {
		details = append(details, &errdetails.ErrorInfo{Reason: reason, Domain: ErrorDomain, Metadata: metadata})
	}
	if len(details) == 0 {
		return st.Err()
	}
	ds, err := st.WithDetails(details...)
	if err != nil {
		return st.Err()
	}
	return ds.Err()
}

// Reason returns the ErrorInfo reason a gRPC status error carries (domain
// ErrorDomain), "" if none: what the supervisor reads to tell failures of
// one code apart.
func Reason(err error) string {
	st, ok := status.FromError(err)
	if !ok {
		return reasonOf(err)
	}
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok && ei.GetDomain() == ErrorDomain {
			return ei.GetReason()
		}
	}
	return ""
}
