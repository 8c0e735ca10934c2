package providers

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/internal/enumtab"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"

	"github.com/chatbus/chatbus/server/hub"
)

// errorDomain is the ErrorInfo domain of the provider contract's reasons
// (chatbus.provider.v1.ErrorReason; provider/README.md).
const errorDomain = "provider.chatbus"

// reasonPrefix is what every chatbus.provider.v1.ErrorReason value's name
// starts with; the ErrorInfo reason is the rest.
const reasonPrefix = "ERROR_REASON_"

// parseReason reads an ErrorInfo reason of the provider contract;
// unspecified if it names none this build knows.
func parseReason(name string) providerv1.ErrorReason {
	return enumtab.Parse[providerv1.ErrorReason](name, reasonPrefix, providerv1.ErrorReason_value)
}

// Errors of the Manager itself.
var (
	// ErrUnknown: no provider by that name is configured.
	ErrUnknown = errors.New("no such provider")
	// ErrUnavailable: the provider is not running (FATAL, or not back
	// within the caller's deadline), or the platform could not be reached
	// and certainly did nothing.
	ErrUnavailable = errors.New("provider unavailable")
)

// The classes of a failed provider call, read from the code the provider
// answered with (and its details): the platform's own classification,
// kept on the way to the follower. Each error a provider call returns
// wraps exactly one, as a [*CallError] carrying the provider's message and
// details.
var (
	// ErrAmbiguous: the provider may or may not have done it (it died or
	// timed out mid-call, or could not tell): never retried blindly.
	ErrAmbiguous = errors.New("outcome unknown")
	// ErrRefused: the provider refused for a reason of its own (a
	// precondition of the platform); the message says why.
	ErrRefused = errors.New("provider refused the call")
	// ErrPlatformInvalid: the platform rejected the request as malformed.
	ErrPlatformInvalid = errors.New("rejected by the platform as invalid")
	// ErrPlatformNotFound: what the call named does not exist.
	ErrPlatformNotFound = errors.New("not found on the platform")
	// ErrTargetGone: the call's thread was deleted on the platform, and
	// nothing was sent. It is the hub's sentinel (the hub gives the
	// binding a new thread), and also matches ErrPlatformNotFound.
	ErrTargetGone = hub.ErrTargetGone
	// ErrPlatformDenied: the platform, or the provider's scoping, refused
	// (another chat or thread, the bot lacks a right).
	ErrPlatformDenied = errors.New("denied")
	// ErrRateLimited: the platform asked to slow down; RetryAfter says how
	// long.
	ErrRateLimited = errors.New("rate limited by the platform")
)

// CallError is a failed provider call: its class, the provider's message
// and the details it sent.
type CallError struct {
	Class   error // one of the classes above
	Message string
	// RetryAfter is the delay the platform asked for (rate limits); zero
	// if none.
	RetryAfter time.Duration
	// Reason is the provider's ErrorInfo reason (provider.Reason…), if any.
	Reason string
	// Scope is what a rate limit applies to, as the provider named it in
	// the ErrorInfo's metadata ("bot", "chat", "thread"); "" if it did not.
	Scope string
}

func (e *CallError) Error() string {
	msg := e.Class.Error()
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Is matches the class (and ErrPlatformNotFound for ErrTargetGone).
func (e *CallError) Is(target error) bool {
	return target == e.Class || (e.Class == ErrTargetGone && target == ErrPlatformNotFound)
}

// reasonClasses maps the provider's reasons to classes: the one table
// the supervisor decides on. ERROR_REASON_NOT_ADMITTING is not among them:
// the call paths hold such a call for the successor (notAdmitting) before
// classifying anything.
var reasonClasses = map[providerv1.ErrorReason]error{
	providerv1.ErrorReason_ERROR_REASON_TARGET_GONE:          ErrTargetGone,
	providerv1.ErrorReason_ERROR_REASON_OUT_OF_SCOPE:         ErrPlatformDenied,
	providerv1.ErrorReason_ERROR_REASON_RATE_LIMITED:         ErrRateLimited,
	providerv1.ErrorReason_ERROR_REASON_NOT_FOUND:            ErrPlatformNotFound,
	providerv1.ErrorReason_ERROR_REASON_PLATFORM_UNREACHABLE: ErrUnavailable,
	providerv1.ErrorReason_ERROR_REASON_INVALID:              ErrPlatformInvalid,
	providerv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED:    ErrPlatformDenied,
	providerv1.ErrorReason_ERROR_REASON_AMBIGUOUS:            ErrAmbiguous,
	providerv1.ErrorReason_ERROR_REASON_PLATFORM_REFUSED:     ErrRefused,
	providerv1.ErrorReason_ERROR_REASON_PROVIDER_STOPPING:    ErrUnavailable,
}

// classes maps the code of an answer without a reason to its class: a
// provider that sends none (not built on the SDK), or the transport's own
// status. An UNAVAILABLE without a reason is the transport's: ambiguous
// unless the call never reached the child (classify); a
// FAILED_PRECONDITION without a reason is a refusal, never "not
// admitting".
var classes = map[codes.Code]error{
	codes.InvalidArgument:    ErrPlatformInvalid,
	codes.NotFound:           ErrPlatformNotFound,
	codes.PermissionDenied:   ErrPlatformDenied,
	codes.ResourceExhausted:  ErrRateLimited,
	codes.FailedPrecondition: ErrRefused,
	codes.OutOfRange:         ErrPlatformInvalid,
	codes.Unavailable:        ErrAmbiguous,
	codes.Unauthenticated:    ErrRefused, // a child that does not know its secret: not the follower's fault, not retried
}

// classify turns a provider RPC error into a *CallError of its class: by
// the provider's reason, else (no reason) by its code. Anything else
// (Unknown, Internal, DeadlineExceeded mid-call, a broken connection) is
// ErrAmbiguous: the platform may have acted. at, if not nil, is the
// RPC's attempt: one that never reached the child is ErrUnavailable (the
// request never left).
func classify(err error, at *attempt) error {
	st, _ := status.FromError(err)
	e := &CallError{Class: ErrAmbiguous, Message: st.Message()}
	var reason providerv1.ErrorReason
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.RetryInfo:
			e.RetryAfter = d.GetRetryDelay().AsDuration()
		case *errdetails.ErrorInfo:
			if d.GetDomain() == errorDomain {
				e.Reason, e.Scope = d.GetReason(), d.GetMetadata()["scope"]
				reason = parseReason(d.GetReason())
			}
		}
	}
	switch c, ok := reasonClasses[reason]; {
	case ok:
		e.Class = c
	case reason != providerv1.ErrorReason_ERROR_REASON_UNSPECIFIED:
		e.Class = ErrRefused // a reason of the contract no table above names (a fence's)
	case st.Code() == codes.Unavailable && at != nil && !at.reached():
		e.Class = ErrUnavailable
	default:
		if c, ok := classes[st.Code()]; ok {
			e.Class = c
		}
	}
	return e
}

