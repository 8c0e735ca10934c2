package playground

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/internal/durable"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/providertest"
)

// TestConversation: a room is provisioned, a person writes, the follower
// gets the playground's update, answers in Markdown with buttons, the
// person presses one and the follower answers the press; typing, an edit
// and a reaction follow. The page's live stream sees each step.
func TestConversation(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := providertest.Context(t)
	next := r.web.events(ctx)
	if e := next(); e.Type != "rooms" || len(e.Rooms) != 1 || !e.Rooms[0].Control {
		t.Fatalf("first event %+v: want the control room only", e)
	}
	room := r.provision(t, "A · alpha")
	if e := next(); e.Type != "rooms" || len(e.Rooms) != 2 || e.Rooms[1].Name != "A · alpha" {
		t.Fatalf("rooms event %+v", e)
	}

	st := r.updates(t, nil)
	sent := r.web.say(room, "c1", "hello **there**")
	if e := next(); e.Type != "message" || e.Message.Text != "hello **there**" || e.Message.HTML != "" || e.Message.From != "you" {
		t.Fatalf("own message event %+v", e)
	}
	u := st.recv()
	if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_MESSAGE || u.GetText() != "hello **there**" || u.GetChat() != chatText ||
		u.GetThread() != fmt.Sprint(room) || u.GetSender() != fmt.Sprint(PersonID) || !u.GetAllowed() || u.GetDedupId() == "" {
		t.Fatalf("update %v", u)
	}
	if got := refKinds(u)[providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE]; len(got) != 1 || got[0] != fmt.Sprint(sent.ID) {
		t.Fatalf("refs %v", u.GetReferences())
	}
	// The payload is the playground's own: the message as the page shows
	// it (a person's text is shown as typed).
	if pl := payloadOf(t, u); pl.Kind != "message" || pl.Room != room || pl.Message.ID != sent.ID || pl.Message.From != "you" ||
		pl.Message.Text != "hello **there**" || pl.Message.HTML != "" {
		t.Fatalf("payload %s", u.GetPayload())
	}
	st.ack(u.GetUpdateId())

	// The follower answers in Markdown, with buttons, replying to the
	// person: the page gets it rendered.
	ids := r.mustVerb(t, room, provider.VerbSend, &providerv1.SendParams{
		Text: "**pick** one:\n\n```go\nx := 1 < 2\n```\n<script>alert(1)</script>", ReplyTo: fmt.Sprint(sent.ID), Prompt: true,
		Buttons: []*providerv1.Button{{Label: "Yes", Data: "yes"}, {Label: "No", Data: "no"}},
	})
	e := next()
	var reply int64
	fmt.Sscan(ids[0], &reply)
	if len(ids) != 1 || e.Type != "message" || e.Message.ID != reply || e.Message.From != "bot" || e.Message.ReplyTo != sent.ID ||
		e.Message.ReplyText != "hello **there**" || !e.Message.Prompt || len(e.Message.Buttons) != 2 || e.Message.Buttons[1] != (button{Label: "No", Data: "no"}) {
		t.Fatalf("bot message event %+v (ids %v)", e.Message, ids)
	}
	for _, want := range []string{"<strong>pick</strong>", `<pre><code class="language-go">x := 1 &lt; 2`, "&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(e.Message.HTML, want) {
			t.Errorf("rendered %q lacks %q", e.Message.HTML, want)
		}
	}
	if strings.Contains(e.Message.HTML, "<script") {
		t.Errorf("rendered %q holds a script element", e.Message.HTML)
	}

	// The person presses "No": a callback query reaches the follower.
	var pressed struct{ Interaction string }
	json.Unmarshal(r.web.post(fmt.Sprintf("/api/rooms/%d/press", room), pressRequest{messageRequest: messageRequest{ClientID: "c2", MessageID: reply}, Data: "no"}), &pressed)
	u = st.recv()
	refs := refKinds(u)
	if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY || u.GetText() != "no" ||
		len(refs[providerv1.ReferenceKind_REFERENCE_KIND_INTERACTION]) != 1 || refs[providerv1.ReferenceKind_REFERENCE_KIND_INTERACTION][0] != pressed.Interaction ||
		len(refs[providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE]) != 1 || refs[providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE][0] != ids[0] {
		t.Fatalf("callback update %v", u)
	}
	if pl := payloadOf(t, u); pl.Kind != "press" || pl.Data != "no" || pl.Interaction != pressed.Interaction || pl.Message.ID != reply || pl.Message.HTML != "" {
		t.Fatalf("callback payload %s", u.GetPayload())
	}
	st.ack(u.GetUpdateId())
	r.mustVerb(t, room, provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: pressed.Interaction, Text: "noted"})
	for e = next(); e.Type != "answer"; e = next() {
		if e.Type == "message" && e.Message.Answer != "noted" {
			t.Fatalf("message event before the answer %+v", e.Message)
		}
	}
	if e.Text != "noted" || e.ID != pressed.Interaction {
		t.Fatalf("answer event %+v", e)
	}
	// The same answer again changes nothing; another is refused.
	r.mustVerb(t, room, provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: pressed.Interaction, Text: "noted"})
	_, err := r.verb(t, room, provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: pressed.Interaction, Text: "changed my mind"}, "")
	wantCode(t, err, codes.InvalidArgument, "answered already")
	// A button that is not on the message cannot be pressed.
	if code, _ := r.web.do("POST", fmt.Sprintf("/api/rooms/%d/press", room), "application/json",
		bytes.NewReader(mustJSON(pressRequest{messageRequest: messageRequest{ClientID: "c3", MessageID: reply}, Data: "maybe"}))); code != 400 {
		t.Fatalf("pressing a button that is not there: %d", code)
	}

	// Typing, an edit and a reaction reach the page live.
	r.mustVerb(t, room, provider.VerbTyping, &providerv1.TypingParams{})
	if e := next(); e.Type != "typing" || e.Room != room || e.Until <= time.Now().UnixMilli() {
		t.Fatalf("typing %+v", e)
	}
	if got := r.mustVerb(t, room, provider.VerbEdit, &providerv1.EditParams{MessageId: ids[0], Text: "picked: _no_"}); len(got) != 1 || got[0] != ids[0] {
		t.Fatalf("edit names %v", got)
	}
	// Each write of a message is a newer revision (sent, answered, edited).
	if e := next(); e.Message.HTML != "<p>picked: <em>no</em></p>" || !e.Message.Edited || e.Message.Buttons != nil || e.Message.Answer != "noted" || e.Message.Rev != 3 {
		t.Fatalf("edit event %+v", e.Message)
	}
	r.mustVerb(t, room, provider.VerbReact, &providerv1.ReactParams{MessageId: fmt.Sprint(sent.ID), Emoji: "👍"})
	if e := next(); e.Message.ID != sent.ID || len(e.Message.Reactions["bot"]) != 1 || e.Message.Reactions["bot"][0] != "👍" {
		t.Fatalf("reaction event %+v", e.Message)
	}
	// The person reacts: a reaction update, and again: taken back.
	for i, removed := range []bool{false, true} {
		r.web.post(fmt.Sprintf("/api/rooms/%d/react", room), reactRequest{messageRequest: messageRequest{ClientID: fmt.Sprint("r", i), MessageID: reply}, Emoji: "🔥"})
		u = st.recv()
		if pl := payloadOf(t, u); u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_REACTION || u.GetText() != "🔥" ||
			pl.Kind != "reaction" || pl.Emoji != "🔥" || pl.Removed != removed || pl.Message.ID != reply {
			t.Fatalf("reaction update %v", u)
		}
		st.ack(u.GetUpdateId())
	}

	// The history says the same after a reload.
	h := r.web.history(room)
	if len(h) != 2 || h[0].Text != "hello **there**" || h[0].Reactions["bot"][0] != "👍" ||
		h[1].HTML != "<p>picked: <em>no</em></p>" || h[1].Text != "picked: _no_" || h[1].Answer != "noted" || len(h[1].Reactions["you"]) != 0 {
		t.Fatalf("history %+v", h)
	}
}

