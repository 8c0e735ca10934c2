package discord_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/discord"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
)

// TestDescribe: the methods with the params naming ids, and the limit.
func TestDescribe(t *testing.T) {
	f := newFixture(t)
	d := f.p.Describe()
	if d.Platform != "discord" || d.MaxTextChars != 2000 || d.CommandPrefix != "/chatbus " ||
		d.ThreadLink != "https://discord.com/channels/"+f.dc.GuildID()+"/{thread}" {
		t.Errorf("description %+v", d)
	}
	want := map[string]string{
		"createMessage":       "message_reference.message_id:message:false",
		"editMessage":         "message_id:message:true",
		"deleteMessage":       "message_id:message:true",
		"addReaction":         "message_id:message:true",
		"triggerTyping":       "",
		"interactionFollowup": "interaction_token:interaction:true",
	}
	if len(d.Methods) != len(want) {
		t.Errorf("%d methods, want %d", len(d.Methods), len(want))
	}
	for _, m := range d.Methods {
		var ps []string
		for _, p := range m.Params {
			ps = append(ps, fmt.Sprintf("%s:%s:%v", p.Name, p.Kind, p.Required))
		}
		if got := strings.Join(ps, ","); got != want[m.Name] {
			t.Errorf("%s params %q, want %q", m.Name, got, want[m.Name])
		}
	}
	lanes := map[string]provider.Lane{}
	for _, m := range d.Methods {
		lanes[m.Name] = m.Lane
	}
	wantLanes := map[string]provider.Lane{"createMessage": provider.LaneMessage, "editMessage": provider.LaneEdit, "deleteMessage": provider.LaneEdit,
		"addReaction": provider.LaneAmbient, "triggerTyping": provider.LaneAmbient, "interactionFollowup": provider.LanePrompt}
	if fmt.Sprint(lanes) != fmt.Sprint(wantLanes) {
		t.Errorf("lanes %v, want %v", lanes, wantLanes)
	}
	// The global limit and the per-channel buckets Discord is known to
	// announce; the answers to presses (interactionFollowup, answer) are
	// under none.
	var limits []string
	for _, l := range d.Limits {
		limits = append(limits, fmt.Sprintf("%s %s %d/%s %s", l.Name, l.Scope, l.Count, l.Per, strings.Join(l.Methods, ",")))
	}
	wantLimits := []string{
		"global bot 50/1s send,edit,react,typing,upload,createMessage,editMessage,deleteMessage,addReaction,triggerTyping",
		"message thread 5/5s send,createMessage,upload",
		"edit thread 5/5s edit,editMessage",
		"delete thread 5/1s deleteMessage",
		"reaction thread 1/250ms react,addReaction",
		"typing thread 5/5s typing,triggerTyping",
	}
	if strings.Join(limits, "\n") != strings.Join(wantLimits, "\n") {
		t.Errorf("limits\n%s\nwant\n%s", strings.Join(limits, "\n"), strings.Join(wantLimits, "\n"))
	}
	changed := f.platform(func(s *discord.Settings, _ *discord.Options) {
		s.Limits = provider.LimitSettings{"message": "1/s", "typing": "off"}
	}).Describe().Limits
	if len(changed) != len(discord.DefaultLimits)-1 || changed[1].Name != "message" || changed[1].Count != 1 || changed[1].Per != time.Second {
		t.Errorf("limits with the setting: %+v", changed)
	}
}

func messageID(t *testing.T, res provider.Result) string {
	t.Helper()
	var m struct{ ID string }
	if err := json.Unmarshal(res.JSON, &m); err != nil || m.ID == "" {
		t.Fatalf("result %s is not a message", res.JSON)
	}
	return m.ID
}

