package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// webAPI makes the Web API calls whose params a follower wrote: they go to
// Slack as the JSON body they are (after scoping), so every parameter
// Slack knows (blocks, attachments, metadata…) passes through unchanged.
// slack-go's typed client has no such entry point; the provider's own
// calls (roots, reactions, files) go through slack-go.
type webAPI struct {
	base  string // ends in "/"
	token string
	hc    *http.Client
}

// maxAnswerBytes bounds a Web API answer read into memory.
const maxAnswerBytes = 8 << 20

// post calls method with a JSON body and returns Slack's answer when it
// says "ok": true. Errors: *apiError (Slack refused), *rateLimitError
// (HTTP 429), *transportError (the request or its answer was lost),
// *statusError (an HTTP error without Slack's JSON).
func (w *webAPI) post(ctx context.Context, method string, body []byte) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.base+method, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Authorization", "Bearer "+w.token)
	resp, err := w.hc.Do(req)
	if err != nil {
		return nil, &transportError{Method: method, Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return nil, &transportError{Method: method, Err: err, Sent: true}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return nil, &rateLimitError{Method: method, After: retryAfter(resp.Header.Get("Retry-After"))}
	}
	var env struct {
		OK       bool   `json:"ok"`
		Error    string `json:"error"`
		Needed   string `json:"needed"`
		Provided string `json:"provided"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, &statusError{Method: method, Status: resp.StatusCode, Body: snippet(raw)}
	}
	if !env.OK {
		return nil, &apiError{Method: method, Code: env.Error, Needed: env.Needed, Provided: env.Provided}
	}
	return raw, nil
}

// retryAfter reads a Retry-After header (seconds); Slack always sends
// one with a 429, so a missing or odd one waits a second.
func retryAfter(h string) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	return time.Second
}

func snippet(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// apiError is Slack's {"ok": false, "error": code} answer: Slack refused
// the call and did nothing.
type apiError struct {
	Method string
	Code   string
	// Needed and Provided are the scopes of a missing_scope answer.
	Needed, Provided string
}

func (e *apiError) Error() string {
	if e.Needed != "" {
		return fmt.Sprintf("%s: %s (needs scope %s; the token has %s)", e.Method, e.Code, e.Needed, e.Provided)
	}
	return e.Method + ": " + e.Code
}

// rateLimitError is an HTTP 429: Slack did nothing and asks to wait After.
type rateLimitError struct {
	Method string
	After  time.Duration
}

func (e *rateLimitError) Error() string {
	return fmt.Sprintf("%s: ratelimited (HTTP 429, Retry-After %s)", e.Method, e.After)
}

// transportError: the request failed on the way. Sent reports that the
// request certainly went out (its answer was lost); otherwise whether it
// went out depends on Err (see classify).
type transportError struct {
	Method string
	Err    error
	Sent   bool
}

func (e *transportError) Error() string { return e.Method + ": " + e.Err.Error() }
func (e *transportError) Unwrap() error { return e.Err }

// statusError is an HTTP answer without Slack's JSON (a proxy's 502, an
// HTML page).
type statusError struct {
	Method string
	Status int
	Body   string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s: HTTP %d without a Slack answer: %q", e.Method, e.Status, e.Body)
}
