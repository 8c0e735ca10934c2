package slack_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/chatbus/chatbus/internal/testkit"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/render"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
)

// verb makes a message verb as the supervisor does: a Call with the
// verb's name and its params message as JSON. It returns the message ids
// of the result.
func (r *rig) verb(t *providerv1.Target, name string, params proto.Message) ([]string, error) {
	r.t.Helper()
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(params)
	if err != nil {
		r.t.Fatal(err)
	}
	resp, err := r.h.Client.Call(testCtx(r.t), &providerv1.CallRequest{Method: name, ParamsJson: b, Target: t})
	if err != nil {
		return nil, err
	}
	var res providerv1.VerbResult
	if err := protojson.Unmarshal(resp.GetResultJson(), &res); err != nil {
		r.t.Fatalf("verb result %s: %v", resp.GetResultJson(), err)
	}
	return res.GetMessageIds(), nil
}

func texts(ms []slacktest.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

// TestSend: Markdown arrives as mrkdwn, a long text as several messages
// in order, buttons as Block Kit under the last one with the text as
// fallback; reply_to changes nothing of what is posted.
func TestSend(t *testing.T) {
	r := newRig(t, rigConfig{})
	th := r.provision("A · alpha")
	inbound := r.st.PostMessage(chanID, person, "question", th.GetThread())
	long := strings.Repeat("word ", 700) + "\n\n" + strings.Repeat("more ", 400) // 3,500 + 2,000 characters
	tests := []struct {
		name    string
		params  *providerv1.SendParams
		want    []string
		buttons []slacktest.Button
	}{
		{name: "plain", params: &providerv1.SendParams{Text: "hello"}, want: []string{"hello"}},
		{name: "markdown", params: &providerv1.SendParams{Text: "Run **make test** then `go vet`, see [the docs](https://example.com/d?a=1&b=2)."},
			want: []string{"Run *make test* then `go vet`, see <https://example.com/d?a=1&amp;b=2|the docs>."}},
		{name: "fenced block", params: &providerv1.SendParams{Text: "```go\nfunc main() {}\n```"}, want: []string{"```\nfunc main() {}\n```"}},
		{name: "escaped", params: &providerv1.SendParams{Text: "a < b & c"}, want: []string{"a &lt; b &amp; c"}},
		{name: "reply_to", params: &providerv1.SendParams{Text: "answer", ReplyTo: inbound.TS}, want: []string{"answer"}},
		{name: "long", params: &providerv1.SendParams{Text: long}, want: render.Slack(long, 0)},
		{name: "buttons", params: &providerv1.SendParams{Text: "**Allow?**", Prompt: true, Buttons: []*providerv1.Button{
			{Label: "✅ Allow", Data: "perm:allow:abcde"}, {Label: "❌ Deny", Data: "perm:deny:abcde"}}},
			want: []string{"*Allow?*"}, buttons: []slacktest.Button{
				{ActionID: "chatbus-0", Value: "perm:allow:abcde", Label: "✅ Allow"}, {ActionID: "chatbus-1", Value: "perm:deny:abcde", Label: "❌ Deny"}}},
		{name: "long with buttons", params: &providerv1.SendParams{Text: long, Buttons: []*providerv1.Button{{Label: "OK", Data: "ok"}}},
			want: render.Slack(long, 0), buttons: []slacktest.Button{{ActionID: "chatbus-0", Value: "ok", Label: "OK"}}},
	}
	if len(render.Slack(long, 0)) != 2 {
		t.Fatalf("the long text renders to %d parts, want 2", len(render.Slack(long, 0)))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(r.st.Sent(chanID, th.GetThread()))
			ids, err := r.verb(th, provider.VerbSend, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			sent := r.st.Sent(chanID, th.GetThread())[before:]
			if got := texts(sent); !slices.Equal(got, tc.want) {
				t.Fatalf("sent %q, want %q", got, tc.want)
			}
			for i, m := range sent {
				if ids[i] != m.TS {
					t.Errorf("ids %v, messages %+v", ids, sent)
				}
				last := i == len(sent)-1
				if bs := m.Buttons(); !last || tc.buttons == nil {
					if len(bs) != 0 || m.Blocks != nil {
						t.Errorf("part %d has blocks: %s", i, m.Blocks)
					}
				} else if !slices.Equal(bs, tc.buttons) || !slices.Equal(m.SectionTexts(), []string{m.Text}) {
					t.Errorf("last part: buttons %+v, sections %q; want %+v under its text", bs, m.SectionTexts(), tc.buttons)
				}
			}
		})
	}
	_, err := r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: "   \n "})
	wantCode(t, err, codes.InvalidArgument, "")
}

