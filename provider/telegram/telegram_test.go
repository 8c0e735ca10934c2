package telegram

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// TestReferences: the ids reported with each kind of update, from Bot API
// JSON as Telegram sends it.
func TestReferences(t *testing.T) {
	for _, tc := range []struct {
		name    string
		update  string
		msgs    []int64
		queries []string
		files   []string
	}{
		{
			name: "message with a document",
			update: `{"update_id":10,"message":{"message_id":31,"message_thread_id":7,"is_topic_message":true,
				"from":{"id":42,"is_bot":false,"first_name":"A"},"chat":{"id":-1001,"type":"supergroup","is_forum":true},"date":1,
				"document":{"file_name":"a.txt","mime_type":"text/plain","file_id":"BQAC-doc","file_unique_id":"u1","file_size":3},
				"caption":"see"}}`,
			msgs: []int64{31}, files: []string{"BQAC-doc"},
		},
		{
			name: "edited photo",
			update: `{"update_id":11,"edited_message":{"message_id":32,"message_thread_id":7,"is_topic_message":true,
				"from":{"id":42,"is_bot":false,"first_name":"A"},"chat":{"id":-1001,"type":"supergroup","is_forum":true},"date":1,"edit_date":2,
				"photo":[{"file_id":"AgAC-s","file_unique_id":"s","file_size":1200,"width":90,"height":60},
				         {"file_id":"AgAC-m","file_unique_id":"m","file_size":9800,"width":320,"height":213}]}}`,
			msgs: []int64{32}, files: []string{"AgAC-s", "AgAC-m"},
		},
		{
			name: "button pressed",
			update: `{"update_id":12,"callback_query":{"id":"4382bfdwdsb323b2d9","from":{"id":42,"is_bot":false,"first_name":"A"},
				"message":{"message_id":33,"message_thread_id":7,"chat":{"id":-1001,"type":"supergroup"},"date":1,"text":"pick"},
				"chat_instance":"-55","data":"yes"}}`,
			msgs: []int64{33}, queries: []string{"4382bfdwdsb323b2d9"},
		},
		{
			name: "reaction",
			update: `{"update_id":13,"message_reaction":{"chat":{"id":-1001,"type":"supergroup"},"message_id":34,
				"user":{"id":42,"is_bot":false,"first_name":"A"},"date":1,"old_reaction":[],"new_reaction":[{"type":"emoji","emoji":"👍"}]}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var u botapi.Update
			if err := json.Unmarshal([]byte(tc.update), &u); err != nil {
				t.Fatal(err)
			}
			r := references(&u)
			if r == nil {
				t.Fatal("no references: the supervisor would decode the payload")
			}
			if !slices.Equal(r.GetMessageIds(), tc.msgs) || !slices.Equal(r.GetCallbackQueryIds(), tc.queries) || !slices.Equal(r.GetFileIds(), tc.files) {
				t.Errorf("got messages %v queries %v files %v, want %v %v %v",
					r.GetMessageIds(), r.GetCallbackQueryIds(), r.GetFileIds(), tc.msgs, tc.queries, tc.files)
			}
		})
	}
}
