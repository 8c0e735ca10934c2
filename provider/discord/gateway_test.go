package discord_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/discord"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
)

func numbered(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s%02d", prefix, i))
	}
	return out
}

// post writes texts into thread as alice.
func (f *fixture) post(thread string, texts ...string) {
	for _, text := range texts {
		f.dc.PostMessage(thread, f.alice, text)
	}
}

// TestResumeAfterDroppedConnection: the connection drops and the gateway
// is unreachable for a while; what was written meanwhile arrives once,
// by RESUME through the resume URL, without a new session.
func TestResumeAfterDroppedConnection(t *testing.T) {
	f := newFixture(t)
	sk, _, alpha := f.start()
	f.post(alpha.Thread, "before")
	sk.waitTexts(t, "before")

	f.dc.SetGatewayDown(true)
	f.dc.DropConnections()
	f.post(alpha.Thread, numbered("while down ", 0, 10)...)
	f.waitUntil("the provider tried to reconnect", func() bool { return f.dc.Count("refused") > 0 })
	f.dc.SetGatewayDown(false)
	f.post(alpha.Thread, "after")

	want := append(append([]string{"before"}, numbered("while down ", 0, 10)...), "after")
	sk.waitTexts(t, want...)
	// "before" is not counted: written while the runner may still have
	// had READY queued, it can come by the READY's catch-up and by the
	// gateway both (the supervisor's window drops the repeat).
	if n := sk.deliveriesOf(want[1:]...); n != len(want)-1 {
		t.Errorf("%d updates delivered for the %d messages written from the drop on", n, len(want)-1)
	}
	c := f.dc.Counts()
	if c["identify"] != 1 || c["resume"] < 1 || c["resume_main"] != 0 || c["replayed"] < 10 {
		t.Errorf("gateway counts %v: want one IDENTIFY and a RESUME at the resume URL replaying 10", c)
	}
}

// TestResumeAcrossRestart: a successor Platform (a new process) started
// at the durable cursor RESUMEs the predecessor's session: what came
// while nobody was connected, and what the predecessor received but
// could not deliver (admission closed), is replayed and delivered once.
func TestResumeAcrossRestart(t *testing.T) {
	f := newFixture(t)
	sk, stop, alpha := f.start()
	f.post(alpha.Thread, "one", "two")
	sk.waitTexts(t, "one", "two")

	// A doctor closed admission: these reach the provider, not the
	// supervisor.
	sk.setRefuse(true)
	f.post(alpha.Thread, "held 1", "held 2")
	f.waitUntil("deliveries refused", func() bool { return sk.refusals() >= 2 })
	stop()
	sk.setRefuse(false)
	// It left with close code 1012, so the session stays resumable.
	f.waitUntil("the provider closed with 1012", func() bool { return f.dc.Count("client_close_1012") == 1 })
	f.post(alpha.Thread, "while stopped")

	p2 := f.platform(nil)
	p2.Attached("follower-A", alpha)
	f.run(p2, sk.state(), sk.newStream())
	f.post(alpha.Thread, "after")
	sk.waitTexts(t, "one", "two", "held 1", "held 2", "while stopped", "after")
	// "one" and "two" are not counted: written while the first runner may
	// still have had READY queued, they can come by its catch-up and by
	// the gateway both (the supervisor's window drops the repeat; a CI run
	// once delivered 8 for 6).
	if n := sk.deliveriesOf("held 1", "held 2", "while stopped", "after"); n != 4 {
		t.Errorf("%d updates delivered for the 4 messages written from the refusal on", n)
	}
	if c := f.dc.Counts(); c["identify"] != 1 || c["resume"] != 1 {
		t.Errorf("gateway counts %v: want the successor to RESUME, not IDENTIFY", c)
	}
}