// TestSendPartsFail: a later part asked to wait (429) is sent after the
// wait; a later part refused makes the whole send's outcome unknown,
// naming what was sent, since a retry would send the first part again.
func TestSendPartsFail(t *testing.T) {
	r := newRig(t, rigConfig{})
	th := r.provision("A · alpha")
	long := strings.Repeat("word ", 700) + "\n\n" + strings.Repeat("more ", 400)

	// The first part goes, the second meets a 429 (Retry-After 1s) and
	// goes after it.
	r.st.Fail("chat.postMessage", slacktest.Fault{})
	r.st.Fail("chat.postMessage", slacktest.Fault{Status: 429, RetryAfter: 1})
	ids, err := r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: long})
	if err != nil || len(ids) != 2 || len(r.st.Sent(chanID, th.GetThread())) != 2 {
		t.Fatalf("send through a 429 on part 2: %v %v; thread %q", ids, err, texts(r.st.Sent(chanID, th.GetThread())))
	}

	r.st.Fail("chat.postMessage", slacktest.Fault{})
	r.st.Fail("chat.postMessage", slacktest.Fault{Error: "msg_too_long"})
	_, err = r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: long})
	wantCode(t, err, codes.Unknown, "")
	sent := r.st.Sent(chanID, th.GetThread())
	if len(sent) != 3 || !strings.Contains(err.Error(), sent[2].TS) {
		t.Errorf("error %v; thread %q: want the first part sent and named", err, texts(sent))
	}

	// The first part refused: a clean failure, nothing sent.
	r.st.Fail("chat.postMessage", slacktest.Fault{Error: "invalid_arguments"})
	_, err = r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: "x"})
	wantCode(t, err, codes.InvalidArgument, "")
	if n := len(r.st.Sent(chanID, th.GetThread())); n != 3 {
		t.Errorf("%d messages after a refused send, want 3", n)
	}
}

// TestEdit: an edit replaces the text (mrkdwn) and the buttons; naming
// none removes them; a text longer than one message is refused.
func TestEdit(t *testing.T) {
	r := newRig(t, rigConfig{})
	th := r.provision("A · alpha")
	ids, err := r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: "pick", Buttons: []*providerv1.Button{{Label: "A", Data: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := ids[0]
	tests := []struct {
		name    string
		params  *providerv1.EditParams
		code    codes.Code
		text    string
		buttons []slacktest.Button
	}{
		{name: "new buttons", params: &providerv1.EditParams{MessageId: id, Text: "pick _again_", Buttons: []*providerv1.Button{{Label: "B", Data: "b"}}},
			text: "pick _again_", buttons: []slacktest.Button{{ActionID: "chatbus-0", Value: "b", Label: "B"}}},
		{name: "buttons removed", params: &providerv1.EditParams{MessageId: id, Text: "**done**"}, text: "*done*"},
		{name: "too long", params: &providerv1.EditParams{MessageId: id, Text: strings.Repeat("x ", 2000)}, code: codes.InvalidArgument, text: "*done*"},
		{name: "blank", params: &providerv1.EditParams{MessageId: id, Text: " "}, code: codes.InvalidArgument, text: "*done*"},
		{name: "gone", params: &providerv1.EditParams{MessageId: "1700000000.000001", Text: "x"}, code: codes.NotFound, text: "*done*"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.verb(th, provider.VerbEdit, tc.params)
			wantCode(t, err, tc.code, "")
			if tc.code == codes.OK && !slices.Equal(got, []string{id}) {
				t.Errorf("ids %v, want %s", got, id)
			}
			m, _ := r.st.Message(chanID, id)
			if m.Text != tc.text || !slices.Equal(m.Buttons(), tc.buttons) {
				t.Errorf("message %q with buttons %+v, want %q with %+v", m.Text, m.Buttons(), tc.text, tc.buttons)
			}
		})
	}
}

// TestReact: a reaction is set by Slack's name for the emoji; one the bot
// has already is done; an emoji without a Slack name is refused before
// Slack is asked.
func TestReact(t *testing.T) {
	r := newRig(t, rigConfig{})
	th := r.provision("A · alpha")
	msg := r.st.PostMessage(chanID, person, "look", th.GetThread())
	tests := []struct {
		name, emoji, want string
		code              codes.Code
	}{
		{name: "emoji", emoji: "👀", want: "eyes"},
		{name: "again", emoji: "👀", want: "eyes"},
		{name: "with a tone", emoji: "👍🏽", want: "+1::skin-tone-4"},
		{name: "a name", emoji: ":tada:", want: "tada"},
		{name: "no name", emoji: "👀👀", code: codes.InvalidArgument},
		{name: "not an emoji", emoji: "ok", want: "ok"}, // a name as far as the provider can tell
		{name: "not an emoji at all", emoji: "ok then", code: codes.InvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := r.st.Calls("reactions.add")
			_, err := r.verb(th, provider.VerbReact, &providerv1.ReactParams{MessageId: msg.TS, Emoji: tc.emoji})
			wantCode(t, err, tc.code, "")
			m, _ := r.st.Message(chanID, msg.TS)
			if tc.code != codes.OK {
				if r.st.Calls("reactions.add") != calls {
					t.Error("Slack was asked")
				}
				return
			}
			if !slices.Equal(m.Reactions[tc.want], []string{slacktest.BotUserID}) {
				t.Errorf("reactions %v, want the bot's %s", m.Reactions, tc.want)
			}
		})
	}
}

