package slack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/chatbus/chatbus/internal/testkit"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/slack"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
)

func refs(u *providerv1.Update) []string {
	var out []string
	for _, it := range u.GetReferences().GetItems() {
		out = append(out, strings.ToLower(strings.TrimPrefix(it.GetKind().String(), "REFERENCE_KIND_"))+":"+it.GetId())
	}
	return out
}

// TestInbound: what each kind of Slack event becomes, and what is not
// routed back (the bot's own messages and reactions, an unfurl's
// message_changed); every envelope is acknowledged.
func TestInbound(t *testing.T) {
	r := newRig(t, rigConfig{})
	j := r.journal()
	th := r.provision("A · alpha")
	if th.GetChat() != chanID || th.GetThread() == "" {
		t.Fatalf("target %v", th)
	}
	if roots := r.st.Sent(chanID, ""); len(roots) != 1 || roots[0].Text != "A · alpha" || roots[0].TS != th.GetThread() {
		t.Fatalf("roots %+v", roots)
	}

	msg := r.st.PostMessage(chanID, person, "hello alpha", th.GetThread())
	u := j.update(msg.EventID)
	if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_MESSAGE || u.GetChat() != chanID || u.GetThread() != th.GetThread() ||
		u.GetSender() != person || !u.GetAllowed() || u.GetText() != "hello alpha" || u.GetUpdateId() <= 0 {
		t.Fatalf("message update %v", u)
	}
	if got := refs(u); !slices.Equal(got, []string{"message:" + msg.TS}) {
		t.Errorf("refs %v", got)
	}
	var payload struct {
		EventID string `json:"event_id"`
	}
	if json.Unmarshal(u.GetPayload(), &payload); payload.EventID != msg.EventID {
		t.Errorf("payload is not the event callback: %s", u.GetPayload())
	}

	// The follower answers: its own message comes back as an event and is
	// not routed; the answer's ts becomes a reference.
	res, err := r.call(th, "chat.postMessage", `{"text":"hi, person","blocks":[{"type":"actions","elements":[{"type":"button","action_id":"ok","value":"yes","text":{"type":"plain_text","text":"Yes"}}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		TS string `json:"ts"`
	}
	json.Unmarshal([]byte(res), &sent)
	if s := r.st.Sent(chanID, th.GetThread()); len(s) != 1 || s[0].TS != sent.TS || s[0].Text != "hi, person" {
		t.Fatalf("thread holds %+v", s)
	}

	edit := r.st.Edit(chanID, msg.TS, "hello alpha (edited)")
	unfurl := r.st.Unfurl(chanID, msg.TS)
	top := r.st.PostMessage(chanID, person, "in the channel", "")
	other := r.st.PostMessage(chanID, stranger, "from a stranger", th.GetThread())
	react := r.st.React(chanID, sent.TS, person, "thumbsup")
	if _, err := r.call(th, "reactions.add", fmt.Sprintf(`{"timestamp":%q,"name":"eyes"}`, msg.TS)); err != nil {
		t.Fatal(err)
	}
	press := r.st.PressButton(chanID, sent.TS, person, "ok", "yes")
	file, fileID := r.st.PostFile(chanID, person, th.GetThread(), "notes.txt", "see this", []byte("notes"))

	tests := []struct {
		name, dedup string
		kind        providerv1.UpdateKind
		thread      string
		sender      string
		allowed     bool
		text        string
		refs        []string
	}{
		{"edit", edit, providerv1.UpdateKind_UPDATE_KIND_EDITED_MESSAGE, th.GetThread(), person, true, "hello alpha (edited)", []string{"message:" + msg.TS}},
		{"channel message", top.EventID, providerv1.UpdateKind_UPDATE_KIND_MESSAGE, "", person, true, "in the channel", []string{"message:" + top.TS}},
		{"stranger", other.EventID, providerv1.UpdateKind_UPDATE_KIND_MESSAGE, th.GetThread(), stranger, false, "from a stranger", []string{"message:" + other.TS}},
		{"reaction", react, providerv1.UpdateKind_UPDATE_KIND_REACTION, th.GetThread(), person, true, "thumbsup", []string{"message:" + sent.TS}},
		{"button", "trigger:" + press, providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY, th.GetThread(), person, true, "yes", []string{"interaction:" + person + "/" + press, "message:" + sent.TS}},
		{"file", file.EventID, providerv1.UpdateKind_UPDATE_KIND_MESSAGE, th.GetThread(), person, true, "see this", []string{"message:" + file.TS, "file:" + fileID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := j.update(tc.dedup)
			if u.GetKind() != tc.kind || u.GetThread() != tc.thread || u.GetSender() != tc.sender || u.GetAllowed() != tc.allowed || u.GetText() != tc.text {
				t.Errorf("update %v", u)
			}
			if got := refs(u); !slices.Equal(got, tc.refs) {
				t.Errorf("refs %v, want %v", got, tc.refs)
			}
		})
	}
	// Everything was acknowledged, the echoes and the unfurl without
	// being routed; nothing acknowledged twice, nothing else.
	testkit.Eventually(t, "every envelope acknowledged", func() bool { return r.st.Stats().Pending == 0 })
	if st := r.st.Stats(); st.BadAcks != 0 || st.Acks != 0 || st.Redeliveries != 0 {
		t.Errorf("stats %+v", st)
	}
	if !r.st.Event(unfurl).Acked {
		t.Error("the unfurl was not acknowledged")
	}
	if n, want := j.count(), len(tests)+1; n != want {
		t.Errorf("%d updates journalled, want %d (echoes routed back?): %v", n, want, j.texts())
	}
}

// TestAckAfterDurable: an envelope is acknowledged to Slack only after the
// supervisor acknowledged its update; a redelivery meanwhile is
// journalled once and both envelopes are acknowledged.
func TestAckAfterDurable(t *testing.T) {
	r := newRig(t, rigConfig{opts: []slacktest.Option{slacktest.WithRetrySchedule(300*time.Millisecond, 300*time.Millisecond)}})
	j := r.journal()
	th := r.provision("A · alpha")
	j.setHold(true)
	m := r.st.PostMessage(chanID, person, "hold me", th.GetThread())
	j.update(m.EventID)
	// Not durable yet: not acknowledged, so Slack redelivers.
	testkit.Eventually(t, "a redelivery", func() bool { return r.st.Event(m.EventID).Deliveries >= 2 })
	if r.st.Event(m.EventID).Acked {
		t.Fatal("acknowledged before the supervisor made it durable")
	}
	j.setHold(false)
	testkit.Eventually(t, "acknowledged", func() bool { return r.st.Event(m.EventID).Acked })
	ev := r.st.Event(m.EventID)
	testkit.Eventually(t, "every attempt acknowledged", func() bool { return r.st.Event(m.EventID).Acks == r.st.Event(m.EventID).Deliveries })
	if n := j.count(); n != 1 {
		t.Errorf("sent %d times, want once (event %+v)", n, ev)
	}
}

// TestRedeliveredAfterStreamEnds: an update that was sent but not
// acknowledged when the stream ended is not acknowledged to Slack; the
// next stream gets it again with the same dedup id.
func TestRedeliveredAfterStreamEnds(t *testing.T) {
	r := newRig(t, rigConfig{})
	j := r.journal()
	th := r.provision("A · alpha")
	j.setHold(true)
	m := r.st.PostMessage(chanID, person, "in flight", th.GetThread())
	first := j.update(m.EventID)
	j.close()
	j2 := r.journal()
	again := j2.update(m.EventID)
	if again.GetUpdateId() == first.GetUpdateId() || again.GetText() != "in flight" {
		t.Errorf("first %v, again %v", first, again)
	}
	testkit.Eventually(t, "acknowledged", func() bool { return r.st.Event(m.EventID).Acked })
	if e := r.st.Event(m.EventID); e.Deliveries != 2 {
		t.Errorf("event %+v: want one redelivery (the first connection closed with the stream)", e)
	}
}

// TestNotAdmitting: while a doctor holds admission closed, envelopes are
// neither delivered nor acknowledged (Slack redelivers them); once
// admission reopens they are delivered once.
func TestNotAdmitting(t *testing.T) {
	r := newRig(t, rigConfig{opts: []slacktest.Option{slacktest.WithRetrySchedule(200*time.Millisecond, 200*time.Millisecond, time.Minute)}})
	j := r.journal()
	th := r.provision("A · alpha")
	ctx := testCtx(t)
	if _, err := r.h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "doctor-1")}); err != nil {
		t.Fatal(err)
	}
	m := r.st.PostMessage(chanID, person, "during prepare", th.GetThread())
	// Two deliveries prove the first was not acknowledged in time.
	testkit.Eventually(t, "redelivered", func() bool { return r.st.Event(m.EventID).Deliveries >= 2 })
	if e := r.st.Event(m.EventID); e.Acked || j.count() != 0 {
		t.Fatalf("while prepared: event %+v, %d updates", e, j.count())
	}
	if _, err := r.h.Client.Cancel(ctx, &providerv1.CancelRequest{Fence: fence(t, "doctor-1")}); err != nil {
		t.Fatal(err)
	}
	j.update(m.EventID)
	testkit.Eventually(t, "acknowledged", func() bool { return r.st.Event(m.EventID).Acked })
	if n := j.count(); n != 1 {
		t.Errorf("delivered %d times", n)
	}
}

// TestConnectionFailures: the connection is replaced when it drops mid
// stream, when Slack asks (refresh_requested), and when it goes silent
// (no frame for dead_after); every message arrives once and hello and
// disconnect are never acknowledged.
func TestConnectionFailures(t *testing.T) {
	r := newRig(t, rigConfig{
		opts:     []slacktest.Option{slacktest.WithRetrySchedule(time.Second, time.Second, time.Second), slacktest.WithPingInterval(100 * time.Millisecond)},
		settings: func(s *slack.Settings) { s.DeadAfter = "600ms" },
	})
	j := r.journal()
	th := r.provision("A · alpha")
	var want []string
	post := func(n int) {
		for range n {
			text := fmt.Sprintf("m%d", len(want))
			want = append(want, text)
			r.st.PostMessage(chanID, person, text, th.GetThread())
		}
	}
	breaks := []struct {
		name   string
		break_ func()
	}{
		{"dropped", r.st.DropLinks},
		{"refresh requested", func() { r.st.Disconnect("refresh_requested") }},
		{"silent", r.st.StallLinks},
	}
	for i, b := range breaks {
		testkit.Eventually(t, "a connection", func() bool { return r.st.Stats().Live > 0 })
		post(5)
		conns := r.st.Stats().Connections
		b.break_()
		post(5)
		testkit.Eventually(t, b.name+": a new connection", func() bool { return r.st.Stats().Connections > conns })
		if i == 2 && !r.log.Contains("the connection is dead") {
			t.Errorf("the silent connection was not noticed as dead:\n%s", r.log.String())
		}
	}
	j.waitFor("every message", func(j *journal) bool { return len(j.order) == len(want) })
	got := j.texts()
	slices.Sort(got)
	sorted := slices.Clone(want)
	slices.Sort(sorted)
	if !slices.Equal(got, sorted) {
		t.Errorf("journalled %v, want %v", got, sorted)
	}
	testkit.Eventually(t, "all acknowledged", func() bool { return r.st.Stats().Pending == 0 })
	if st := r.st.Stats(); st.BadAcks != 0 || st.Expired != 0 {
		t.Errorf("stats %+v", st)
	}
	if status, _ := r.healthOf(); status != grpc_health_v1.HealthCheckResponse_SERVING {
		t.Errorf("health %v after reconnects", status)
	}
}

// TestRefreshKeepsReading: after Slack asks to reconnect, the old
// connection is read until the next one says hello, so what Slack still
// sends on it is acknowledged there, not left to Slack's retries.
func TestRefreshKeepsReading(t *testing.T) {
	r := newRig(t, rigConfig{})
	j := r.journal()
	th := r.provision("A · alpha")
	testkit.Eventually(t, "a connection", func() bool { return r.st.Stats().Live == 1 })
	r.st.Fail("apps.connections.open", slacktest.Fault{Delay: 700 * time.Millisecond}) // the next connection is slow to open
	r.st.Disconnect("warning")
	m := r.st.PostMessage(chanID, person, "between connections", th.GetThread())
	j.update(m.EventID)
	testkit.Eventually(t, "acknowledged", func() bool { return r.st.Event(m.EventID).Acked })
	if e, st := r.st.Event(m.EventID), r.st.Stats(); e.Deliveries != 1 || st.Connections != 1 {
		t.Errorf("event %+v, stats %+v: want it acknowledged on the old connection", e, st)
	}
	testkit.Eventually(t, "the next connection", func() bool { return r.st.Stats().Connections == 2 })
}

// TestHealth: a revoked token, and Socket Mode turned off, make the
// provider NOT_SERVING with the reason; it retries and serves again once
// fixed.
func TestHealth(t *testing.T) {
	tests := []struct {
		name       string
		break_     func(*slacktest.Server)
		fix        func(*slacktest.Server)
		reason     string
		postRevoke bool
	}{
		{"token revoked", (*slacktest.Server).Revoke, (*slacktest.Server).Restore, "token_revoked", true},
		{"link disabled", (*slacktest.Server).DisableSocketMode, (*slacktest.Server).EnableSocketMode, "link_disabled", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigConfig{})
			r.journal()
			th := r.provision("A · alpha")
			testkit.Eventually(t, "connected", func() bool { return r.st.Stats().Live == 1 })
			tc.break_(r.st)
			testkit.Eventually(t, "NOT_SERVING", func() bool {
				st, why := r.healthOf()
				return st == grpc_health_v1.HealthCheckResponse_NOT_SERVING && strings.Contains(why, tc.reason)
			})
			if tc.postRevoke {
				_, err := r.call(th, "chat.postMessage", `{"text":"x"}`)
				wantCode(t, err, codes.PermissionDenied, "")
			}
			tc.fix(r.st)
			testkit.Eventually(t, "SERVING again", func() bool {
				st, _ := r.healthOf()
				return st == grpc_health_v1.HealthCheckResponse_SERVING
			})
		})
	}
}

// TestCalls: calls are scoped to the caller's thread; Slack's errors keep
// their class.
func TestCalls(t *testing.T) {
	r := newRig(t, rigConfig{})
	th := r.provision("A · alpha")
	other := r.provision("B · beta")
	res, err := r.call(th, "chat.postMessage", `{"text":"mine"}`)
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		TS string `json:"ts"`
	}
	json.Unmarshal([]byte(res), &sent)
	person1 := r.st.PostMessage(chanID, person, "a person's", th.GetThread())
	tests := []struct {
		name, method, params string
		fault                *slacktest.Fault
		code                 codes.Code
		reason               string
		scope                string // of a rate limit
	}{
		{name: "update own", method: "chat.update", params: fmt.Sprintf(`{"ts":%q,"text":"edited"}`, sent.TS), code: codes.OK},
		{name: "another channel", method: "chat.postMessage", params: `{"channel":"C0OTHER","text":"x"}`, code: codes.PermissionDenied, reason: provider.ReasonOutOfScope},
		{name: "another thread", method: "chat.postMessage", params: fmt.Sprintf(`{"thread_ts":%q,"text":"x"}`, other.GetThread()), code: codes.PermissionDenied, reason: provider.ReasonOutOfScope},
		{name: "own channel named", method: "chat.postMessage", params: `{"channel":"` + chanID + `","text":"x"}`, code: codes.OK},
		{name: "a file's reaction", method: "reactions.add", params: `{"file":"F1","name":"eyes","timestamp":"1.2"}`, code: codes.PermissionDenied, reason: provider.ReasonOutOfScope},
		{name: "ephemeral to a stranger", method: "chat.postEphemeral", params: `{"user":"` + stranger + `","text":"x"}`, code: codes.PermissionDenied, reason: provider.ReasonOutOfScope},
		{name: "ephemeral", method: "chat.postEphemeral", params: `{"user":"` + person + `","text":"only you"}`, code: codes.OK},
		{name: "too long", method: "chat.postMessage", params: `{"text":"` + strings.Repeat("x", slack.MaxTextChars+1) + `"}`, code: codes.InvalidArgument},
		{name: "not an object", method: "chat.postMessage", params: `[1]`, code: codes.InvalidArgument},
		{name: "someone else's message", method: "chat.update", params: fmt.Sprintf(`{"ts":%q,"text":"x"}`, person1.TS), code: codes.PermissionDenied},
		{name: "message gone", method: "chat.delete", params: `{"ts":"1700000000.000001"}`, code: codes.NotFound, reason: provider.ReasonNotFound},
		{name: "no text", method: "chat.postMessage", params: `{}`, code: codes.InvalidArgument},
		{name: "rate limited", method: "chat.postMessage", params: `{"text":"x"}`, fault: &slacktest.Fault{Status: 429, RetryAfter: 7}, code: codes.ResourceExhausted, reason: provider.ReasonRateLimited, scope: "chat"},
		{name: "a tier rate limited", method: "chat.update", params: fmt.Sprintf(`{"ts":%q,"text":"edited"}`, sent.TS), fault: &slacktest.Fault{Status: 429, RetryAfter: 7}, code: codes.ResourceExhausted, reason: provider.ReasonRateLimited, scope: "bot"},
		{name: "channel not found", method: "chat.postMessage", params: `{"text":"x"}`, fault: &slacktest.Fault{Error: "channel_not_found"}, code: codes.NotFound},
		{name: "not in channel", method: "chat.postMessage", params: `{"text":"x"}`, fault: &slacktest.Fault{Error: "not_in_channel"}, code: codes.PermissionDenied},
		{name: "missing scope", method: "reactions.add", params: fmt.Sprintf(`{"timestamp":%q,"name":"x"}`, sent.TS), fault: &slacktest.Fault{Error: "missing_scope"}, code: codes.PermissionDenied},
		{name: "invalid arguments", method: "chat.postMessage", params: `{"text":"x"}`, fault: &slacktest.Fault{Error: "invalid_arguments"}, code: codes.InvalidArgument},
		{name: "internal error", method: "chat.postMessage", params: `{"text":"x"}`, fault: &slacktest.Fault{Error: "internal_error"}, code: codes.Unknown},
		{name: "proxy 502", method: "chat.postMessage", params: `{"text":"x"}`, fault: &slacktest.Fault{Status: 502}, code: codes.Unknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fault != nil {
				r.st.Fail(tc.method, *tc.fault)
			}
			_, err := r.call(th, tc.method, tc.params)
			wantCode(t, err, tc.code, tc.reason)
			if tc.code == codes.ResourceExhausted {
				if d, ok := provider.RetryAfter(err); !ok || d != 7*time.Second {
					t.Errorf("retry after %v %v, want 7s", d, ok)
				}
				// The channel's limit for a message, the workspace's
				// tier for an edit: what the supervisor pauses.
				if got := limitScope(err); got != tc.scope {
					t.Errorf("scope %q, want %q", got, tc.scope)
				}
			}
		})
	}
	if n := len(r.st.Sent(chanID, other.GetThread())); n != 0 {
		t.Errorf("%d messages reached the other thread", n)
	}
	// A root deleted before anyone replied: Slack posts at the top level
	// and answers ok; the provider takes the message back and says the
	// thread is gone. (th has replies: its root would stay a thread.)
	fresh := r.provision("C · gamma")
	r.st.DeleteMessage(chanID, fresh.GetThread())
	_, err = r.call(fresh, "chat.postMessage", `{"text":"into the void"}`)
	wantCode(t, err, codes.NotFound, provider.ReasonTargetGone)
	if top := r.st.Sent(chanID, ""); len(top) != 2 || top[0].TS != th.GetThread() || top[1].TS != other.GetThread() {
		t.Errorf("top level %+v: the stray message was not taken back", top)
	}
}

// TestProvision: a thread is a root message named by the supervisor;
// reusing it renames the root and reopens it, and a root that is gone is
// replaced; closing adds a :lock:, twice is fine.
func TestProvision(t *testing.T) {
	r := newRig(t, rigConfig{})
	ctx := testCtx(t)
	th := r.provision("A · alpha")
	if _, err := r.h.Client.CloseTarget(ctx, &providerv1.CloseTargetRequest{Target: th}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.h.Client.CloseTarget(ctx, &providerv1.CloseTargetRequest{Target: th}); err != nil {
		t.Fatalf("closing a closed thread: %v", err)
	}
	if m, _ := r.st.Message(chanID, th.GetThread()); len(m.Reactions["lock"]) != 1 {
		t.Fatalf("root after close: %+v", m)
	}
	resp, err := r.h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "A · alpha2", Reuse: th})
	if err != nil || !resp.GetReused() || resp.GetTarget().GetThread() != th.GetThread() {
		t.Fatalf("reuse: %v %v", resp, err)
	}
	if m, _ := r.st.Message(chanID, th.GetThread()); m.Text != "A · alpha2" || len(m.Reactions["lock"]) != 0 {
		t.Errorf("reused root: %+v", m)
	}
	r.st.DeleteMessage(chanID, th.GetThread())
	resp, err = r.h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "A · alpha3", Reuse: th})
	if err != nil || resp.GetReused() || resp.GetTarget().GetThread() == th.GetThread() {
		t.Fatalf("reuse of a deleted root: %v %v", resp, err)
	}
	r.st.Fail("chat.postMessage", slacktest.Fault{Error: "internal_error"})
	_, err = r.h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "C · x"})
	wantCode(t, err, codes.Unknown, "")
	// A root Slack answered 429 is posted after Retry-After (roots are
	// not paced by the supervisor); one that stays refused past the
	// call's deadline is rate limited.
	r.st.Fail("chat.postMessage", slacktest.Fault{Status: 429, RetryAfter: 1})
	resp, err = r.h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "D · after a wait"})
	if err != nil || resp.GetTarget().GetThread() == "" {
		t.Fatalf("a root after a 429: %v %v", resp, err)
	}
	if m, _ := r.st.Message(chanID, resp.GetTarget().GetThread()); m.Text != "D · after a wait" {
		t.Errorf("root %+v", m)
	}
	r.st.FailAlways("chat.postMessage", slacktest.Fault{Status: 429, RetryAfter: 2})
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err = r.h.Client.ProvisionTarget(short, &providerv1.ProvisionTargetRequest{Name: "C · x"})
	wantCode(t, err, codes.ResourceExhausted, "")
	r.st.ClearFaults()
}

// TestFiles: an upload lands in the caller's thread through the external
// upload flow; a person's file downloads with the bot token.
func TestFiles(t *testing.T) {
	r := newRig(t, rigConfig{})
	ctx := testCtx(t)
	th := r.provision("A · alpha")
	data := bytes.Repeat([]byte("0123456789"), 20000)
	up, err := r.h.Client.UploadFile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Header_{Header: &providerv1.UploadFileRequest_Header{
		Target: th, Filename: "report.txt", Caption: "the report"}}})
	for i := 0; i < len(data); i += 64 << 10 {
		up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Chunk{Chunk: data[i:min(i+64<<10, len(data))]}})
	}
	res, err := up.CloseAndRecv()
	if err != nil {
		t.Fatal(err)
	}
	sent := r.st.Sent(chanID, th.GetThread())
	if len(sent) != 1 || len(sent[0].Files) != 1 || sent[0].Text != "the report" {
		t.Fatalf("thread holds %+v", sent)
	}
	if ids := res.GetReferences().GetItems(); len(ids) != 1 || ids[0].GetId() != sent[0].Files[0] {
		t.Errorf("references %v", ids)
	}

	_, fileID := r.st.PostFile(chanID, person, th.GetThread(), "photo.png", "", []byte("\x89PNG not really"))
	dl, err := r.h.Client.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: fileID})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	for {
		m, err := dl.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got.Write(m.GetChunk())
	}
	if got.String() != "\x89PNG not really" {
		t.Errorf("downloaded %q", got.String())
	}
	_, err = r.h.Client.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: "F0NONE"})
	if err == nil {
		dl, _ := r.h.Client.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: "F0NONE"})
		_, err = dl.Recv()
	}
	wantCode(t, err, codes.NotFound, "")
}

// TestDescribe: the declared methods and their id params, and Slack's
// text limit.
func TestDescribe(t *testing.T) {
	r := newRig(t, rigConfig{})
	d, err := r.h.Client.Describe(testCtx(t), &providerv1.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.GetCommandPrefix() != "/chatbus " {
		t.Errorf("command prefix %q", d.GetCommandPrefix())
	}
	got := map[string]string{}
	for _, m := range d.GetMethods() {
		var ps []string
		for _, p := range m.GetParams() {
			ps = append(ps, p.GetName()+"="+p.GetKind().String())
		}
		got[m.GetName()] = strings.Join(ps, ",")
	}
	want := map[string]string{
		"chat.postMessage": "", "chat.postEphemeral": "",
		"chat.update": "ts=REFERENCE_KIND_MESSAGE", "chat.delete": "ts=REFERENCE_KIND_MESSAGE",
		"reactions.add": "timestamp=REFERENCE_KIND_MESSAGE", "reactions.remove": "timestamp=REFERENCE_KIND_MESSAGE",
	}
	if d.GetPlatform() != "slack" || d.GetMaxTextChars() != slack.MaxTextChars || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("describe %v", d)
	}
	lanes := map[string]string{}
	for _, m := range d.GetMethods() {
		lanes[m.GetName()] = m.GetLane().String()
	}
	wantLanes := map[string]string{"chat.postMessage": "LANE_MESSAGE", "chat.postEphemeral": "LANE_MESSAGE",
		"chat.update": "LANE_EDIT", "chat.delete": "LANE_EDIT", "reactions.add": "LANE_AMBIENT", "reactions.remove": "LANE_AMBIENT"}
	if fmt.Sprint(lanes) != fmt.Sprint(wantLanes) {
		t.Errorf("lanes %v, want %v", lanes, wantLanes)
	}
	// Slack's limits: chat.postMessage one a second per channel; the
	// other methods by their tier, per workspace, spread over the minute.
	var limits []string
	for _, l := range d.GetLimits() {
		limits = append(limits, fmt.Sprintf("%s %s %d/%s %s", l.GetName(), l.GetScope(), l.GetCount(), l.GetPer().AsDuration(), strings.Join(l.GetMethods(), ",")))
	}
	wantLimits := []string{
		"chat.postMessage LIMIT_SCOPE_CHAT 1/1s send,chat.postMessage",
		"chat.update LIMIT_SCOPE_BOT 5/6s edit,chat.update",
		"chat.delete LIMIT_SCOPE_BOT 5/6s chat.delete",
		"reactions.add LIMIT_SCOPE_BOT 5/6s react,reactions.add",
		"reactions.remove LIMIT_SCOPE_BOT 2/6s reactions.remove",
		"chat.postEphemeral LIMIT_SCOPE_BOT 10/6s answer,chat.postEphemeral",
		"upload LIMIT_SCOPE_BOT 10/6s upload",
	}
	if !slices.Equal(limits, wantLimits) {
		t.Errorf("limits\n%s\nwant\n%s", strings.Join(limits, "\n"), strings.Join(wantLimits, "\n"))
	}
	id, err := r.h.Client.Identify(testCtx(t), &providerv1.IdentifyRequest{})
	if err != nil || id.GetOwnerId() != slacktest.BotUserID || id.GetAccount() != "@chatbus (slacktest)" {
		t.Errorf("identify %v %v", id, err)
	}
}

// TestLimitsSetting: the limits setting changes the declared limits by
// name and turns one off.
func TestLimitsSetting(t *testing.T) {
	r := newRig(t, rigConfig{settings: func(s *slack.Settings) {
		s.Limits = provider.LimitSettings{"chat.postMessage": "3/3s", "reactions.remove": "off"}
	}})
	d, err := r.h.Client.Describe(testCtx(t), &providerv1.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range d.GetLimits() {
		got[l.GetName()] = fmt.Sprintf("%d/%s", l.GetCount(), l.GetPer().AsDuration())
	}
	if got["chat.postMessage"] != "3/3s" || got["chat.update"] != "5/6s" || len(got) != len(slack.DefaultLimits)-1 {
		t.Errorf("limits %v", got)
	}
	if _, err := slack.New(slack.Config{Settings: slack.Settings{AppToken: "xapp-1", BotToken: "xoxb-1", ChannelID: chanID,
		Limits: provider.LimitSettings{"bot": "1/s"}}}); err == nil || !strings.Contains(err.Error(), "unknown limit") {
		t.Errorf("New with an unknown limit: %v", err)
	}
}

func TestParseSettings(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"ok", `{"name":"slack","channel_id":"C0123ABCD","allowed_user_ids":["U0123ABCD","W0123"],"app_token":"xapp-1","bot_token":"xoxb-1","base_url":"http://127.0.0.1:1/api","dead_after":"10s","auth_retry":"2m"}`, ""},
		{"unknown key", `{"channel_id":"C0123ABCD","token":"x"}`, "token: unknown setting"},
		{"no channel", `{}`, "channel_id: required"},
		{"channel name", `{"channel_id":"#general"}`, "not a channel id"},
		{"user name", `{"channel_id":"C0123ABCD","allowed_user_ids":["@me"]}`, "not a Slack member id"},
		{"user number", `{"channel_id":"C0123ABCD","allowed_user_ids":[123]}`, "allowed_user_ids: want a list of strings"},
		{"base url", `{"channel_id":"C0123ABCD","base_url":"slack.com"}`, `"slack.com" is not an absolute http(s) URL (e.g. https://slack.com/api/)`},
		{"duration", `{"channel_id":"C0123ABCD","dead_after":"soon"}`, `dead_after: "soon" is not a duration (e.g. 30s)`},
		{"duration zero", `{"channel_id":"C0123ABCD","auth_retry":"0s"}`, "auth_retry: 0s is out of range (1ms to 24h0m0s)"},
		{"limits", `{"channel_id":"C0123ABCD","base_url":"http://127.0.0.1:1/api","limits":{"chat.postMessage":"3/3s","reactions.remove":"off"}}`, ""},
		{"unknown limit", `{"channel_id":"C0123ABCD","limits":{"chat.postmessage":"1/s"}}`, "did you mean chat.postMessage?"},
		{"not a limit", `{"channel_id":"C0123ABCD","limits":{"chat.update":"fast"}}`, "limits.chat.update"},
	}
	tokens := func(k string) string {
		return map[string]string{slack.AppTokenEnv: "xapp-1", slack.BotTokenEnv: "xoxb-1"}[k]
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := slack.ParseSettings([]byte(tc.in), tokens)
			if tc.err == "" {
				if err != nil || s.BaseURL != "http://127.0.0.1:1/api/" {
					t.Fatalf("%+v %v", s, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got %v, want %q", err, tc.err)
			}
		})
	}
	for _, tc := range []struct{ app, bot, err string }{
		{"", "xoxb-1", "app_token: missing"},
		{"xoxb-1", "xoxb-1", "app_token: not an app-level token"},
		{"xapp-1", "", "bot_token: missing"},
		{"xapp-1", "xoxp-1", "bot_token: not a bot token"},
	} {
		err := slack.Settings{AppToken: tc.app, BotToken: tc.bot}.CheckTokens()
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("tokens %q %q: %v, want %q", tc.app, tc.bot, err, tc.err)
		}
	}
}