// TestCatchUpAfterUnresumableSession: the session expired while no
// provider ran; the successor's RESUME is refused (INVALID_SESSION), it
// identifies afresh and fetches by REST, per thread, what was written
// after the cursor's mark (a bound thread without a mark: from its
// start), in order, each once.
func TestCatchUpAfterUnresumableSession(t *testing.T) {
	f := newFixture(t)
	sk, stop, alpha := f.start()
	beta := f.thread(f.p, "B · beta")
	f.post(alpha.Thread, "a0")
	sk.waitTexts(t, "a0")
	stop()

	f.dc.ExpireSessions()
	many := numbered("a", 1, 251) // three pages of 100
	f.post(alpha.Thread, many...)
	f.post(beta.Thread, "b1", "b2")
	if _, err := f.call(f.p, alpha, "createMessage", `{"content":"the bot's own"}`); err != nil {
		t.Fatal(err)
	}

	p2 := f.platform(nil)
	p2.Attached("follower-A", alpha)
	p2.Attached("follower-B", beta)
	f.run(p2, sk.state(), sk.newStream())
	want := append(append([]string{"a0"}, many...), "b1", "b2")
	j := sk.waitFor(t, "caught up", func(j []*providerv1.Update) bool { return len(j) >= len(want) })
	got := textsOf(j)
	perThread := map[string][]string{}
	for _, u := range j {
		perThread[u.GetThread()] = append(perThread[u.GetThread()], u.GetText())
	}
	if strings.Join(perThread[alpha.Thread], "|") != strings.Join(append([]string{"a0"}, many...), "|") ||
		strings.Join(perThread[beta.Thread], "|") != "b1|b2" || len(got) != len(want) {
		t.Fatalf("journal %q", got)
	}
	if n := sk.delivered(); n != len(want) {
		t.Errorf("%d updates delivered for %d messages", n, len(want))
	}
	c := f.dc.Counts()
	if c["identify"] != 2 || c["invalid_session"] != 1 {
		t.Errorf("gateway counts %v: want a refused RESUME and a second IDENTIFY", c)
	}
	if n := f.dc.Calls("GET /channels/{id}/messages"); n < 4 {
		t.Errorf("%d catch-up pages", n)
	}
}

// TestGatewayFaults: Discord's ways of ending a connection. Resumable
// ones resume; the others identify afresh and catch up by REST. What
// was written while the gateway was unreachable arrives once either way.
func TestGatewayFaults(t *testing.T) {
	tests := []struct {
		name   string
		fault  func(*discordtest.Server)
		resume bool
	}{
		{"RECONNECT", (*discordtest.Server).Reconnect, true},
		{"INVALID_SESSION resumable", func(s *discordtest.Server) { s.InvalidateSessions(true) }, true},
		{"INVALID_SESSION", func(s *discordtest.Server) { s.InvalidateSessions(false) }, false},
		{"close 4000 unknown error", func(s *discordtest.Server) { s.CloseConnections(4000, "Unknown error") }, true},
		{"close 4009 session timed out", func(s *discordtest.Server) { s.CloseConnections(4009, "Session timed out") }, false},
		{"close 4007 invalid seq", func(s *discordtest.Server) { s.CloseConnections(4007, "Invalid seq") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			sk, _, alpha := f.start()
			f.post(alpha.Thread, "before")
			sk.waitTexts(t, "before")

			f.dc.SetGatewayDown(true)
			refused := f.dc.Count("refused")
			tt.fault(f.dc)
			f.post(alpha.Thread, "gap 1", "gap 2")
			f.waitUntil("the provider tried to reconnect", func() bool { return f.dc.Count("refused") > refused })
			f.dc.SetGatewayDown(false)
			f.post(alpha.Thread, "after")
			sk.waitTexts(t, "before", "gap 1", "gap 2", "after")
			if n := sk.delivered(); n != 4 {
				t.Errorf("%d updates delivered for 4 messages", n)
			}
			c := f.dc.Counts()
			if tt.resume && (c["identify"] != 1 || c["resumed"] < 1) {
				t.Errorf("counts %v: want a RESUME", c)
			}
			if !tt.resume && c["identify"] != 2 {
				t.Errorf("counts %v: want a second IDENTIFY", c)
			}
		})
	}
}

// TestMissedHeartbeatACK: a connection whose heartbeats go unanswered is
// a zombie: the provider closes it (resumably) and RESUMEs on a new one.
func TestMissedHeartbeatACK(t *testing.T) {
	f := newFixture(t, discordtest.WithHeartbeatInterval(300*time.Millisecond))
	sk, _, alpha := f.start()
	f.post(alpha.Thread, "before")
	sk.waitTexts(t, "before")
	f.dc.IgnoreHeartbeats()
	f.waitUntil("resumed on a new connection", func() bool {
		return f.dc.Count("resumed") >= 1 && f.dc.Count("client_close_1012") >= 1
	})
	f.post(alpha.Thread, "after")
	sk.waitTexts(t, "before", "after")
	if n := f.dc.Count("identify"); n != 1 {
		t.Errorf("%d IDENTIFYs: the session should have been resumed", n)
	}
}

