package discordtest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/provider/discord/discordtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// client is a raw gateway client: it speaks the wire format by hand, so
// these tests check the stand-in against Discord's documented protocol,
// not against the provider.
type client struct {
	t  *testing.T
	ws *websocket.Conn
}

type frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int            `json:"s"`
	T  *string         `json:"t"`
}

func dial(t *testing.T, url string) *client {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url+"?v=10&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &client{t: t, ws: ws}
}

func (c *client) send(op int, d any) {
	c.t.Helper()
	raw, _ := json.Marshal(d)
	if err := c.ws.WriteJSON(map[string]any{"op": op, "d": json.RawMessage(raw)}); err != nil {
		c.t.Fatal(err)
	}
}

// next reads the next payload; a close ends the test unless wantClose.
func (c *client) next() (frame, error) {
	c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var f frame
	_, b, err := c.ws.ReadMessage()
	if err != nil {
		return f, err
	}
	return f, json.Unmarshal(b, &f)
}

func (c *client) must(op int) frame {
	c.t.Helper()
	f, err := c.next()
	if err != nil {
		c.t.Fatalf("want op %d: %v", op, err)
	}
	if f.Op != op {
		c.t.Fatalf("want op %d, got %d %s", op, f.Op, f.D)
	}
	return f
}

// dispatch reads dispatches until one of type t.
func (c *client) dispatch(t string) frame {
	c.t.Helper()
	for {
		f := c.must(0)
		if *f.T == t {
			return f
		}
	}
}

func closeCode(err error) int {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return 0
}

func identify(c *client, token string, intents int) {
	c.send(2, map[string]any{"token": token, "intents": intents, "properties": map[string]string{"os": "linux", "browser": "t", "device": "t"}})
}

const allIntents = discordtest.IntentGuilds | discordtest.IntentGuildMessages | discordtest.IntentGuildMessageReactions | discordtest.IntentMessageContent

// TestGatewaySession: HELLO, IDENTIFY → READY and GUILD_CREATE,
// HEARTBEAT → ACK, DISPATCH with s; a dropped connection RESUMEs at the
// resume URL and gets the missed dispatches, then RESUMED.
func TestGatewaySession(t *testing.T) {
	s := discordtest.New(t, discordtest.WithHeartbeatInterval(2*time.Second))
	bob := s.AddUser("bob")
	c := dial(t, s.GatewayURL())
	hello := c.must(10)
	var h struct {
		HeartbeatInterval int `json:"heartbeat_interval"`
	}
	json.Unmarshal(hello.D, &h)
	if h.HeartbeatInterval != 2000 {
		t.Fatalf("hello %s", hello.D)
	}
	identify(c, s.Token(), allIntents)
	ready := c.dispatch("READY")
	var r struct {
		SessionID string `json:"session_id"`
		ResumeURL string `json:"resume_gateway_url"`
		User      struct{ ID string }
	}
	json.Unmarshal(ready.D, &r)
	if r.SessionID == "" || !strings.HasSuffix(r.ResumeURL, "/resume") || r.User.ID != s.Bot().ID || *ready.S != 1 {
		t.Fatalf("READY %s (s=%d)", ready.D, *ready.S)
	}
	gc := c.dispatch("GUILD_CREATE")
	if *gc.S != 2 {
		t.Errorf("GUILD_CREATE s=%d", *gc.S)
	}
	c.send(1, 2)
	c.must(11)

	m := s.PostMessage(s.Channel(), bob, "first")
	ev := c.dispatch("MESSAGE_CREATE")
	var got struct{ ID, Content string }
	json.Unmarshal(ev.D, &got)
	if got.ID != m.ID || got.Content != "first" || *ev.S != 3 {
		t.Fatalf("MESSAGE_CREATE %s s=%d", ev.D, *ev.S)
	}
	c.ws.Close() // dropped: the session stays resumable
	for i := range 3 {
		s.PostMessage(s.Channel(), bob, fmt.Sprintf("missed %d", i))
	}
	c2 := dial(t, r.ResumeURL)
	c2.must(10)
	c2.send(6, map[string]any{"token": s.Token(), "session_id": r.SessionID, "seq": 3})
	for i := range 3 {
		ev := c2.must(0)
		json.Unmarshal(ev.D, &got)
		if *ev.T != "MESSAGE_CREATE" || got.Content != fmt.Sprintf("missed %d", i) || *ev.S != 4+i {
			t.Fatalf("replay %d: %s %s s=%d", i, *ev.T, ev.D, *ev.S)
		}
	}
	if ev := c2.must(0); *ev.T != "RESUMED" {
		t.Fatalf("after the replay: %s", *ev.T)
	}
	if n := s.Count("resume"); n != 1 {
		t.Errorf("%d resumes", n)
	}
}