// TestCalls: each method does its request in the caller's thread, and
// the result's message becomes a reference.
func TestCalls(t *testing.T) {
	f := newFixture(t)
	alpha := f.thread(f.p, "A · alpha")
	theirs := f.dc.PostMessage(alpha.Thread, f.alice, "a person's message")

	res, err := f.call(f.p, alpha, "createMessage", `{"content":"hi","message_reference":{"message_id":"`+theirs.ID+`"}}`)
	if err != nil {
		t.Fatal(err)
	}
	id := messageID(t, res)
	if len(res.Refs) != 1 || res.Refs[0] != (provider.Ref{Kind: provider.RefMessage, ID: id}) {
		t.Errorf("refs %v", res.Refs)
	}
	m, ok := f.dc.Message(alpha.Thread, id)
	if !ok || m.Content != "hi" || m.MessageReference == nil || m.MessageReference.MessageID != theirs.ID {
		t.Fatalf("sent %+v", m)
	}
	steps := []struct{ method, params string }{
		{"editMessage", `{"message_id":"` + id + `","content":"edited"}`},
		{"addReaction", `{"message_id":"` + id + `","emoji":"✅"}`},
		{"triggerTyping", `{}`},
	}
	for _, s := range steps {
		if _, err := f.call(f.p, alpha, s.method, s.params); err != nil {
			t.Fatalf("%s: %v", s.method, err)
		}
	}
	if m, _ := f.dc.Message(alpha.Thread, id); m.Content != "edited" {
		t.Errorf("after edit: %q", m.Content)
	}
	if _, err := f.call(f.p, alpha, "deleteMessage", `{"message_id":"`+id+`"}`); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.dc.Message(alpha.Thread, id); ok {
		t.Error("not deleted")
	}
	for _, r := range []string{"POST /channels/{id}/messages", "PATCH /channels/{id}/messages/{mid}", "PUT /channels/{id}/messages/{mid}/reactions/{emoji}/@me",
		"POST /channels/{id}/typing", "DELETE /channels/{id}/messages/{mid}"} {
		if n := f.dc.Calls(r); n != 1 {
			t.Errorf("%s called %d times", r, n)
		}
	}
}

// TestIdempotentCreate: the supervisor's idempotency key becomes the
// message's nonce with enforce_nonce, so a repeated create sends once.
func TestIdempotentCreate(t *testing.T) {
	f := newFixture(t)
	alpha := f.thread(f.p, "A · alpha")
	var ids []string
	for range 2 {
		res, err := f.p.Call(t.Context(), alpha, "createMessage", json.RawMessage(`{"content":"once"}`), "key-1")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, messageID(t, res))
	}
	if ids[0] != ids[1] || len(f.dc.BotMessages(alpha.Thread)) != 1 {
		t.Errorf("ids %v, %d messages", ids, len(f.dc.BotMessages(alpha.Thread)))
	}
}