// TestRefusedBot: a wrong token (4004), a missing Message Content
// intent (4014) and a spent session start limit make the provider
// NOT_SERVING with the reason, and it recovers by itself once fixed.
func TestRefusedBot(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(*discordtest.Server)
		fix    func(*discordtest.Server)
		why    string
	}{
		{"token reset", func(s *discordtest.Server) { s.SetToken("reset-token") }, func(s *discordtest.Server) { s.SetToken(discordtest.DefaultToken) }, "the bot token is wrong or was reset"},
		// A session that cannot be resumed identifies afresh, asking GET
		// /gateway/bot first: the REST API refuses the token there (401).
		{"token reset, session not resumable", func(s *discordtest.Server) { s.SetToken("reset-token"); s.InvalidateSessions(false) }, func(s *discordtest.Server) { s.SetToken(discordtest.DefaultToken) }, "the bot token is wrong or was reset"},
		{"Message Content intent off", func(s *discordtest.Server) { s.SetMessageContentIntent(false) }, func(s *discordtest.Server) { s.SetMessageContentIntent(true) }, "Message Content"},
		{"session starts spent", func(s *discordtest.Server) { s.SetSessionStartLimit(0) }, func(s *discordtest.Server) { s.SetSessionStartLimit(-1) }, "session starts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			sk := newSink(t)
			f.run(f.p, nil, sk)
			f.waitConnected(1)
			tt.break_(f.dc)
			f.dc.ExpireSessions()
			f.waitUntil("NOT_SERVING", func() bool { ok, why := f.health.get(); return !ok && strings.Contains(why, tt.why) })
			tt.fix(f.dc)
			f.waitUntil("SERVING again", func() bool { ok, _ := f.health.get(); return ok })
			f.waitConnected(1)
		})
	}
}

// TestAdmissionClosed: while a doctor holds admission, nothing is
// delivered and nothing is lost; delivery resumes in order.
func TestAdmissionClosed(t *testing.T) {
	f := newFixture(t)
	sk, _, alpha := f.start()
	sk.setRefuse(true)
	f.post(alpha.Thread, numbered("m", 0, 5)...)
	f.waitUntil("deliveries refused", func() bool { return sk.refusals() >= 3 })
	if n := sk.delivered(); n != 0 {
		t.Fatalf("%d delivered while admission was closed", n)
	}
	sk.setRefuse(false)
	sk.waitTexts(t, numbered("m", 0, 5)...)
}

// TestQueueBound: when delivery falls behind by more than the queue
// holds, the provider leaves the gateway and resumes later: Discord
// replays what it did not take, and nothing is lost or doubled.
func TestQueueBound(t *testing.T) {
	f := newFixture(t)
	p := f.platform(func(_ *discord.Settings, o *discord.Options) { o.MaxQueued = 4 })
	sk := newSink(t)
	f.run(p, nil, sk)
	f.waitConnected(1)
	alpha := f.thread(p, "A · alpha")
	sk.setRefuse(true)
	want := numbered("m", 0, 40)
	f.post(alpha.Thread, want...)
	// It leaves with 1012 (resumable). The stand-in may not read that
	// frame: dispatches it had not read are in the provider's socket as
	// it closes, so the close can reach the stand-in as a reset, which
	// loses the frame. Discord takes a dropped connection as resumable
	// too; what counts is that the provider left.
	f.waitUntil("the provider left the gateway", func() bool {
		return f.dc.Count("client_close_1012") >= 1 || f.dc.Connected() == 0
	})
	sk.setRefuse(false)
	sk.waitTexts(t, want...)
	if n := sk.delivered(); n != len(want) {
		t.Errorf("%d delivered for %d messages", n, len(want))
	}
	if n := f.dc.Count("identify"); n != 1 {
		t.Errorf("%d IDENTIFYs", n)
	}
}