// TestButtonPress: a press of a button the send verb made reaches the
// supervisor as a CALLBACK_QUERY with the button's data, an interaction
// to answer and the message; the answer is an ephemeral message in the
// thread to the presser; the platform has no typing verb.
func TestButtonPress(t *testing.T) {
	r := newRig(t, rigConfig{})
	j := r.journal()
	th := r.provision("A · alpha")
	r.st.PostMessage(chanID, person, "go ahead", th.GetThread()) // the person is in the channel
	ids, err := r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: "allow?", Prompt: true,
		Buttons: []*providerv1.Button{{Label: "Allow", Data: "perm:allow:abcde"}, {Label: "Deny", Data: "perm:deny:abcde"}}})
	if err != nil {
		t.Fatal(err)
	}
	press := r.st.PressButton(chanID, ids[0], person, "", "perm:deny:abcde")
	u := j.update("trigger:" + press)
	interaction := person + "/" + press
	if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY || u.GetText() != "perm:deny:abcde" || u.GetThread() != th.GetThread() ||
		!slices.Equal(refs(u), []string{"interaction:" + interaction, "message:" + ids[0]}) {
		t.Fatalf("press %v (refs %v)", u, refs(u))
	}
	testkit.Eventually(t, "the press acknowledged", func() bool { return r.st.Event(press).Acked })

	if _, err := r.verb(th, provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: interaction, Text: "❌ Denied"}); err != nil {
		t.Fatal(err)
	}
	eph := r.st.Ephemeral(chanID)
	if len(eph) != 1 || eph[0].User != person || eph[0].Text != "❌ Denied" || eph[0].ThreadTS != th.GetThread() {
		t.Errorf("ephemeral %+v", eph)
	}
	if _, err := r.verb(th, provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: interaction}); err != nil || len(r.st.Ephemeral(chanID)) != 1 {
		t.Errorf("an answer without text: %v; it posts nothing (%d ephemeral)", err, len(r.st.Ephemeral(chanID)))
	}
	_, err = r.verb(th, provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: press, Text: "x"})
	wantCode(t, err, codes.InvalidArgument, "")
	_, err = r.verb(th, provider.VerbTyping, &providerv1.TypingParams{})
	wantCode(t, err, codes.Unimplemented, "")
}

// TestSendDeletedRoot: a send into a thread whose root was deleted before
// anyone replied: Slack posts at the top level and answers ok; the
// provider takes it back and reports the thread gone. When Slack asks it
// to wait before it takes the stray message back (429), it waits and
// takes it back, so no copy stays at the channel's top level.
func TestSendDeletedRoot(t *testing.T) {
	for _, tt := range []struct {
		name    string
		limited bool // the first chat.delete is answered 429
		deletes int
	}{
		{"taken back", false, 1},
		{"taken back after the wait Slack asks for", true, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, rigConfig{})
			th := r.provision("A · alpha")
			r.st.DeleteMessage(chanID, th.GetThread())
			if tt.limited {
				r.st.Fail("chat.delete", slacktest.Fault{Status: 429, RetryAfter: 1})
			}
			_, err := r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: "hello?"})
			wantCode(t, err, codes.NotFound, provider.ReasonTargetGone)
			if top := r.st.Sent(chanID, ""); len(top) != 0 || r.st.Calls("chat.delete") != tt.deletes {
				t.Errorf("top level %+v, %d deletes: the stray message stayed", top, r.st.Calls("chat.delete"))
			}
		})
	}
}

