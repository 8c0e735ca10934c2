package botapi

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// APIError is a Bot API response with "ok": false.
type APIError struct {
	// Method is the Bot API method that failed.
	Method string
	// Code is the response's error_code (the HTTP status if the body had
	// none): 400 bad request, 401 bad token, 403 forbidden, 409 another
	// poller or a webhook owns the token, 429 flood control, 5xx
	// Telegram-side failure.
	Code int
	// Description is Telegram's human-readable text, e.g.
	// "Bad Request: message thread not found".
	Description string
	// RetryAfter is parameters.retry_after: how long to wait before
	// repeating the request (429 only; zero otherwise).
	RetryAfter time.Duration
	// MigrateToChatID is parameters.migrate_to_chat_id: the group was
	// upgraded to a supergroup with this id (zero otherwise).
	MigrateToChatID int64
}

// Error returns "botapi: <method>: <description> (<code>)", with the
// retry_after or migrate_to_chat_id parameter when present.
func (e *APIError) Error() string {
	desc := e.Description
	if desc == "" {
		desc = http.StatusText(e.Code)
	}
	s := fmt.Sprintf("botapi: %s: %s (%d)", e.Method, desc, e.Code)
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(", retry after %s", e.RetryAfter)
	}
	if e.MigrateToChatID != 0 {
		s += fmt.Sprintf(", migrated to chat %d", e.MigrateToChatID)
	}
	return s
}

// DecodeError reports a response body that is not a Bot API envelope:
// malformed or truncated JSON, or an HTML error page such as a proxy's
// "502 Bad Gateway".
type DecodeError struct {
	Method      string
	StatusCode  int    // HTTP status of the response
	ContentType string // Content-Type header of the response
	Body        string // the start of the body (at most 512 bytes), token redacted
	Err         error  // why decoding failed
}

// Error describes the failure without the body excerpt (see Body).
func (e *DecodeError) Error() string {
	return fmt.Sprintf("botapi: %s: undecodable response (HTTP %d, %q): %v",
		e.Method, e.StatusCode, e.ContentType, e.Err)
}

// Unwrap returns the decoding error.
func (e *DecodeError) Unwrap() error { return e.Err }

// IsConflict reports whether err is a 409 Conflict: another getUpdates
// consumer is polling with the same token (or a webhook is set).
func IsConflict(err error) bool { return apiCode(err) == http.StatusConflict }

// IsUnauthorized reports whether err is a 401: the token is wrong or was
// revoked.
func IsUnauthorized(err error) bool { return apiCode(err) == http.StatusUnauthorized }

// IsForbidden reports whether err is a 403: the bot may not do it (it was
// removed from the chat, lacks a right, or the account was blocked).
func IsForbidden(err error) bool { return apiCode(err) == http.StatusForbidden }

// IsRateLimited reports whether err is a 429 Too Many Requests, and if so
// the retry_after Telegram asked for (zero if the response carried none).
func IsRateLimited(err error) (time.Duration, bool) {
	var e *APIError
	if errors.As(err, &e) && e.Code == http.StatusTooManyRequests {
		return e.RetryAfter, true
	}
	return 0, false
}

// IsServerError reports whether err is a Telegram-side failure: an
// *APIError with a 5xx code, or a *DecodeError whose HTTP status was 5xx
// (a gateway's HTML error page).
func IsServerError(err error) bool {
	if c := apiCode(err); c >= 500 && c <= 599 {
		return true
	}
	var d *DecodeError
	return errors.As(err, &d) && d.StatusCode >= 500 && d.StatusCode <= 599
}

func apiCode(err error) int {
	var e *APIError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}
