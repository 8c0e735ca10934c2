package telegram

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// A thread is a forum topic. People can close or delete topics in the
// Telegram app at any time; this file is how the provider finds out and
// what it does:
//
//   - deleted: Telegram answers sends with "message thread not found" and
//     topic management with TOPIC_ID_INVALID (TOPIC_DELETED is matched too,
//     as some answers name it so). The call is provider.ErrTargetGone:
//     nothing was sent, and the supervisor gives the binding a new thread.
//   - closed: a bot that may manage topics can still post into it; one
//     that may not is answered TOPIC_CLOSED. Such a call reopens the topic
//     and is made once more: a closed topic is still the follower's thread
//     and holds its history, while a new one would scatter it. If the bot
//     may not reopen it either, the call is provider.ErrPermissionDenied,
//     saying which right is missing. The forum_topic_closed and
//     forum_topic_reopened service messages Telegram posts when a person
//     closes or reopens a topic carry the thread state to the supervisor
//     (Update.thread_state), which marks the binding's thread so.
//
// In a private chat (private_chat_id) the bot's topics cannot be closed
// or reopened: Telegram has those methods for forum supergroups only. A
// topic the supervisor closes there stays open (CloseTarget succeeds and
// changes nothing), and reusing one asks editForumTopic alone whether it
// still exists.

// Provision implements provider.Platform: createForumTopic, or with
// req.Reuse the topic the slot had before, reopened and renamed. Creating
// is not idempotent: a failure after the request went out is ambiguous.
// Reusing is (reopening an open topic or renaming it to its name changes
// nothing), so a reuse cut off mid-way is provider.ErrUnavailable.
func (p *Platform) Provision(ctx context.Context, req provider.ProvisionRequest) (provider.Provisioned, error) {
	chatID := p.s.ChatID()
	if req.Chat != "" {
		var err error
		if chatID, err = strconv.ParseInt(req.Chat, 10, 64); err != nil {
			return provider.Provisioned{}, fmt.Errorf("%w: chat %q is not a Telegram chat id", provider.ErrInvalid, req.Chat)
		}
	}
	if req.Reuse != nil && req.Reuse.Chat != idText(chatID) {
		// A topic of another chat (the forum was changed in the
		// settings): threads are made in this one now.
		p.log.Info().Str("chat", req.Reuse.Chat).Str("thread", req.Reuse.Thread).Msg("the topic to reuse is in another chat; creating a new one")
	} else if req.Reuse != nil {
		got, err := p.reuse(ctx, *req.Reuse, req.Name)
		if !errors.Is(err, provider.ErrTargetGone) {
			return got, err
		}
		p.log.Info().Str("chat", req.Reuse.Chat).Str("thread", req.Reuse.Thread).Msg("the topic to reuse is gone; creating a new one")
	}
	t, err := p.client.CreateForumTopic(ctx, chatID, req.Name, 0)
	if err != nil {
		var api *botapi.APIError
		if errors.As(err, &api) {
			return provider.Provisioned{}, mapErr(err) // Telegram answered: not created
		}
		return provider.Provisioned{}, fmt.Errorf("%w: createForumTopic: %v", provider.ErrAmbiguous, err)
	}
	return provider.Provisioned{Target: provider.Target{Chat: idText(chatID), Thread: idText(int64(t.MessageThreadID)), Name: t.Name}}, nil
}

// reuse reopens topic t (if closed) and renames it to name (if it has
// another); provider.ErrTargetGone if it was deleted.
func (p *Platform) reuse(ctx context.Context, t provider.Target, name string) (provider.Provisioned, error) {
	chatID, threadID, err := numericTarget(t)
	if err != nil {
		return provider.Provisioned{}, err
	}
	if threadID == 0 {
		return provider.Provisioned{}, fmt.Errorf("%w: the General topic is not a thread to reuse", provider.ErrTargetGone)
	}
	// Reopen first: Telegram has no "get topic", and reopening is the
	// cheapest question "does it still exist" (an open one answers
	// TOPIC_NOT_MODIFIED). A private chat's topics are never closed:
	// renaming asks the same question there.
	if !p.s.Private() {
		if err := p.client.ReopenForumTopic(ctx, chatID, int(threadID)); err != nil && !isNotModified(err) {
			return provider.Provisioned{}, reuseErr("reopenForumTopic", err)
		}
	}
	if err := p.client.EditForumTopic(ctx, chatID, int(threadID), name); err != nil && !isNotModified(err) {
		return provider.Provisioned{}, reuseErr("editForumTopic", err)
	}
	return provider.Provisioned{Target: provider.Target{Chat: t.Chat, Thread: t.Thread, Name: name}, Reused: true}, nil
}

// reuseErr classifies a failure of an idempotent reuse step.
func reuseErr(method string, err error) error {
	var api *botapi.APIError
	if errors.As(err, &api) {
		return mapErr(err)
	}
	return fmt.Errorf("%w: %s: %v", provider.ErrUnavailable, method, err)
}

// CloseTarget implements provider.Platform. A closed topic succeeds; a
// deleted one is provider.ErrTargetGone. A private chat's topic stays
// open (see above).
func (p *Platform) CloseTarget(ctx context.Context, t provider.Target) error {
	chatID, threadID, err := numericTarget(t)
	if err != nil {
		return err
	}
	if p.s.Private() {
		return nil
	}
	err = p.client.CloseForumTopic(ctx, chatID, int(threadID))
	if isNotModified(err) {
		return nil // closed already
	}
	return mapErr(err)
}

// reopenClosed reopens topic t after a call was refused TOPIC_CLOSED.
func (p *Platform) reopenClosed(ctx context.Context, t provider.Target) error {
	chatID, threadID, err := numericTarget(t)
	if err != nil {
		return err
	}
	err = p.client.ReopenForumTopic(ctx, chatID, int(threadID))
	switch {
	case err == nil:
		p.log.Info().Str("chat", t.Chat).Str("thread", t.Thread).Msg("reopened a topic a person had closed")
		return nil
	case isNotModified(err): // reopened meanwhile
		return nil
	case isTopicGone(err):
		return mapErr(err)
	}
	var api *botapi.APIError
	if errors.As(err, &api) && api.Code < 500 && api.Code != 429 {
		return fmt.Errorf("%w: topic %s is closed and the bot may not reopen it (it needs the administrator right to manage topics): %v",
			provider.ErrPermissionDenied, t.Thread, err)
	}
	return mapErr(err)
}

// Telegram's descriptions for topics that are gone or closed. They are
// matched case-insensitively inside the description ("Bad Request: …").
var (
	topicGoneTexts  = []string{"message thread not found", "topic_id_invalid", "topic_deleted"}
	topicClosedText = "topic_closed"
	notModifiedText = "topic_not_modified"
)

func apiDescription(err error) (string, bool) {
	var api *botapi.APIError
	if !errors.As(err, &api) {
		return "", false
	}
	return strings.ToLower(api.Description), true
}

// isTopicGone reports whether Telegram said the topic no longer exists.
func isTopicGone(err error) bool {
	d, ok := apiDescription(err)
	if !ok {
		return false
	}
	for _, t := range topicGoneTexts {
		if strings.Contains(d, t) {
			return true
		}
	}
	return false
}

func isTopicClosed(err error) bool {
	d, ok := apiDescription(err)
	return ok && strings.Contains(d, topicClosedText)
}

func isNotModified(err error) bool {
	d, ok := apiDescription(err)
	return ok && strings.Contains(d, notModifiedText)
}
