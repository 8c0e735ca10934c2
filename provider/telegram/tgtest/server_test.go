package tgtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// envelope is the Bot API response wrapper, decoded strictly for checks.
type envelope struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  *struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// rawClient sends hand-built requests, to check the wire format.
type rawClient struct {
	t  *testing.T
	s  *Server
	hc *http.Client
}

func newRawClient(t *testing.T, s *Server) *rawClient {
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	return &rawClient{t: t, s: s, hc: hc}
}

// do sends a request and returns the HTTP status and raw body.
func (c *rawClient) do(ctx context.Context, method, path, contentType string, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.s.URL()+path, body)
	if err != nil {
		return 0, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// json posts params as JSON to method and decodes the envelope.
func (c *rawClient) json(method string, params any) (int, envelope) {
	c.t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.envelope(http.MethodPost, "/bot"+c.s.Token()+"/"+method, "application/json", bytes.NewReader(b))
}

func (c *rawClient) envelope(method, path, contentType string, body io.Reader) (int, envelope) {
	c.t.Helper()
	status, b, err := c.do(context.Background(), method, path, contentType, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		c.t.Fatalf("%s %s: undecodable body %q: %v", method, path, b, err)
	}
	return status, env
}

func TestParameterEncodings(t *testing.T) {
	const chat = -1001
	multipartBody := func() (string, io.Reader) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("chat_id", "-1001")
		mw.WriteField("text", "multipart")
		mw.Close()
		return mw.FormDataContentType(), &buf
	}
	tests := []struct {
		name        string
		httpMethod  string
		query       string
		contentType string
		body        func() (string, io.Reader)
		want        string
	}{
		{name: "json", httpMethod: "POST", want: "json",
			body: func() (string, io.Reader) {
				return "application/json", strings.NewReader(`{"chat_id":-1001,"text":"json"}`)
			}},
		{name: "json with string chat_id", httpMethod: "POST", want: "json string",
			body: func() (string, io.Reader) {
				return "application/json; charset=utf-8", strings.NewReader(`{"chat_id":"-1001","text":"json string"}`)
			}},
		{name: "form", httpMethod: "POST", want: "form",
			body: func() (string, io.Reader) {
				return "application/x-www-form-urlencoded", strings.NewReader(url.Values{"chat_id": {"-1001"}, "text": {"form"}}.Encode())
			}},
		{name: "multipart", httpMethod: "POST", want: "multipart", body: multipartBody},
		{name: "query string", httpMethod: "GET", query: "?chat_id=-1001&text=query", want: "query"},
	}
	s := New(t)
	s.PushMessage(chat, 0, 42, "hello") // creates the group
	c := newRawClient(t, s)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct, body := "", io.Reader(nil)
			if tt.body != nil {
				ct, body = tt.body()
			}
			status, env := c.envelope(tt.httpMethod, "/bot"+s.Token()+"/sendMessage"+tt.query, ct, body)
			if status != 200 || !env.OK {
				t.Fatalf("status %d, envelope %+v", status, env)
			}
			sent := s.Sent(chat, 0)
			if got := sent[len(sent)-1].Text; got != tt.want {
				t.Errorf("last sent text = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestErrorEnvelopes(t *testing.T) {
	const forum, group = -100100, -100200
	s := New(t)
	s.AddForum(forum)
	s.PushMessage(group, 0, 42, "hi")
	c := newRawClient(t, s)
	_, env := c.json("createForumTopic", map[string]any{"chat_id": forum, "name": "t"})
	var topic struct {
		ID int `json:"message_thread_id"`
	}
	json.Unmarshal(env.Result, &topic)
	if _, env := c.json("closeForumTopic", map[string]any{"chat_id": forum, "message_thread_id": topic.ID}); !env.OK {
		t.Fatalf("closeForumTopic: %+v", env)
	}

	tests := []struct {
		name     string
		path     string // default /bot<token>/<method>
		method   string
		params   map[string]any
		wantCode int
		wantDesc string
	}{
		{name: "wrong token", path: "/bot1:wrong/getMe", wantCode: 401, wantDesc: "Unauthorized"},
		{name: "unknown method", method: "fooBar", wantCode: 404, wantDesc: "Not Found"},
		{name: "no such chat", method: "sendMessage", params: map[string]any{"chat_id": -5, "text": "x"},
			wantCode: 400, wantDesc: "Bad Request: chat not found"},
		{name: "no chat_id", method: "sendMessage", params: map[string]any{"text": "x"},
			wantCode: 400, wantDesc: "Bad Request: chat_id is empty"},
		{name: "empty text", method: "sendMessage", params: map[string]any{"chat_id": forum, "text": " "},
			wantCode: 400, wantDesc: "Bad Request: message text is empty"},
		{name: "text too long", method: "sendMessage", params: map[string]any{"chat_id": forum, "text": strings.Repeat("é", 4097)},
			wantCode: 400, wantDesc: "Bad Request: message is too long"},
		{name: "no such thread", method: "sendMessage", params: map[string]any{"chat_id": forum, "message_thread_id": 999, "text": "x"},
			wantCode: 400, wantDesc: "Bad Request: message thread not found"},
		{name: "close unknown topic", method: "closeForumTopic", params: map[string]any{"chat_id": forum, "message_thread_id": 999},
			wantCode: 400, wantDesc: "Bad Request: TOPIC_ID_INVALID"},
		{name: "chat of a group the bot is not in", method: "getChat", params: map[string]any{"chat_id": 12345},
			wantCode: 400, wantDesc: "Bad Request: chat not found"},
		{name: "close closed topic", method: "closeForumTopic", params: map[string]any{"chat_id": forum, "message_thread_id": topic.ID},
			wantCode: 400, wantDesc: "Bad Request: TOPIC_NOT_MODIFIED"},
		{name: "edit topic unchanged", method: "editForumTopic", params: map[string]any{"chat_id": forum, "message_thread_id": topic.ID, "name": "t"},
			wantCode: 400, wantDesc: "Bad Request: TOPIC_NOT_MODIFIED"},
		{name: "topic in plain group", method: "createForumTopic", params: map[string]any{"chat_id": group, "name": "x"},
			wantCode: 400, wantDesc: "Bad Request: the chat is not a forum"},
		{name: "bad icon colour", method: "createForumTopic", params: map[string]any{"chat_id": forum, "name": "x", "icon_color": 1},
			wantCode: 400, wantDesc: "Bad Request: TOPIC_ICON_COLOR_INVALID"},
		{name: "unknown callback query", method: "answerCallbackQuery", params: map[string]any{"callback_query_id": "nope"},
			wantCode: 400, wantDesc: "Bad Request: query is too old and response timeout expired or query ID is invalid"},
		{name: "bad chat action", method: "sendChatAction", params: map[string]any{"chat_id": forum, "action": "dancing"},
			wantCode: 400, wantDesc: "Bad Request: wrong parameter action in request"},
		{name: "delete unknown message", method: "deleteMessage", params: map[string]any{"chat_id": forum, "message_id": 999},
			wantCode: 400, wantDesc: "Bad Request: message to delete not found"},
		{name: "edit user's message", method: "editMessageText", params: map[string]any{"chat_id": group, "message_id": 2, "text": "y"},
			wantCode: 400, wantDesc: "Bad Request: message can't be edited"},
		{name: "unknown file", method: "getFile", params: map[string]any{"file_id": "nope"},
			wantCode: 400, wantDesc: "Bad Request: invalid file_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = "/bot" + s.Token() + "/" + tt.method
			}
			b, _ := json.Marshal(tt.params)
			status, env := c.envelope(http.MethodPost, path, "application/json", bytes.NewReader(b))
			if status != tt.wantCode || env.OK || env.ErrorCode != tt.wantCode || env.Description != tt.wantDesc {
				t.Errorf("got status %d, envelope %+v; want %d %q", status, env, tt.wantCode, tt.wantDesc)
			}
		})
	}
}