// TestGatewayRefusals: close codes and INVALID_SESSION as Discord sends
// them.
func TestGatewayRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*discordtest.Server)
		do    func(*client, *discordtest.Server)
		code  int  // close code expected; 0: INVALID_SESSION
		d     bool // INVALID_SESSION's d
	}{
		{name: "wrong token", do: func(c *client, s *discordtest.Server) { identify(c, "wrong", allIntents) }, code: 4004},
		{name: "disallowed intents", setup: func(s *discordtest.Server) { s.SetMessageContentIntent(false) },
			do: func(c *client, s *discordtest.Server) { identify(c, s.Token(), allIntents) }, code: 4014},
		{name: "identify twice", do: func(c *client, s *discordtest.Server) {
			identify(c, s.Token(), allIntents)
			c.dispatch("READY")
			identify(c, s.Token(), allIntents)
		}, code: 4005},
		{name: "not JSON", do: func(c *client, s *discordtest.Server) { c.ws.WriteMessage(websocket.TextMessage, []byte("{")) }, code: 4002},
		{name: "resume of an unknown session", do: func(c *client, s *discordtest.Server) {
			c.send(6, map[string]any{"token": s.Token(), "session_id": "nope", "seq": 1})
		}},
		{name: "resume from the future", do: func(c *client, s *discordtest.Server) {
			c2 := dial(c.t, s.GatewayURL())
			c2.must(10)
			identify(c2, s.Token(), allIntents)
			ready := c2.dispatch("READY")
			var r struct {
				SessionID string `json:"session_id"`
			}
			json.Unmarshal(ready.D, &r)
			c2.ws.Close()
			c.send(6, map[string]any{"token": s.Token(), "session_id": r.SessionID, "seq": 99})
		}, code: 4007},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := discordtest.New(t)
			if tt.setup != nil {
				tt.setup(s)
			}
			c := dial(t, s.GatewayURL())
			c.must(10)
			tt.do(c, s)
			for {
				f, err := c.next()
				if tt.code != 0 {
					if err == nil {
						continue // dispatches before the close
					}
					if got := closeCode(err); got != tt.code {
						t.Fatalf("closed with %d (%v), want %d", got, err, tt.code)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if f.Op == 9 {
					if string(f.D) != fmt.Sprint(tt.d) {
						t.Errorf("INVALID_SESSION d=%s", f.D)
					}
					return
				}
			}
		})
	}
}

