package botapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/chatbus/chatbus/provider/telegram/botapi"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// wantAPIError fails the test unless err is an *APIError with code and
// description.
func wantAPIError(t *testing.T, err error, code int, desc string) {
	t.Helper()
	var e *botapi.APIError
	if !errors.As(err, &e) || e.Code != code || e.Description != desc {
		t.Fatalf("err = %v, want APIError %d %q", err, code, desc)
	}
}

// forumServer starts a stand-in server on which forum is a forum the bot
// manages, and returns it with a client of it.
func forumServer(t *testing.T, forum int64) (*tgtest.Server, *botapi.Client) {
	t.Helper()
	s := tgtest.New(t)
	s.AddForum(forum)
	return s, s.Client()
}

// newTopic creates a topic in forum with createForumTopic, failing the
// test if it cannot.
func newTopic(t *testing.T, c *botapi.Client, forum int64, name string, color int) botapi.ForumTopic {
	t.Helper()
	topic, err := c.CreateForumTopic(t.Context(), forum, name, color)
	if err != nil {
		t.Fatalf("createForumTopic %q: %v", name, err)
	}
	return topic
}

func TestForumTopicRoundTrip(t *testing.T) {
	const forum = -1001234567890
	ctx := context.Background()
	s, c := forumServer(t, forum)

	alpha := newTopic(t, c, forum, "alpha", 0)
	beta := newTopic(t, c, forum, "beta", 0xFFD67E)
	if alpha.MessageThreadID <= 0 || beta.MessageThreadID <= alpha.MessageThreadID {
		t.Fatalf("thread ids %d, %d: want positive and increasing", alpha.MessageThreadID, beta.MessageThreadID)
	}
	if alpha.Name != "alpha" || alpha.IconColor == 0 || beta.IconColor != 0xFFD67E {
		t.Errorf("topics %+v, %+v", alpha, beta)
	}

	keyboard := json.RawMessage(`{"inline_keyboard":[[{"text":"Approve","callback_data":"approve"}]]}`)
	sent, err := c.SendMessage(ctx, botapi.SendMessageParams{ChatID: forum, MessageThreadID: beta.MessageThreadID, Text: "hello beta", ReplyMarkup: keyboard})
	if err != nil {
		t.Fatal(err)
	}
	if !sent.IsTopicMessage || sent.MessageThreadID != beta.MessageThreadID || sent.Chat.ID != forum || sent.From == nil || !sent.From.IsBot {
		t.Errorf("sent message %+v", sent)
	}
	if _, err := c.SendMessage(ctx, botapi.SendMessageParams{ChatID: forum, Text: "hello general"}); err != nil {
		t.Fatal(err)
	}
	if got := s.Sent(forum, beta.MessageThreadID); len(got) != 1 || got[0].Text != "hello beta" || got[0].MessageID != sent.MessageID {
		t.Errorf("Sent(beta) = %+v", got)
	}
	if got := s.Sent(forum, 0); len(got) != 1 || got[0].Text != "hello general" {
		t.Errorf("Sent(general) = %+v", got)
	}

	if err := c.EditForumTopic(ctx, forum, alpha.MessageThreadID, "alpha two"); err != nil {
		t.Fatal(err)
	}
	if err := c.CloseForumTopic(ctx, forum, alpha.MessageThreadID); err != nil {
		t.Fatal(err)
	}
	topics := s.Topics(forum)
	if len(topics) != 2 || topics[0].Name != "alpha two" || !topics[0].Closed || topics[1].Closed {
		t.Errorf("Topics = %+v", topics)
	}

	tests := []struct {
		name     string
		call     func() error
		wantCode int
		wantDesc string
	}{
		{name: "close twice", call: func() error { return c.CloseForumTopic(ctx, forum, alpha.MessageThreadID) },
			wantCode: 400, wantDesc: "Bad Request: TOPIC_NOT_MODIFIED"},
		{name: "close unknown topic", call: func() error { return c.CloseForumTopic(ctx, forum, 4242) },
			wantCode: 400, wantDesc: "Bad Request: TOPIC_ID_INVALID"},
		{name: "edit unknown topic", call: func() error { return c.EditForumTopic(ctx, forum, 4242, "x") },
			wantCode: 400, wantDesc: "Bad Request: TOPIC_ID_INVALID"},
		{name: "send to unknown topic", call: func() error {
			_, err := c.SendMessage(ctx, botapi.SendMessageParams{ChatID: forum, MessageThreadID: 4242, Text: "x"})
			return err
		}, wantCode: 400, wantDesc: "Bad Request: message thread not found"},
		{name: "topic in unknown chat", call: func() error {
			_, err := c.CreateForumTopic(ctx, -5, "x", 0)
			return err
		}, wantCode: 400, wantDesc: "Bad Request: chat not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.call(), tt.wantCode, tt.wantDesc)
		})
	}
}

