package playground

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// TestConversation: a room is provisioned, a person writes, the follower
// gets a Telegram-shaped update, answers with a keyboard, the person
// presses a button and the follower answers the callback; the page's live
// stream sees each step.
func TestConversation(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := testCtx(t)
	next := r.web.events(ctx)
	if e := next(); e.Type != "rooms" || len(e.Rooms) != 0 {
		t.Fatalf("first event %+v", e)
	}
	room := r.provision(t, "A · alpha")
	if e := next(); e.Type != "rooms" || len(e.Rooms) != 1 || e.Rooms[0].Name != "A · alpha" {
		t.Fatalf("rooms event %+v", e)
	}

	st := r.updates(t, nil)
	sent := r.web.say(room, "c1", "hello there")
	if e := next(); e.Type != "message" || e.Message.Text != "hello there" || e.Message.From != "you" {
		t.Fatalf("own message event %+v", e)
	}
	u := st.recv()
	if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_MESSAGE || u.GetText() != "hello there" || u.GetChat() != chatText ||
		u.GetThread() != fmt.Sprint(room) || u.GetSender() != fmt.Sprint(PersonID) || !u.GetAllowed() || u.GetDedupId() == "" {
		t.Fatalf("update %v", u)
	}
	if got := refKinds(u)[providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE]; len(got) != 1 || got[0] != fmt.Sprint(sent.ID) {
		t.Fatalf("refs %v", u.GetReferences())
	}
	// The payload is a Bot API Update: what the Telegram provider parses.
	var tu botapi.Update
	if err := json.Unmarshal(u.GetPayload(), &tu); err != nil || tu.Kind() != botapi.KindMessage || tu.ChatID() != ChatID ||
		int64(tu.ThreadID()) != room || tu.FromID() != PersonID || tu.Message.Text != "hello there" {
		t.Fatalf("payload %s: %+v %v", u.GetPayload(), tu, err)
	}
	st.ack(u.GetUpdateId())

	// The follower answers, with buttons, replying to the person.
	reply := r.mustCall(t, room, "sendMessage", fmt.Sprintf(`{"text":"pick one","reply_parameters":{"message_id":%d},
		"reply_markup":{"inline_keyboard":[[{"text":"Yes","callback_data":"yes"},{"text":"No","callback_data":"no"}]]}}`, sent.ID))
	if reply.MessageID == 0 || reply.MessageThreadID != room || reply.From.ID != BotID || reply.ReplyToMessage.MessageID != sent.ID {
		t.Fatalf("sendMessage result %+v", reply)
	}
	e := next()
	if e.Type != "message" || e.Message.From != "bot" || len(e.Message.Keyboard) != 1 || e.Message.Keyboard[0][1].CallbackData != "no" || e.Message.ReplyTo != sent.ID {
		t.Fatalf("bot message event %+v", e.Message)
	}

	// The person presses "No": a callback query reaches the follower.
	var pressed struct {
		CallbackQueryID string `json:"callback_query_id"`
	}
	json.Unmarshal(r.web.post(fmt.Sprintf("/api/rooms/%d/press", room), pressRequest{ClientID: "c2", MessageID: reply.MessageID, Data: "no"}), &pressed)
	u = st.recv()
	refs := refKinds(u)
	if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY || u.GetText() != "no" ||
		len(refs[providerv1.ReferenceKind_REFERENCE_KIND_INTERACTION]) != 1 || refs[providerv1.ReferenceKind_REFERENCE_KIND_INTERACTION][0] != pressed.CallbackQueryID {
		t.Fatalf("callback update %v", u)
	}
	if err := json.Unmarshal(u.GetPayload(), &tu); err != nil || tu.CallbackQuery == nil || tu.CallbackQuery.Data != "no" || tu.CallbackQuery.Message.MessageID != int(reply.MessageID) {
		t.Fatalf("callback payload %s", u.GetPayload())
	}
	st.ack(u.GetUpdateId())
	if _, err := r.call(t, room, "answerCallbackQuery", fmt.Sprintf(`{"callback_query_id":%q,"text":"noted"}`, pressed.CallbackQueryID), ""); err != nil {
		t.Fatal(err)
	}
	for e = next(); e.Type != "answer"; e = next() {
	}
	if e.Text != "noted" || e.ID != pressed.CallbackQueryID {
		t.Fatalf("answer event %+v", e)
	}
	// A query is answered once, like Telegram's.
	_, err := r.call(t, room, "answerCallbackQuery", fmt.Sprintf(`{"callback_query_id":%q}`, pressed.CallbackQueryID), "")
	wantCode(t, err, codes.InvalidArgument, "query is too old")
	// A button that is not on the message cannot be pressed.
	if code, _ := r.web.do("POST", fmt.Sprintf("/api/rooms/%d/press", room), "application/json",
		bytes.NewReader(mustJSON(pressRequest{ClientID: "c3", MessageID: reply.MessageID, Data: "maybe"}))); code != 400 {
		t.Fatalf("pressing a button that is not there: %d", code)
	}

	// Typing, edit, reaction and deletion reach the page live.
	r.mustCall(t, room, "sendChatAction", `{"action":"typing"}`)
	if e := next(); e.Type != "typing" || e.Room != room || e.Until <= time.Now().UnixMilli() {
		t.Fatalf("typing %+v", e)
	}
	edited := r.mustCall(t, room, "editMessageText", fmt.Sprintf(`{"message_id":%d,"text":"picked: no"}`, reply.MessageID))
	if edited.Text != "picked: no" || edited.EditDate == 0 || edited.ReplyMarkup != nil {
		t.Fatalf("edit result %+v", edited)
	}
	if e := next(); e.Message.Text != "picked: no" || !e.Message.Edited || e.Message.Keyboard != nil {
		t.Fatalf("edit event %+v", e.Message)
	}
	r.mustCall(t, room, "setMessageReaction", fmt.Sprintf(`{"message_id":%d,"reaction":[{"type":"emoji","emoji":"👍"}]}`, sent.ID))
	if e := next(); e.Message.ID != sent.ID || len(e.Message.Reactions["bot"]) != 1 || e.Message.Reactions["bot"][0] != "👍" {
		t.Fatalf("reaction event %+v", e.Message)
	}
	r.mustCall(t, room, "deleteMessage", fmt.Sprintf(`{"message_id":%d}`, reply.MessageID))
	if e := next(); e.Message.ID != reply.MessageID || !e.Message.Deleted || e.Message.Text != "" {
		t.Fatalf("delete event %+v", e.Message)
	}

	// The history says the same after a reload.
	h := r.web.history(room)
	if len(h) != 2 || h[0].Text != "hello there" || h[0].Reactions["bot"][0] != "👍" || !h[1].Deleted {
		t.Fatalf("history %+v", h)
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
	if _, err := r.h.Client.Prepare(testCtx(t), &providerv1.PrepareRequest{Fence: fence, Lease: durationpb.New(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	r.web.say(room, "c1", "during the restart")
	// Held at the platform, durable, not counted as inbound.
	if n, occ := r.p.st.inboxLen(), r.h.Server.Occupancy(); n != 1 || occ.Inbound != 0 {
		t.Fatalf("inbox %d, occupancy %+v", n, occ)
	}
	if _, err := r.h.Client.Cancel(testCtx(t), &providerv1.CancelRequest{Fence: fence}); err != nil {
		t.Fatal(err)
	}
	if u := st.recv(); u.GetText() != "during the restart" {
		t.Fatalf("got %v", u)
	}
}

// TestRetriedRequestsOnce: a browser's retried send, and a follower's
// repeated idempotency key, each make one message.
func TestRetriedRequestsOnce(t *testing.T) {
	r := newRig(t, t.TempDir())
	room := r.provision(t, "A · alpha")
	a, b := r.web.say(room, "same", "once"), r.web.say(room, "same", "once")
	if a.ID != b.ID {
		t.Fatalf("retried send made %d and %d", a.ID, b.ID)
	}
	r1, err1 := r.call(t, room, "sendMessage", `{"text":"out"}`, "k1")
	r2, err2 := r.call(t, room, "sendMessage", `{"text":"out"}`, "k1")
	if err1 != nil || err2 != nil || !bytes.Equal(r1.GetResultJson(), r2.GetResultJson()) {
		t.Fatalf("repeated key: %s %v / %s %v", r1.GetResultJson(), err1, r2.GetResultJson(), err2)
	}
	if h := r.web.history(room); len(h) != 2 {
		t.Fatalf("history %d messages, want 2", len(h))
	}
	if n := r.p.st.inboxLen(); n != 1 {
		t.Fatalf("inbox %d, want 1", n)
	}
}

// TestCallRefusals: calls leaving the thread are out of scope; malformed
// ones are refused with Telegram's descriptions.
func TestCallRefusals(t *testing.T) {
	r := newRig(t, t.TempDir())
	alpha, beta := r.provision(t, "A · alpha"), r.provision(t, "B · beta")
	inBeta := r.mustCall(t, beta, "sendMessage", `{"text":"beta's"}`)
	mine := r.mustCall(t, alpha, "sendMessage", `{"text":"alpha's"}`)
	person := r.web.say(alpha, "p", "from the person")
	r.mustCall(t, alpha, "deleteMessage", fmt.Sprintf(`{"message_id":%d}`, mine.MessageID))
	for _, tc := range []struct {
		name, method, params string
		code                 codes.Code
		contains             string
	}{
		{"another chat", "sendMessage", `{"chat_id":-1002,"text":"x"}`, codes.PermissionDenied, "not your chat"},
		{"another thread", "sendMessage", fmt.Sprintf(`{"message_thread_id":%d,"text":"x"}`, beta), codes.PermissionDenied, "not your thread"},
		{"inline message", "editMessageText", `{"inline_message_id":"x","text":"x"}`, codes.PermissionDenied, "inline"},
		{"another thread's message", "deleteMessage", fmt.Sprintf(`{"message_id":%d}`, inBeta.MessageID), codes.PermissionDenied, "another thread"},
		{"reply into another thread", "sendMessage", fmt.Sprintf(`{"text":"x","reply_parameters":{"message_id":%d}}`, inBeta.MessageID), codes.PermissionDenied, "another thread"},
		{"empty text", "sendMessage", `{"text":"  "}`, codes.InvalidArgument, "message text is empty"},
		{"too long", "sendMessage", fmt.Sprintf(`{"text":%q}`, strings.Repeat("x", maxTextChars+1)), codes.InvalidArgument, "message is too long"},
		{"bad keyboard", "sendMessage", `{"text":"x","reply_markup":{"inline_keyboard":[[{"text":"b"}]]}}`, codes.InvalidArgument, "can't parse reply keyboard"},
		{"long button data", "sendMessage", fmt.Sprintf(`{"text":"x","reply_markup":{"inline_keyboard":[[{"text":"b","callback_data":%q}]]}}`, strings.Repeat("d", 65)), codes.InvalidArgument, "BUTTON_DATA_INVALID"},
		{"edit a deleted message", "editMessageText", fmt.Sprintf(`{"message_id":%d,"text":"y"}`, mine.MessageID), codes.InvalidArgument, "message to edit not found"},
		{"edit the person's message", "editMessageText", fmt.Sprintf(`{"message_id":%d,"text":"y"}`, person.ID), codes.InvalidArgument, "message can't be edited"},
		{"delete twice", "deleteMessage", fmt.Sprintf(`{"message_id":%d}`, mine.MessageID), codes.InvalidArgument, "message to delete not found"},
		{"two reactions", "setMessageReaction", fmt.Sprintf(`{"message_id":%d,"reaction":[{"type":"emoji","emoji":"👍"},{"type":"emoji","emoji":"🔥"}]}`, person.ID), codes.InvalidArgument, "REACTIONS_TOO_MANY"},
		{"wrong action", "sendChatAction", `{"action":"dancing"}`, codes.InvalidArgument, "wrong parameter action"},
		{"unknown query", "answerCallbackQuery", `{"callback_query_id":"123"}`, codes.InvalidArgument, "query ID is invalid"},
		{"unchanged topic", "editForumTopic", `{"name":"A · alpha"}`, codes.InvalidArgument, "TOPIC_NOT_MODIFIED"},
		{"not a method", "getUpdates", `{}`, codes.NotFound, "not a playground method"},
		{"not an object", "sendMessage", `[1]`, codes.InvalidArgument, "JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.call(t, alpha, tc.method, tc.params, "")
			wantCode(t, err, tc.code, tc.contains)
		})
	}
	// A thread that does not exist (any more) is gone, not just missing.
	_, err := r.call(t, 999, "sendMessage", `{"text":"x"}`, "")
	wantCode(t, err, codes.NotFound, "message thread not found")
	if h := r.web.history(beta); len(h) != 1 {
		t.Fatalf("beta's thread got %d messages", len(h))
	}
}

// TestTopics: ProvisionTarget reuses a room it is asked to (renamed,
// reopened), else makes one; close and reopen are Telegram's.
func TestTopics(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := testCtx(t)
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
	if len(rs) != 1 || rs[0].Closed || rs[0].Name != "A · alpha2" {
		t.Fatalf("rooms after reuse %+v", rs)
	}
	resp, err = r.h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "B · beta", Reuse: target(4242)})
	if err != nil || resp.GetReused() || resp.GetTarget().GetThread() == "4242" {
		t.Fatalf("reusing a room that is gone: %v %v", resp, err)
	}
	r.mustCall(t, room, "editForumTopic", `{"name":"renamed"}`)
	r.mustCall(t, room, "closeForumTopic", `{}`)
	_, err = r.call(t, room, "closeForumTopic", `{}`, "")
	wantCode(t, err, codes.InvalidArgument, "TOPIC_NOT_MODIFIED")
	r.mustCall(t, room, "reopenForumTopic", `{}`)
	_, err = r.h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "x", Chat: "-100999"})
	wantCode(t, err, codes.InvalidArgument, "chat not found")
}

