package botapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/provider/telegram/botapi"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// secretToken is a token whose presence in any error text fails a test.
const secretToken = "987654321:SECRET-tok_en-XyZ"

// newClient returns a Client for cfg whose idle connections are closed
// when the test ends.
func newClient(t *testing.T, cfg botapi.Config) *botapi.Client {
	t.Helper()
	c, err := botapi.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// cannedServer answers every request with status, content type and body.
func cannedServer(t *testing.T, status int, contentType, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEnvelopeDecoding(t *testing.T) {
	const html502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center></body></html>"
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string

		wantUser     botapi.User
		wantAPI      *botapi.APIError // nil: no *APIError expected
		wantDecode   bool             // a *DecodeError expected
		conflict     bool
		unauthorized bool
		server       bool
		rateLimited  time.Duration // IsRateLimited's duration; -1: not rate limited
	}{
		{name: "ok", status: 200, contentType: "application/json",
			body:        `{"ok":true,"result":{"id":7,"is_bot":true,"first_name":"bot","username":"b_bot"}}`,
			wantUser:    botapi.User{ID: 7, IsBot: true, FirstName: "bot", Username: "b_bot"},
			rateLimited: -1},
		{name: "bad request", status: 400, contentType: "application/json",
			body:        `{"ok":false,"error_code":400,"description":"Bad Request: message thread not found"}`,
			wantAPI:     &botapi.APIError{Method: "getMe", Code: 400, Description: "Bad Request: message thread not found"},
			rateLimited: -1},
		{name: "unauthorized", status: 401, contentType: "application/json",
			body:         `{"ok":false,"error_code":401,"description":"Unauthorized"}`,
			wantAPI:      &botapi.APIError{Method: "getMe", Code: 401, Description: "Unauthorized"},
			unauthorized: true, rateLimited: -1},
		{name: "conflict", status: 409, contentType: "application/json",
			body:     `{"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}`,
			wantAPI:  &botapi.APIError{Method: "getMe", Code: 409, Description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"},
			conflict: true, rateLimited: -1},
		{name: "rate limited", status: 429, contentType: "application/json",
			body:        `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 5","parameters":{"retry_after":5}}`,
			wantAPI:     &botapi.APIError{Method: "getMe", Code: 429, Description: "Too Many Requests: retry after 5", RetryAfter: 5 * time.Second},
			rateLimited: 5 * time.Second},
		{name: "migrated group", status: 400, contentType: "application/json",
			body:        `{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded to a supergroup chat","parameters":{"migrate_to_chat_id":-1001234}}`,
			wantAPI:     &botapi.APIError{Method: "getMe", Code: 400, Description: "Bad Request: group chat was upgraded to a supergroup chat", MigrateToChatID: -1001234},
			rateLimited: -1},
		{name: "server error envelope", status: 500, contentType: "application/json",
			body:    `{"ok":false,"error_code":500,"description":"Internal Server Error"}`,
			wantAPI: &botapi.APIError{Method: "getMe", Code: 500, Description: "Internal Server Error"},
			server:  true, rateLimited: -1},
		{name: "error code from HTTP status", status: 502, contentType: "application/json",
			body:    `{"ok":false,"description":"Bad Gateway"}`,
			wantAPI: &botapi.APIError{Method: "getMe", Code: 502, Description: "Bad Gateway"},
			server:  true, rateLimited: -1},
		{name: "html 502", status: 502, contentType: "text/html", body: html502,
			wantDecode: true, server: true, rateLimited: -1},
		{name: "malformed json", status: 200, contentType: "application/json", body: `{"ok":true,"result":{"id":`,
			wantDecode: true, rateLimited: -1},
		{name: "no ok member", status: 200, contentType: "application/json", body: `{"result":{}}`,
			wantDecode: true, rateLimited: -1},
		{name: "result of the wrong type", status: 200, contentType: "application/json", body: `{"ok":true,"result":"me"}`,
			wantDecode: true, rateLimited: -1},
		{name: "empty body", status: 200, contentType: "application/json", body: ``,
			wantDecode: true, rateLimited: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := cannedServer(t, tt.status, tt.contentType, tt.body)
			c := newClient(t, botapi.Config{BaseURL: srv.URL, Token: secretToken})
			u, err := c.GetMe(context.Background())
			if tt.wantAPI == nil && !tt.wantDecode {
				if err != nil || u != tt.wantUser {
					t.Fatalf("GetMe = %+v, %v; want %+v", u, err, tt.wantUser)
				}
				return
			}
			if err == nil {
				t.Fatalf("GetMe succeeded with %+v", u)
			}
			var apiErr *botapi.APIError
			if got := errors.As(err, &apiErr); got != (tt.wantAPI != nil) {
				t.Fatalf("errors.As(*APIError) = %v for %v", got, err)
			}
			if tt.wantAPI != nil && *apiErr != *tt.wantAPI {
				t.Errorf("APIError = %+v, want %+v", *apiErr, *tt.wantAPI)
			}
			var decErr *botapi.DecodeError
			if got := errors.As(err, &decErr); got != tt.wantDecode {
				t.Fatalf("errors.As(*DecodeError) = %v for %v", got, err)
			}
			if tt.wantDecode && decErr.StatusCode != tt.status {
				t.Errorf("DecodeError.StatusCode = %d, want %d", decErr.StatusCode, tt.status)
			}
			if got := botapi.IsConflict(err); got != tt.conflict {
				t.Errorf("IsConflict = %v", got)
			}
			if got := botapi.IsUnauthorized(err); got != tt.unauthorized {
				t.Errorf("IsUnauthorized = %v", got)
			}
			if got := botapi.IsServerError(err); got != tt.server {
				t.Errorf("IsServerError = %v", got)
			}
			d, limited := botapi.IsRateLimited(err)
			if limited != (tt.rateLimited >= 0) || (limited && d != tt.rateLimited) {
				t.Errorf("IsRateLimited = %v, %v; want %v", d, limited, tt.rateLimited)
			}
			if strings.Contains(err.Error(), secretToken) {
				t.Errorf("error text contains the token: %v", err)
			}
		})
	}
}

func TestAPIErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  *botapi.APIError
		want string
	}{
		{name: "plain", err: &botapi.APIError{Method: "sendMessage", Code: 400, Description: "Bad Request: chat not found"},
			want: "botapi: sendMessage: Bad Request: chat not found (400)"},
		{name: "retry after", err: &botapi.APIError{Method: "getUpdates", Code: 429, Description: "Too Many Requests: retry after 3", RetryAfter: 3 * time.Second},
			want: "botapi: getUpdates: Too Many Requests: retry after 3 (429), retry after 3s"},
		{name: "no description", err: &botapi.APIError{Method: "getMe", Code: 502},
			want: "botapi: getMe: Bad Gateway (502)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

// closedURL returns a loopback URL on which nothing listens.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func TestTokenNeverInErrors(t *testing.T) {
	ctx := context.Background()
	hung := tgtest.New(t, tgtest.WithToken(secretToken))
	hung.FailAlways("getMe", tgtest.Fault{Hang: time.Minute})
	hung.FailAlways("getUpdates", tgtest.Fault{Hang: time.Minute})
	// echo answers with an HTML page quoting the request path, as some
	// proxies do.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "<html><body>upstream failed for %s</body></html>", r.URL.Path)
	}))
	t.Cleanup(echo.Close)

	tests := []struct {
		name    string
		cfg     botapi.Config
		call    func(*botapi.Client) error
		wantURL bool // the error is a *url.Error whose URL must show "<redacted>"
	}{
		{name: "connection refused", cfg: botapi.Config{BaseURL: closedURL(t)}, wantURL: true,
			call: func(c *botapi.Client) error { _, err := c.GetMe(ctx); return err }},
		{name: "request timeout", cfg: botapi.Config{BaseURL: hung.URL(), RequestTimeout: 50 * time.Millisecond}, wantURL: true,
			call: func(c *botapi.Client) error { _, err := c.GetMe(ctx); return err }},
		{name: "long poll timeout", cfg: botapi.Config{BaseURL: hung.URL(), PollGrace: 50 * time.Millisecond}, wantURL: true,
			call: func(c *botapi.Client) error {
				_, err := c.GetUpdates(ctx, botapi.GetUpdatesParams{})
				return err
			}},
		{name: "cancelled", cfg: botapi.Config{BaseURL: hung.URL()}, wantURL: true,
			call: func(c *botapi.Client) error {
				ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
				defer cancel()
				_, err := c.GetMe(ctx)
				return err
			}},
		{name: "body quoting the URL", cfg: botapi.Config{BaseURL: echo.URL},
			call: func(c *botapi.Client) error { _, err := c.GetMe(ctx); return err }},
		{name: "upload refused", cfg: botapi.Config{BaseURL: closedURL(t)}, wantURL: true,
			call: func(c *botapi.Client) error {
				_, err := c.SendDocument(ctx, 1, 0, "a.txt", strings.NewReader("data"), "")
				return err
			}},
		{name: "download refused", cfg: botapi.Config{BaseURL: closedURL(t)}, wantURL: true,
			call: func(c *botapi.Client) error {
				_, err := c.DownloadFile(ctx, "documents/file_1.txt")
				return err
			}},
		{name: "download error page", cfg: botapi.Config{BaseURL: echo.URL},
			call: func(c *botapi.Client) error {
				_, err := c.DownloadFile(ctx, "documents/file_1.txt")
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Token = secretToken
			err := tt.call(newClient(t, cfg))
			if err == nil {
				t.Fatal("call succeeded")
			}
			for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
				if strings.Contains(text, secretToken) || strings.Contains(text, "SECRET") {
					t.Errorf("error text contains the token: %s", text)
				}
			}
			var ue *url.Error
			if tt.wantURL {
				if !errors.As(err, &ue) || !strings.Contains(ue.URL, "/bot<redacted>/") {
					t.Errorf("want a *url.Error with a redacted URL, got %T: %v", err, err)
				}
			}
			var de *botapi.DecodeError
			if errors.As(err, &de) && !strings.Contains(de.Body, "<redacted>") {
				t.Errorf("DecodeError.Body = %q, want the token redacted", de.Body)
			}
		})
	}
}

