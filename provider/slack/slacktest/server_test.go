package slacktest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	chanID = "C0CHATBUS"
	person = "U0PERSON"
)

func newServer(t *testing.T, opts ...slacktest.Option) *slacktest.Server {
	s := slacktest.New(t, opts...)
	s.AddChannel(chanID, "chatbus", true)
	s.AddChannel("C0OUTSIDE", "outside", false)
	return s
}

// client is a slack-go Web API client of the stand-in with its own
// transport, closed at the end of the test.
func client(t *testing.T, s *slacktest.Server, token string) *slack.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return slack.New(token, slack.OptionAppLevelToken(slacktest.AppToken), slack.OptionAPIURL(s.URL()),
		slack.OptionHTTPClient(&http.Client{Transport: tr}))
}

// TestWithSlackGoSocketMode: slack-go's own Socket Mode client (an
// independent implementation of the protocol) connects, gets hello, an
// events_api envelope it parses into a message event and an interactive
// one it parses into block actions, acknowledges them, and reconnects
// when asked to.
func TestWithSlackGoSocketMode(t *testing.T) {
	s := newServer(t)
	sm := socketmode.New(client(t, s, slacktest.BotToken))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sm.RunContext(ctx) }()
	defer func() { cancel(); <-done }()

	next := func(want socketmode.EventType) socketmode.Event {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case ev := <-sm.Events:
				if ev.Type == want {
					return ev
				}
			case <-timeout:
				t.Fatalf("no %s event", want)
			}
		}
	}
	next(socketmode.EventTypeHello)
	posted := s.PostMessage(chanID, person, "hello there", "")
	ev := next(socketmode.EventTypeEventsAPI)
	api, ok := ev.Data.(slackevents.EventsAPIEvent)
	if !ok {
		t.Fatalf("data %T", ev.Data)
	}
	msg, ok := api.InnerEvent.Data.(*slackevents.MessageEvent)
	if !ok || msg.Text != "hello there" || msg.User != person || msg.TimeStamp != posted.TS || msg.Channel != chanID {
		t.Fatalf("inner event %#v", api.InnerEvent.Data)
	}
	if cb, ok := api.Data.(*slackevents.EventsAPICallbackEvent); !ok || cb.EventID != posted.EventID {
		t.Fatalf("callback %#v, want event id %s", api.Data, posted.EventID)
	}
	sm.Ack(*ev.Request)
	testkit.Eventually(t, "the ack", func() bool { return s.Event(posted.EventID).Acked })

	// A button of the bot's message, in Block Kit as slack-go writes it.
	_, withButton, err := client(t, s, slacktest.BotToken).PostMessageContext(ctx, chanID, slack.MsgOptionText("approve?", false),
		slack.MsgOptionBlocks(slack.NewActionBlock("choice", slack.NewButtonBlockElement("approve", "yes",
			slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false)))))
	if err != nil {
		t.Fatal(err)
	}
	trigger := s.PressButton(chanID, withButton, person, "approve", "yes")
	ev = next(socketmode.EventTypeInteractive)
	cb, ok := ev.Data.(slack.InteractionCallback)
	if !ok || cb.Type != slack.InteractionTypeBlockActions || cb.TriggerID != trigger || len(cb.ActionCallback.BlockActions) != 1 ||
		cb.ActionCallback.BlockActions[0].Value != "yes" || cb.Container.MessageTs != withButton {
		t.Fatalf("interaction %#v", ev.Data)
	}
	sm.Ack(*ev.Request)
	testkit.Eventually(t, "the ack", func() bool { return s.Event(trigger).Acked })

	s.Disconnect("refresh_requested")
	next(socketmode.EventTypeHello)
	if st := s.Stats(); st.Connections != 2 || st.BadAcks != 0 || st.Acked != 2 {
		t.Errorf("stats %+v", st)
	}
}

// rawLink is a bare Socket Mode connection.
type rawLink struct {
	t    *testing.T
	conn *websocket.Conn
}