// TestDescribeVerbs: the verbs Slack has; only react is idempotent.
func TestDescribeVerbs(t *testing.T) {
	r := newRig(t, rigConfig{})
	d, err := r.h.Client.Describe(testCtx(t), &providerv1.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range d.GetVerbs() {
		got = append(got, fmt.Sprintf("verb %s:%v", v.GetName(), v.GetIdempotent()))
	}
	want := []string{"verb send:false", "verb edit:false", "verb react:true", "verb answer:false"}
	if !slices.Equal(got, want) {
		t.Errorf("declared %v, want %v", got, want)
	}
}

// TestNotInChannel: a bot that is not in its channel is NOT_SERVING with
// what to do, and serves by itself once invited; removed, it says so
// again; a post refused with not_in_channel says so too.
func TestNotInChannel(t *testing.T) {
	notServing := func(r *rig, sub string) func() bool {
		return func() bool {
			st, why := r.healthOf()
			return st == grpc_health_v1.HealthCheckResponse_NOT_SERVING && strings.Contains(why, sub)
		}
	}
	serving := func(r *rig) func() bool {
		return func() bool { st, _ := r.healthOf(); return st == grpc_health_v1.HealthCheckResponse_SERVING }
	}
	t.Run("invited later", func(t *testing.T) {
		r := newRig(t, rigConfig{})
		r.st.SetMember(chanID, false)
		r.journal()
		testkit.Eventually(t, "NOT_SERVING", notServing(r, "/invite @chatbus"))
		_, why := r.healthOf()
		if !strings.Contains(why, chanID) || !strings.Contains(why, "not_in_channel") {
			t.Errorf("reason %q", why)
		}
		r.st.SetMember(chanID, true)
		testkit.Eventually(t, "SERVING once invited", serving(r))
		th := r.provision("A · alpha")
		if _, err := r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: "here"}); err != nil {
			t.Fatal(err)
		}
		r.st.SetMember(chanID, false)
		testkit.Eventually(t, "NOT_SERVING once removed", notServing(r, "/invite @chatbus"))
		r.st.SetMember(chanID, true)
		testkit.Eventually(t, "SERVING again", serving(r))
	})
	t.Run("without the event", func(t *testing.T) {
		// Slack sends member_joined_channel only to an app subscribed to
		// it: conversations.info is asked again every auth_retry.
		r := newRig(t, rigConfig{})
		r.journal()
		th := r.provision("A · alpha")
		// The look at start goes first (one asked after the refusal would
		// rightly find the bot in the channel; one asked before it and
		// answered after it is dropped: the next subtest).
		testkit.Eventually(t, "the look at start", func() bool { return r.st.Calls("conversations.info") >= 1 })
		looks := r.st.Calls("conversations.info")
		r.st.Fail("chat.postMessage", slacktest.Fault{Error: "not_in_channel"})
		_, err := r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: "x"})
		wantCode(t, err, codes.PermissionDenied, "")
		// The stand-in still has the bot in the channel: the next look
		// finds it there.
		testkit.Eventually(t, "SERVING after conversations.info", serving(r))
		if n := r.st.Calls("conversations.info"); n <= looks {
			t.Errorf("conversations.info called %d times, none after the refusal", n)
		}
	})
	t.Run("a look answered after the refusal", func(t *testing.T) {
		// The look at start is held until after a post was refused: its
		// "member" answer is older than the refusal and must not undo it.
		r := newRig(t, rigConfig{})
		r.st.Fail("conversations.info", slacktest.Fault{Delay: time.Second})
		r.journal()
		th := r.provision("A · alpha")
		testkit.Eventually(t, "the look at start asked", func() bool { return r.st.Calls("conversations.info") >= 1 })
		r.st.Fail("chat.postMessage", slacktest.Fault{Error: "not_in_channel"})
		_, err := r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: "x"})
		wantCode(t, err, codes.PermissionDenied, "")
		testkit.Eventually(t, "SERVING after a later look", serving(r))
		if n := r.st.Calls("conversations.info"); n < 2 {
			t.Errorf("SERVING after %d conversations.info: the look asked before the refusal undid it", n)
		}
	})
	t.Run("no channels:read", func(t *testing.T) {
		r := newRig(t, rigConfig{})
		r.st.FailAlways("conversations.info", slacktest.Fault{Error: "missing_scope"})
		r.journal()
		th := r.provision("A · alpha")
		r.st.Fail("chat.postMessage", slacktest.Fault{Error: "not_in_channel"})
		_, err := r.verb(th, provider.VerbSend, &providerv1.SendParams{Text: "x"})
		wantCode(t, err, codes.PermissionDenied, "")
		testkit.Eventually(t, "NOT_SERVING, naming the scope", notServing(r, "channels:read"))
		r.st.ClearFaults()
		testkit.Eventually(t, "SERVING once the scope is there", serving(r))
	})
}