func TestTimeoutsStayDetectable(t *testing.T) {
	s := tgtest.New(t)
	s.Fail("getMe", tgtest.Fault{Hang: time.Minute})
	cfg := s.Config()
	cfg.RequestTimeout = 50 * time.Millisecond
	_, err := newClient(t, cfg).GetMe(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("err = %v, want a net.Error with Timeout()", err)
	}
}

func TestNewValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  botapi.Config
	}{
		{name: "empty token", cfg: botapi.Config{}},
		{name: "token with slash", cfg: botapi.Config{Token: "1:SECRET/x"}},
		{name: "relative base URL", cfg: botapi.Config{Token: "1:SECRET", BaseURL: "api.telegram.org"}},
		{name: "ftp base URL", cfg: botapi.Config{Token: "1:SECRET", BaseURL: "ftp://api.telegram.org"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := botapi.New(tt.cfg)
			if err == nil {
				c.CloseIdleConnections()
				t.Fatal("New succeeded")
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error contains the token: %v", err)
			}
		})
	}
}

func TestDo(t *testing.T) {
	const chat = -1001
	s, c := forumServer(t, chat)
	ctx := context.Background()
	tests := []struct {
		name    string
		method  string
		params  any
		wantErr string // substring; "" for success
		check   func(t *testing.T, res json.RawMessage)
	}{
		{name: "raw JSON passthrough", method: "sendMessage",
			params: json.RawMessage(`{"chat_id":-1001,"text":"raw","reply_markup":{"inline_keyboard":[[{"text":"ok","callback_data":"y"}]]}}`),
			check: func(t *testing.T, res json.RawMessage) {
				var m botapi.Message
				if err := json.Unmarshal(res, &m); err != nil || m.Text != "raw" || !strings.Contains(string(m.ReplyMarkup), "callback_data") {
					t.Errorf("result %s (%v)", res, err)
				}
			}},
		{name: "struct params", method: "sendChatAction", params: map[string]any{"chat_id": chat, "action": "typing"},
			check: func(t *testing.T, res json.RawMessage) {
				if string(res) != "true" {
					t.Errorf("result %s, want true", res)
				}
			}},
		{name: "nil params", method: "getMe"},
		{name: "invalid raw JSON", method: "sendMessage", params: json.RawMessage(`{"chat_id":`), wantErr: "not valid JSON"},
		{name: "path in method name", method: "../getMe", wantErr: "invalid method name"},
		{name: "empty method name", method: "", wantErr: "empty method name"},
		{name: "API error", method: "sendMessage", params: map[string]any{"chat_id": chat, "message_thread_id": 12345, "text": "x"},
			wantErr: "Bad Request: message thread not found (400)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Do(ctx, tt.method, tt.params)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
	if n := s.Calls("getMe"); n != 1 {
		t.Errorf("getMe calls = %d, want 1 (invalid method names must not reach the server)", n)
	}
}

func TestUpdateAccessors(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		wantKind   string
		wantChat   int64
		wantThread int
		wantFrom   int64
	}{
		{name: "topic message",
			raw:      `{"update_id":1,"message":{"message_id":5,"message_thread_id":3,"is_topic_message":true,"from":{"id":9,"is_bot":false,"first_name":"A"},"chat":{"id":-100,"type":"supergroup","is_forum":true},"date":1,"text":"hi"}}`,
			wantKind: "message", wantChat: -100, wantThread: 3, wantFrom: 9},
		{name: "general topic message",
			raw:      `{"update_id":2,"message":{"message_id":6,"from":{"id":9,"is_bot":false,"first_name":"A"},"chat":{"id":-100,"type":"supergroup","is_forum":true},"date":1,"text":"hi"}}`,
			wantKind: "message", wantChat: -100, wantThread: 0, wantFrom: 9},
		{name: "reply thread outside a forum is not a topic",
			raw:      `{"update_id":3,"message":{"message_id":8,"message_thread_id":7,"from":{"id":9,"is_bot":false,"first_name":"A"},"chat":{"id":-200,"type":"supergroup"},"date":1,"text":"re"}}`,
			wantKind: "message", wantChat: -200, wantThread: 0, wantFrom: 9},
		{name: "edited topic message",
			raw:      `{"update_id":4,"edited_message":{"message_id":5,"message_thread_id":3,"is_topic_message":true,"from":{"id":9,"is_bot":false,"first_name":"A"},"chat":{"id":-100,"type":"supergroup","is_forum":true},"date":1,"edit_date":2,"text":"hi!"}}`,
			wantKind: "edited_message", wantChat: -100, wantThread: 3, wantFrom: 9},
		{name: "callback query on a topic message",
			raw:      `{"update_id":5,"callback_query":{"id":"77","from":{"id":11,"is_bot":false,"first_name":"B"},"message":{"message_id":10,"message_thread_id":3,"is_topic_message":true,"chat":{"id":-100,"type":"supergroup","is_forum":true},"date":1,"text":"pick"},"chat_instance":"1","data":"yes"}}`,
			wantKind: "callback_query", wantChat: -100, wantThread: 3, wantFrom: 11},
		{name: "reaction",
			raw:      `{"update_id":6,"message_reaction":{"chat":{"id":-100,"type":"supergroup","is_forum":true},"message_id":10,"user":{"id":12,"is_bot":false,"first_name":"C"},"date":1,"old_reaction":[],"new_reaction":[{"type":"emoji","emoji":"👍"}]}}`,
			wantKind: "message_reaction", wantChat: -100, wantThread: 0, wantFrom: 12},
		{name: "anonymous reaction",
			raw:      `{"update_id":7,"message_reaction":{"chat":{"id":-100,"type":"supergroup"},"message_id":10,"actor_chat":{"id":-100,"type":"supergroup"},"date":1,"old_reaction":[],"new_reaction":[]}}`,
			wantKind: "message_reaction", wantChat: -100, wantThread: 0, wantFrom: 0},
		{name: "unmodelled kind",
			raw:      `{"update_id":8,"my_chat_member":{"chat":{"id":-100,"type":"supergroup"},"from":{"id":1,"is_bot":false,"first_name":"D"},"date":1}}`,
			wantKind: "my_chat_member"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ups []botapi.Update
			if err := json.Unmarshal([]byte("[ "+tt.raw+" ]"), &ups); err != nil {
				t.Fatal(err)
			}
			u := ups[0]
			if string(u.Raw) != tt.raw {
				t.Errorf("Raw = %s, want the original %s", u.Raw, tt.raw)
			}
			if got := u.Kind(); got != tt.wantKind {
				t.Errorf("Kind() = %q, want %q", got, tt.wantKind)
			}
			if got := u.ChatID(); got != tt.wantChat {
				t.Errorf("ChatID() = %d, want %d", got, tt.wantChat)
			}
			if got := u.ThreadID(); got != tt.wantThread {
				t.Errorf("ThreadID() = %d, want %d", got, tt.wantThread)
			}
			if got := u.FromID(); got != tt.wantFrom {
				t.Errorf("FromID() = %d, want %d", got, tt.wantFrom)
			}
		})
	}
}