// TestDescribe: the playground declares the message verbs and no methods.
func TestDescribe(t *testing.T) {
	r := newRig(t, t.TempDir())
	d, err := r.h.Client.Describe(providertest.Context(t), &providerv1.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range d.GetVerbs() {
		got = append(got, fmt.Sprintf("%s/%v/%v", v.GetName(), v.GetIdempotent(), v.GetLasts().AsDuration()))
	}
	if strings.Join(got, " ") != "send/true/0s edit/true/0s react/true/0s typing/false/5s answer/true/0s" || len(d.GetMethods()) != 0 || len(d.GetLimits()) != 0 ||
		d.GetPlatform() != "playground" || d.GetMaxTextChars() != maxTextChars || d.GetWebUrl() != r.p.URL() {
		t.Fatalf("describe %v", d)
	}
}

// TestLongMessage: a text as long as the bus takes is one message.
func TestLongMessage(t *testing.T) {
	r := newRig(t, t.TempDir())
	room := r.provision(t, "A · alpha")
	long := strings.Repeat("word ", maxTextChars/5-1) + "end"
	id := r.send(t, room, long)
	h := r.web.history(room)
	if len(h) != 1 || h[0].ID != id || h[0].Text != long || !strings.HasSuffix(h[0].HTML, "end</p>") {
		t.Fatalf("history: %d messages", len(h))
	}
}

// TestHistoryPages: a room's history is read page by page back to its
// first message (a long-lived room has more than one page); a bad page is
// refused with what is wrong.
func TestHistoryPages(t *testing.T) {
	r := newRig(t, t.TempDir())
	room := r.provision(t, "A · alpha")
	var ids []int64
	for i := range 5 {
		ids = append(ids, r.web.say(room, fmt.Sprintf("c%d", i), fmt.Sprintf("m%d", i)).ID)
	}
	type page struct {
		Messages []messageView
		More     bool
	}
	read := func(q string) page {
		t.Helper()
		code, out := r.web.do("GET", fmt.Sprintf("/api/rooms/%d/messages?%s", room, q), "", nil)
		if code != 200 {
			t.Fatalf("%s: %d %s", q, code, out)
		}
		var p page
		if err := json.Unmarshal(out, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var got []string
	var pages []bool
	for q := "limit=2"; ; {
		p := read(q)
		for i := len(p.Messages) - 1; i >= 0; i-- {
			got = append(got, p.Messages[i].Text)
		}
		pages = append(pages, p.More)
		if !p.More {
			break
		}
		q = fmt.Sprintf("limit=2&before=%d", p.Messages[0].ID)
	}
	if strings.Join(got, " ") != "m4 m3 m2 m1 m0" || fmt.Sprint(pages) != "[true true false]" {
		t.Fatalf("paged back: %q, more %v", got, pages)
	}
	if p := read(fmt.Sprintf("before=%d", ids[1])); len(p.Messages) != 1 || p.Messages[0].ID != ids[0] || p.More {
		t.Fatalf("before the second message: %+v", p)
	}
	if p := read(""); len(p.Messages) != 5 || p.More {
		t.Fatalf("the whole history: %d messages, more %v", len(p.Messages), p.More)
	}
	for _, q := range []string{"limit=0", "limit=501", "limit=x", "before=0", "before=-3", "before=x"} {
		code, out := r.web.do("GET", fmt.Sprintf("/api/rooms/%d/messages?%s", room, q), "", nil)
		if code != http.StatusBadRequest || !strings.Contains(string(out), strings.SplitN(q, "=", 2)[0]+"=") {
			t.Errorf("%s: %d %s, want 400 naming the parameter", q, code, out)
		}
	}
}

// TestCursorAcrossRestarts: the inbox is the platform side of the cursor.
// What was acknowledged is never delivered again; what was not is, after a
// restart of the provider on the same state dir too.
func TestCursorAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	room := r.provision(t, "A · alpha")
	for i := range 3 {
		r.web.say(room, fmt.Sprintf("c%d", i), fmt.Sprintf("m%d", i))
	}
	st := r.updates(t, nil)
	u1, u2 := st.recv(), st.recv()
	if u1.GetText() != "m0" || u2.GetText() != "m1" {
		t.Fatalf("got %q %q", u1.GetText(), u2.GetText())
	}
	st.ack(u1.GetUpdateId()) // the supervisor made only the first durable
	cursor := u1.GetCursor()
	r.h.Stop()
	r.p.Close()

	// A new incarnation on the same store, resuming at the stored cursor.
	r2 := newRig(t, dir)
	if r2.p.URL() == r.p.URL() {
		t.Error("a new start kept the old access token")
	}
	st2 := r2.updates(t, cursor)
	got := []string{st2.recv().GetText(), st2.recv().GetText()}
	if got[0] != "m1" || got[1] != "m2" {
		t.Fatalf("after the restart: %q, want m1 m2", got)
	}
	// History and the session survived the restart.
	if h := r2.web.history(room); len(h) != 3 {
		t.Fatalf("history after restart: %d messages", len(h))
	}
	if code, _ := r.web.do("GET", "/api/state", "", nil); code != 200 {
		t.Errorf("the old page's session after a restart: %d", code)
	}
}

// TestDoctorFenceHoldsUpdates: while admission is closed, what a person
// writes waits in the inbox and is delivered once it reopens.
func TestDoctorFenceHoldsUpdates(t *testing.T) {
	r := newRig(t, t.TempDir())
	room := r.provision(t, "A · alpha")
	st := r.updates(t, nil)
	inc := r.h.Server.Incarnation()
	fence := &providerv1.Fence{RequestId: "doc-1", Incarnation: &providerv1.Incarnation{Pid: int32(inc.PID), StartTime: inc.StartTime}}
	if _, err := r.h.Client.Prepare(providertest.Context(t), &providerv1.PrepareRequest{Fence: fence, Lease: durationpb.New(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	r.web.say(room, "c1", "during the restart")
	// Held at the platform, durable, not counted as inbound.
	if n, occ := r.p.st.inboxLen(), r.h.Server.Occupancy(); n != 1 || occ.Inbound != 0 {
		t.Fatalf("inbox %d, occupancy %+v", n, occ)
	}
	if _, err := r.h.Client.Cancel(providertest.Context(t), &providerv1.CancelRequest{Fence: fence}); err != nil {
		t.Fatal(err)
	}
	if u := st.recv(); u.GetText() != "during the restart" {
		t.Fatalf("got %v", u)
	}
}

// TestRetriedRequestsOnce: a browser's retried send, and a follower's
// repeated idempotency key, each make one message; the key is the room's.
func TestRetriedRequestsOnce(t *testing.T) {
	r := newRig(t, t.TempDir())
	room, other := r.provision(t, "A · alpha"), r.provision(t, "B · beta")
	a, b := r.web.say(room, "same", "once"), r.web.say(room, "same", "once")
	if a.ID != b.ID {
		t.Fatalf("retried send made %d and %d", a.ID, b.ID)
	}
	send := &providerv1.SendParams{Text: "out"}
	r1, err1 := r.verb(t, room, provider.VerbSend, send, "k1")
	r2, err2 := r.verb(t, room, provider.VerbSend, send, "k1")
	r3, err3 := r.verb(t, other, provider.VerbSend, send, "k1")
	if err1 != nil || err2 != nil || err3 != nil || !proto.Equal(r1, r2) || len(r1.GetReferences().GetItems()) != 1 || proto.Equal(r1, r3) {
		t.Fatalf("repeated key: %v %v / %v %v / %v %v", r1, err1, r2, err2, r3, err3)
	}
	if h := r.web.history(room); len(h) != 2 {
		t.Fatalf("history %d messages, want 2", len(h))
	}
	if n := r.p.st.inboxLen(); n != 1 {
		t.Fatalf("inbox %d, want 1", n)
	}
}

// TestVerbRefusals: what leaves the room is out of scope; what is
// malformed is refused; the playground has no methods of its own.
func TestVerbRefusals(t *testing.T) {
	r := newRig(t, t.TempDir())
	alpha, beta := r.provision(t, "A · alpha"), r.provision(t, "B · beta")
	inBeta := fmt.Sprint(r.send(t, beta, "beta's", &providerv1.Button{Label: "B", Data: "b"}))
	mine := fmt.Sprint(r.send(t, alpha, "alpha's"))
	person := fmt.Sprint(r.web.say(alpha, "p", "from the person").ID)
	st := r.updates(t, nil)
	st.ack(st.recv().GetUpdateId())
	var pressed struct{ Interaction string }
	var betaID int64
	fmt.Sscan(inBeta, &betaID)
	json.Unmarshal(r.web.post(fmt.Sprintf("/api/rooms/%d/press", beta), pressRequest{messageRequest: messageRequest{ClientID: "x", MessageID: betaID}, Data: "b"}), &pressed)
	nine := make([]*providerv1.Button, 9)
	for i := range nine {
		nine[i] = &providerv1.Button{Label: "b", Data: fmt.Sprint(i)}
	}
	for _, tc := range []struct {
		name     string
		verb     string
		params   proto.Message
		code     codes.Code
		contains string
	}{
		{"edit another room's message", provider.VerbEdit, &providerv1.EditParams{MessageId: inBeta, Text: "x"}, codes.PermissionDenied, "another room"},
		{"react in another room", provider.VerbReact, &providerv1.ReactParams{MessageId: inBeta, Emoji: "👍"}, codes.PermissionDenied, "another room"},
		{"reply into another room", provider.VerbSend, &providerv1.SendParams{Text: "x", ReplyTo: inBeta}, codes.PermissionDenied, "another room"},
		{"answer another room's press", provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: pressed.Interaction}, codes.PermissionDenied, "another room"},
		{"empty text", provider.VerbSend, &providerv1.SendParams{Text: " \n "}, codes.InvalidArgument, "the text is empty"},
		{"edit too long", provider.VerbEdit, &providerv1.EditParams{MessageId: mine, Text: strings.Repeat("x", maxTextChars+1)}, codes.InvalidArgument, "longer than"},
		{"nine buttons", provider.VerbSend, &providerv1.SendParams{Text: "x", Buttons: nine}, codes.InvalidArgument, "at most 8"},
		{"long button data", provider.VerbSend, &providerv1.SendParams{Text: "x", Buttons: []*providerv1.Button{{Label: "b", Data: strings.Repeat("d", 65)}}}, codes.InvalidArgument, "button's data"},
		{"no label", provider.VerbSend, &providerv1.SendParams{Text: "x", Buttons: []*providerv1.Button{{Data: "d"}}}, codes.InvalidArgument, "label"},
		{"not a message id", provider.VerbEdit, &providerv1.EditParams{MessageId: "x1", Text: "x"}, codes.InvalidArgument, "not a playground message id"},
		{"edit a message the room does not hold", provider.VerbEdit, &providerv1.EditParams{MessageId: "99999", Text: "y"}, codes.NotFound, "holds no message"},
		{"edit the person's message", provider.VerbEdit, &providerv1.EditParams{MessageId: person, Text: "y"}, codes.InvalidArgument, "the person's"},
		{"edit with blank text", provider.VerbEdit, &providerv1.EditParams{MessageId: mine, Text: ""}, codes.InvalidArgument, "the text is empty"},
		{"two emoji", provider.VerbReact, &providerv1.ReactParams{MessageId: person, Emoji: strings.Repeat("👍", 9)}, codes.InvalidArgument, "one emoji"},
		{"unknown press", provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: "123"}, codes.NotFound, "no press"},
		{"long answer", provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: "123", Text: strings.Repeat("a", maxAnswerChars+1)}, codes.InvalidArgument, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.verb(t, alpha, tc.verb, tc.params, "")
			wantCode(t, err, tc.code, tc.contains)
		})
	}
	// The Bot API's methods are gone.
	_, err := r.h.Client.Call(providertest.Context(t), &providerv1.CallRequest{Method: "sendMessage", ParamsJson: []byte(`{"text":"x"}`), Target: target(alpha)})
	wantCode(t, err, codes.NotFound, "no method")
	// Params of another contract are refused (by the SDK).
	_, err = r.h.Client.Call(providertest.Context(t), &providerv1.CallRequest{Method: "send", ParamsJson: []byte(`{"text":"x","parse_mode":"HTML"}`), Target: target(alpha)})
	wantCode(t, err, codes.InvalidArgument, "send params")
	// A room that does not exist (any more) is gone, not just missing.
	for _, verb := range []string{provider.VerbSend, provider.VerbTyping} {
		_, err = r.verb(t, 999, verb, &providerv1.SendParams{Text: "x"}, "")
		if verb == provider.VerbTyping {
			_, err = r.verb(t, 999, verb, &providerv1.TypingParams{}, "")
		}
		wantCode(t, err, codes.NotFound, "no room 999")
	}
	_, err = r.verb(t, 0, provider.VerbSend, &providerv1.SendParams{Text: "x"}, "")
	wantCode(t, err, codes.InvalidArgument, "not a playground room")
	if h := r.web.history(beta); len(h) != 1 {
		t.Fatalf("beta's room got %d messages", len(h))
	}
}

// TestTopics: ProvisionTarget reuses a room it is asked to (renamed,
// reopened), else makes one; a closed room takes no person's message.
func TestTopics(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := providertest.Context(t)
	room := r.provision(t, "A · alpha")
	if _, err := r.h.Client.CloseTarget(ctx, &providerv1.CloseTargetRequest{Target: target(room)}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.h.Client.CloseTarget(ctx, &providerv1.CloseTargetRequest{Target: target(room)}); err != nil {
		t.Fatalf("closing a closed room: %v", err)
	}
	if code, _ := r.web.do("POST", fmt.Sprintf("/api/rooms/%d/messages", room), "application/json",
		bytes.NewReader(mustJSON(sendRequest{ClientID: "x", Text: "into a closed room"}))); code != 409 {
		t.Fatalf("writing into a closed room: %d", code)
	}
	resp, err := r.h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "A · alpha2", Reuse: target(room)})
	if err != nil || !resp.GetReused() || resp.GetTarget().GetThread() != fmt.Sprint(room) || resp.GetTarget().GetName() != "A · alpha2" {
		t.Fatalf("reuse: %v %v", resp, err)
	}
	rs, _ := r.p.st.rooms()
	if len(rs) != 2 || rs[1].Closed || rs[1].Name != "A · alpha2" {
		t.Fatalf("rooms after reuse %+v", rs)
	}
	resp, err = r.h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "B · beta", Reuse: target(4242)})
	if err != nil || resp.GetReused() || resp.GetTarget().GetThread() == "4242" {
		t.Fatalf("reusing a room that is gone: %v %v", resp, err)
	}
	_, err = r.h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "x", Chat: "-100999"})
	wantCode(t, err, codes.InvalidArgument, "not the playground's")
}

