package telegram

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

func msgRef(id string) provider.Ref  { return provider.Ref{Kind: provider.RefMessage, ID: id} }
func fileRef(id string) provider.Ref { return provider.Ref{Kind: provider.RefFile, ID: id} }

// TestReferences: the ids reported with each kind of update, from Bot API
// JSON as Telegram sends it.
func TestReferences(t *testing.T) {
	for _, tc := range []struct {
		name   string
		update string
		want   []provider.Ref
	}{
		{
			name: "message with a document",
			update: `{"update_id":10,"message":{"message_id":31,"message_thread_id":7,"is_topic_message":true,
				"from":{"id":42,"is_bot":false,"first_name":"A"},"chat":{"id":-1001,"type":"supergroup","is_forum":true},"date":1,
				"document":{"file_name":"a.txt","mime_type":"text/plain","file_id":"BQAC-doc","file_unique_id":"u1","file_size":3},
				"caption":"see"}}`,
			want: []provider.Ref{msgRef("31"), fileRef("BQAC-doc")},
		},
		{
			name: "edited photo",
			update: `{"update_id":11,"edited_message":{"message_id":32,"message_thread_id":7,"is_topic_message":true,
				"from":{"id":42,"is_bot":false,"first_name":"A"},"chat":{"id":-1001,"type":"supergroup","is_forum":true},"date":1,"edit_date":2,
				"photo":[{"file_id":"AgAC-s","file_unique_id":"s","file_size":1200,"width":90,"height":60},
				         {"file_id":"AgAC-m","file_unique_id":"m","file_size":9800,"width":320,"height":213}]}}`,
			want: []provider.Ref{msgRef("32"), fileRef("AgAC-s"), fileRef("AgAC-m")},
		},
		{
			name: "button pressed",
			update: `{"update_id":12,"callback_query":{"id":"4382bfdwdsb323b2d9","from":{"id":42,"is_bot":false,"first_name":"A"},
				"message":{"message_id":33,"message_thread_id":7,"chat":{"id":-1001,"type":"supergroup"},"date":1,"text":"pick"},
				"chat_instance":"-55","data":"yes"}}`,
			want: []provider.Ref{{Kind: provider.RefInteraction, ID: "4382bfdwdsb323b2d9"}, msgRef("33")},
		},
		{
			name: "reaction",
			update: `{"update_id":13,"message_reaction":{"chat":{"id":-1001,"type":"supergroup"},"message_id":34,
				"user":{"id":42,"is_bot":false,"first_name":"A"},"date":1,"old_reaction":[],"new_reaction":[{"type":"emoji","emoji":"👍"}]}}`,
			want: []provider.Ref{msgRef("34")},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var u botapi.Update
			if err := json.Unmarshal([]byte(tc.update), &u); err != nil {
				t.Fatal(err)
			}
			if got := updateRefs(&u); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestScope: calls are pinned to the caller's thread; params naming
// another chat or thread, or an inline message, are refused.
func TestScope(t *testing.T) {
	topic := provider.Target{Chat: "-1001", Thread: "7"}
	for _, tc := range []struct {
		name    string
		target  provider.Target
		method  string
		params  string
		want    string // the scoped params; "" when refused
		refused error
	}{
		{name: "send fills chat and thread", target: topic, method: "sendMessage", params: `{"text":"hi"}`,
			want: `{"chat_id":-1001,"message_thread_id":7,"text":"hi"}`},
		{name: "own chat named", target: topic, method: "sendMessage", params: `{"chat_id":"-1001","text":"hi"}`,
			want: `{"chat_id":-1001,"message_thread_id":7,"text":"hi"}`},
		{name: "edit takes no thread", target: topic, method: "editMessageText", params: `{"message_id":5,"text":"x"}`,
			want: `{"chat_id":-1001,"message_id":5,"text":"x"}`},
		{name: "general topic: no thread", target: provider.Target{Chat: "-1001"}, method: "sendMessage", params: `{"text":"x"}`,
			want: `{"chat_id":-1001,"text":"x"}`},
		{name: "empty params", target: topic, method: "sendChatAction", params: ``,
			want: `{"chat_id":-1001,"message_thread_id":7}`},
		{name: "other chat", target: topic, method: "sendMessage", params: `{"chat_id":-1002,"text":"x"}`, refused: provider.ErrOutOfScope},
		{name: "other thread", target: topic, method: "sendMessage", params: `{"message_thread_id":8,"text":"x"}`, refused: provider.ErrOutOfScope},
		{name: "inline message", target: topic, method: "editMessageText", params: `{"inline_message_id":"abc","text":"x"}`, refused: provider.ErrOutOfScope},
		{name: "reply into another chat", target: topic, method: "sendMessage", params: `{"text":"x","reply_parameters":{"chat_id":-1002,"message_id":3}}`, refused: provider.ErrOutOfScope},
		{name: "not an object", target: topic, method: "sendMessage", params: `[1]`, refused: provider.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := scope(tc.target, tc.method, json.RawMessage(tc.params))
			if tc.refused != nil {
				if !errors.Is(err, tc.refused) {
					t.Fatalf("scope = %s, %v; want %v", got, err, tc.refused)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("scope = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

// TestResultRefs: a sent message (and its files) becomes a reference of
// the thread; results that are not messages make none.
func TestResultRefs(t *testing.T) {
	for _, tc := range []struct {
		name, result string
		want         []provider.Ref
	}{
		{"message", `{"message_id":9,"chat":{"id":-1001,"type":"supergroup"},"date":1,"text":"hi"}`, []provider.Ref{msgRef("9")}},
		{"document", `{"message_id":10,"document":{"file_id":"BQ-1","file_unique_id":"u"}}`, []provider.Ref{msgRef("10"), fileRef("BQ-1")}},
		{"true", `true`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resultRefs(json.RawMessage(tc.result)); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