func TestMethodNamesAreCaseInsensitive(t *testing.T) {
	s := New(t)
	c := newRawClient(t, s)
	if _, env := c.json("GETME", nil); !env.OK {
		t.Fatalf("GETME: %+v", env)
	}
	if got := s.Calls("getMe"); got != 1 {
		t.Errorf("Calls(getMe) = %d, want 1", got)
	}
}

// getUpdates calls getUpdates and returns the update ids.
func getUpdates(t *testing.T, c *rawClient, params map[string]any) []int64 {
	t.Helper()
	status, env := c.json("getUpdates", params)
	if status != 200 || !env.OK {
		t.Fatalf("getUpdates: status %d, %+v", status, env)
	}
	var ups []struct {
		ID int64 `json:"update_id"`
	}
	if err := json.Unmarshal(env.Result, &ups); err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for _, u := range ups {
		ids = append(ids, u.ID)
	}
	return ids
}

func TestGetUpdatesConfirmation(t *testing.T) {
	s := New(t)
	c := newRawClient(t, s)
	var ids []int64
	for range 5 {
		ids = append(ids, s.PushMessage(7, 0, 7, "m"))
	}
	if ids[0] != 1001 || ids[4] != 1005 {
		t.Fatalf("update ids %v, want 1001..1005", ids)
	}
	steps := []struct {
		name          string
		params        map[string]any
		want          []int64
		wantPending   int
		wantConfirmed int64
	}{
		{name: "offset 0 returns all, confirms none", params: map[string]any{}, want: ids, wantPending: 5},
		{name: "limit", params: map[string]any{"limit": 2}, want: ids[:2], wantPending: 5},
		{name: "offset confirms below it", params: map[string]any{"offset": ids[2]}, want: ids[2:], wantPending: 3, wantConfirmed: ids[1]},
		{name: "lower offset does not resurrect", params: map[string]any{"offset": ids[0]}, want: ids[2:], wantPending: 3, wantConfirmed: ids[1]},
		{name: "negative offset keeps the last", params: map[string]any{"offset": -1}, want: ids[4:], wantPending: 1, wantConfirmed: ids[3]},
		{name: "offset past the end confirms all", params: map[string]any{"offset": ids[4] + 1}, want: []int64{}, wantConfirmed: ids[4]},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			got := getUpdates(t, c, st.params)
			if !slices.Equal(got, st.want) {
				t.Errorf("ids = %v, want %v", got, st.want)
			}
			if p := s.Pending(); p != st.wantPending {
				t.Errorf("Pending() = %d, want %d", p, st.wantPending)
			}
			if cf := s.Confirmed(); cf != st.wantConfirmed {
				t.Errorf("Confirmed() = %d, want %d", cf, st.wantConfirmed)
			}
		})
	}
}