// TestFiles: a person's file reaches the follower as a document it may
// download; the follower's upload appears on the page; sizes are bounded.
func TestFiles(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := providertest.Context(t)
	room := r.provision(t, "A · alpha")
	st := r.updates(t, nil)
	data := bytes.Repeat([]byte("chatbus "), 1000)
	var synced atomic.Int32
	restore := durable.OnSyncDir(func(string) { synced.Add(1) })
	code, out := r.web.upload(room, "f1", "notes.txt", data)
	restore()
	if code != 200 {
		t.Fatalf("upload: %d %s", code, out)
	}
	if synced.Load() == 0 {
		t.Error("the file's rename into place was not made durable (no directory synced)")
	}
	u := st.recv()
	pl := payloadOf(t, u)
	if f := pl.Message.File; f == nil || f.Name != "notes.txt" || f.Size != int64(len(data)) || f.Photo || pl.Message.Text != "see attached" || u.GetText() != "see attached" {
		t.Fatalf("file update %s", u.GetPayload())
	}
	fileID := pl.Message.File.ID
	if files := refKinds(u)[providerv1.ReferenceKind_REFERENCE_KIND_FILE]; len(files) != 1 || files[0] != fileID {
		t.Fatalf("file refs %v", u.GetReferences())
	}
	got, err := providertest.Download(ctx, r.h.Client, fileID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("downloaded %d bytes, want %d", len(got), len(data))
	}
	if code, body := r.web.do("GET", "/api/files/"+fileID, "", nil); code != 200 || !bytes.Equal(body, data) {
		t.Fatalf("page download: %d, %d bytes", code, len(body))
	}

	// The follower sends a file.
	up, err := r.h.Client.UploadFile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Header_{Header: &providerv1.UploadFileRequest_Header{Target: target(room), Filename: "report.csv", Caption: "done"}}})
	up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Chunk{Chunk: []byte("a,b\n1,2\n")}})
	res, err := up.CloseAndRecv()
	if err != nil {
		t.Fatal(err)
	}
	var m messageView
	json.Unmarshal(res.GetResultJson(), &m)
	if m.File == nil || m.File.Name != "report.csv" || m.File.Size != 8 || m.Text != "done" || m.From != "bot" || len(res.GetReferences().GetItems()) != 2 {
		t.Fatalf("upload result %s %v", res.GetResultJson(), res.GetReferences())
	}
	h := r.web.history(room)
	if len(h) != 2 || h[1].File == nil || h[1].File.Name != "report.csv" || h[1].From != "bot" {
		t.Fatalf("history %+v", h)
	}

	// Bounds: a file over max_file_bytes is refused and not kept.
	if code, _ := r.web.upload(room, "f2", "big.bin", make([]byte, 1<<20+1)); code != 413 {
		t.Fatalf("oversized upload: %d", code)
	}
	_, err = r.h.Client.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: "nope"})
	if err == nil {
		_, err = func() (*providerv1.DownloadFileResponse, error) {
			s, _ := r.h.Client.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: "nope"})
			return s.Recv()
		}()
	}
	wantCode(t, err, codes.NotFound, "no file")
}