// TestScopeRefusals: params naming another channel, thread or guild are
// refused before anything is sent; content over 2000 characters is
// invalid; Discord's refusals keep their class.
func TestScopeRefusals(t *testing.T) {
	f := newFixture(t)
	alpha := f.thread(f.p, "A · alpha")
	beta := f.thread(f.p, "B · beta")
	theirs := f.dc.PostMessage(alpha.Thread, f.alice, "a person's message")
	inBeta := f.dc.PostMessage(beta.Thread, f.alice, "in beta")
	long := strings.Repeat("é", 2001)
	tests := []struct {
		name, method, params string
		target               provider.Target
		class                error
		says                 string
	}{
		{"channel_id of another thread", "createMessage", `{"content":"x","channel_id":"` + beta.Thread + `"}`, alpha, provider.ErrOutOfScope, "not your thread"},
		{"thread_id of another thread", "triggerTyping", `{"thread_id":` + beta.Thread + `}`, alpha, provider.ErrOutOfScope, "not your thread"},
		{"reply into another thread", "createMessage", `{"content":"x","message_reference":{"message_id":"` + inBeta.ID + `","channel_id":"` + beta.Thread + `"}}`, alpha, provider.ErrOutOfScope, "message_reference.channel_id"},
		{"another guild", "createMessage", `{"content":"x","guild_id":"1234567890123"}`, alpha, provider.ErrOutOfScope, "guild_id"},
		{"another application", "interactionFollowup", `{"interaction_token":"abc","application_id":"1234567890123"}`, alpha, provider.ErrOutOfScope, "application_id"},
		{"the channel itself", "createMessage", `{"content":"x"}`, provider.Target{Chat: alpha.Chat}, provider.ErrOutOfScope, "thread"},
		{"another chat", "createMessage", `{"content":"x"}`, provider.Target{Chat: "1234567890123", Thread: alpha.Thread}, provider.ErrOutOfScope, "channel"},
		{"content over the limit", "createMessage", `{"content":"` + long + `"}`, alpha, provider.ErrInvalid, "2000"},
		{"edit over the limit", "editMessage", `{"message_id":"` + theirs.ID + `","content":"` + long + `"}`, alpha, provider.ErrInvalid, "2000"},
		{"not an id", "deleteMessage", `{"message_id":"../../guilds"}`, alpha, provider.ErrInvalid, "not a Discord id"},
		{"another author's message", "editMessage", `{"message_id":"` + theirs.ID + `","content":"mine now"}`, alpha, provider.ErrPermissionDenied, "50005"},
		{"deleting a person's message", "deleteMessage", `{"message_id":"` + theirs.ID + `"}`, alpha, provider.ErrPermissionDenied, "50013"},
		{"a message of another thread", "editMessage", `{"message_id":"` + inBeta.ID + `","content":"x"}`, alpha, provider.ErrNotFound, "10008"},
		{"unknown emoji", "addReaction", `{"message_id":"` + theirs.ID + `","emoji":"notanemoji"}`, alpha, provider.ErrInvalid, "10014"},
		{"not an object", "createMessage", `[1,2]`, alpha, provider.ErrInvalid, "JSON object"},
		{"unknown method", "sendMessage", `{}`, alpha, provider.ErrInvalid, "not a Discord provider method"},
	}
	before := f.dc.Calls("POST /channels/{id}/messages")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.call(f.p, tt.target, tt.method, tt.params)
			wantErr(t, err, tt.class, tt.says)
		})
	}
	if n := f.dc.Calls("POST /channels/{id}/messages") - before; n != 0 {
		t.Errorf("%d creates reached Discord", n)
	}
	if n := len(f.dc.BotMessages(beta.Thread)); n != 0 {
		t.Errorf("%d messages reached beta", n)
	}
}

// TestCallFailures: a deleted thread is ErrTargetGone; a 429 is
// RateLimited with Discord's retry_after; a 5xx on a create is
// ambiguous.
func TestCallFailures(t *testing.T) {
	f := newFixture(t)
	alpha := f.thread(f.p, "A · alpha")
	const create = "POST /channels/{id}/messages"

	f.dc.Fail(create, discordtest.Fault{Status: 429, RetryAfter: 1500 * time.Millisecond})
	_, err := f.call(f.p, alpha, "createMessage", `{"content":"x"}`)
	wantErr(t, err, provider.ErrRateLimited, "")
	if d, ok := provider.RetryAfter(err); !ok || d != 1500*time.Millisecond {
		t.Errorf("retry after %v %v, want 1.5s", d, ok)
	}

	f.dc.Fail(create, discordtest.Fault{Status: 500})
	_, err = f.call(f.p, alpha, "createMessage", `{"content":"x"}`)
	wantErr(t, err, provider.ErrAmbiguous, "500")

	f.dc.Fail("POST /channels/{id}/typing", discordtest.Fault{Status: 502})
	_, err = f.call(f.p, alpha, "triggerTyping", `{}`)
	wantErr(t, err, provider.ErrAmbiguous, "502")

	f.dc.DeleteThread(alpha.Thread)
	_, err = f.call(f.p, alpha, "createMessage", `{"content":"x"}`)
	wantErr(t, err, provider.ErrTargetGone, "10003")
}

// scopeOf is the scope a rate-limited error names ("bot", "chat",
// "thread"), "" if none.
func scopeOf(err error) string {
	var pe *provider.Error
	if !errors.As(err, &pe) {
		return ""
	}
	return pe.Metadata["scope"]
}