func TestAllowedUpdates(t *testing.T) {
	s := New(t)
	c := newRawClient(t, s)
	msg := s.PushMessage(7, 0, 7, "m")
	s.PushReaction(7, 2, 7, "👍")
	// Telegram's default excludes message_reaction.
	if got := getUpdates(t, c, map[string]any{}); !slices.Equal(got, []int64{msg}) {
		t.Fatalf("default allowed_updates: ids %v, want [%d]", got, msg)
	}
	react := s.PushReaction(7, 2, 7, "🔥")
	got := getUpdates(t, c, map[string]any{"offset": msg + 1, "allowed_updates": []string{"message", "message_reaction"}})
	if !slices.Equal(got, []int64{react}) {
		t.Fatalf("with message_reaction allowed: ids %v, want [%d]", got, react)
	}
	// The list is remembered by later calls that omit it.
	react2 := s.PushReaction(7, 2, 7, "")
	if got := getUpdates(t, c, map[string]any{"offset": react + 1}); !slices.Equal(got, []int64{react2}) {
		t.Fatalf("remembered allowed_updates: ids %v, want [%d]", got, react2)
	}
}

// startPoll runs a getUpdates call in the background and returns a
// channel with its status and envelope.
func startPoll(c *rawClient, params map[string]any) <-chan envelope {
	ch := make(chan envelope, 1)
	go func() {
		b, _ := json.Marshal(params)
		_, body, err := c.do(context.Background(), http.MethodPost, "/bot"+c.s.Token()+"/getUpdates", "application/json", bytes.NewReader(b))
		var env envelope
		if err == nil {
			err = json.Unmarshal(body, &env)
		}
		if err != nil {
			env.Description = "transport: " + err.Error()
		}
		ch <- env
	}()
	return ch
}

// waitSignal returns a withOnWait option and the channel it signals on
// for the given kind of wait.
func waitSignal(kind string) (Option, <-chan struct{}) {
	ch := make(chan struct{}, 16)
	return withOnWait(func(what string) {
		if what == kind {
			ch <- struct{}{}
		}
	}), ch
}

func TestLongPollWakesOnPush(t *testing.T) {
	opt, waiting := waitSignal("getUpdates")
	s := New(t, opt)
	c := newRawClient(t, s)
	res := startPoll(c, map[string]any{"timeout": 30})
	testkit.Recv(t, waiting, "the poll to wait")
	id := s.PushMessage(7, 0, 7, "wake up")
	env := testkit.Recv(t, res, "the poll's answer")
	if !env.OK || !strings.Contains(string(env.Result), `"update_id":`+itoa(id)) {
		t.Fatalf("envelope %+v, want update %d", env, id)
	}
}

