package tgtest

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// TestChatAndMembership: getChat and getChatMember answer what a person
// set up (a forum, a group without topics, the bot's rights), and the
// topic methods refuse a bot that may not manage topics.
func TestChatAndMembership(t *testing.T) {
	const forum, group = -100100, -100200
	s := New(t)
	s.AddForum(forum)
	s.AddGroup(group)
	c := s.Client()
	ctx := context.Background()

	ch, err := c.GetChat(ctx, forum)
	if err != nil || !ch.IsForum || ch.Type != "supergroup" {
		t.Fatalf("forum: %+v %v", ch, err)
	}
	if ch, err := c.GetChat(ctx, group); err != nil || ch.IsForum {
		t.Fatalf("group: %+v %v", ch, err)
	}
	m, err := c.GetChatMember(ctx, forum, s.Bot().ID)
	if err != nil || m.Status != botapi.MemberAdministrator || !m.CanManageTopics || m.User.ID != s.Bot().ID {
		t.Fatalf("bot in forum: %+v %v", m, err)
	}

	s.SetBotMember(forum, botapi.MemberAdministrator, false)
	if m, _ := c.GetChatMember(ctx, forum, s.Bot().ID); m.CanManageTopics {
		t.Fatalf("rights not taken: %+v", m)
	}
	_, err = c.CreateForumTopic(ctx, forum, "x", 0)
	var api *botapi.APIError
	if !errors.As(err, &api) || api.Description != "Bad Request: not enough rights to manage topics" {
		t.Fatalf("createForumTopic without the right: %v", err)
	}

	s.SetBotMember(forum, botapi.MemberKicked, false)
	if _, err := c.GetChat(ctx, forum); !errors.As(err, &api) || api.Code != 403 {
		t.Fatalf("getChat after the bot was kicked: %v", err)
	}

	s.SetForum(group, true)
	if ch, _ := c.GetChat(ctx, group); !ch.IsForum {
		t.Fatal("Topics turned on, but getChat says no forum")
	}
}

// TestPeopleDeleteAndCloseTopics: a topic deleted or closed in the app
// answers the bot the way Telegram does.
func TestPeopleDeleteAndCloseTopics(t *testing.T) {
	const forum = -100100
	s := New(t)
	s.AddForum(forum)
	c := s.Client()
	ctx := context.Background()
	a, err := c.CreateForumTopic(ctx, forum, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.CreateForumTopic(ctx, forum, "b", 0)
	before := s.Calls("deleteForumTopic") + s.Calls("closeForumTopic")

	if !s.DeleteTopic(forum, a.MessageThreadID) || s.DeleteTopic(forum, a.MessageThreadID) {
		t.Fatal("DeleteTopic: want true once, then false")
	}
	if !s.CloseTopic(forum, b.MessageThreadID) {
		t.Fatal("CloseTopic")
	}
	if n := s.Calls("deleteForumTopic") + s.Calls("closeForumTopic"); n != before {
		t.Errorf("a person's actions counted as %d bot calls", n-before)
	}
	if got := s.Topics(forum); len(got) != 1 || got[0].MessageThreadID != b.MessageThreadID || !got[0].Closed {
		t.Fatalf("topics %+v", got)
	}

	desc := func(err error) string {
		var api *botapi.APIError
		if !errors.As(err, &api) {
			return "not an API error: " + err.Error()
		}
		return api.Description
	}
	_, err = c.SendMessage(ctx, botapi.SendMessageParams{ChatID: forum, MessageThreadID: a.MessageThreadID, Text: "x"})
	if d := desc(err); d != "Bad Request: message thread not found" {
		t.Errorf("send into a deleted topic: %s", d)
	}
	if d := desc(c.ReopenForumTopic(ctx, forum, a.MessageThreadID)); d != "Bad Request: TOPIC_ID_INVALID" {
		t.Errorf("reopen a deleted topic: %s", d)
	}
	// The bot may manage topics: it may post into a closed one.
	if _, err := c.SendMessage(ctx, botapi.SendMessageParams{ChatID: forum, MessageThreadID: b.MessageThreadID, Text: "x"}); err != nil {
		t.Errorf("an admin posting into a closed topic: %v", err)
	}
	s.SetBotMember(forum, botapi.MemberMember, false)
	_, err = c.SendMessage(ctx, botapi.SendMessageParams{ChatID: forum, MessageThreadID: b.MessageThreadID, Text: "y"})
	if d := desc(err); d != "Bad Request: TOPIC_CLOSED" {
		t.Errorf("a member posting into a closed topic: %s", d)
	}
}

// TestSetUnreachable: while unreachable, connections are refused; after,
// the same URL serves again.
func TestSetUnreachable(t *testing.T) {
	s := New(t)
	c := s.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.GetMe(ctx); err != nil {
		t.Fatal(err)
	}
	s.SetUnreachable(true)
	c.CloseIdleConnections() // a kept-alive connection was cut: EOF; a new one is refused
	_, err := c.GetMe(ctx)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("getMe while unreachable: %v, want connection refused", err)
	}
	s.SetUnreachable(false)
	me, err := c.GetMe(ctx)
	if err != nil || me.ID != s.Bot().ID {
		t.Fatalf("getMe after: %+v %v", me, err)
	}
}
