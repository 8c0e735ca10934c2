package discord_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/discord"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
	"github.com/chatbus/chatbus/provider/render"
)

const (
	getCommands   = "GET /applications/{app}/guilds/{guild}/commands"
	putCommands   = "PUT /applications/{app}/guilds/{guild}/commands"
	callback      = "POST /interactions/{iid}/{token}/callback"
	editOriginal  = "PATCH /webhooks/{app}/{token}/messages/@original"
	createMessage = "POST /channels/{id}/messages"
)

// registered is the guild's commands: name → subcommand names.
func registered(t *testing.T, dc *discordtest.Server) map[string][]string {
	t.Helper()
	var cmds []struct {
		Name    string `json:"name"`
		Options []struct {
			Name string `json:"name"`
			Type int    `json:"type"`
		} `json:"options"`
	}
	if err := json.Unmarshal(dc.Commands(), &cmds); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, c := range cmds {
		subs := []string{}
		for _, o := range c.Options {
			if o.Type == discordtest.OptionSubCommand {
				subs = append(subs, o.Name)
			}
		}
		out[c.Name] = subs
	}
	return out
}

// startSettled starts f.p and waits until /chatbus is registered.
func (f *fixture) startSettled() (*sink, func(), provider.Target) {
	f.t.Helper()
	sk, stop, alpha := f.start()
	f.waitUntil("/chatbus registered", f.p.CommandSettled)
	return sk, stop, alpha
}

// TestRegisterCommand: at start the provider registers /chatbus for the
// guild with a subcommand per verb, through the bulk overwrite; a
// successor finds it registered and does not overwrite it again; a
// command registered differently (another program, an older version) is
// overwritten; 429 and 5xx are retried; an app without the
// applications.commands scope is refused, and the threads work anyway.
func TestRegisterCommand(t *testing.T) {
	f := newFixture(t)
	_, stop, _ := f.startSettled()
	want := map[string][]string{"chatbus": {"sessions", "status", "new", "stop", "restart", "help"}}
	if got := registered(t, f.dc); !equalCommands(got, want) {
		t.Fatalf("registered %v, want %v", got, want)
	}
	if n := f.dc.Calls(putCommands); n != 1 {
		t.Fatalf("%d overwrites, want 1", n)
	}
	stop()

	// A successor: the same command, no overwrite.
	p2 := f.platform(nil)
	stop2 := f.run(p2, nil, newSink(t))
	f.waitUntil("settled again", p2.CommandSettled)
	stop2()
	if g, p := f.dc.Calls(getCommands), f.dc.Calls(putCommands); g != 2 || p != 1 {
		t.Errorf("%d reads and %d overwrites, want 2 and 1", g, p)
	}

	// Registered otherwise meanwhile: overwritten, after a 429 and a 500.
	body := `[{"name":"chatbus","description":"old","options":[{"type":3,"name":"what","description":"what to do"}]},{"name":"other","description":"another"}]`
	req, _ := http.NewRequest(http.MethodPut, f.dc.URL()+"/v10/applications/"+f.dc.Bot().ID+"/guilds/"+f.dc.GuildID()+"/commands", bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bot "+f.dc.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT %v %v", resp, err)
	}
	resp.Body.Close()
	f.dc.Fail(putCommands, discordtest.Fault{Status: http.StatusTooManyRequests, RetryAfter: 50 * time.Millisecond}, discordtest.Fault{Status: 502})
	p3 := f.platform(nil)
	stop3 := f.run(p3, nil, newSink(t))
	f.waitUntil("settled a third time", p3.CommandSettled)
	stop3()
	if got := registered(t, f.dc); !equalCommands(got, want) {
		t.Errorf("registered %v, want %v", got, want)
	}
	if n := f.dc.Calls(putCommands); n != 1+1+3 {
		t.Errorf("%d overwrites, want 5 (ours, the other program's, a 429, a 502, ours)", n)
	}

	// Without the scope: refused once, not retried; threads still work.
	f.dc.SetCommandsScope(false)
	p4 := f.platform(nil)
	sk4 := newSink(t)
	f.run(p4, nil, sk4)
	f.waitUntil("settled, refused", p4.CommandSettled)
	th := f.thread(p4, "D · delta")
	f.post(th.Thread, "still served")
	sk4.waitTexts(t, "still served")
	if n := f.dc.Calls(putCommands); n != 5 {
		t.Errorf("%d overwrites after a refusal", n)
	}
}

