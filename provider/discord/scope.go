package discord

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/chatbus/chatbus/provider"
)

// The methods followers may call, all in their own thread (method names
// are letters only, as the supervisor takes them). Params are
// Discord's JSON body of the request, plus the ids the request path
// takes (message_id, emoji, interaction_token).
const (
	// MethodCreateMessage: POST /channels/{thread}/messages — content,
	// components (buttons), embeds, message_reference (a reply in the
	// thread), allowed_mentions…
	MethodCreateMessage = "createMessage"
	// MethodEditMessage: PATCH /channels/{thread}/messages/{message_id}.
	MethodEditMessage = "editMessage"
	// MethodDeleteMessage: DELETE /channels/{thread}/messages/{message_id}
	// (the bot's own; others' need Manage Messages, which it is not given).
	MethodDeleteMessage = "deleteMessage"
	// MethodAddReaction: PUT …/messages/{message_id}/reactions/{emoji}/@me;
	// emoji is a unicode emoji or name:id.
	MethodAddReaction = "addReaction"
	// MethodTriggerTyping: POST /channels/{thread}/typing.
	MethodTriggerTyping = "triggerTyping"
	// MethodInteractionFollowup: POST /webhooks/{application}/{interaction_token}
	// — a message answering a pressed button (the provider acknowledged
	// the press already).
	MethodInteractionFollowup = "interactionFollowup"
)

var messageParam = []provider.Param{{Name: "message_id", Kind: provider.RefMessage, Required: true}}

// methods are declared in Describe with the params that name ids of the
// thread (the supervisor refuses ids the thread never saw) and their
// lanes: an answer to a press first, edits and deletions after new
// messages, reactions and typing last.
var methods = provider.Methods{
	// The idempotency key becomes the message's nonce (enforce_nonce):
	// Discord makes one message per nonce.
	{Name: MethodCreateMessage, Params: []provider.Param{{Name: "message_reference.message_id", Kind: provider.RefMessage}}, Idempotent: true},
	{Name: MethodEditMessage, Params: messageParam, Lane: provider.LaneEdit, Overwrites: true},
	{Name: MethodDeleteMessage, Params: messageParam, Lane: provider.LaneEdit},
	{Name: MethodAddReaction, Params: messageParam, Lane: provider.LaneAmbient},
	{Name: MethodTriggerTyping, Lane: provider.LaneAmbient, Lasts: typingLasts},
	{Name: MethodInteractionFollowup, Params: []provider.Param{{Name: "interaction_token", Kind: provider.RefInteraction, Required: true}}, Lane: provider.LanePrompt},
}

// Describe implements provider.Platform.
func (p *Platform) Describe() provider.Description {
	return provider.Description{Platform: "discord", Methods: methods, MaxTextChars: MaxContent, Verbs: verbs, Limits: p.limits,
		CommandPrefix: "/" + commandName + " ", ThreadLink: "https://discord.com/channels/" + p.guild + "/{thread}"}
}

// scope checks a call's params against its thread t and takes out the
// keys that name where it goes (the provider fills those in itself):
// channel_id, thread_id, guild_id and message_reference's channel and
// guild may only name the caller's own; application_id and webhook_id
// only the bot's. Nothing leaving the thread is sent.
func (p *Platform) scope(t provider.Target, m provider.Params) error {
	if t.Chat != p.channel {
		return fmt.Errorf("%w: chat %s is not this provider's channel", provider.ErrOutOfScope, t.Chat)
	}
	if !isSnowflake(t.Thread) {
		return fmt.Errorf("%w: calls go to a thread, not to the channel itself", provider.ErrOutOfScope)
	}
	p.mu.Lock()
	app := p.appID
	p.mu.Unlock()
	if app == "" {
		app = "(not known yet)" // no id is the bot's before it is known
	}
	for _, pin := range []struct{ key, want, what string }{
		{"channel_id", t.Thread, "thread"},
		{"thread_id", t.Thread, "thread"},
		{"guild_id", p.guild, "guild"},
		{"message_reference.channel_id", t.Thread, "thread"},
		{"message_reference.guild_id", p.guild, "guild"},
		{"application_id", app, "bot's application"},
		{"webhook_id", app, "bot's application"},
	} {
		if err := m.Pin(pin.key, pin.want, pin.what); err != nil {
			return err
		}
	}
	// The provider fills in where the call goes itself.
	for _, k := range []string{"channel_id", "thread_id", "guild_id", "application_id", "webhook_id"} {
		delete(m, k)
	}
	return nil
}

// checkContent refuses a raw call's content over Discord's limit (the
// send verb splits a long text; a raw call is sent as it is).
func checkContent(m provider.Params) error {
	v, ok := m["content"]
	if !ok || string(v) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return fmt.Errorf("%w: content must be a string", provider.ErrInvalid)
	}
	if n := utf8.RuneCountInString(s); n > MaxContent {
		return fmt.Errorf("%w: content is %d characters; Discord allows at most %d per message (split it)", provider.ErrInvalid, n, MaxContent)
	}
	return nil
}
