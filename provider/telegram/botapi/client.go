package botapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultBaseURL is the Bot API endpoint used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.telegram.org"

const (
	defaultRequestTimeout = 30 * time.Second
	defaultPollGrace      = 10 * time.Second

	// maxResponseBytes bounds how much of a response body is read. A full
	// getUpdates batch (100 updates) is far below it.
	maxResponseBytes = 32 << 20

	// redactedToken replaces the bot token wherever it could appear in an
	// error string.
	redactedToken = "<redacted>"
)

// Config configures a [Client].
type Config struct {
	// BaseURL is the Bot API root, without the /bot<token> part.
	// If empty, DefaultBaseURL. A trailing slash is ignored.
	BaseURL string

	// Token is the bot token ("123456:ABC..."). Required. It appears only
	// in request URLs, never in errors.
	Token string

	// HTTPClient sends the requests. Its Timeout, if set, applies on top
	// of the per-call deadlines below, so it must exceed the long-poll
	// timeout plus PollGrace or every long poll fails. If nil, a client
	// with its own clone of http.DefaultTransport (so that
	// CloseIdleConnections affects only this Client).
	HTTPClient *http.Client

	// RequestTimeout bounds every call except getUpdates (see PollGrace),
	// SendDocument and DownloadFile, which are bounded only by their
	// context because file transfers can legitimately take long.
	// If zero, 30s.
	RequestTimeout time.Duration

	// PollGrace is added to the long-poll timeout of a getUpdates call to
	// get its HTTP deadline: Telegram holds the request open for up to
	// timeout seconds, so the client must wait longer than that before it
	// declares the request lost. If zero, 10s.
	PollGrace time.Duration
}

// Client calls the Bot API for one bot token. It is safe for concurrent
// use; it holds no mutable state besides the HTTP client's connection pool.
type Client struct {
	base           string // BaseURL without trailing slash
	token          string
	hc             *http.Client
	requestTimeout time.Duration
	pollGrace      time.Duration
	redactor       *strings.Replacer
}

// New returns a Client for cfg. It fails if the token is empty or cannot be
// part of a URL path, or if BaseURL is not an absolute http(s) URL. The
// error never contains the token.
func New(cfg Config) (*Client, error) {
	if cfg.Token == "" {
		return nil, errors.New("botapi: empty bot token")
	}
	if strings.ContainsAny(cfg.Token, "/?#% \t\r\n") {
		return nil, errors.New("botapi: bot token contains characters not allowed in a URL path")
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	base = strings.TrimRight(base, "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("botapi: base URL %q is not an absolute http(s) URL", base)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	c := &Client{
		base:           base,
		token:          cfg.Token,
		hc:             hc,
		requestTimeout: cfg.RequestTimeout,
		pollGrace:      cfg.PollGrace,
	}
	if c.requestTimeout <= 0 {
		c.requestTimeout = defaultRequestTimeout
	}
	if c.pollGrace <= 0 {
		c.pollGrace = defaultPollGrace
	}
	pairs := []string{cfg.Token, redactedToken}
	if esc := url.PathEscape(cfg.Token); esc != cfg.Token {
		pairs = append(pairs, esc, redactedToken)
	}
	c.redactor = strings.NewReplacer(pairs...)
	return c, nil
}

// CloseIdleConnections closes the HTTP client's idle keep-alive
// connections. Call it when the Client is no longer needed.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// Do calls method with params and returns the "result" member of a
// successful response.
//
// params is encoded as the JSON request body: nil sends no body, a
// json.RawMessage (or []byte) is sent verbatim after checking that it is
// valid JSON, anything else goes through json.Marshal. method must be a
// bare Bot API method name (letters and digits); this keeps an
// allow-listed generic call from reaching any other path. The call is
// bounded by Config.RequestTimeout; use [Client.GetUpdates] for long polls.
func (c *Client) Do(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.doJSON(ctx, method, params, c.requestTimeout)
}

// doJSON encodes params (see Do) and performs the call with the given
// deadline (0: only ctx bounds it).
func (c *Client) doJSON(ctx context.Context, method string, params any, timeout time.Duration) (json.RawMessage, error) {
	if err := checkMethod(method); err != nil {
		return nil, err
	}
	var body []byte
	switch p := params.(type) {
	case nil:
	case json.RawMessage:
		body = p
	case []byte:
		body = p
	default:
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("botapi: %s: encoding parameters: %w", method, err)
		}
		body = b
	}
	if body != nil && !json.Valid(body) {
		return nil, fmt.Errorf("botapi: %s: parameters are not valid JSON", method)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var rd io.Reader
	contentType := ""
	if body != nil {
		rd = bytes.NewReader(body)
		contentType = "application/json"
	}
	return c.post(ctx, method, rd, contentType)
}

// post sends one request and decodes the envelope. It never returns an
// error that contains the token.
func (c *Client) post(ctx context.Context, method string, body io.Reader, contentType string) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.methodURL(method), body)
	if err != nil {
		return nil, c.redact(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.redact(err)
	}
	defer resp.Body.Close()
	return c.decodeEnvelope(method, resp)
}

