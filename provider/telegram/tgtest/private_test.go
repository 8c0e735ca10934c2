package tgtest

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestPrivateChatTopics: a bot in threaded mode has topics in the private
// chat of a person who started it, and the stand-in refuses what Telegram
// refuses there.
func TestPrivateChatTopics(t *testing.T) {
	const person, stranger, forum = int64(4242), int64(777), int64(-100100)
	s := New(t)
	s.AddForum(forum)
	c := newRawClient(t, s)
	refused := func(t *testing.T, method string, params map[string]any, code int, desc string) {
		t.Helper()
		status, env := c.json(method, params)
		if status != code || env.OK || env.Description != desc {
			t.Errorf("%s %v: %d %+v; want %d %q", method, params, status, env, code, desc)
		}
	}

	// Before the person pressed Start the bot cannot reach them.
	refused(t, "sendMessage", map[string]any{"chat_id": person, "text": "hi"}, 403, "Forbidden: bot can't initiate conversation with a user")
	refused(t, "getChat", map[string]any{"chat_id": person}, 400, "Bad Request: chat not found")
	s.StartBot(person)

	// Threaded mode off: no topics, no drafts; getMe says so.
	var me struct {
		HasTopics bool `json:"has_topics_enabled"`
	}
	_, env := c.json("getMe", nil)
	if json.Unmarshal(env.Result, &me); me.HasTopics {
		t.Fatalf("getMe %s: threaded mode on by default", env.Result)
	}
	refused(t, "createForumTopic", map[string]any{"chat_id": person, "name": "a"}, 400, "Bad Request: topics are not enabled in private chats with the bot")
	refused(t, "sendMessageDraft", map[string]any{"chat_id": person, "draft_id": 1, "text": "x"}, 400, "Bad Request: topics are not enabled in private chats with the bot")

	s.SetThreadedMode(true)
	_, env = c.json("getMe", nil)
	if json.Unmarshal(env.Result, &me); !me.HasTopics {
		t.Fatalf("getMe %s: threaded mode on, has_topics_enabled missing", env.Result)
	}
	_, env = c.json("createForumTopic", map[string]any{"chat_id": person, "name": "A · alpha"})
	var topic struct {
		ID int `json:"message_thread_id"`
	}
	if json.Unmarshal(env.Result, &topic); !env.OK || topic.ID == 0 {
		t.Fatalf("createForumTopic in the private chat: %+v", env)
	}
	if _, env := c.json("sendMessage", map[string]any{"chat_id": person, "message_thread_id": topic.ID, "text": "in the topic"}); !env.OK {
		t.Fatalf("sendMessage into the topic: %+v", env)
	}
	if got := s.Sent(person, topic.ID); len(got) != 1 || !got[0].IsTopicMessage || got[0].MessageThreadID != topic.ID {
		t.Fatalf("sent %+v", got)
	}
	refused(t, "sendMessage", map[string]any{"chat_id": person, "message_thread_id": 9999, "text": "x"}, 400, "Bad Request: message thread not found")
	refused(t, "closeForumTopic", map[string]any{"chat_id": person, "message_thread_id": topic.ID}, 400, "Bad Request: topics can't be closed or reopened in private chats")
	refused(t, "editForumTopic", map[string]any{"chat_id": person, "message_thread_id": topic.ID, "name": "A · alpha"}, 400, "Bad Request: TOPIC_NOT_MODIFIED")
	if _, env := c.json("editForumTopic", map[string]any{"chat_id": person, "message_thread_id": topic.ID, "name": "A · beta"}); !env.OK {
		t.Fatalf("renaming: %+v", env)
	}

	// Drafts: private chats only, a non-zero id, a text.
	for _, text := range []string{"Wor", "Working on it"} {
		if _, env := c.json("sendMessageDraft", map[string]any{"chat_id": person, "message_thread_id": topic.ID, "draft_id": 7, "text": text}); !env.OK {
			t.Fatalf("sendMessageDraft: %+v", env)
		}
	}
	if d := s.Drafts(person, topic.ID); len(d) != 1 || d[0].ID != 7 || !slices.Equal(d[0].Texts, []string{"Wor", "Working on it"}) {
		t.Fatalf("drafts %+v", d)
	}
	refused(t, "sendMessageDraft", map[string]any{"chat_id": forum, "draft_id": 1, "text": "x"}, 400, "Bad Request: message drafts can be sent only to private chats")
	refused(t, "sendMessageDraft", map[string]any{"chat_id": person, "draft_id": 0, "text": "x"}, 400, "Bad Request: draft_id must be non-zero")
	refused(t, "sendMessageDraft", map[string]any{"chat_id": person, "draft_id": 1, "text": " "}, 400, "Bad Request: message text is empty")
	refused(t, "sendMessageDraft", map[string]any{"chat_id": stranger, "draft_id": 1, "text": "x"}, 403, "Forbidden: bot can't initiate conversation with a user")

	// A person who blocked the bot.
	s.BlockBot(person, true)
	refused(t, "sendMessage", map[string]any{"chat_id": person, "text": "x"}, 403, "Forbidden: bot was blocked by the user")
	s.BlockBot(person, false)
	if _, env := c.json("sendMessage", map[string]any{"chat_id": person, "text": "back"}); !env.OK {
		t.Fatalf("after unblocking: %+v", env)
	}
}

// TestPrivateChatHasNoGroupLimit: the group's 20 a minute does not apply
// to a private chat; the chat's own limit does.
func TestPrivateChatHasNoGroupLimit(t *testing.T) {
	const person = int64(4242)
	s := New(t, WithRateLimits(RateLimits{BotCount: 100, BotPer: 60e9, ChatCount: 100, ChatPer: 60e9, GroupCount: 2, GroupPer: 60e9}))
	s.StartBot(person)
	c := newRawClient(t, s)
	for i := range 5 {
		if _, env := c.json("sendMessage", map[string]any{"chat_id": person, "text": "x"}); !env.OK {
			t.Fatalf("message %d: %+v", i+1, env)
		}
	}
	if n := s.RateLimited(); n != 0 {
		t.Fatalf("%d refused", n)
	}
}