// TestSessionEndsOnNormalClose: a client that closes with 1000 ends its
// session (Discord's rule); one that drops keeps it.
func TestSessionEndsOnNormalClose(t *testing.T) {
	s := discordtest.New(t)
	c := dial(t, s.GatewayURL())
	c.must(10)
	identify(c, s.Token(), allIntents)
	c.dispatch("READY")
	c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, "bye"), time.Now().Add(time.Second))
	deadline := time.Now().Add(5 * time.Second)
	for {
		ss := s.Sessions()
		if len(ss) == 1 && !ss[0].Live {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions after a 1000 close: %+v", ss)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func api(t *testing.T, s *discordtest.Server, method, path, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, s.URL()+"/v10"+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bot "+s.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestREST: messages page newest first (after= too); errors carry
// Discord's codes; rate-limit headers and 429s are Discord's.
func TestREST(t *testing.T) {
	s := discordtest.New(t, discordtest.WithRateLimit(3, time.Minute))
	bob := s.AddUser("bob")
	th := s.CreateThread(s.Channel(), bob, "t")
	var ids []string
	for i := range 5 {
		ids = append(ids, s.PostMessage(th, bob, fmt.Sprintf("m%d", i)).ID)
	}
	resp, b := api(t, s, "GET", "/channels/"+th+"/messages?after="+ids[1]+"&limit=2", "")
	var page []struct{ ID, Content string }
	json.Unmarshal(b, &page)
	if resp.StatusCode != 200 || len(page) != 2 || page[0].Content != "m3" || page[1].Content != "m2" {
		t.Fatalf("after= page: %d %s", resp.StatusCode, b)
	}
	for _, h := range []string{"X-RateLimit-Bucket", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Reset-After", "Via"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("no %s header", h)
		}
	}
	_, b = api(t, s, "POST", "/channels/"+th+"/messages", `{"content":"`+strings.Repeat("x", 2001)+`"}`)
	if !bytes.Contains(b, []byte(`"code":50035`)) || !bytes.Contains(b, []byte("2000")) {
		t.Errorf("long content: %s", b)
	}
	resp, b = api(t, s, "GET", "/channels/1/messages", "")
	if resp.StatusCode != 404 || !bytes.Contains(b, []byte(`"code":10003`)) {
		t.Errorf("unknown channel: %d %s", resp.StatusCode, b)
	}
	// The bucket (3 a minute, per route and channel) is spent after two
	// more: a 429 in Discord's shape.
	api(t, s, "GET", "/channels/"+th+"/messages", "")
	api(t, s, "GET", "/channels/"+th+"/messages", "")
	resp, b = api(t, s, "GET", "/channels/"+th+"/messages", "")
	var rl struct {
		RetryAfter float64 `json:"retry_after"`
		Global     bool    `json:"global"`
	}
	json.Unmarshal(b, &rl)
	if resp.StatusCode != 429 || rl.RetryAfter <= 0 || rl.Global || resp.Header.Get("Retry-After") == "" || resp.Header.Get("X-RateLimit-Scope") != "user" {
		t.Errorf("429: %d %s %v", resp.StatusCode, b, resp.Header)
	}
	req, _ := http.NewRequest("GET", s.URL()+"/v10/users/@me", nil)
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != 401 {
		t.Errorf("no token: %d", resp2.StatusCode)
	}
}

// pressed makes a thread of bob's with a message of the bot's carrying
// the button "a", and bob presses it: the interaction's id and token.
func pressed(t *testing.T, s *discordtest.Server) (id, token string) {
	t.Helper()
	bob := s.AddUser("bob")
	th := s.CreateThread(s.Channel(), bob, "t")
	_, b := api(t, s, "POST", "/channels/"+th+"/messages", `{"content":"pick","components":[{"type":1,"components":[{"type":2,"style":1,"label":"A","custom_id":"a"}]}]}`)
	var m struct{ ID string }
	if err := json.Unmarshal(b, &m); err != nil || m.ID == "" {
		t.Fatalf("the message with the button: %s", b)
	}
	return s.Press(th, m.ID, bob, "a")
}

// TestInteractionDeadline: a callback is accepted once, within 3s.
func TestInteractionDeadline(t *testing.T) {
	s := discordtest.New(t)
	id, token := pressed(t, s)
	path := "/interactions/" + id + "/" + token + "/callback"
	if resp, b := api(t, s, "POST", path, `{"type":6}`); resp.StatusCode != 204 {
		t.Fatalf("callback: %d %s", resp.StatusCode, b)
	}
	if _, b := api(t, s, "POST", path, `{"type":6}`); !bytes.Contains(b, []byte(`"code":40060`)) {
		t.Errorf("second callback: %s", b)
	}
	if typ, n := s.Interaction(id); typ != 6 || n != 2 {
		t.Errorf("interaction: type %d, %d requests", typ, n)
	}
}

// TestMessageModel: what the verbs rely on, as Discord answers it:
// components are checked (rows, buttons, unique custom ids), a nonce with
// enforce_nonce makes one message within the window, a reply to a gone
// message is refused unless fail_if_not_exists is false, @everyone pings
// only when allowed_mentions lets it, reactions are kept on the message,
// and typing is counted.
func TestMessageModel(t *testing.T) {
	s := discordtest.New(t, discordtest.WithNonceWindow(time.Hour))
	bob := s.AddUser("bob")
	th := s.CreateThread(s.Channel(), bob, "t")
	create := "/channels/" + th + "/messages"
	button := func(label, id string) string {
		return fmt.Sprintf(`{"type":2,"style":1,"label":%q,"custom_id":%q}`, label, id)
	}
	row := func(bs ...string) string { return `{"type":1,"components":[` + strings.Join(bs, ",") + `]}` }
	refusals := []struct {
		name, body, says string
	}{
		{"duplicate custom_id", `{"content":"x","components":[` + row(button("A", "same"), button("B", "same")) + `]}`, "COMPONENT_CUSTOM_ID_DUPLICATED"},
		{"six buttons in a row", `{"content":"x","components":[` + row(button("1", "1"), button("2", "2"), button("3", "3"), button("4", "4"), button("5", "5"), button("6", "6")) + `]}`, "BASE_TYPE_BAD_LENGTH"},
		{"label over 80", `{"content":"x","components":[` + row(button(strings.Repeat("l", 81), "a")) + `]}`, "BASE_TYPE_MAX_LENGTH"},
		{"custom_id over 100", `{"content":"x","components":[` + row(button("A", strings.Repeat("c", 101))) + `]}`, "BASE_TYPE_MAX_LENGTH"},
		{"no custom_id", `{"content":"x","components":[{"type":1,"components":[{"type":2,"style":1,"label":"A"}]}]}`, "BASE_TYPE_REQUIRED"},
		{"a button outside a row", `{"content":"x","components":[` + button("A", "a") + `]}`, "UNION_TYPE_CHOICES"},
		{"a reply to a gone message", `{"content":"x","message_reference":{"message_id":"1234567890123"}}`, "MESSAGE_REFERENCE_UNKNOWN_MESSAGE"},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			resp, b := api(t, s, "POST", create, r.body)
			if resp.StatusCode != 400 || !bytes.Contains(b, []byte(`"code":50035`)) || !bytes.Contains(b, []byte(r.says)) {
				t.Errorf("%d %s", resp.StatusCode, b)
			}
		})
	}
	if n := len(s.Messages(th)); n != 0 {
		t.Fatalf("%d messages made by refused requests", n)
	}

	var first, again struct {
		ID              string
		MentionEveryone bool `json:"mention_everyone"`
		Type            int
	}
	_, b := api(t, s, "POST", create, `{"content":"hi @everyone","nonce":"n1","enforce_nonce":true,"allowed_mentions":{"parse":["users"]},"message_reference":{"message_id":"1234567890123","fail_if_not_exists":false}}`)
	json.Unmarshal(b, &first)
	_, b = api(t, s, "POST", create, `{"content":"hi @everyone","nonce":"n1","enforce_nonce":true}`)
	json.Unmarshal(b, &again)
	if first.ID == "" || again.ID != first.ID || first.MentionEveryone || first.Type != 0 || len(s.Messages(th)) != 1 {
		t.Errorf("nonce: %+v then %+v, %d messages", first, again, len(s.Messages(th)))
	}
	_, b = api(t, s, "POST", create, `{"content":"hi @everyone"}`)
	if !bytes.Contains(b, []byte(`"mention_everyone":true`)) {
		t.Errorf("@everyone without allowed_mentions: %s", b)
	}

	for _, e := range []string{"%F0%9F%91%80", "%F0%9F%91%80", "%E2%9C%85"} {
		if resp, b := api(t, s, "PUT", create+"/"+first.ID+"/reactions/"+e+"/@me", ""); resp.StatusCode != 204 {
			t.Fatalf("reaction: %d %s", resp.StatusCode, b)
		}
	}
	if got := s.BotReactions(th, first.ID); strings.Join(got, " ") != "👀 ✅" {
		t.Errorf("reactions %q", got)
	}
	api(t, s, "POST", "/channels/"+th+"/typing", "")
	if n := s.Typing(th); n != 1 {
		t.Errorf("typing %d", n)
	}
}