// TestFiles: a person's file reaches the follower as a document it may
// download; the follower's upload appears on the page; sizes are bounded.
func TestFiles(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := testCtx(t)
	room := r.provision(t, "A · alpha")
	st := r.updates(t, nil)
	data := bytes.Repeat([]byte("chatbus "), 1000)
	code, out := r.web.upload(room, "f1", "notes.txt", data)
	if code != 200 {
		t.Fatalf("upload: %d %s", code, out)
	}
	u := st.recv()
	var tu botapi.Update
	json.Unmarshal(u.GetPayload(), &tu)
	if tu.Message == nil || tu.Message.Document == nil || tu.Message.Document.FileName != "notes.txt" || tu.Message.Caption != "see attached" || u.GetText() != "see attached" {
		t.Fatalf("file update %s", u.GetPayload())
	}
	fileID := tu.Message.Document.FileID
	if files := refKinds(u)[providerv1.ReferenceKind_REFERENCE_KIND_FILE]; len(files) != 1 || files[0] != fileID {
		t.Fatalf("file refs %v", u.GetReferences())
	}
	dl, err := r.h.Client.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: fileID})
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	for {
		m, err := dl.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.GetChunk()...)
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
	var m tgMessage
	json.Unmarshal(res.GetResultJson(), &m)
	if m.Document == nil || m.Document.FileName != "report.csv" || m.Document.FileSize != 8 || len(res.GetReferences().GetItems()) != 2 {
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
	wantCode(t, err, codes.InvalidArgument, "invalid file_id")
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
			if _, err := ParseSettings([]byte(tc.in)); (err == nil) != tc.ok {
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