// TestCatchUpUnderLoad: messages keep arriving while the session is
// invalidated and a fresh one catches up: every message is journalled
// once, in order.
func TestCatchUpUnderLoad(t *testing.T) {
	f := newFixture(t)
	sk, _, alpha := f.start()
	want := numbered("load ", 0, 300)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i, text := range want {
			f.dc.PostMessage(alpha.Thread, f.alice, text)
			if i%10 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	})
	f.waitUntil("some delivered", func() bool { return sk.delivered() > 20 })
	f.dc.InvalidateSessions(false)
	wg.Wait()
	sk.waitTexts(t, want...)
	if n := f.dc.Count("identify"); n != 2 {
		t.Errorf("%d IDENTIFYs", n)
	}
	t.Logf("%d delivered for %d messages (the supervisor's window drops the %d repeats)", sk.delivered(), len(want), sk.delivered()-len(want))
}

var _ provider.Sink = (*sink)(nil)

// TestMisconfigured: a wrong token, or a channel_id that is not a text
// channel the bot can see, keeps the provider NOT_SERVING with the
// reason, off the gateway.
func TestMisconfigured(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*discordtest.Server, *discord.Settings)
		why  string
	}{
		{"wrong token", func(_ *discordtest.Server, s *discord.Settings) { s.Token = "not-the-token" }, "401"},
		{"unknown channel", func(_ *discordtest.Server, s *discord.Settings) { s.ChannelID = "1234567890123" }, "Unknown Channel"},
		{"a forum", func(dc *discordtest.Server, s *discord.Settings) {
			s.ChannelID = discord.Snowflake(dc.AddChannel(discordtest.ChannelForum, "forum"))
		}, "not a text channel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			p := f.platform(func(s *discord.Settings, _ *discord.Options) { tt.mod(f.dc, s) })
			f.run(p, nil, newSink(t))
			f.waitUntil("NOT_SERVING", func() bool { ok, why := f.health.get(); return !ok && strings.Contains(why, tt.why) })
			if n := f.dc.Count("connections"); n != 0 {
				t.Errorf("%d gateway connections", n)
			}
		})
	}
}

// TestPanickingDispatchDeadLettered: a dispatch whose reading panics, in
// the gateway's reader and in the runner, does not end the reader (the
// process, in a crash loop on the replayed dispatch) or the runner: it
// is delivered as a dead letter, with its payload, dedup id and cursor,
// and the dispatches after it flow.
func TestPanickingDispatchDeadLettered(t *testing.T) {
	f := newFixture(t)
	sk, _, alpha := f.start()
	f.post(alpha.Thread, "before")
	sk.waitTexts(t, "before")
	restore := discord.SetDispatchHook(func(typ string, d json.RawMessage) {
		if typ == "MESSAGE_CREATE" && strings.Contains(string(d), `"boom"`) {
			panic("cannot read this one")
		}
	})
	defer restore()
	f.post(alpha.Thread, "boom")
	f.post(alpha.Thread, numbered("after ", 0, 10)...)
	j := sk.waitFor(t, "the dead letter and the 10 after it", func(j []*providerv1.Update) bool { return len(j) >= 12 })
	dead := j[1]
	if !strings.Contains(dead.GetConversionError(), "cannot read this one") || !strings.Contains(string(dead.GetPayload()), `"boom"`) {
		t.Fatalf("update after \"before\": %v, want the dead letter of \"boom\"", dead)
	}
	if got, want := textsOf(j[2:12]), numbered("after ", 0, 10); !slices.Equal(got, want) {
		t.Errorf("after the dead letter %q, want %q", got, want)
	}
	if c := f.dc.Counts(); c["identify"] != 1 || c["resume"] != 0 {
		t.Errorf("gateway counts %v: the session should have gone on", c)
	}
}