// TestPacedCalls: the calls the supervisor paces do not wait for
// Discord's buckets themselves: a call whose answer empties its thread's
// bucket pauses the method in the thread until the bucket resets
// (Result.Pause, from X-RateLimit-Reset-After), and a call beyond it is
// answered 429 at once, rate limited in the thread; a global 429 is
// rate limited for the bot.
func TestPacedCalls(t *testing.T) {
	f := newFixture(t, discordtest.WithRateLimits(discordtest.DiscordLimits))
	alpha := f.thread(f.p, "A · alpha")
	beta := f.thread(f.p, "B · beta")
	var id string
	for i := range 5 {
		res, err := f.call(f.p, alpha, "createMessage", fmt.Sprintf(`{"content":"burst %d"}`, i))
		if err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
		id = messageID(t, res)
		switch p := res.Pause; {
		case i < 4 && p != nil:
			t.Errorf("create %d: paused %+v with room left", i, p)
		case i == 4 && (p == nil || p.Scope != provider.ScopeThread || !p.MethodOnly || p.After <= 4*time.Second || p.After > 5*time.Second):
			t.Errorf("create %d, the bucket's last: pause %+v, want the thread's method for about 5s", i, p)
		}
	}
	_, err := f.call(f.p, alpha, "createMessage", `{"content":"one too many"}`)
	wantErr(t, err, provider.ErrRateLimited, "")
	if d, ok := provider.RetryAfter(err); !ok || d <= 4*time.Second || d > 5*time.Second || scopeOf(err) != "thread" {
		t.Errorf("a sixth create: retry after %v %v in %q, want about 5s in the thread", d, ok, scopeOf(err))
	}
	if n := f.dc.RateLimited(); n != 1 {
		t.Errorf("%d 429s: the sixth create waited instead of reaching Discord", n)
	}
	if res, err := f.call(f.p, beta, "createMessage", `{"content":"another thread"}`); err != nil || res.Pause != nil {
		t.Errorf("another thread: %+v %v", res.Pause, err)
	}
	res, err := f.call(f.p, alpha, "addReaction", fmt.Sprintf(`{"message_id":%q,"emoji":"👍"}`, id))
	if err != nil || res.Pause == nil || res.Pause.After > 250*time.Millisecond {
		t.Errorf("a reaction (a bucket of one): pause %+v %v", res.Pause, err)
	}
	edit, err := f.p.Edit(t.Context(), alpha, id, provider.Message{Text: "edited"})
	if err != nil || edit.Pause != nil {
		t.Errorf("an edit: pause %+v %v", edit.Pause, err)
	}

	f.dc.Fail("POST /channels/{id}/typing", discordtest.Fault{Status: 429, RetryAfter: time.Second, Global: true})
	_, err = f.call(f.p, beta, "triggerTyping", `{}`)
	wantErr(t, err, provider.ErrRateLimited, "")
	if scopeOf(err) != "bot" {
		t.Errorf("a global 429: scope %q, want bot", scopeOf(err))
	}
}

// TestSendPacesItsParts: the parts of a long text are one call: a part
// that empties the thread's bucket makes the next wait for it to reset
// instead of meeting a 429; the send's result pauses the thread when the
// last part emptied it.
func TestSendPacesItsParts(t *testing.T) {
	limits := discordtest.RateLimits{Default: discordtest.Bucket{Limit: 50, Window: time.Second},
		Routes: map[string]discordtest.Bucket{"POST /channels/{id}/messages": {Limit: 2, Window: time.Second}}}
	f := newFixture(t, discordtest.WithRateLimits(limits))
	alpha := f.thread(f.p, "A · alpha")
	long := strings.Repeat("word ", 500) // 2,500 characters: two parts
	if _, err := f.call(f.p, alpha, "createMessage", `{"content":"one of the bucket's two"}`); err != nil {
		t.Fatal(err)
	}
	res, err := f.p.Send(t.Context(), alpha, provider.Message{Text: long}, "key")
	if err != nil || len(res.Refs) != 2 {
		t.Fatalf("send: %v %v", res.Refs, err)
	}
	if n := f.dc.RateLimited(); n != 0 {
		t.Errorf("%d 429s: the second part did not wait for the bucket", n)
	}
	if res.Pause != nil {
		t.Errorf("pause %+v after a part that left room", res.Pause)
	}
	res, err = f.p.Send(t.Context(), alpha, provider.Message{Text: "the bucket's last"}, "key2")
	if err != nil || res.Pause == nil || res.Pause.Scope != provider.ScopeThread || !res.Pause.MethodOnly {
		t.Errorf("a send emptying the bucket: pause %+v %v", res.Pause, err)
	}
}