func itoa(i int64) string { b, _ := json.Marshal(i); return string(b) }

func TestLongPollTimesOut(t *testing.T) {
	s := New(t)
	c := newRawClient(t, s)
	if got := getUpdates(t, c, map[string]any{"timeout": 1}); len(got) != 0 {
		t.Fatalf("ids %v, want none", got)
	}
}

func TestConcurrentPollsConflict(t *testing.T) {
	tests := []struct {
		name   string
		policy ConflictPolicy
		// which of the two calls (0: first, 1: second) gets the 409
		loser int
	}{
		{name: "terminate older", policy: TerminateOlder, loser: 0},
		{name: "reject newer", policy: RejectNewer, loser: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt, waiting := waitSignal("getUpdates")
			s := New(t, opt, WithConflictPolicy(tt.policy))
			c := newRawClient(t, s)
			polls := [2]<-chan envelope{startPoll(c, map[string]any{"timeout": 30})}
			testkit.Recv(t, waiting, "the first poll to wait")
			polls[1] = startPoll(c, map[string]any{"timeout": 30})
			lost := testkit.Recv(t, polls[tt.loser], "the losing poll")
			if lost.OK || lost.ErrorCode != 409 || lost.Description != descConflict {
				t.Fatalf("losing poll got %+v, want 409 %q", lost, descConflict)
			}
			if tt.policy == TerminateOlder {
				testkit.Recv(t, waiting, "the second poll to wait")
			}
			s.PushMessage(7, 0, 7, "x")
			if won := testkit.Recv(t, polls[1-tt.loser], "the winning poll"); !won.OK {
				t.Fatalf("winning poll got %+v", won)
			}
		})
	}
}

func TestFaults(t *testing.T) {
	s := New(t)
	c := newRawClient(t, s)
	path := "/bot" + s.Token() + "/getMe"
	tests := []struct {
		name        string
		fault       Fault
		wantStatus  int
		wantBody    string // substring
		wantNotJSON bool
	}{
		{name: "conflict", fault: Fault{Status: 409}, wantStatus: 409,
			wantBody: `{"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}`},
		{name: "rate limited", fault: Fault{RetryAfter: 3}, wantStatus: 429,
			wantBody: `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 3","parameters":{"retry_after":3}}`},
		{name: "unauthorized", fault: Fault{Status: 401}, wantStatus: 401, wantBody: `"description":"Unauthorized"`},
		{name: "server error", fault: Fault{}, wantStatus: 500, wantBody: `"error_code":500`},
		{name: "custom description", fault: Fault{Status: 400, Description: "Bad Request: x"}, wantStatus: 400, wantBody: `"description":"Bad Request: x"`},
		{name: "malformed", fault: Fault{Malformed: true}, wantStatus: 200, wantBody: `{"ok":true,"result":[{"update_id":`, wantNotJSON: true},
		{name: "html 502", fault: Fault{HTML5xx: true}, wantStatus: 502, wantBody: "<title>502 Bad Gateway</title>", wantNotJSON: true},
		{name: "html 503", fault: Fault{HTML5xx: true, Status: 503}, wantStatus: 503, wantBody: "503 Service Unavailable", wantNotJSON: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Fail("getMe", tt.fault)
			status, body, err := c.do(context.Background(), "POST", path, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if status != tt.wantStatus || !strings.Contains(string(body), tt.wantBody) || json.Valid(body) == tt.wantNotJSON {
				t.Errorf("got %d %s, want %d containing %s", status, body, tt.wantStatus, tt.wantBody)
			}
			// One-shot: the next call succeeds.
			if status, _, _ := c.do(context.Background(), "POST", path, "", nil); status != 200 {
				t.Errorf("call after the fault: status %d, want 200", status)
			}
		})
	}
}

func TestFaultQueueOrderAndFailAlways(t *testing.T) {
	s := New(t)
	c := newRawClient(t, s)
	path := "/bot" + s.Token() + "/getMe"
	s.FailAlways("getme", Fault{Status: 502})
	s.Fail("getMe", Fault{Status: 409})
	s.Fail("getMe", Fault{RetryAfter: 1})
	var got []int
	for range 4 {
		status, _, _ := c.do(context.Background(), "POST", path, "", nil)
		got = append(got, status)
	}
	s.ClearFaults()
	status, _, _ := c.do(context.Background(), "POST", path, "", nil)
	got = append(got, status)
	want := []int{409, 429, 502, 502, 200}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("statuses %v, want %v", got, want)
		}
	}
	if n := s.Calls("getMe"); n != 5 {
		t.Errorf("Calls = %d, want 5", n)
	}
}