// TestEphemeralAnswers: an ephemeral follow-up (flags 64) is seen by the
// person who pressed only: it is in no channel's history.
func TestEphemeralAnswers(t *testing.T) {
	s := discordtest.New(t)
	id, token := pressed(t, s)
	followup := "/webhooks/" + s.Bot().ID + "/" + token
	if resp, b := api(t, s, "POST", followup, `{"content":"too early","flags":64}`); resp.StatusCode != 404 || !bytes.Contains(b, []byte(`"code":10015`)) {
		t.Errorf("follow-up before the callback: %d %s", resp.StatusCode, b)
	}
	api(t, s, "POST", "/interactions/"+id+"/"+token+"/callback", `{"type":6}`)
	if resp, b := api(t, s, "POST", followup, `{"content":"only you","flags":64}`); resp.StatusCode != 200 {
		t.Fatalf("follow-up: %d %s", resp.StatusCode, b)
	}
	ans := s.Answers(id)
	if len(ans) != 1 || ans[0].Content != "only you" || ans[0].Flags != 64 {
		t.Errorf("answers %+v", ans)
	}
	if th := s.Threads(s.Channel())[0].ID; len(s.Messages(th)) != 1 {
		t.Errorf("%d messages in the thread: the ephemeral one is in its history", len(s.Messages(th)))
	}
}