// TestOwnRequestsWait: the provider's own requests (not paced by the
// supervisor) keep disgo's limiter: after a global 429 none reaches
// Discord until it is over, and a burst over a bucket waits instead of
// being answered 429.
func TestOwnRequestsWait(t *testing.T) {
	f := newFixture(t, discordtest.WithRateLimit(2, 1500*time.Millisecond))
	for i := range 3 {
		if _, err := f.p.Provision(t.Context(), provider.ProvisionRequest{Name: fmt.Sprintf("T · %d", i)}); err != nil {
			t.Fatalf("thread %d: %v", i, err)
		}
	}
	if n := f.dc.RateLimited(); n != 0 {
		t.Errorf("%d requests answered 429: the limiter did not wait", n)
	}
	f.dc.Fail("POST /channels/{id}/threads", discordtest.Fault{Status: 429, RetryAfter: time.Second, Global: true})
	_, err := f.p.Provision(t.Context(), provider.ProvisionRequest{Name: "T · global"})
	wantErr(t, err, provider.ErrRateLimited, "")
	if _, err := f.p.Provision(t.Context(), provider.ProvisionRequest{Name: "T · after"}); err != nil {
		t.Fatalf("a thread after the global limit: %v", err)
	}
	if n := f.dc.GlobalViolations(); n != 0 {
		t.Errorf("%d requests sent during the global rate limit", n)
	}
}