func dial(t *testing.T, s *slacktest.Server) *rawLink {
	t.Helper()
	_, url, err := client(t, s, slacktest.BotToken).StartSocketModeContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "ws://127.0.0.1:") {
		t.Fatalf("url %q", url)
	}
	conn, resp, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	l := &rawLink{t: t, conn: conn}
	t.Cleanup(func() { conn.Close() })
	if f := l.read(); f.Type != "hello" {
		t.Fatalf("first frame %+v", f)
	}
	return l
}

func (l *rawLink) read() socketmode.Request {
	l.t.Helper()
	l.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var req socketmode.Request
	if err := l.conn.ReadJSON(&req); err != nil {
		l.t.Fatalf("read: %v", err)
	}
	return req
}

func (l *rawLink) ack(id string) {
	l.t.Helper()
	if err := l.conn.WriteJSON(map[string]string{"envelope_id": id}); err != nil {
		l.t.Fatal(err)
	}
}

// TestRedelivery: an envelope not acknowledged in time is sent again with
// retry_attempt and retry_reason, under a new envelope id; acknowledging
// either attempt acknowledges the event; once the schedule is used up
// the event expires.
func TestRedelivery(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		s := newServer(t, slacktest.WithRetrySchedule(100*time.Millisecond, 100*time.Millisecond))
		l := dial(t, s)
		p := s.PostMessage(chanID, person, "one", "")
		first := l.read()
		second := l.read()
		if second.RetryAttempt != 1 || second.RetryReason != "timeout" || second.EnvelopeID == first.EnvelopeID || first.RetryAttempt != 0 {
			t.Fatalf("first %+v, second %+v", first, second)
		}
		if !bytes.Equal(first.Payload, second.Payload) {
			t.Error("the retry carries another payload")
		}
		l.ack(first.EnvelopeID) // late, for the first attempt
		testkit.Eventually(t, "acked", func() bool { return s.Event(p.EventID).Acked })
		if e := s.Event(p.EventID); e.Deliveries != 2 || e.Acks != 1 {
			t.Errorf("event %+v", e)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		s := newServer(t, slacktest.WithRetrySchedule(50*time.Millisecond))
		l := dial(t, s)
		p := s.PostMessage(chanID, person, "one", "")
		l.read()
		l.read()
		testkit.Eventually(t, "expired", func() bool { return s.Event(p.EventID).Expired })
		if st := s.Stats(); st.Expired != 1 || st.Pending != 0 || st.Envelopes != 2 || st.Redeliveries != 1 {
			t.Errorf("stats %+v", st)
		}
	})
	t.Run("connection lost", func(t *testing.T) {
		s := newServer(t)
		l := dial(t, s)
		p := s.PostMessage(chanID, person, "one", "")
		first := l.read()
		l.conn.Close()
		l2 := dial(t, s)
		again := l2.read()
		if again.RetryAttempt != 1 || again.RetryReason != "connection_lost" || first.EnvelopeID == again.EnvelopeID {
			t.Fatalf("redelivery %+v", again)
		}
		l2.ack(again.EnvelopeID)
		testkit.Eventually(t, "acked", func() bool { return s.Event(p.EventID).Acked })
	})
	t.Run("bad acks", func(t *testing.T) {
		s := newServer(t)
		l := dial(t, s)
		l.ack("") // what acknowledging hello would send
		l.ack("no-such-envelope")
		testkit.Eventually(t, "counted", func() bool { return s.Stats().BadAcks == 2 })
	})
}

// TestDisableSocketMode: link_disabled on the open connection and on
// every new one until enabled.
func TestDisableSocketMode(t *testing.T) {
	s := newServer(t)
	l := dial(t, s)
	s.DisableSocketMode()
	if f := l.read(); f.Type != "disconnect" || f.Reason != "link_disabled" {
		t.Fatalf("frame %+v", f)
	}
	_, url, err := client(t, s, slacktest.BotToken).StartSocketModeContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	conn, resp, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	defer conn.Close()
	var req socketmode.Request
	if err := conn.ReadJSON(&req); err != nil || req.Type != "disconnect" || req.Reason != "link_disabled" {
		t.Fatalf("new connection got %+v, %v", req, err)
	}
	s.EnableSocketMode()
	dial(t, s)
}