// TestDeadLetterConvertedAgain: a dead letter's payload is the dispatch
// as Discord sent it; ConvertUpdate (an operator's retry) processes it
// again apart from the runner: while its reading still panics it is a
// dead letter again, with the new error; once it can be read it is the
// update the runner would have made (the same kind, thread, text and
// dedup id), with no update id or cursor (the supervisor journals it
// beside the stream). A message and a reaction; a message whose decoding
// failed (its object the payload, kind MESSAGE) stays a dead letter.
func TestDeadLetterConvertedAgain(t *testing.T) {
	f := newFixture(t)
	sk, _, alpha := f.start()
	m := f.dc.PostMessage(alpha.Thread, f.alice, "before").ID
	sk.waitTexts(t, "before")
	restore := discord.SetDispatchHook(func(typ string, d json.RawMessage) {
		if strings.Contains(string(d), `"boom"`) || typ == "MESSAGE_REACTION_ADD" {
			panic("cannot read this one")
		}
	})
	defer restore()
	boom := f.dc.PostMessage(alpha.Thread, f.alice, "boom").ID
	f.dc.React(alpha.Thread, m, f.alice, "👍")
	f.post(alpha.Thread, "after")
	j := sk.waitFor(t, "two dead letters and the message after them", func(j []*providerv1.Update) bool { return len(j) >= 4 })
	msgDead, rxDead := j[1], j[2]
	for _, d := range []*providerv1.Update{msgDead, rxDead} {
		if d.GetConversionError() == "" {
			t.Fatalf("journal %v: want two dead letters after \"before\"", j)
		}
	}
	var frame struct {
		Op int
		T  string
		D  json.RawMessage
	}
	if err := json.Unmarshal(msgDead.GetPayload(), &frame); err != nil || frame.Op != 0 || frame.T != "MESSAGE_CREATE" ||
		!strings.Contains(string(frame.D), `"boom"`) {
		t.Fatalf("dead letter payload %s (%v): want the MESSAGE_CREATE dispatch", msgDead.GetPayload(), err)
	}
	ctx := context.Background()
	retry := func(d *providerv1.Update) *providerv1.Update {
		t.Helper()
		// As the SDK serves ConvertUpdate: a panic is a dead letter again.
		return provider.Convert(d.GetPayload(), func() (*providerv1.Update, error) {
			return f.p.ConvertUpdate(ctx, d.GetPayload(), d.GetKind(), d.GetDedupId())
		})
	}
	if u := retry(msgDead); !strings.Contains(u.GetConversionError(), "cannot read this one") {
		t.Errorf("retried while it still panics: %v, want a dead letter again", u)
	}
	restore()
	u := retry(msgDead)
	if u.GetConversionError() != "" || u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_MESSAGE || u.GetText() != "boom" ||
		u.GetThread() != alpha.Thread || u.GetDedupId() != boom || !u.GetAllowed() || u.GetUpdateId() != 0 || len(u.GetCursor()) != 0 {
		t.Errorf("retried message: %v, want the update of \"boom\" (dedup id %s), no update id or cursor", u, boom)
	}
	rx := retry(rxDead)
	if rx.GetConversionError() != "" || rx.GetKind() != providerv1.UpdateKind_UPDATE_KIND_REACTION || rx.GetText() != "👍" ||
		rx.GetThread() != alpha.Thread || !strings.HasPrefix(rx.GetDedupId(), "reaction:") ||
		strings.TrimPrefix(rx.GetDedupId(), "reaction:") != strings.TrimPrefix(rxDead.GetDedupId(), "dispatch:") {
		t.Errorf("retried reaction: %v (dead letter %s), want the reaction's update, its dedup id the dispatch's", rx, rxDead.GetDedupId())
	}

	id := f.dc.NewID()
	bad := json.RawMessage(fmt.Sprintf(`{"id":%q,"channel_id":%q,"guild_id":%q,"type":0,"content":12345,"author":{"id":%q,"username":"alice"}}`,
		id, alpha.Thread, f.dc.GuildID(), f.alice.ID))
	f.dc.DispatchRaw("MESSAGE_CREATE", bad)
	j = sk.waitFor(t, "the undecodable message", func(j []*providerv1.Update) bool { return len(j) >= 5 })
	if d := j[4]; d.GetConversionError() == "" || d.GetKind() != providerv1.UpdateKind_UPDATE_KIND_MESSAGE || d.GetDedupId() != id {
		t.Fatalf("update %v, want the dead letter of message %s", d, id)
	} else if again := retry(d); !strings.Contains(again.GetConversionError(), "content") || again.GetDedupId() != id {
		t.Errorf("retried undecodable message: %v, want a dead letter again", again)
	}
}