// TestUploadDownload: a file goes up as an attachment (multipart) with
// its caption; its reference downloads it, and a person's attachment
// too.
func TestUploadDownload(t *testing.T) {
	f := newFixture(t)
	alpha := f.thread(f.p, "A · alpha")
	data := bytes.Repeat([]byte("chatbus "), 20000)
	res, err := f.p.Upload(t.Context(), provider.UploadHeader{Target: alpha, Filename: `re"port.txt`, Caption: "the report", Kind: "document"}, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	id := messageID(t, res)
	m, _ := f.dc.Message(alpha.Thread, id)
	if m.Content != "the report" || len(m.Attachments) != 1 || m.Attachments[0].Filename != "re_port.txt" || m.Attachments[0].Size != len(data) {
		t.Fatalf("uploaded %+v", m)
	}
	if len(res.Refs) != 2 || res.Refs[1].Kind != provider.RefFile {
		t.Fatalf("refs %v", res.Refs)
	}
	theirs := f.dc.PostFile(alpha.Thread, f.alice, "", "pic.png", []byte("\x89PNG..."))
	for _, c := range []struct {
		ref  string
		want []byte
		name string
	}{
		{res.Refs[1].ID, data, "re_port.txt"},
		{alpha.Thread + "/" + theirs.ID + "/" + theirs.Attachments[0].ID, []byte("\x89PNG..."), "pic.png"},
	} {
		rc, size, name, err := f.p.Download(t.Context(), c.ref)
		if err != nil {
			t.Fatalf("download %s: %v", c.ref, err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if !bytes.Equal(got, c.want) || size != int64(len(c.want)) || name != c.name {
			t.Errorf("downloaded %d bytes (size %d, name %q)", len(got), size, name)
		}
	}
	_, _, _, err = f.p.Download(t.Context(), alpha.Thread+"/"+theirs.ID+"/1234567890123")
	wantErr(t, err, provider.ErrNotFound, "")
	_, _, _, err = f.p.Download(t.Context(), "attachments/../x")
	wantErr(t, err, provider.ErrInvalid, "")
	_, err = f.p.Upload(t.Context(), provider.UploadHeader{Target: alpha, Filename: "x", Caption: strings.Repeat("x", 2001)}, strings.NewReader("x"))
	wantErr(t, err, provider.ErrInvalid, "2000")
}

// TestProvision: a fresh thread is a public thread named as asked; reuse
// renames and unarchives the old thread; a gone one is replaced; closing
// archives, and closing again or a deleted thread succeeds.
func TestProvision(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	th, err := f.p.Provision(ctx, provider.ProvisionRequest{Name: "A · " + strings.Repeat("long", 40)})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := f.dc.Thread(th.Thread)
	if !ok || c.Type != discordtest.ChannelPublicThread || *c.ParentID != f.dc.Channel() || len([]rune(c.Name)) != 100 || th.Chat != f.dc.Channel() || th.Reused {
		t.Fatalf("provisioned %+v: %+v", th, c)
	}
	if err := f.p.CloseTarget(ctx, th.Target); err != nil {
		t.Fatal(err)
	}
	if c, _ := f.dc.Thread(th.Thread); !c.ThreadMetadata.Archived {
		t.Error("not archived")
	}
	if err := f.p.CloseTarget(ctx, th.Target); err != nil {
		t.Errorf("closing a closed thread: %v", err)
	}
	again, err := f.p.Provision(ctx, provider.ProvisionRequest{Name: "A · again", Reuse: &th.Target})
	if err != nil {
		t.Fatal(err)
	}
	c, _ = f.dc.Thread(th.Thread)
	if again.Thread != th.Thread || !again.Reused || c.Name != "A · again" || c.ThreadMetadata.Archived {
		t.Errorf("reuse: %+v, thread %+v", again, c)
	}
	f.dc.DeleteThread(th.Thread)
	fresh, err := f.p.Provision(ctx, provider.ProvisionRequest{Name: "A · fresh", Reuse: &th.Target})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Thread == th.Thread || fresh.Reused {
		t.Errorf("reuse of a deleted thread: %+v", fresh)
	}
	if err := f.p.CloseTarget(ctx, th.Target); err != nil {
		t.Errorf("closing a deleted thread: %v", err)
	}
	_, err = f.p.Provision(ctx, provider.ProvisionRequest{Name: "x", Chat: "1234567890123"})
	wantErr(t, err, provider.ErrInvalid, "channel")
	f.dc.Fail("POST /channels/{id}/threads", discordtest.Fault{Status: 503})
	_, err = f.p.Provision(ctx, provider.ProvisionRequest{Name: "x"})
	wantErr(t, err, provider.ErrAmbiguous, "")
	f.dc.Fail("POST /channels/{id}/threads", discordtest.Fault{Status: 403, Code: 50013, Message: "Missing Permissions"})
	_, err = f.p.Provision(ctx, provider.ProvisionRequest{Name: "x"})
	wantErr(t, err, provider.ErrPermissionDenied, "50013")
}

// TestSettings: strict parsing; ids as strings or numbers.
func TestSettings(t *testing.T) {
	tests := []struct {
		name, json, err string
	}{
		{"complete", `{"name":"discord","token":"t","guild_id":"1100","channel_id":1200,"allowed_user_ids":[1300,"1400"],"base_url":"http://127.0.0.1:1/api/","gateway_url":"ws://127.0.0.1:1/gateway","limits":{"global":"40/s","reaction":"off"}}`, ""},
		{"unknown key", `{"guild_id":"1","channel_id":"2","forum_chat_id":3}`, "forum_chat_id: unknown setting"},
		{"no guild", `{"channel_id":"2"}`, "guild_id: required"},
		{"no channel", `{"guild_id":"1"}`, "channel_id: required"},
		{"not a snowflake", `{"guild_id":"abc","channel_id":"2"}`, "not a Discord id"},
		{"bad gateway", `{"guild_id":"1","channel_id":"2","gateway_url":"https://x"}`, "ws(s)"},
		{"base_url with the version", `{"guild_id":"1","channel_id":"2","base_url":"https://discord.com/api/v10/"}`, "root without it (https://discord.com/api)"},
		{"unknown limit", `{"guild_id":"1","channel_id":"2","limits":{"messages":"5/5s"}}`, "did you mean message?"},
		{"not a limit", `{"guild_id":"1","channel_id":"2","limits":{"global":"lots"}}`, "limits.global"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := discord.ParseSettings([]byte(tt.json), nil)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s.ChannelID != "1200" || len(s.AllowedUserIDs) != 2 || s.AllowedUserIDs[0] != "1300" || s.BaseURL != "http://127.0.0.1:1/api" {
					t.Errorf("parsed %+v", s)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("err %v, want %q", err, tt.err)
			}
		})
	}
}
