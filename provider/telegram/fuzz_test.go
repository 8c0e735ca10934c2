package telegram

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// The fuzz target's seed corpus is in testdata/fuzz/FuzzConvert; run it
// with go test -fuzz=FuzzConvert ./provider/telegram.

// FuzzConvert turns a Telegram update as getUpdates returns it into the
// update the supervisor journals: its journalled payload is the update
// verbatim, its cursor resumes polling right after it, its text ids are
// its numbers, only an allowed sender is allowed, its kind is one the
// contract names (or unspecified for kinds that are not routed), and every
// reference it reports names a kind.
func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"update_id":100,"message":{"message_id":7,"message_thread_id":3,"is_topic_message":true,"from":{"id":42,"is_bot":false,"first_name":"A","username":"a"},"chat":{"id":-1001234567890,"type":"supergroup","is_forum":true},"date":1,"text":"hi","document":{"file_id":"d1","file_unique_id":"u"}}}`))
	f.Add([]byte(`{"update_id":101,"callback_query":{"id":"cq1","from":{"id":7,"is_bot":false,"first_name":"B"},"message":{"message_id":7,"message_thread_id":3,"is_topic_message":true,"chat":{"id":-1001234567890,"type":"supergroup"},"date":0},"data":"yes"}}`))
	f.Add([]byte(`{"update_id":102,"message_reaction":{"chat":{"id":-1001234567890,"type":"supergroup"},"message_id":7,"user":{"id":42,"is_bot":false,"first_name":"A"},"date":1,"old_reaction":[],"new_reaction":[{"type":"emoji","emoji":"👍"}]}}`))
	p, err := New(Settings{ForumChatID: -1001234567890, Token: "1:fuzz", AllowedUserIDs: []int64{42}}, zerolog.Nop(), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var u botapi.Update
		if json.Unmarshal(data, &u) != nil {
			return
		}
		out := p.convert(&u)
		if !bytes.Equal(out.GetPayload(), u.Raw) {
			t.Fatalf("payload %q, update %q", out.GetPayload(), u.Raw)
		}
		if want := strconv.FormatInt(u.UpdateID+1, 10); string(out.GetCursor()) != want || out.GetDedupId() != strconv.FormatInt(u.UpdateID, 10) {
			t.Fatalf("update %d: cursor %q, dedup id %q", u.UpdateID, out.GetCursor(), out.GetDedupId())
		}
		for _, c := range []struct {
			text string
			num  int64
		}{{out.GetChat(), u.ChatID()}, {out.GetThread(), int64(u.ThreadID())}, {out.GetSender(), u.FromID()}} {
			if (c.num == 0) != (c.text == "") || (c.num != 0 && c.text != strconv.FormatInt(c.num, 10)) {
				t.Fatalf("text id %q for %d", c.text, c.num)
			}
		}
		if out.GetAllowed() != (out.GetSender() == "42") {
			t.Fatalf("allowed %v for sender %q", out.GetAllowed(), out.GetSender())
		}
		routed := map[string]providerv1.UpdateKind{
			botapi.KindMessage: providerv1.UpdateKind_UPDATE_KIND_MESSAGE, botapi.KindEditedMessage: providerv1.UpdateKind_UPDATE_KIND_EDITED_MESSAGE,
			botapi.KindCallbackQuery: providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY, botapi.KindMessageReaction: providerv1.UpdateKind_UPDATE_KIND_REACTION,
		}
		if out.GetKind() != routed[u.Kind()] {
			t.Fatalf("kind %v for %q", out.GetKind(), u.Kind())
		}
		for _, r := range out.GetReferences().GetItems() {
			if r.GetKind() == providerv1.ReferenceKind_REFERENCE_KIND_UNSPECIFIED {
				t.Fatalf("a reference of no kind: %v", r)
			}
		}
		if u.CallbackQuery != nil && u.Message == nil && u.EditedMessage == nil && out.GetText() != u.CallbackQuery.Data {
			t.Fatalf("a button's text %q, its data %q", out.GetText(), u.CallbackQuery.Data)
		}
	})
}
