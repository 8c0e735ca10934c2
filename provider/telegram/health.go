package telegram

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// The provider's health (provider.Liveness) tells the truth about whether
// it can do its job:
//
//   - polling: getUpdates answering feeds successes; a Bot API that cannot
//     be reached, answers 5xx or an undecodable body, or rate-limits is a
//     passing failure (NOT_SERVING after 3 in a row or 10 s of them); 409
//     (another poller) and 401/403 (the token revoked) are refusals,
//     NOT_SERVING at once until a poll succeeds. The poller retries those
//     at its slowest rate.
//   - the forum chat: getChat and getChatMember at the start of each
//     receive loop, then every 5 minutes, or every chat_recheck while it is
//     unusable: not a forum, the bot no member, or no administrator with
//     the right to manage topics. Each is a block that only a later check
//     clears.
//   - the private chat (private_chat_id), as often: getMe, whose
//     has_topics_enabled says whether the bot's threaded mode is on (its
//     owner switches it in @BotFather), and getChat, which does not find
//     the chat of a person who never started the bot (or blocked it).

// chatBlock is the Liveness key of the forum chat's problems.
const chatBlock = "chat"

// chatUsableRecheck is how often a usable chat is looked at again (rights
// can be taken away).
const chatUsableRecheck = 5 * time.Minute

// pollState returns the Poller's OnState for one receive loop: it logs
// state changes and feeds the liveness.
func (p *Platform) pollState() func(botapi.State, error) {
	var mu sync.Mutex
	last := botapi.State(0)
	return func(st botapi.State, err error) {
		mu.Lock()
		changed := st != last
		last = st
		mu.Unlock()
		if changed {
			ev := p.log.Info()
			if err != nil {
				ev = p.log.Warn().Err(err)
			}
			ev.Str("state", st.String()).Msg("polling state")
		}
		switch st {
		case botapi.StateServing:
			p.live.Succeeded()
		case botapi.StateConflict:
			p.live.Refused("409 Conflict: another process polls this bot token; stop it (only one poller per token)")
		case botapi.StateUnauthorized:
			if botapi.IsForbidden(err) {
				p.live.Refused(fmt.Sprintf("403 Forbidden: Telegram refuses this bot (%s); retrying every 30s", apiText(err)))
			} else {
				p.live.Refused("401 Unauthorized: the bot token is wrong or was revoked; get a new one from @BotFather (retrying every 30s)")
			}
		case botapi.StateRateLimited:
			p.live.Failed("rate limited by Telegram: " + apiText(err))
		case botapi.StateRetrying:
			p.live.Failed(unreachable(err))
		case botapi.StateHandlerFailed:
			// The supervisor did not take the batch: Telegram answered,
			// which the success already reported.
		}
	}
}

// unreachable describes a transient getUpdates failure.
func unreachable(err error) string {
	var d *botapi.DecodeError
	var api *botapi.APIError
	switch {
	case errors.As(err, &d):
		return fmt.Sprintf("the Bot API answered HTTP %d with something that is not a Bot API answer", d.StatusCode)
	case errors.As(err, &api):
		return fmt.Sprintf("the Bot API failed: %d %s", api.Code, api.Description)
	}
	return "the Bot API is unreachable: " + err.Error()
}