func (c *Client) methodURL(method string) string {
	return c.base + "/bot" + c.token + "/" + method
}

// envelope is the Bot API response wrapper.
type envelope struct {
	OK          *bool           `json:"ok"`
	Result      json.RawMessage `json:"result"`
	Description string          `json:"description"`
	ErrorCode   int             `json:"error_code"`
	Parameters  *struct {
		RetryAfter      int   `json:"retry_after"`
		MigrateToChatID int64 `json:"migrate_to_chat_id"`
	} `json:"parameters"`
}

// decodeEnvelope reads resp's body and returns the result of a successful
// call, an *APIError for ok=false, or a *DecodeError for a body that is
// not an envelope. Transport errors while reading the body are returned
// redacted.
func (c *Client) decodeEnvelope(method string, resp *http.Response) (json.RawMessage, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, c.redact(fmt.Errorf("botapi: %s: reading response: %w", method, err))
	}
	derr := func(err error) error {
		return &DecodeError{
			Method:      method,
			StatusCode:  resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"),
			Body:        c.snippet(data),
			Err:         err,
		}
	}
	if len(data) > maxResponseBytes {
		return nil, derr(fmt.Errorf("response larger than %d bytes", maxResponseBytes))
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, derr(err)
	}
	if env.OK == nil {
		return nil, derr(errors.New(`no "ok" member in response`))
	}
	if !*env.OK {
		e := &APIError{Method: method, Code: env.ErrorCode, Description: env.Description}
		if e.Code == 0 {
			e.Code = resp.StatusCode
		}
		if env.Parameters != nil {
			e.RetryAfter = time.Duration(env.Parameters.RetryAfter) * time.Second
			e.MigrateToChatID = env.Parameters.MigrateToChatID
		}
		return nil, e
	}
	return env.Result, nil
}

// snippet returns at most 512 bytes of a response body, token redacted,
// for error messages. The body is redacted before it is cut, so that a cut
// through the token leaves none of it.
func (c *Client) snippet(b []byte) string {
	const max = 512
	s := c.redactString(string(b))
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

func (c *Client) redactString(s string) string { return c.redactor.Replace(s) }

// redact rewrites err so that its text does not contain the token. A
// *url.Error (which net/http fills with the request URL) keeps its type,
// with the URL redacted, so that callers can still inspect Timeout() and
// unwrap to the cause; any other error whose text contains the token is
// wrapped in a redactedError that keeps it reachable through Unwrap.
func (c *Client) redact(err error) error {
	if err == nil {
		return nil
	}
	if ue, ok := err.(*url.Error); ok {
		inner := ue.Err
		if inner != nil && c.redactString(inner.Error()) != inner.Error() {
			inner = &redactedError{msg: c.redactString(inner.Error()), err: inner}
		}
		return &url.Error{Op: ue.Op, URL: c.redactString(ue.URL), Err: inner}
	}
	if msg := err.Error(); c.redactString(msg) != msg {
		return &redactedError{msg: c.redactString(msg), err: err}
	}
	return err
}

// redactedError carries a redacted message for an error whose own text
// contained the token.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// checkMethod accepts Bot API method names only: ASCII letters and digits,
// starting with a letter.
func checkMethod(method string) error {
	if method == "" {
		return errors.New("botapi: empty method name")
	}
	for i, r := range method {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return fmt.Errorf("botapi: invalid method name %q", method)
		}
	}
	return nil
}
