package slack

import (
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/slack-go/slack"

	"github.com/chatbus/chatbus/provider"
)

// errorClasses maps Slack's error codes to the SDK's classes. Codes not
// listed are refusals of another kind: Slack answered ok=false, so it did
// nothing, and repeating the call will not help (ErrInvalid).
var errorClasses = map[string]error{
	// What the call named does not exist.
	"channel_not_found": provider.ErrNotFound,
	"message_not_found": provider.ErrNotFound,
	"file_not_found":    provider.ErrNotFound,
	"file_deleted":      provider.ErrNotFound,
	"user_not_found":    provider.ErrNotFound,
	"no_reaction":       provider.ErrNotFound,
	// A thread that is not there (conversations.replies' answer; the
	// posting methods answer ok and post at the top level instead: see
	// checkThreaded): the only thread_ts the provider sends is the
	// caller's own, so the caller's thread is gone.
	"thread_not_found": provider.ErrTargetGone,

	// Slack refused on permission grounds.
	"not_in_channel":                           provider.ErrPermissionDenied,
	"missing_scope":                            provider.ErrPermissionDenied,
	"no_permission":                            provider.ErrPermissionDenied,
	"access_denied":                            provider.ErrPermissionDenied,
	"restricted_action":                        provider.ErrPermissionDenied,
	"restricted_action_read_only_channel":      provider.ErrPermissionDenied,
	"restricted_action_thread_only_channel":    provider.ErrPermissionDenied,
	"restricted_action_non_threadable_channel": provider.ErrPermissionDenied,
	"cant_update_message":                      provider.ErrPermissionDenied,
	"cant_delete_message":                      provider.ErrPermissionDenied,
	"edit_window_closed":                       provider.ErrPermissionDenied,
	"is_archived":                              provider.ErrPermissionDenied,
	"channel_is_archived":                      provider.ErrPermissionDenied,
	"user_not_in_channel":                      provider.ErrPermissionDenied,
	"not_allowed_token_type":                   provider.ErrPermissionDenied,
	"ekm_access_denied":                        provider.ErrPermissionDenied,
	"team_access_not_granted":                  provider.ErrPermissionDenied,
	"invalid_auth":                             provider.ErrPermissionDenied,
	"not_authed":                               provider.ErrPermissionDenied,
	"account_inactive":                         provider.ErrPermissionDenied,
	"token_revoked":                            provider.ErrPermissionDenied,
	"token_expired":                            provider.ErrPermissionDenied,

	// "It's possible some aspect of the operation succeeded before the
	// error was raised" (Slack's description of both).
	"internal_error": provider.ErrAmbiguous,
	"fatal_error":    provider.ErrAmbiguous,
	// Slack did not take the request.
	"service_unavailable": provider.ErrUnavailable,
	"request_timeout":     provider.ErrUnavailable,
}

// authCodes are the answers that say a token no longer works: the
// connection is unusable until someone fixes it.
var authCodes = map[string]string{
	"invalid_auth":     "the token is not valid",
	"not_authed":       "no token was sent",
	"account_inactive": "the token's workspace or user was deleted",
	"token_revoked":    "the token was revoked (the app was uninstalled or the token regenerated)",
	"token_expired":    "the token expired (token rotation is on: turn it off or refresh the token)",
}

// slackCode returns the error code of a Slack refusal in err's chain, ""
// if err is no refusal.
func slackCode(err error) string {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Code
	}
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		return se.Err
	}
	return ""
}

// authProblem says why err means the token no longer works, "" if it
// does not.
func authProblem(err error) string {
	code := slackCode(err)
	if why, ok := authCodes[code]; ok {
		return code + ": " + why
	}
	return ""
}

// mapErr turns an error of a Web API call into the SDK's classes, so that
// the follower sees the right gRPC code: Slack's refusals by their code
// (errorClasses), HTTP 429 as a rate limit with its Retry-After, and a
// failure on the way as unavailable (the request certainly did not leave)
// or ambiguous (it may have been done).
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var rl *rateLimitError
	if errors.As(err, &rl) {
		return provider.RateLimited(rl.After, err)
	}
	var srl *slack.RateLimitedError
	if errors.As(err, &srl) {
		return provider.RateLimited(srl.RetryAfter, err)
	}
	if code := slackCode(err); code != "" {
		if code == "ratelimited" { // the body said so without a 429
			return provider.RateLimited(0, err)
		}
		if class, ok := errorClasses[code]; ok {
			return fmt.Errorf("%w: %w", class, err)
		}
		return fmt.Errorf("%w: slack refused: %w", provider.ErrInvalid, err)
	}
	var st *statusError
	if errors.As(err, &st) {
		return statusClass(st.Status, err)
	}
	var sce slack.StatusCodeError
	if errors.As(err, &sce) {
		return statusClass(sce.Code, err)
	}
	if notSent(err) {
		return fmt.Errorf("%w: %w", provider.ErrUnavailable, err)
	}
	return fmt.Errorf("%w: %w", provider.ErrAmbiguous, err)
}

// statusClass classifies an HTTP error without Slack's JSON: a 5xx may
// have done it; anything else was refused.
func statusClass(code int, err error) error {
	switch {
	case code == http.StatusTooManyRequests:
		return provider.RateLimited(0, err)
	case code >= 500:
		return fmt.Errorf("%w: %w", provider.ErrAmbiguous, err)
	case code == http.StatusNotFound:
		return fmt.Errorf("%w: %w", provider.ErrNotFound, err)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Errorf("%w: %w", provider.ErrPermissionDenied, err)
	}
	return fmt.Errorf("%w: %w", provider.ErrInvalid, err)
}

// notSent reports whether err certainly happened before the request left:
// the connection could not even be made.
func notSent(err error) bool {
	var te *transportError
	if errors.As(err, &te) && te.Sent {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}