// apiText is Telegram's description of err, else its text.
func apiText(err error) string {
	var api *botapi.APIError
	if errors.As(err, &api) && api.Description != "" {
		return api.Description
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// watchChat checks the forum chat until ctx ends.
func (p *Platform) watchChat(ctx context.Context) {
	for {
		wait := chatUsableRecheck
		switch why, err := p.checkChat(ctx); {
		case ctx.Err() != nil:
			return
		case err != nil:
			// Telegram not reached: the poller says so too; look again soon.
			p.log.Debug().Err(err).Msg("chat check failed")
			wait = p.recheck
		case why != "":
			p.live.Block(chatBlock, why)
			wait = p.recheck
		default:
			p.live.Unblock(chatBlock)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// checkChat looks at the chat: why is "" when threads can be made in it,
// else what is wrong and how to fix it; err when Telegram could not be
// asked.
func (p *Platform) checkChat(ctx context.Context) (why string, err error) {
	if p.s.Private() {
		return p.checkPrivateChat(ctx)
	}
	chatID := p.s.ForumChatID
	chat, err := p.client.GetChat(ctx, chatID)
	if err != nil {
		api, err := refusal(err)
		if api == nil {
			return "", err
		}
		return fmt.Sprintf("forum_chat_id %d cannot be used: %s (add the bot to the group, and check the id)", chatID, api.Description), nil
	}
	if !chat.IsForum {
		return fmt.Sprintf("chat %d (%q) is not a forum: turn on Topics in the group's settings", chatID, chat.Title), nil
	}
	botID := p.botID.Load()
	if botID == 0 {
		me, err := p.client.GetMe(ctx)
		if err != nil {
			return "", err
		}
		botID = me.ID
		p.learnMe(me)
	}
	m, err := p.client.GetChatMember(ctx, chatID, botID)
	if err != nil {
		api, err := refusal(err)
		if api == nil {
			return "", err
		}
		return fmt.Sprintf("cannot see the bot's rights in chat %d: %s", chatID, api.Description), nil
	}
	switch {
	case m.Status == botapi.MemberCreator:
	case m.Status != botapi.MemberAdministrator:
		return fmt.Sprintf("the bot is not an administrator of chat %d (%q; it is %q): make it an administrator with the right to manage topics", chatID, chat.Title, m.Status), nil
	case !m.CanManageTopics:
		return fmt.Sprintf("the bot may not manage topics in chat %d (%q): give it the administrator right \"Manage topics\"", chatID, chat.Title), nil
	}
	return "", nil
}

// refusal splits a getChat or getChatMember failure: Telegram refusing
// (400, 403: the chat cannot be used), or err, Telegram not asked
// (unreachable, 5xx, 429).
func refusal(err error) (*botapi.APIError, error) {
	var api *botapi.APIError
	if errors.As(err, &api) && (api.Code == 400 || api.Code == 403) {
		return api, nil
	}
	return nil, err
}

// checkPrivateChat is checkChat for private_chat_id: the bot's threaded
// mode on, and the person's chat with it open.
func (p *Platform) checkPrivateChat(ctx context.Context) (why string, err error) {
	me, err := p.client.GetMe(ctx)
	if err != nil {
		return "", err
	}
	p.learnMe(me)
	if !me.HasTopicsEnabled {
		return fmt.Sprintf("threaded mode is off for @%s, so it cannot have topics in your private chat: in @BotFather open the bot's settings and turn on Threaded Mode", me.Username), nil
	}
	chatID := p.s.PrivateChatID
	chat, err := p.client.GetChat(ctx, chatID)
	if err != nil {
		api, err := refusal(err)
		if api == nil {
			return "", err
		}
		return fmt.Sprintf("private_chat_id %d has not started @%s (or blocked it): %s; open https://t.me/%s and press Start (and check that %d is your user id)",
			chatID, me.Username, api.Description, me.Username, chatID), nil
	}
	if chat.Type != "private" {
		return fmt.Sprintf("private_chat_id %d is a %s, not a person: write your own user id there (or use forum_chat_id for a forum supergroup)", chatID, chat.Type), nil
	}
	return "", nil
}

// Probe implements child.Prober (supervisord --check-config --online):
// the token, then the chat, looked at as the health check does, so a
// bot whose threaded mode is off, or a person who never started it, is
// named before anything starts.
func (p *Platform) Probe(ctx context.Context) error {
	if _, err := p.client.GetMe(ctx); err != nil {
		if botapi.IsUnauthorized(err) {
			return provider.Settingf("token", "Telegram refuses it (401 Unauthorized): get a new one from @BotFather")
		}
		return fmt.Errorf("could not ask Telegram: %s", apiText(err))
	}
	why, err := p.checkChat(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("could not ask Telegram: %s", apiText(err))
	case why != "":
		return provider.Settingf(p.s.chatKey(), "%s", why)
	}
	return nil
}
