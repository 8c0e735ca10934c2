package tgtest

import (
	"encoding/json"
	"testing"
)

func TestInteractions(t *testing.T) {
	const forum = -100100
	s := New(t)
	s.AddForum(forum)
	c := newRawClient(t, s)
	_, env := c.json("createForumTopic", map[string]any{"chat_id": forum, "name": "t"})
	var topic struct {
		ID int `json:"message_thread_id"`
	}
	json.Unmarshal(env.Result, &topic)
	keyboard := `{"inline_keyboard":[[{"text":"Allow","callback_data":"a"}]]}`
	_, env = c.json("sendMessage", map[string]any{"chat_id": forum, "message_thread_id": topic.ID, "text": "ask", "reply_markup": json.RawMessage(keyboard)})
	var sent struct {
		ID int `json:"message_id"`
	}
	json.Unmarshal(env.Result, &sent)
	s.PushMessage(forum, topic.ID, 7, "from a person")
	userMsg := sent.ID + 1

	tests := []struct {
		name     string
		method   string
		params   map[string]any
		wantDesc string // "" = ok
	}{
		{name: "react", method: "setMessageReaction", params: map[string]any{"chat_id": forum, "message_id": userMsg, "reaction": []map[string]string{{"type": "emoji", "emoji": "👀"}}}},
		{name: "react with an emoji Telegram refuses", method: "setMessageReaction", params: map[string]any{"chat_id": forum, "message_id": userMsg, "reaction": []map[string]string{{"type": "emoji", "emoji": "🦖"}}},
			wantDesc: "Bad Request: REACTION_INVALID"},
		{name: "react to no message", method: "setMessageReaction", params: map[string]any{"chat_id": forum, "message_id": 999, "reaction": []map[string]string{}},
			wantDesc: "Bad Request: message to react not found"},
		{name: "remove the keyboard", method: "editMessageReplyMarkup", params: map[string]any{"chat_id": forum, "message_id": sent.ID}},
		{name: "remove it again", method: "editMessageReplyMarkup", params: map[string]any{"chat_id": forum, "message_id": sent.ID},
			wantDesc: errNotModified.desc},
		{name: "keyboard of a person's message", method: "editMessageReplyMarkup", params: map[string]any{"chat_id": forum, "message_id": userMsg},
			wantDesc: "Bad Request: message can't be edited"},
		{name: "typing", method: "sendChatAction", params: map[string]any{"chat_id": forum, "message_thread_id": topic.ID, "action": "typing"}},
		{name: "photo by file id", method: "sendPhoto", params: map[string]any{"chat_id": forum, "message_thread_id": topic.ID, "photo": s.AddFile("a.png", []byte("png"))}},
		{name: "photo missing", method: "sendPhoto", params: map[string]any{"chat_id": forum}, wantDesc: "Bad Request: there is no photo in the request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, env := c.json(tt.method, tt.params)
			if tt.wantDesc == "" && !env.OK || tt.wantDesc != "" && env.Description != tt.wantDesc {
				t.Errorf("%s: %+v, want %q", tt.method, env, tt.wantDesc)
			}
		})
	}

	if r := s.BotReactions(forum, userMsg); len(r) != 1 || r[0].Emoji != "👀" {
		t.Errorf("bot reactions %+v", r)
	}
	msgs := s.Sent(forum, topic.ID)
	if len(msgs) != 2 || msgs[0].ReplyMarkup != nil || len(msgs[1].Photo) != 1 {
		t.Errorf("sent %+v", msgs)
	}
	if a := s.ChatActions(forum, topic.ID); len(a) != 1 || a[0] != "typing" {
		t.Errorf("chat actions %q", a)
	}

	_, q := s.PushCallbackQuery(forum, sent.ID, 7, "a")
	if _, ok := s.CallbackAnswer(q); ok {
		t.Error("answered before answerCallbackQuery")
	}
	if _, env := c.json("answerCallbackQuery", map[string]any{"callback_query_id": q, "text": "Allowed"}); !env.OK {
		t.Fatal(env)
	}
	if text, ok := s.CallbackAnswer(q); !ok || text != "Allowed" {
		t.Errorf("answer %q %v", text, ok)
	}

	_, fileID := s.PushDocument(forum, topic.ID, 7, "notes.txt", []byte("hello"), "see")
	_, photoID := s.PushPhoto(forum, topic.ID, 7, "cat.jpg", []byte("jpeg"), "")
	for _, id := range []string{fileID, photoID} {
		if _, env := c.json("getFile", map[string]any{"file_id": id}); !env.OK {
			t.Errorf("getFile %s: %+v", id, env)
		}
	}
}