func TestHangEndsWhenClientGivesUp(t *testing.T) {
	opt, hanging := waitSignal("hang")
	s := New(t, opt)
	c := newRawClient(t, s)
	s.Fail("getMe", Fault{Hang: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, _, err := c.do(ctx, "POST", "/bot"+s.Token()+"/getMe", "", nil)
		errc <- err
	}()
	testkit.Recv(t, hanging, "the hang")
	cancel()
	if err := testkit.Recv(t, errc, "the hung call"); err == nil {
		t.Fatal("hung call succeeded")
	}
	// The handler has ended; the server still serves.
	if _, env := c.json("getMe", nil); !env.OK {
		t.Fatalf("getMe after hang: %+v", env)
	}
}

func TestCloseEndsWaitingHandlers(t *testing.T) {
	var waits = make(chan string, 4)
	s := New(t, withOnWait(func(what string) { waits <- what }))
	c := newRawClient(t, s)
	s.Fail("getMe", Fault{Hang: time.Hour})
	errc := make(chan error, 2)
	go func() {
		_, _, err := c.do(context.Background(), "POST", "/bot"+s.Token()+"/getMe", "", nil)
		errc <- err
	}()
	poll := startPoll(c, map[string]any{"timeout": 3600})
	testkit.Recv(t, waits, "first wait")
	testkit.Recv(t, waits, "second wait")
	s.Close() // must not block on the hung handler or the long poll
	if err := testkit.Recv(t, errc, "the hung call"); err == nil {
		t.Error("hung call succeeded")
	}
	if env := testkit.Recv(t, poll, "the long poll"); env.OK {
		t.Errorf("long poll succeeded: %+v", env)
	}
}

func TestDownloadEndpoint(t *testing.T) {
	s := New(t)
	c := newRawClient(t, s)
	id := s.AddFile("notes.txt", []byte("hello file"))
	_, env := c.json("getFile", map[string]any{"file_id": id})
	var f struct {
		Path string `json:"file_path"`
		Size int    `json:"file_size"`
	}
	if err := json.Unmarshal(env.Result, &f); err != nil || f.Size != 10 || !strings.HasPrefix(f.Path, "documents/") {
		t.Fatalf("getFile: %+v (%v)", env, err)
	}
	tests := []struct {
		name       string
		path       string
		wantStatus int
		wantBody   string
	}{
		{name: "ok", path: "/file/bot" + s.Token() + "/" + f.Path, wantStatus: 200, wantBody: "hello file"},
		{name: "missing", path: "/file/bot" + s.Token() + "/documents/nope", wantStatus: 404, wantBody: `"description":"Not Found"`},
		{name: "wrong token", path: "/file/bot1:x/" + f.Path, wantStatus: 401, wantBody: `"description":"Unauthorized"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, err := c.do(context.Background(), "GET", tt.path, "", nil)
			if err != nil || status != tt.wantStatus || !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("got %d %q (%v), want %d containing %q", status, body, err, tt.wantStatus, tt.wantBody)
			}
		})
	}
}

// TestRateLimits: with Telegram's limits on, a fourth message into a chat
// within three seconds is answered 429 with the seconds to wait, and not
// counted; other chats and methods that are not messages are not held back.
func TestRateLimits(t *testing.T) {
	s := New(t, WithRateLimits(TelegramLimits))
	s.AddForum(-100)
	s.AddForum(-200)
	c := s.Client()
	ctx := context.Background()
	send := func(chat int64) error {
		_, err := c.Do(ctx, "sendMessage", map[string]any{"chat_id": chat, "text": "x"})
		return err
	}
	for i := range 3 {
		if err := send(-100); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	err := send(-100)
	d, ok := botapi.IsRateLimited(err)
	if !ok || d < time.Second || d > 3*time.Second {
		t.Fatalf("a fourth message in 3s: %v (retry after %v)", err, d)
	}
	if err := send(-200); err != nil {
		t.Fatalf("another chat: %v", err)
	}
	if _, err := c.Do(ctx, "getChat", map[string]any{"chat_id": -100}); err != nil {
		t.Fatalf("getChat: %v", err)
	}
	if s.RateLimited() != 1 {
		t.Fatalf("refused %d, want 1", s.RateLimited())
	}
}