func TestMessageRoundTrip(t *testing.T) {
	const forum = -100777
	const user = 4242
	ctx := context.Background()
	s, c := forumServer(t, forum)

	me, err := c.GetMe(ctx)
	if err != nil || !me.IsBot || me.ID != s.Bot().ID {
		t.Fatalf("GetMe = %+v, %v", me, err)
	}
	topic := newTopic(t, c, forum, "work", 0)
	m, err := c.SendMessage(ctx, botapi.SendMessageParams{ChatID: forum, MessageThreadID: topic.MessageThreadID, Text: "v1",
		ReplyMarkup: json.RawMessage(`{"inline_keyboard":[[{"text":"go","callback_data":"go"}]]}`)})
	if err != nil {
		t.Fatal(err)
	}
	edited, err := c.EditMessageText(ctx, botapi.EditMessageTextParams{ChatID: forum, MessageID: m.MessageID, Text: "v2"})
	if err != nil || edited.Text != "v2" || edited.EditDate == 0 {
		t.Fatalf("EditMessageText = %+v, %v", edited, err)
	}
	_, err = c.EditMessageText(ctx, botapi.EditMessageTextParams{ChatID: forum, MessageID: m.MessageID, Text: "v2"})
	wantAPIError(t, err, 400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")

	if err := c.SendChatAction(ctx, forum, topic.MessageThreadID, "typing"); err != nil {
		t.Fatal(err)
	}

	// A user replies in the topic and presses the button.
	s.PushMessage(forum, topic.MessageThreadID, user, "looks good")
	_, queryID := s.PushCallbackQuery(forum, m.MessageID, user, "go")
	ups, err := c.GetUpdates(ctx, botapi.GetUpdatesParams{AllowedUpdates: botapi.DefaultAllowedUpdates})
	if err != nil || len(ups) != 2 {
		t.Fatalf("GetUpdates = %d updates, %v", len(ups), err)
	}
	for _, u := range ups {
		if u.ChatID() != forum || u.ThreadID() != topic.MessageThreadID || u.FromID() != user {
			t.Errorf("%s update: chat %d thread %d from %d", u.Kind(), u.ChatID(), u.ThreadID(), u.FromID())
		}
	}
	if cq := ups[1].CallbackQuery; cq == nil || cq.ID != queryID || cq.Data != "go" {
		t.Fatalf("callback query %+v", ups[1].CallbackQuery)
	}
	if err := c.AnswerCallbackQuery(ctx, botapi.AnswerCallbackQueryParams{CallbackQueryID: queryID, Text: "done"}); err != nil {
		t.Fatal(err)
	}
	err = c.AnswerCallbackQuery(ctx, botapi.AnswerCallbackQueryParams{CallbackQueryID: queryID})
	wantAPIError(t, err, 400, "Bad Request: query is too old and response timeout expired or query ID is invalid")

	if err := c.DeleteMessage(ctx, forum, m.MessageID); err != nil {
		t.Fatal(err)
	}
	if got := s.Sent(forum, topic.MessageThreadID); len(got) != 0 {
		t.Errorf("Sent after delete = %+v", got)
	}
	wantAPIError(t, c.DeleteMessage(ctx, forum, m.MessageID), 400, "Bad Request: message to delete not found")
}