// notAdmitting: the owner closed admission for a doctor restart (its
// reason says so); the call was not made.
func notAdmitting(err error) bool {
	return reasonOf(err) == providerv1.ErrorReason_ERROR_REASON_NOT_ADMITTING
}

// reasonOf is the provider's reason of an RPC error; unspecified if it
// carries none.
func reasonOf(err error) providerv1.ErrorReason {
	st, ok := status.FromError(err)
	if !ok {
		return providerv1.ErrorReason_ERROR_REASON_UNSPECIFIED
	}
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok && ei.GetDomain() == errorDomain {
			return parseReason(ei.GetReason())
		}
	}
	return providerv1.ErrorReason_ERROR_REASON_UNSPECIFIED
}

// attempt is what the supervisor learns of one RPC to a child beyond its
// answer: whether it got onto a connection to the child at all. Pass
// opt() to the RPC.
type attempt struct{ pr peer.Peer }

func (a *attempt) opt() grpc.CallOption { return grpc.Peer(&a.pr) }

// reached: the RPC got a stream on a connection to the child (gRPC sets
// the peer only then), so its request may have left. One that did not
// (the child had died, nothing listens) certainly did nothing.
func (a *attempt) reached() bool { return a.pr.Addr != nil }

// classifyHeld is classify, except that a refusal as not admitting is
// returned as the child's status, for the caller to hold the call
// (notAdmitting).
func (p *provider) classifyHeld(err error, at *attempt) error {
	if notAdmitting(err) {
		return err
	}
	return p.classify(err, at)
}

// classify is classify, counting the platform's rate limits.
func (p *provider) classify(err error, at *attempt) error {
	err = classify(err, at)
	if ce := (*CallError)(nil); errors.As(err, &ce) && ce.Class == ErrRateLimited {
		p.metrics.RateLimited(p.spec.Name, ce.RetryAfter)
	}
	return err
}

// classNames name the classes in the outbox's records, so a replayed
// outcome keeps its class.
var classNames = map[error]string{
	ErrAmbiguous: "ambiguous", ErrRefused: "refused", ErrPlatformInvalid: "invalid", ErrPlatformNotFound: "not_found",
	ErrTargetGone: "target_gone", ErrPlatformDenied: "denied", ErrRateLimited: "rate_limited", ErrUnavailable: "unavailable",
	ErrQueueFull: "queue_full",
}

// recordedError is a *CallError as the outbox records it.
type recordedError struct {
	Class      string        `json:"class"`
	Message    string        `json:"message,omitempty"`
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	Reason     string        `json:"reason,omitempty"`
}

func recordError(err error) *recordedError {
	var ce *CallError
	if !errors.As(err, &ce) {
		return &recordedError{Class: classNames[ErrAmbiguous], Message: err.Error()}
	}
	return &recordedError{Class: classNames[ce.Class], Message: ce.Message, RetryAfter: ce.RetryAfter, Reason: ce.Reason}
}

func (r *recordedError) err() error {
	e := &CallError{Class: ErrAmbiguous, Message: r.Message, RetryAfter: r.RetryAfter, Reason: r.Reason}
	for c, name := range classNames {
		if name == r.Class {
			e.Class = c
		}
	}
	return e
}

// ambiguous is an ErrAmbiguous CallError with a message of its own.
func ambiguous(format string, args ...any) error {
	return &CallError{Class: ErrAmbiguous, Message: fmt.Sprintf(format, args...)}
}