func equalCommands(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestCommand: /chatbus new claude web in the channel is deferred at
// once and becomes a COMMAND of the control place whose text is
// "new claude web", naming the interaction; the answer edits the
// deferred response (a 429 or a 5xx on the way is an error to retry, not
// a fallback), a long one adds follow-ups, and a process that did not
// see the command answers it by its token.
func TestCommand(t *testing.T) {
	f := newFixture(t)
	sk, _, alpha := f.startSettled()
	channel := f.dc.Channel()
	iid, token := f.dc.RunCommand(discordtest.Invocation{Channel: channel, User: f.alice, Sub: "new",
		Options: map[string]string{"project": "web", "template": "claude"}})
	j := sk.waitTexts(t, "new claude web")
	u := j[0]
	if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_COMMAND || u.GetChat() != channel || u.GetThread() != "" ||
		u.GetSender() != f.alice.ID || !u.GetAllowed() || u.GetDedupId() != iid ||
		!slices.Equal(refsOf(u), []provider.Ref{{Kind: provider.RefInteraction, ID: token}, {Kind: provider.RefInteraction, ID: iid}}) {
		t.Fatalf("update %v", u)
	}
	f.waitUntil("deferred", func() bool { typ, _ := f.dc.Interaction(iid); return typ == 5 })
	if m, ok := f.dc.Original(iid); !ok || !m.Loading() {
		t.Fatalf("original %+v: want a loading response", m)
	}

	control := provider.Target{Chat: channel}
	// A 429 or a 5xx on the edit is the supervisor's to retry (it paces
	// and requeues): not a reason to post in the channel instead.
	f.dc.Fail(editOriginal, discordtest.Fault{Status: http.StatusTooManyRequests, RetryAfter: 50 * time.Millisecond}, discordtest.Fault{Status: 502})
	_, err := f.p.Send(verbCtx(t), control, provider.Message{Text: "**2 sessions**", ReplyTo: iid}, "k1")
	if d, ok := provider.RetryAfter(err); !errors.Is(err, provider.ErrRateLimited) || !ok || d != 50*time.Millisecond {
		t.Errorf("a 429: %v", err)
	}
	_, err = f.p.Send(verbCtx(t), control, provider.Message{Text: "**2 sessions**", ReplyTo: iid}, "k1")
	wantErr(t, err, provider.ErrAmbiguous, "502")
	res, err := f.p.Send(verbCtx(t), control, provider.Message{Text: "**2 sessions**", ReplyTo: iid}, "k1")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := f.dc.Original(iid)
	if m.Loading() || m.Content != "**2 sessions**" || !slices.Equal(sentIDs(res), []string{m.ID}) {
		t.Errorf("original %+v, sent %v", m, sentIDs(res))
	}
	if n := f.dc.Calls(createMessage); n != 0 {
		t.Errorf("%d messages created in channels: the answer is the response", n)
	}

	// A long answer: the response and follow-ups, in order.
	iid2, _ := f.dc.RunCommand(discordtest.Invocation{Channel: channel, User: f.alice, Sub: "sessions"})
	sk.waitTexts(t, "new claude web", "sessions")
	long := strings.Repeat("session line\n", 400)
	parts := render.Discord(long, discord.MaxContent)
	if len(parts) < 2 {
		t.Fatalf("%d parts", len(parts))
	}
	res, err = f.p.Send(verbCtx(t), control, provider.Message{Text: long, ReplyTo: iid2}, "k2")
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := f.dc.Original(iid2)
	got := []string{orig.Content}
	for _, a := range f.dc.Answers(iid2) {
		got = append(got, a.Content)
	}
	if !slices.Equal(got, parts) || len(sentIDs(res)) != len(parts) {
		t.Errorf("answered with %d messages (%d ids), want the %d parts", len(got), len(sentIDs(res)), len(parts))
	}

	// A command used in one of the channel's threads is taken too.
	iid3, token3 := f.dc.RunCommand(discordtest.Invocation{Channel: alpha.Thread, User: f.alice, Sub: "stop", Options: map[string]string{"slot": "B"}})
	j = sk.waitTexts(t, "new claude web", "sessions", "stop B")
	if j[2].GetThread() != "" || j[2].GetDedupId() != iid3 {
		t.Errorf("update %v", j[2])
	}
	// Answered by a process that did not see it (the provider
	// restarted): by its token.
	f.waitUntil("deferred", func() bool { typ, _ := f.dc.Interaction(iid3); return typ == 5 })
	p2 := f.platform(nil)
	if _, err := p2.Send(verbCtx(t), control, provider.Message{Text: "stopped", ReplyTo: token3}, "k3"); err != nil {
		t.Fatal(err)
	}
	if m, _ := f.dc.Original(iid3); m.Content != "stopped" || m.ChannelID != alpha.Thread {
		t.Errorf("original %+v", m)
	}
}

// TestCommandAnswerFallsBack: the answer is posted in the channel when
// the token is spent (15 minutes) or the deferral failed, or when it
// answers no interaction; a button under it is pressed and answered in
// the control place.
func TestCommandAnswerFallsBack(t *testing.T) {
	f := newFixture(t)
	sk, _, _ := f.startSettled()
	channel := f.dc.Channel()
	control := provider.Target{Chat: channel}

	iid, _ := f.dc.RunCommand(discordtest.Invocation{Channel: channel, User: f.alice, Sub: "status"})
	sk.waitTexts(t, "status")
	f.waitUntil("deferred", func() bool { typ, _ := f.dc.Interaction(iid); return typ == 5 })
	f.dc.ExpireInteraction(iid)
	if _, err := f.p.Send(verbCtx(t), control, provider.Message{Text: "all serving", ReplyTo: iid}, "k1"); err != nil {
		t.Fatal(err)
	}
	if m, _ := f.dc.Original(iid); !m.Loading() {
		t.Errorf("the expired response was edited: %+v", m)
	}
	posted := func() []string {
		var out []string
		for _, m := range f.dc.BotMessages(channel) {
			if !m.Loading() {
				out = append(out, m.Content)
			}
		}
		return out
	}
	if got := posted(); !slices.Equal(got, []string{"all serving"}) {
		t.Errorf("channel holds %q", got)
	}

	// The deferral fails (Discord's 500): the answer goes to the channel
	// without trying the response.
	f.dc.Fail(callback, discordtest.Fault{Status: 500})
	iid2, _ := f.dc.RunCommand(discordtest.Invocation{Channel: channel, User: f.alice, Sub: "sessions"})
	sk.waitTexts(t, "status", "sessions")
	edits := f.dc.Calls(editOriginal)
	if _, err := f.p.Send(verbCtx(t), control, provider.Message{Text: "none", ReplyTo: iid2}, "k2"); err != nil {
		t.Fatal(err)
	}
	if got := posted(); !slices.Equal(got, []string{"all serving", "none"}) {
		t.Errorf("channel holds %q", got)
	}
	if n := f.dc.Calls(editOriginal); n != edits {
		t.Errorf("%d edits of a response never deferred", n-edits)
	}

	// A button under an answer: pressed and answered in the control
	// place.
	res, err := f.p.Send(verbCtx(t), control, provider.Message{Text: "B beta", Buttons: []provider.Button{{Label: "Stop B", Data: "/stop B"}}}, "k4")
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := f.dc.Press(channel, sentIDs(res)[0], f.alice, "/stop B")
	j := sk.waitTexts(t, "status", "sessions", "/stop B")
	if u := j[2]; u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY || u.GetThread() != "" {
		t.Errorf("press %v", u)
	}
	if err := f.p.Answer(verbCtx(t), control, pid, "stopping"); err != nil {
		t.Fatal(err)
	}
	if a := f.dc.Answers(pid); len(a) != 1 || a[0].Content != "stopping" || a[0].Flags != 64 {
		t.Errorf("answers %+v", a)
	}

	// No interaction at all: posted in the channel.
	if _, err := f.p.Send(verbCtx(t), control, provider.Message{Text: "hello"}, "k3"); err != nil {
		t.Fatal(err)
	}
	if got := posted(); len(got) != 4 || got[3] != "hello" {
		t.Errorf("channel holds %q", got)
	}
	// Another channel's control place is not the provider's.
	_, err = f.p.Send(verbCtx(t), provider.Target{Chat: "1234567890123"}, provider.Message{Text: "x"}, "")
	wantErr(t, err, provider.ErrOutOfScope, "channel")
}

// TestCommandRefused: used outside the channel, /chatbus is answered
// with where chatbus listens and routed nowhere; a person not allowed
// is told so (only they see it) and nothing runs (the update says not
// allowed); neither is deferred.
func TestCommandRefused(t *testing.T) {
	f := newFixture(t)
	sk, _, _ := f.startSettled()
	channel := f.dc.Channel()
	other := f.dc.AddChannel(discordtest.ChannelText, "general")
	tests := []struct {
		name    string
		channel string
		user    discordtest.User
		says    string
	}{
		{"another channel", other, f.alice, "chatbus listens in <#" + channel + ">"},
		{"not allowed", channel, f.mallory, "not on chatbus's allowed_user_ids"},
		{"not allowed, another channel", other, f.mallory, "not on chatbus's allowed_user_ids"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			iid, _ := f.dc.RunCommand(discordtest.Invocation{Channel: tc.channel, User: tc.user, Sub: "restart", Options: map[string]string{"provider": "slack"}})
			f.waitUntil("answered", func() bool { typ, _ := f.dc.Interaction(iid); return typ != 0 })
			typ, _ := f.dc.Interaction(iid)
			a := f.dc.Answers(iid)
			if typ != 4 || len(a) != 1 || a[0].Flags != 64 || !strings.Contains(a[0].Content, tc.says) {
				t.Errorf("callback %d, answers %+v: want one ephemeral saying %q", typ, a, tc.says)
			}
		})
	}
	// A use routed after them: only mallory's in the channel came before
	// it, not allowed.
	iid, _ := f.dc.RunCommand(discordtest.Invocation{Channel: channel, User: f.alice, Sub: "sessions"})
	j := sk.waitTexts(t, "restart slack", "sessions")
	if j[0].GetAllowed() || j[0].GetSender() != f.mallory.ID || !j[1].GetAllowed() || j[1].GetDedupId() != iid {
		t.Errorf("journal %v", j)
	}
	if n := sk.delivered(); n != 2 {
		t.Errorf("%d updates delivered, want 2", n)
	}
}

