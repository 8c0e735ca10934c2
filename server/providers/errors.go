package providers

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/server/hub"
)

// The ErrorInfo domain and reasons of the provider contract
// (provider/README.md; the provider SDK sends them).
const (
	errorDomain       = "provider.chatbus"
	reasonTargetGone  = "TARGET_GONE"
	reasonUnreachable = "PLATFORM_UNREACHABLE"
	reasonStopping    = "PROVIDER_STOPPING"
)

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

// classes maps a provider's code to its class: the one table in this
// direction. codes.FailedPrecondition is the fence's "not admitting" where
// it is handled (held for the successor), a refusal elsewhere.
var classes = map[codes.Code]error{
	codes.InvalidArgument:    ErrPlatformInvalid,
	codes.NotFound:           ErrPlatformNotFound,
	codes.PermissionDenied:   ErrPlatformDenied,
	codes.ResourceExhausted:  ErrRateLimited,
	codes.FailedPrecondition: ErrRefused,
	codes.OutOfRange:         ErrPlatformInvalid,
	codes.Unavailable:        ErrUnavailable,
	codes.Unauthenticated:    ErrRefused, // a child that does not know its secret: not the follower's fault, not retried
}

// classify turns a provider RPC error into a *CallError of its class.
// Anything without a class (Unknown, Internal, DeadlineExceeded mid-call,
// a broken connection) is ErrAmbiguous: the platform may have acted.
func classify(err error) error {
	st, _ := status.FromError(err)
	e := &CallError{Class: ErrAmbiguous, Message: st.Message()}
	if c, ok := classes[st.Code()]; ok {
		e.Class = c
	}
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.RetryInfo:
			e.RetryAfter = d.GetRetryDelay().AsDuration()
		case *errdetails.ErrorInfo:
			if d.GetDomain() == errorDomain {
				e.Reason, e.Scope = d.GetReason(), d.GetMetadata()["scope"]
			}
		}
	}
	switch {
	case e.Reason == reasonTargetGone:
		e.Class = ErrTargetGone
	case e.Class == ErrUnavailable && e.Reason != reasonUnreachable && e.Reason != reasonStopping && !neverConnected(st):
		// Not the provider saying it sent nothing: the connection to the
		// child broke (it died mid-call, perhaps after the platform acted).
		e.Class = ErrAmbiguous
	}
	return e
}

// classify is classify, counting the platform's rate limits.
func (p *provider) classify(err error) error {
	err = classify(err)
	if ce := (*CallError)(nil); errors.As(err, &ce) && ce.Class == ErrRateLimited {
		p.metrics.RateLimited(p.spec.Name, ce.RetryAfter)
	}
	return err
}

// neverConnected: grpc failed the call because it could not connect to
// the child at all (it had died): the request never left.
func neverConnected(st *status.Status) bool {
	return strings.Contains(st.Message(), "Error while dialing")
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
