package discord_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/discord"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
)

// button is a component as the stand-in keeps it.
type button struct {
	Type     int    `json:"type"`
	Style    int    `json:"style"`
	Label    string `json:"label"`
	CustomID string `json:"custom_id"`
}

// buttonRows reads a message's action rows.
func buttonRows(t *testing.T, m discordtest.Message) [][]button {
	t.Helper()
	var rows [][]button
	for _, raw := range m.Components {
		var row struct {
			Type       int      `json:"type"`
			Components []button `json:"components"`
		}
		if err := json.Unmarshal(raw, &row); err != nil || row.Type != 1 {
			t.Fatalf("component %s is not an action row", raw)
		}
		rows = append(rows, row.Components)
	}
	return rows
}

func sentIDs(res provider.Result) []string {
	var ids []string
	for _, r := range res.Refs {
		if r.Kind == provider.RefMessage {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func verbCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestVerbsDeclared: the five verbs, send idempotent (its nonces), the
// typing indicator's ten seconds.
func TestVerbsDeclared(t *testing.T) {
	f := newFixture(t)
	var got []string
	for _, v := range f.p.Describe().Verbs {
		got = append(got, fmt.Sprintf("%s:%v:%v", v.Name, v.Idempotent, v.Lasts))
	}
	if want := []string{"send:true:0s", "edit:false:0s", "react:false:0s", "typing:false:10s", "answer:false:0s"}; !slices.Equal(got, want) {
		t.Errorf("verbs %v, want %v", got, want)
	}
}

// TestSend: the Markdown as Discord renders it, cut at 2,000 characters
// with every part valid (a fenced block closed and opened again), the
// reply on the first part, the buttons under the last (rows of five;
// a prompt's yes green, its no red), mentions that ping nobody at large.
func TestSend(t *testing.T) {
	f := newFixture(t)
	alpha := f.thread(f.p, "A · alpha")
	theirs := f.dc.PostMessage(alpha.Thread, f.alice, "run the tests")
	code := strings.Repeat("fmt.Println(\"a line of go\")\n", 100) // 2,800 characters
	long := "Run **make test** then `go vet`:\n\n```go\n" + code + "```\n\nDone."
	eight := func() []provider.Button {
		var bs []provider.Button
		for i := range 8 {
			bs = append(bs, provider.Button{Label: fmt.Sprintf("Option %d", i+1), Data: fmt.Sprintf("opt:%d", i+1)})
		}
		return bs
	}()
	tests := []struct {
		name  string
		m     provider.Message
		check func(t *testing.T, msgs []discordtest.Message)
	}{
		{"plain", provider.Message{Text: "hello @everyone"}, func(t *testing.T, msgs []discordtest.Message) {
			if len(msgs) != 1 || msgs[0].Content != "hello @everyone" || msgs[0].MentionEveryone || len(msgs[0].Components) != 0 {
				t.Errorf("sent %+v", msgs)
			}
		}},
		{"Markdown kept, cut at 2,000 with the fence closed and opened again", provider.Message{Text: long, ReplyTo: theirs.ID}, func(t *testing.T, msgs []discordtest.Message) {
			if len(msgs) < 2 {
				t.Fatalf("%d messages", len(msgs))
			}
			var joined []string
			for i, m := range msgs {
				if n := utf8.RuneCountInString(m.Content); n > 2000 {
					t.Errorf("part %d: %d characters", i, n)
				}
				if strings.Count(m.Content, "```")%2 != 0 {
					t.Errorf("part %d has an unclosed fence:\n%s", i, m.Content)
				}
				if (m.MessageReference != nil) != (i == 0) {
					t.Errorf("part %d: reference %+v", i, m.MessageReference)
				}
				joined = append(joined, m.Content)
			}
			if !strings.HasPrefix(msgs[0].Content, "Run **make test** then `go vet`:") || !strings.HasPrefix(msgs[1].Content, "```go\n") {
				t.Errorf("parts start %q / %q", msgs[0].Content[:40], msgs[1].Content[:10])
			}
			if msgs[0].MessageReference.MessageID != theirs.ID || msgs[0].Type != 19 {
				t.Errorf("reply %+v type %d", msgs[0].MessageReference, msgs[0].Type)
			}
			if got := strings.Count(strings.Join(joined, "\n"), "fmt.Println"); got != 100 {
				t.Errorf("%d code lines arrived, want 100", got)
			}
		}},
		{"buttons", provider.Message{Text: "pick one", Buttons: eight}, func(t *testing.T, msgs []discordtest.Message) {
			rows := buttonRows(t, msgs[0])
			if len(msgs) != 1 || len(rows) != 2 || len(rows[0]) != 5 || len(rows[1]) != 3 {
				t.Fatalf("rows %+v", rows)
			}
			if b := rows[1][2]; b.Type != 2 || b.Style != 2 || b.Label != "Option 8" || b.CustomID != "opt:8" {
				t.Errorf("button %+v", b)
			}
		}},
		{"a prompt", provider.Message{Text: "🔐 **Permission request** `abcde`: **Bash**", Prompt: true, Buttons: []provider.Button{
			{Label: "✅ Allow", Data: "perm:allow:abcde"}, {Label: "❌ Deny", Data: "perm:deny:abcde"}}}, func(t *testing.T, msgs []discordtest.Message) {
			rows := buttonRows(t, msgs[0])
			if len(rows) != 1 || rows[0][0].Style != 3 || rows[0][1].Style != 4 || rows[0][0].CustomID != "perm:allow:abcde" {
				t.Errorf("prompt rows %+v", rows)
			}
		}},
		{"buttons under the last part only", provider.Message{Text: long, Buttons: eight[:1]}, func(t *testing.T, msgs []discordtest.Message) {
			for i, m := range msgs {
				if (len(m.Components) > 0) != (i == len(msgs)-1) {
					t.Errorf("part %d components %s", i, m.Components)
				}
			}
		}},
		{"a blank text with buttons", provider.Message{Text: " \n", Buttons: eight[:2]}, func(t *testing.T, msgs []discordtest.Message) {
			if len(msgs) != 1 || msgs[0].Content != "" || len(buttonRows(t, msgs[0])[0]) != 2 {
				t.Errorf("sent %+v", msgs)
			}
		}},
		{"a reply to a message deleted meanwhile", provider.Message{Text: "late", ReplyTo: "1234567890123"}, func(t *testing.T, msgs []discordtest.Message) {
			if len(msgs) != 1 || msgs[0].MessageReference != nil {
				t.Errorf("sent %+v", msgs)
			}
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.dc.BotMessages(alpha.Thread))
			res, err := f.p.Send(verbCtx(t), alpha, tt.m, fmt.Sprintf("send-%d", i))
			if err != nil {
				t.Fatal(err)
			}
			msgs := f.dc.BotMessages(alpha.Thread)[before:]
			var ids []string
			for _, m := range msgs {
				ids = append(ids, m.ID)
			}
			if got := sentIDs(res); !slices.Equal(got, ids) {
				t.Errorf("result ids %v, sent %v", got, ids)
			}
			tt.check(t, msgs)
		})
	}
}

// TestSendRefused: what Discord would refuse is refused before any part
// is out.
func TestSendRefused(t *testing.T) {
	f := newFixture(t)
	alpha := f.thread(f.p, "A · alpha")
	many := make([]provider.Button, 26)
	for i := range many {
		many[i] = provider.Button{Label: "b", Data: fmt.Sprint(i)}
	}
	tests := []struct {
		name string
		m    provider.Message
		says string
	}{
		{"blank", provider.Message{Text: "  \n\n "}, "nothing to send"},
		{"a label over 80", provider.Message{Text: "x", Buttons: []provider.Button{{Label: strings.Repeat("l", 81), Data: "d"}}}, "label"},
		{"data over 100", provider.Message{Text: "x", Buttons: []provider.Button{{Label: "l", Data: strings.Repeat("d", 101)}}}, "data"},
		{"the same data twice", provider.Message{Text: "x", Buttons: []provider.Button{{Label: "a", Data: "d"}, {Label: "b", Data: "d"}}}, "distinct"},
		{"26 buttons", provider.Message{Text: "x", Buttons: many}, "at most 25"},
		{"reply_to not an id", provider.Message{Text: "x", ReplyTo: "../x"}, "reply_to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.p.Send(verbCtx(t), alpha, tt.m, "")
			wantErr(t, err, provider.ErrInvalid, tt.says)
		})
	}
	_, err := f.p.Send(verbCtx(t), provider.Target{Chat: "1234567890123", Thread: alpha.Thread}, provider.Message{Text: "x"}, "")
	wantErr(t, err, provider.ErrOutOfScope, "channel")
	if n := f.dc.Calls("POST /channels/{id}/messages"); n != 0 {
		t.Errorf("%d creates reached Discord", n)
	}
}

// TestSendOnce: a send made again with its key makes no part twice (each
// part's nonce); when a later part fails, the error says what went out:
// ambiguous if Discord may have taken it (the supervisor sends it all
// again, and only what is missing is made), a refusal if Discord would
// refuse it again; a rate limit on a later part is waited out.
func TestSendOnce(t *testing.T) {
	const create = "POST /channels/{id}/messages"
	long := strings.Repeat("word ", 1000) // three parts
	tests := []struct {
		name  string
		fault discordtest.Fault
		class error // nil: the send succeeds
	}{
		{"no failure", discordtest.Fault{Delay: time.Millisecond}, nil},
		{"a 500 on the second part", discordtest.Fault{Status: 500}, provider.ErrAmbiguous},
		{"a connection cut on the second part", discordtest.Fault{Hang: true}, provider.ErrAmbiguous},
		{"a 429 on the second part", discordtest.Fault{Status: 429, RetryAfter: 50 * time.Millisecond}, nil},
		{"a 403 on the second part", discordtest.Fault{Status: 403, Code: 50013, Message: "Missing Permissions"}, provider.ErrPermissionDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			// No HTTP timeout: the call's deadline alone ends a request
			// Discord does not answer.
			f.p = f.platform(func(_ *discord.Settings, o *discord.Options) { o.HTTPClient = &http.Client{} })
			alpha := f.thread(f.p, "A · alpha")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if tt.fault.Hang {
				// The call gives up on the request at its deadline.
				var c context.CancelFunc
				ctx, c = context.WithTimeout(ctx, time.Second)
				defer c()
			}
			f.dc.Fail(create, discordtest.Fault{Delay: time.Millisecond}, tt.fault)
			var (
				first provider.Result
				err   error
				done  = make(chan struct{})
			)
			go func() {
				defer close(done)
				first, err = f.p.Send(ctx, alpha, provider.Message{Text: long}, "key-1")
			}()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("the send outlived its deadline: a request Discord never answered holds it")
			}
			if tt.class != nil {
				wantErr(t, err, tt.class, "parts 1–1 of 3 were sent")
				if !strings.Contains(err.Error(), f.dc.BotMessages(alpha.Thread)[0].ID) {
					t.Errorf("%v does not name the part sent", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			// The supervisor sends it again with its key.
			again, err := f.p.Send(verbCtx(t), alpha, provider.Message{Text: long}, "key-1")
			if tt.class == provider.ErrPermissionDenied {
				return // refused again; nothing more to see
			}
			if err != nil {
				t.Fatal(err)
			}
			msgs := f.dc.BotMessages(alpha.Thread)
			if len(msgs) != 3 || !slices.Equal(sentIDs(again), []string{msgs[0].ID, msgs[1].ID, msgs[2].ID}) {
				t.Errorf("%d messages, ids %v", len(msgs), sentIDs(again))
			}
			if tt.class == nil && !slices.Equal(sentIDs(first), sentIDs(again)) {
				t.Errorf("first %v, again %v", sentIDs(first), sentIDs(again))
			}
		})
	}
}

// TestSendThreadGone: a thread deleted before or during a send is the
// supervisor's to replace.
func TestSendThreadGone(t *testing.T) {
	f := newFixture(t)
	alpha := f.thread(f.p, "A · alpha")
	f.dc.DeleteThread(alpha.Thread)
	_, err := f.p.Send(verbCtx(t), alpha, provider.Message{Text: "x"}, "k")
	wantErr(t, err, provider.ErrTargetGone, "")
	wantErr(t, f.p.Typing(verbCtx(t), alpha), provider.ErrTargetGone, "")
}

// TestEdit: content and buttons replaced, buttons removed; a text of more
// than one message, a person's message, a message that is not there are
// refused.
func TestEdit(t *testing.T) {
	f := newFixture(t)
	alpha := f.thread(f.p, "A · alpha")
	theirs := f.dc.PostMessage(alpha.Thread, f.alice, "mine")
	res, err := f.p.Send(verbCtx(t), alpha, provider.Message{Text: "pick", Buttons: []provider.Button{{Label: "A", Data: "a"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	id := sentIDs(res)[0]
	steps := []struct {
		m       provider.Message
		content string
		rows    int
	}{
		{provider.Message{Text: "pick again", Buttons: []provider.Button{{Label: "B", Data: "b"}, {Label: "C", Data: "c"}}}, "pick again", 1},
		{provider.Message{Text: "**done**"}, "**done**", 0},
	}
	for _, s := range steps {
		res, err := f.p.Edit(verbCtx(t), alpha, id, s.m)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := f.dc.Message(alpha.Thread, id)
		if m.Content != s.content || len(buttonRows(t, m)) != s.rows || m.EditedTimestamp == nil || !slices.Equal(sentIDs(res), []string{id}) {
			t.Errorf("after edit: %+v (result %v)", m, sentIDs(res))
		}
	}
	_, err = f.p.Edit(verbCtx(t), alpha, id, provider.Message{Text: strings.Repeat("word ", 500)})
	wantErr(t, err, provider.ErrInvalid, "cannot split")
	_, err = f.p.Edit(verbCtx(t), alpha, theirs.ID, provider.Message{Text: "x"})
	wantErr(t, err, provider.ErrPermissionDenied, "50005")
	_, err = f.p.Edit(verbCtx(t), alpha, "1234567890123", provider.Message{Text: "x"})
	wantErr(t, err, provider.ErrNotFound, "10008")
}

// TestReactAndTyping: a unicode emoji and a custom one, written either
// way, URL-encoded in the path; typing in the thread.
func TestReactAndTyping(t *testing.T) {
	f := newFixture(t)
	alpha := f.thread(f.p, "A · alpha")
	m := f.dc.PostMessage(alpha.Thread, f.alice, "look")
	for _, e := range []string{"👀", "👍🏽", "party:1234567890123", "<:party:1234567890123>"} {
		if err := f.p.React(verbCtx(t), alpha, m.ID, e); err != nil {
			t.Fatalf("%s: %v", e, err)
		}
	}
	if got := f.dc.BotReactions(alpha.Thread, m.ID); !slices.Equal(got, []string{"👀", "👍🏽", "party:1234567890123"}) {
		t.Errorf("reactions %q", got)
	}
	wantErr(t, f.p.React(verbCtx(t), alpha, m.ID, "nope"), provider.ErrInvalid, "10014")
	wantErr(t, f.p.React(verbCtx(t), alpha, "x/../y", "👀"), provider.ErrInvalid, "not a Discord message id")
	if err := f.p.Typing(verbCtx(t), alpha); err != nil {
		t.Fatal(err)
	}
	if n := f.dc.Typing(alpha.Thread); n != 1 {
		t.Errorf("typing %d", n)
	}
}

// TestAnswer: a press reaches the supervisor as a CALLBACK_QUERY whose
// text is the button's data, with the interaction to answer; it is
// acknowledged at once (deferred update), so Answer's text is a
// follow-up only the person who pressed sees, and no text is nothing more.
// The token answers too (a press from before a restart); an id never
// seen is not found. If the acknowledgement failed, Answer makes it.
func TestAnswer(t *testing.T) {
	f := newFixture(t)
	sk, _, alpha := f.start()
	res, err := f.p.Send(verbCtx(t), alpha, provider.Message{Text: "allow?", Prompt: true, Buttons: []provider.Button{
		{Label: "Allow", Data: "perm:allow:abcde"}, {Label: "Deny", Data: "perm:deny:abcde"}}}, "k")
	if err != nil {
		t.Fatal(err)
	}
	prompt := sentIDs(res)[0]
	iid, token := f.dc.Press(alpha.Thread, prompt, f.alice, "perm:allow:abcde")
	j := sk.waitTexts(t, "perm:allow:abcde")
	if u := j[0]; u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY || u.GetThread() != alpha.Thread ||
		!slices.Equal(refsOf(u), []provider.Ref{{Kind: provider.RefInteraction, ID: iid}, {Kind: provider.RefInteraction, ID: token}, {Kind: provider.RefMessage, ID: prompt}}) {
		t.Fatalf("press update %v", u)
	}
	if err := f.p.Answer(verbCtx(t), alpha, iid, "✅ Allowed"); err != nil {
		t.Fatal(err)
	}
	if typ, n := f.dc.Interaction(iid); typ != 6 || n != 1 {
		t.Errorf("callback type %d, %d requests: want one deferred update", typ, n)
	}
	if a := f.dc.Answers(iid); len(a) != 1 || a[0].Content != "✅ Allowed" || a[0].Flags != 64 {
		t.Errorf("answers %+v", a)
	}
	if err := f.p.Answer(verbCtx(t), alpha, iid, ""); err != nil {
		t.Fatal(err)
	}
	if err := f.p.Answer(verbCtx(t), alpha, token, "by the token"); err != nil {
		t.Fatal(err)
	}
	if a := f.dc.Answers(iid); len(a) != 2 {
		t.Errorf("answers %+v", a)
	}
	wantErr(t, f.p.Answer(verbCtx(t), alpha, "1234567890123", "x"), provider.ErrNotFound, "")
	if n := len(f.dc.BotMessages(alpha.Thread)); n != 1 {
		t.Errorf("%d messages in the thread: an answer is not one", n)
	}

	// The acknowledgement fails (Discord's 500): the answer is the
	// interaction's response.
	f.dc.Fail("POST /interactions/{iid}/{token}/callback", discordtest.Fault{Status: 500})
	iid2, _ := f.dc.Press(alpha.Thread, prompt, f.alice, "perm:deny:abcde")
	sk.waitTexts(t, "perm:allow:abcde", "perm:deny:abcde")
	if err := f.p.Answer(verbCtx(t), alpha, iid2, "❌ Denied"); err != nil {
		t.Fatal(err)
	}
	if typ, _ := f.dc.Interaction(iid2); typ != 4 {
		t.Errorf("callback type %d, want 4", typ)
	}
	if a := f.dc.Answers(iid2); len(a) != 1 || a[0].Content != "❌ Denied" || a[0].Flags != 64 {
		t.Errorf("answers %+v", a)
	}
}