// TestCommandAcrossRestart: a command received while admission was
// closed is acknowledged (deferred) at once; the successor resumes the
// session, Discord replays the interaction, and the successor delivers
// it once, finds it acknowledged already, and answers it.
func TestCommandAcrossRestart(t *testing.T) {
	f := newFixture(t)
	sk, stop, alpha := f.startSettled()
	channel := f.dc.Channel()
	f.post(alpha.Thread, "one") // the cursor names the session
	sk.waitTexts(t, "one")
	sk.setRefuse(true)
	iid, _ := f.dc.RunCommand(discordtest.Invocation{Channel: channel, User: f.alice, Sub: "status"})
	f.waitUntil("deferred while admission is closed", func() bool { typ, _ := f.dc.Interaction(iid); return typ == 5 })
	f.waitUntil("delivery refused", func() bool { return sk.refusals() >= 1 })
	stop()
	sk.setRefuse(false)

	p2 := f.platform(nil)
	f.run(p2, sk.state(), sk.newStream())
	sk.waitTexts(t, "one", "status")
	if n := sk.deliveriesOf("status"); n != 1 {
		t.Errorf("delivered %d times", n)
	}
	f.waitUntil("the replay acknowledged again", func() bool { _, n := f.dc.Interaction(iid); return n == 2 })
	if _, err := p2.Send(verbCtx(t), provider.Target{Chat: channel}, provider.Message{Text: "serving", ReplyTo: iid}, "k"); err != nil {
		t.Fatal(err)
	}
	if m, _ := f.dc.Original(iid); m.Content != "serving" {
		t.Errorf("original %+v", m)
	}
}

// TestMentionCommand: a message of the channel opening with a mention of
// the bot is a COMMAND of the control place, the mention taken off; in a
// thread it is an ordinary message.
func TestMentionCommand(t *testing.T) {
	f := newFixture(t)
	sk, _, alpha := f.start()
	bot := "<@" + f.dc.Bot().ID + ">"
	m := f.dc.PostMessage(f.dc.Channel(), f.alice, bot+" sessions")
	f.dc.PostMessage(alpha.Thread, f.alice, bot+" in a thread")
	j := sk.waitTextSet(t, "sessions", bot+" in a thread")
	for _, u := range j {
		switch u.GetText() {
		case "sessions":
			if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_COMMAND || u.GetThread() != "" || u.GetDedupId() != m.ID ||
				!slices.Equal(refsOf(u), []provider.Ref{{Kind: provider.RefMessage, ID: m.ID}}) {
				t.Errorf("mention update %v", u)
			}
		default:
			if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_MESSAGE || u.GetThread() != alpha.Thread {
				t.Errorf("thread update %v", u)
			}
		}
	}
}