// TestRootDeletedReported: a person deleting the root of one of the bot's
// threads before anyone replied is reported as the thread deleted (not a
// follower's update: allowed false); deleting a person's message, or a
// root with replies (which stays a thread), is not.
func TestRootDeletedReported(t *testing.T) {
	r := newRig(t, rigConfig{})
	j := r.journal()
	busy := r.provision("A · alpha")
	r.st.PostMessage(chanID, person, "a reply", busy.GetThread())
	m := r.st.PostMessage(chanID, person, "to be deleted", busy.GetThread())
	j.update(m.EventID)
	r.st.DeleteMessage(chanID, m.TS)             // a person's message
	r.st.DeleteMessage(chanID, busy.GetThread()) // a root with replies
	gone := r.provision("B · beta")
	r.st.DeleteMessage(chanID, gone.GetThread())
	var deleted []*providerv1.Update
	j.waitFor("the deleted root", func(j *journal) bool {
		deleted = deleted[:0]
		for _, u := range j.all {
			if u.GetThreadState() == providerv1.ThreadState_THREAD_STATE_DELETED {
				deleted = append(deleted, u)
			}
		}
		return len(deleted) > 0
	})
	u := deleted[0]
	if len(deleted) != 1 || u.GetThread() != gone.GetThread() || u.GetChat() != chanID || u.GetAllowed() || u.GetDedupId() == "" {
		t.Errorf("deleted-thread updates %v, want one for %s, not allowed", deleted, gone.GetThread())
	}
}
