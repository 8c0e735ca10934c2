package playground

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/providertest"
)

// testdata/v0 is a state dir the playground wrote before the message
// verbs, when it imitated Telegram's Bot API (the code of fb3a0fa), by
// this conversation: rooms 2 "A · alpha" and 3 "B · beta"; in alpha the
// person wrote "hello there" (4); the follower answered "pick one" (5)
// replying to it, with buttons Yes, No and a link Docs; the person
// pressed No, and the follower answered "noted"; the follower sent a
// message and deleted it (6), sent "draft" and edited it to "final *not
// markdown*" (7), reacted 👍 to 4; the person reacted 🔥 to 7, pressed
// Yes (press 5362280338547808972, unanswered), sent notes.txt with the
// caption "see attached" (8) and wrote "in beta" in beta (9); the
// follower sent the photo dot.png, "a picture" (10), and "keyed" with
// the idempotency key k1 (11); beta was closed. The supervisor
// acknowledged the first two updates (its cursor: pg1:9b791bce8b2e:3);
// the last four were held.
const v0Cursor = "pg1:9b791bce8b2e:3"

// TestMigrateV0: such a store opens; the history, the held updates and
// the unanswered press are what this code would have made of them; the
// counters, the files and the cursor go on.
func TestMigrateV0(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/v0")); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, dir)
	if r.p.st.install != "9b791bce8b2e" {
		t.Fatalf("install %q: the store was not kept", r.p.st.install)
	}

	h := r.web.history(2)
	byID := map[int64]messageView{}
	var order []int64
	for _, m := range h {
		byID[m.ID] = m
		order = append(order, m.ID)
	}
	if fmt.Sprint(order) != "[4 5 6 7 8 10 11]" {
		t.Fatalf("alpha's history %v", order)
	}
	for _, tc := range []struct {
		id   int64
		want string
		ok   func(m messageView) bool
	}{
		{4, "the person's, with the follower's reaction", func(m messageView) bool {
			return m.From == "you" && m.Text == "hello there" && fmt.Sprint(m.Reactions) == "map[bot:[👍]]"
		}},
		{5, "plain text, the reply, the buttons, the answer", func(m messageView) bool {
			return m.From == "bot" && m.Text == "pick one" && m.HTML == "" && m.ReplyTo == 4 && m.ReplyText == "hello there" && m.Answer == "noted" &&
				fmt.Sprint(m.Buttons) == "[{Yes yes } {No no } {Docs  https://example.com/docs}]"
		}},
		{6, "deleted", func(m messageView) bool { return m.Deleted && m.Text == "" }},
		{7, "edited, shown as plain text", func(m messageView) bool {
			return m.Text == "final *not markdown*" && m.HTML == "" && m.Edited && fmt.Sprint(m.Reactions) == "map[you:[🔥]]"
		}},
		{8, "a document with its caption", func(m messageView) bool {
			return m.From == "you" && m.Text == "see attached" && m.File != nil &&
				*m.File == attachment{ID: "pg-9b791bce8b2e-1", Name: "notes.txt", Mime: "application/octet-stream", Size: 14}
		}},
		{10, "a photo", func(m messageView) bool {
			return m.From == "bot" && m.Text == "a picture" && m.File != nil &&
				*m.File == attachment{ID: "pg-9b791bce8b2e-2", Name: "dot.png", Mime: "image/png", Size: 75, Photo: true}
		}},
	} {
		if m := byID[tc.id]; !tc.ok(m) {
			t.Errorf("message %d is not %s: %+v", tc.id, tc.want, m)
		}
	}
	// The control room, made at the first open of this code, and the two.
	if rs, _ := r.p.st.rooms(); len(rs) != 3 || !rs[0].Control || rs[2].Name != "B · beta" || !rs[2].Closed {
		t.Errorf("rooms %+v", rs)
	}

	// The held updates come from the stored cursor, in this code's form.
	st := r.updates(t, []byte(v0Cursor))
	type want struct {
		id        int64
		kind      providerv1.UpdateKind
		room      int64
		text, pay string
	}
	for _, w := range []want{
		{3, providerv1.UpdateKind_UPDATE_KIND_REACTION, 2, "🔥", `"kind":"reaction","room":2,"message":{"id":7,`},
		{4, providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY, 2, "yes", `"data":"yes","interaction":"5362280338547808972"`},
		{5, providerv1.UpdateKind_UPDATE_KIND_MESSAGE, 2, "see attached", `"file":{"id":"pg-9b791bce8b2e-1","name":"notes.txt"`},
		{6, providerv1.UpdateKind_UPDATE_KIND_MESSAGE, 3, "in beta", `{"kind":"message","room":3,"message":{"id":9,"room":3,"rev":0,"from":"you","text":"in beta"`},
	} {
		u := st.recv()
		pl := payloadOf(t, u) // strictly this code's payload
		if u.GetUpdateId() != w.id || u.GetKind() != w.kind || u.GetThread() != strconv.FormatInt(w.room, 10) || u.GetText() != w.text ||
			pl.Room != w.room || !strings.Contains(string(u.GetPayload()), w.pay) || string(u.GetCursor()) != fmt.Sprintf("pg1:9b791bce8b2e:%d", w.id+1) {
			t.Errorf("held update %d: %v", w.id, u)
		}
		if w.kind == providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY {
			refs := refKinds(u)
			if fmt.Sprint(refs[providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE], refs[providerv1.ReferenceKind_REFERENCE_KIND_INTERACTION]) != "[5] [5362280338547808972]" {
				t.Errorf("press refs %v", refs)
			}
		}
		st.ack(u.GetUpdateId())
	}

	// The press held from before is answered with the verb.
	r.mustVerb(t, 2, provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: "5362280338547808972", Text: "yes it is"})
	// The Bot API's idempotency records are gone; the counters go on.
	if id := r.send(t, 2, "after the verbs"); id != 12 {
		t.Errorf("a new message is %d, want 12", id)
	}
	if n, err := r.verb(t, 2, provider.VerbSend, &providerv1.SendParams{Text: "keyed"}, "k1"); err != nil || refKindsOf(n.GetReferences())[providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE][0] != "13" {
		t.Errorf("send with k1: %v %v", n, err)
	}
	dl, err := r.h.Client.DownloadFile(providertest.Context(t), &providerv1.DownloadFileRequest{FileId: "pg-9b791bce8b2e-1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dl.Recv()
	if err != nil || string(got.GetChunk()) != "chatbus notes\n" {
		t.Fatalf("download: %q %v", got.GetChunk(), err)
	}
	if _, err := dl.Recv(); err != io.EOF {
		t.Fatalf("download end: %v", err)
	}

	// Opened again, it is not migrated again.
	before := r.web.history(2)
	r.h.Stop()
	r.p.Close()
	r2 := newRig(t, dir)
	after := r2.web.history(2)
	if string(mustJSON(before)) != string(mustJSON(after)) || after[1].Answer != "yes it is" {
		t.Fatalf("history changed on a second open:\n%s\n%s", mustJSON(before), mustJSON(after))
	}
}

// TestNewerSchemaRefused: a store a newer playground wrote is not read.
func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	open(t, dir, Settings{}).Close()
	db, err := bolt.Open(dir+"/playground.db", 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(kSchema, u64(schema+1)) })
	db.Close()
	if _, err := New(Config{StateDir: dir}); err == nil || !strings.Contains(err.Error(), "newer playground") {
		t.Fatalf("opening a newer store: %v", err)
	}
}