// TestWebAPI: answers and error codes of the methods the provider uses.
func TestWebAPI(t *testing.T) {
	s := newServer(t)
	bot := client(t, s, slacktest.BotToken)
	ctx := context.Background()
	root := s.PostMessage(chanID, person, "a person's message", "")
	_, mine, err := bot.PostMessageContext(ctx, chanID, slack.MsgOptionText("A · alpha", false))
	if err != nil {
		t.Fatal(err)
	}
	code := func(err error) string {
		var se slack.SlackErrorResponse
		if errors.As(err, &se) {
			return se.Err
		}
		if err != nil {
			return err.Error()
		}
		return ""
	}
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"post", func() error {
			_, _, err := bot.PostMessageContext(ctx, chanID, slack.MsgOptionText("x", false))
			return err
		}, ""},
		{"unknown channel", func() error {
			_, _, err := bot.PostMessageContext(ctx, "C0NONE", slack.MsgOptionText("x", false))
			return err
		}, "channel_not_found"},
		{"not a member", func() error {
			_, _, err := bot.PostMessageContext(ctx, "C0OUTSIDE", slack.MsgOptionText("x", false))
			return err
		}, "not_in_channel"},
		{"no text", func() error { _, _, err := bot.PostMessageContext(ctx, chanID); return err }, "no_text"},
		{"too long", func() error {
			_, _, err := bot.PostMessageContext(ctx, chanID, slack.MsgOptionText(strings.Repeat("x", 40001), false))
			return err
		}, "msg_too_long"},
		{"reply", func() error {
			_, _, err := bot.PostMessageContext(ctx, chanID, slack.MsgOptionText("x", false), slack.MsgOptionTS(mine))
			return err
		}, ""},
		{"reply to nothing (posted at the top level)", func() error {
			_, _, err := bot.PostMessageContext(ctx, chanID, slack.MsgOptionText("x", false), slack.MsgOptionTS("1.000001"))
			return err
		}, ""},
		{"update someone else's", func() error {
			_, _, _, err := bot.UpdateMessageContext(ctx, chanID, root.TS, slack.MsgOptionText("x", false))
			return err
		}, "cant_update_message"},
		{"update nothing", func() error {
			_, _, _, err := bot.UpdateMessageContext(ctx, chanID, "1.000001", slack.MsgOptionText("x", false))
			return err
		}, "message_not_found"},
		{"react", func() error { return bot.AddReactionContext(ctx, "eyes", slack.NewRefToMessage(chanID, root.TS)) }, ""},
		{"react twice", func() error { return bot.AddReactionContext(ctx, "eyes", slack.NewRefToMessage(chanID, root.TS)) }, "already_reacted"},
		{"unreact nothing", func() error { return bot.RemoveReactionContext(ctx, "lock", slack.NewRefToMessage(chanID, root.TS)) }, "no_reaction"},
		{"app token on a bot method", func() error {
			_, _, err := client(t, s, slacktest.AppToken).PostMessageContext(ctx, chanID, slack.MsgOptionText("x", false))
			return err
		}, "not_allowed_token_type"},
		{"bad token", func() error { _, err := client(t, s, "xoxb-wrong").AuthTestContext(ctx); return err }, "invalid_auth"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := code(tc.call()); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	replies := s.Sent(chanID, mine)
	if len(replies) != 1 || replies[0].ThreadTS != mine {
		t.Errorf("replies in the bot's thread: %+v", replies)
	}

	t.Run("rate limit", func(t *testing.T) {
		s.Fail("chat.postMessage", slacktest.Fault{Status: http.StatusTooManyRequests, RetryAfter: 7})
		_, _, err := bot.PostMessageContext(ctx, chanID, slack.MsgOptionText("x", false))
		var rl *slack.RateLimitedError
		if !errors.As(err, &rl) || rl.RetryAfter != 7*time.Second {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("revoked", func(t *testing.T) {
		s.Revoke()
		defer s.Restore()
		if _, err := bot.AuthTestContext(ctx); code(err) != "token_revoked" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("json body", func(t *testing.T) {
		body := `{"channel":"` + chanID + `","text":"json","thread_ts":"` + mine + `","blocks":[{"type":"section","text":{"type":"mrkdwn","text":"*hi*"}}]}`
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"chat.postMessage", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		req.Header.Set("Authorization", "Bearer "+slacktest.BotToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ans struct {
			OK      bool   `json:"ok"`
			TS      string `json:"ts"`
			Message struct {
				ThreadTS string          `json:"thread_ts"`
				Blocks   json.RawMessage `json:"blocks"`
			} `json:"message"`
		}
		json.NewDecoder(resp.Body).Decode(&ans)
		if !ans.OK || ans.Message.ThreadTS != mine || !strings.Contains(string(ans.Message.Blocks), "*hi*") {
			t.Fatalf("answer %+v", ans)
		}
		http.DefaultClient.CloseIdleConnections()
	})
}

// TestFiles: the external upload flow as slack-go does it shares the file
// into a thread; url_private serves it with the bot token and answers the
// sign-in page without.
func TestFiles(t *testing.T) {
	s := newServer(t)
	bot := client(t, s, slacktest.BotToken)
	ctx := context.Background()
	_, root, err := bot.PostMessageContext(ctx, chanID, slack.MsgOptionText("A · alpha", false))
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("file contents\n")
	f, err := bot.UploadFileContext(ctx, slack.UploadFileParameters{Reader: bytes.NewReader(data), FileSize: len(data),
		Filename: "notes.txt", Channel: chanID, ThreadTimestamp: root})
	if err != nil {
		t.Fatal(err)
	}
	sent := s.Sent(chanID, root)
	if len(sent) != 1 || len(sent[0].Files) != 1 || sent[0].Files[0] != f.ID {
		t.Fatalf("thread holds %+v", sent)
	}
	info, _, _, err := bot.GetFileInfoContext(ctx, f.ID, 0, 0)
	if err != nil || info.Size != len(data) || info.Mimetype != "text/plain; charset=utf-8" {
		t.Fatalf("files.info: %+v %v", info, err)
	}
	var got bytes.Buffer
	if err := bot.GetFileContext(ctx, info.URLPrivateDownload, &got); err != nil || got.String() != string(data) {
		t.Fatalf("download: %q %v", got.String(), err)
	}
	resp, err := http.Get(info.URLPrivate)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || bytes.Contains(page, data) {
		t.Errorf("without the token: %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), page)
	}
}

// post calls a Web API method with a JSON body and the bot token and
// returns the answer.
func post(t *testing.T, s *slacktest.Server, method, body string) map[string]any {
	t.Helper()
	_, raw := postRaw(t, s, method, body)
	var ans map[string]any
	if err := json.Unmarshal(raw, &ans); err != nil {
		t.Fatalf("%s: %v: %s", method, err, raw)
	}
	return ans
}

// postRaw is post's HTTP answer as it is.
func postRaw(t *testing.T, s *slacktest.Server, method, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL()+method, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Authorization", "Bearer "+slacktest.BotToken)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, raw
}

func answerError(ans map[string]any) string {
	if ans["ok"] == true {
		return ""
	}
	e, _ := ans["error"].(string)
	return e
}

// TestDeletedRoot: a reply into a thread whose root was deleted before
// anyone replied is posted at the channel's top level and answered ok,
// the answer's message without thread_ts (what Slack does); a root
// deleted after a reply stays a thread.
func TestDeletedRoot(t *testing.T) {
	s := newServer(t)
	root := s.PostMessage(chanID, person, "a root", "")
	s.DeleteMessage(chanID, root.TS)
	ans := post(t, s, "chat.postMessage", `{"channel":"`+chanID+`","thread_ts":"`+root.TS+`","text":"reply"}`)
	msg, _ := ans["message"].(map[string]any)
	if answerError(ans) != "" || msg == nil || msg["thread_ts"] != nil || ans["ts"] == "" {
		t.Fatalf("answer %v, want ok with a message without thread_ts", ans)
	}
	if top := s.Sent(chanID, ""); len(top) != 1 || top[0].Text != "reply" || top[0].TS != ans["ts"] {
		t.Errorf("top level %+v", top)
	}

	answered := s.PostMessage(chanID, person, "another root", "")
	s.PostMessage(chanID, person, "a reply", answered.TS)
	s.DeleteMessage(chanID, answered.TS)
	ans = post(t, s, "chat.postMessage", `{"channel":"`+chanID+`","thread_ts":"`+answered.TS+`","text":"still threaded"}`)
	msg, _ = ans["message"].(map[string]any)
	if answerError(ans) != "" || msg["thread_ts"] != answered.TS {
		t.Fatalf("answer %v, want the reply in the tombstone's thread", ans)
	}
}

// TestBlocksAndReactions: Block Kit is checked as Slack checks it;
// chat.update keeps blocks it does not name and removes them on [];
// reactions take names, not emoji; conversations.info and the bot's
// membership.
func TestBlocksAndReactions(t *testing.T) {
	s := newServer(t)
	button := func(action, value, label string) string {
		return `{"type":"button","action_id":"` + action + `","value":"` + value + `","text":{"type":"plain_text","text":"` + label + `"}}`
	}
	blocks := func(section, buttons string) string {
		return `[{"type":"section","text":{"type":"mrkdwn","text":"` + section + `"}},{"type":"actions","block_id":"b","elements":[` + buttons + `]}]`
	}
	tests := []struct {
		name, blocks, want string
	}{
		{"buttons", blocks("*hi*", button("a0", "yes", "Yes")+","+button("a1", "no", "No")), ""},
		{"not a list", `{"type":"section"}`, "invalid_blocks"},
		{"unknown type", `[{"type":"carousel"}]`, "invalid_blocks"},
		{"section text too long", blocks(strings.Repeat("x", 3001), button("a0", "v", "l")), "invalid_blocks"},
		{"empty section", `[{"type":"section","text":{"type":"mrkdwn","text":""}}]`, "invalid_blocks"},
		{"label too long", blocks("x", button("a0", "v", strings.Repeat("l", 76))), "invalid_blocks"},
		{"label in mrkdwn", blocks("x", `{"type":"button","action_id":"a","value":"v","text":{"type":"mrkdwn","text":"l"}}`), "invalid_blocks"},
		{"action ids twice", blocks("x", button("a0", "v", "l")+","+button("a0", "w", "m")), "invalid_blocks"},
		{"no buttons", blocks("x", ""), "invalid_blocks"},
	}
	var ts string
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ans := post(t, s, "chat.postMessage", `{"channel":"`+chanID+`","text":"fallback","blocks":`+tc.blocks+`}`)
			if got := answerError(ans); got != tc.want {
				t.Fatalf("got %q, want %q (%v)", got, tc.want, ans)
			}
			if tc.want == "" {
				ts, _ = ans["ts"].(string)
			}
		})
	}
	m, _ := s.Message(chanID, ts)
	if bs := m.Buttons(); len(bs) != 2 || bs[1] != (slacktest.Button{ActionID: "a1", Value: "no", Label: "No"}) || m.Text != "fallback" ||
		!slices.Equal(m.SectionTexts(), []string{"*hi*"}) {
		t.Fatalf("message %+v, buttons %+v", m, bs)
	}
	post(t, s, "chat.update", `{"channel":"`+chanID+`","ts":"`+ts+`","text":"edited"}`)
	if m, _ := s.Message(chanID, ts); len(m.Buttons()) != 2 || m.Text != "edited" {
		t.Errorf("after an update naming no blocks: %+v", m)
	}
	post(t, s, "chat.update", `{"channel":"`+chanID+`","ts":"`+ts+`","text":"no buttons","blocks":[]}`)
	if m, _ := s.Message(chanID, ts); len(m.Buttons()) != 0 || m.Blocks != nil || m.Text != "no buttons" {
		t.Errorf("after an update with blocks []: %+v", m)
	}

	for name, want := range map[string]string{"eyes": "", ":white_check_mark:": "", "+1::skin-tone-3": "", "👀": "invalid_name", "": "invalid_name", "Eyes": "invalid_name"} {
		ans := post(t, s, "reactions.add", `{"channel":"`+chanID+`","timestamp":"`+ts+`","name":"`+name+`"}`)
		if got := answerError(ans); got != want {
			t.Errorf("reactions.add %q: %q, want %q", name, got, want)
		}
	}

	info := func(id string) (bool, string) {
		ans := post(t, s, "conversations.info", `{"channel":"`+id+`"}`)
		c, _ := ans["channel"].(map[string]any)
		member, _ := c["is_member"].(bool)
		return member, answerError(ans)
	}
	if m, code := info(chanID); !m || code != "" {
		t.Errorf("conversations.info of a member's channel: %v %q", m, code)
	}
	if _, code := info("C0NONE"); code != "channel_not_found" {
		t.Errorf("conversations.info of no channel: %q", code)
	}
	s.SetMember(chanID, false)
	if m, _ := info(chanID); m {
		t.Error("still a member after removal")
	}
	if code := answerError(post(t, s, "chat.postMessage", `{"channel":"`+chanID+`","text":"x"}`)); code != "not_in_channel" {
		t.Errorf("posting after removal: %q", code)
	}
	s.SetMember(chanID, true)
	if m, _ := info(chanID); !m {
		t.Error("not a member after the invitation")
	}
}

// TestRateLimits: with rate limits on, a channel takes a burst of three
// messages and then one a second, another channel has its own bucket,
// and a tier method is refused once its minute is spent; a refusal is
// Slack's: HTTP 429, Retry-After in whole seconds, ratelimited, and
// posts nothing.
func TestRateLimits(t *testing.T) {
	limits := slacktest.SlackLimits
	limits.Tier3 = 2
	s := newServer(t, slacktest.WithRateLimits(limits))
	s.AddChannel("C0SECOND", "second", true)
	var ts string
	for i := range 3 {
		ans := post(t, s, "chat.postMessage", `{"channel":"`+chanID+`","text":"burst"}`)
		if answerError(ans) != "" {
			t.Fatalf("message %d of the burst: %v", i, ans)
		}
		ts, _ = ans["ts"].(string)
	}
	resp, body := postRaw(t, s, "chat.postMessage", `{"channel":"`+chanID+`","text":"one too many"}`)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" || string(body) != `{"ok":false,"error":"ratelimited"}` {
		t.Fatalf("a fourth message at once: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if ans := post(t, s, "chat.postMessage", `{"channel":"C0SECOND","text":"elsewhere"}`); answerError(ans) != "" {
		t.Fatalf("another channel: %v", ans)
	}
	for i := range 2 {
		if ans := post(t, s, "chat.update", `{"channel":"`+chanID+`","ts":"`+ts+`","text":"edited"}`); answerError(ans) != "" {
			t.Fatalf("update %d: %v", i, ans)
		}
	}
	s.PostMessage(chanID, person, "hello", "")
	_, err := client(t, s, slacktest.BotToken).PostEphemeral(chanID, person, slack.MsgOptionText("a Tier 4 method has room", false))
	if err != nil {
		t.Fatalf("postEphemeral: %v", err)
	}
	_, _, _, err = client(t, s, slacktest.BotToken).UpdateMessage(chanID, ts, slack.MsgOptionText("third", false))
	var rl *slack.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter < 59*time.Second || rl.RetryAfter > time.Minute {
		t.Fatalf("a third update in a minute of Tier 3's two: %v", err)
	}
	if got := len(s.Sent(chanID, "")); got != 3 {
		t.Errorf("%d messages in the channel, want the burst's 3", got)
	}
	if m, _ := s.Message(chanID, ts); m.Text != "edited" {
		t.Errorf("the refused update changed the message: %q", m.Text)
	}
	if n := s.RateLimited(); n != 2 {
		t.Errorf("RateLimited %d, want 2", n)
	}
}