// TestPageRoutesGuarded: every route of the page needs a session, and the
// state-changing ones the page's Origin (internal/webauth has the full
// table of refusals).
func TestPageRoutesGuarded(t *testing.T) {
	r := newRig(t, t.TempDir())
	room := r.provision(t, "A · alpha")
	r.web.say(room, "c", "secret words")
	anon := &browser{t: t, c: &httpClient, origin: r.web.origin}
	for _, path := range []string{"/", "/static/app.js", "/api/state", fmt.Sprintf("/api/rooms/%d/messages", room), "/api/events"} {
		if code, body := anon.do("GET", path, "", nil); code != 401 || strings.Contains(string(body), "secret words") {
			t.Errorf("GET %s without a session: %d", path, code)
		}
	}
	for _, path := range []string{"messages", "press", "react", "files"} {
		if code, _ := anon.do("POST", fmt.Sprintf("/api/rooms/%d/%s", room, path), "application/json", strings.NewReader(`{}`)); code != 401 {
			t.Errorf("POST %s without a session: %d", path, code)
		}
		req, _ := newRequest("POST", r.web.origin+fmt.Sprintf("/api/rooms/%d/%s", room, path), `{}`)
		req.Header.Set("Origin", "http://127.0.0.1:1")
		resp, err := r.web.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("POST %s from another origin: %d", path, resp.StatusCode)
		}
	}
	if n := len(r.web.history(room)); n != 1 {
		t.Fatalf("history %d", n)
	}
}

func TestSettings(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"empty", `{}`, true},
		{"all", `{"name":"playground","port":28001,"max_file_bytes":1024,"title":"t"}`, true},
		{"unknown key", `{"prot":1}`, false},
		{"bad port", `{"port":70000}`, false},
		{"negative size", `{"max_file_bytes":-1}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseSettings([]byte(tc.in), nil); (err == nil) != tc.ok {
				t.Fatalf("ParseSettings(%s) = %v", tc.in, err)
			}
		})
	}
	if _, err := New(Config{StateDir: "relative"}); err == nil {
		t.Fatal("a relative state dir was accepted")
	}
}

// TestPortKept: a restart serves on the port it served on before, so an
// open page reconnects to the same address.
func TestPortKept(t *testing.T) {
	dir := t.TempDir()
	p := open(t, dir, Settings{})
	url := p.URL()
	addr := p.ln.Addr().String()
	p.Close()
	p2 := open(t, dir, Settings{})
	if p2.ln.Addr().String() != addr || p2.URL() == url {
		t.Fatalf("after a restart: %s (%s), before %s (%s)", p2.ln.Addr(), p2.URL(), addr, url)
	}
}
