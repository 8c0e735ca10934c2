package discord

import (
	"bytes"
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
var methods = []provider.Method{
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

// params is a call's JSON object.
type params map[string]any

// parseParams decodes a call's params (numbers kept as written).
func parseParams(method string, raw json.RawMessage) (params, error) {
	m := params{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: %s params must be a JSON object", provider.ErrInvalid, method)
	}
	return m, nil
}

// scope checks a call's params against its thread t and takes out the
// keys that name where it goes (the provider fills those in itself):
// channel_id, thread_id, guild_id and message_reference's channel and
// guild may only name the caller's own; application_id and webhook_id
// only the bot's. Nothing leaving the thread is sent.
func (p *Platform) scope(t provider.Target, m params) error {
	if t.Chat != p.channel {
		return fmt.Errorf("%w: chat %s is not this provider's channel", provider.ErrOutOfScope, t.Chat)
	}
	if !isSnowflake(t.Thread) {
		return fmt.Errorf("%w: calls go to a thread, not to the channel itself", provider.ErrOutOfScope)
	}
	own := map[string]string{"channel_id": t.Thread, "thread_id": t.Thread, "guild_id": p.guild}
	for k, want := range own {
		if v, ok := m[k]; ok {
			if idText(v) != want {
				return fmt.Errorf("%w: %s %s is not your thread", provider.ErrOutOfScope, k, idText(v))
			}
			delete(m, k)
		}
	}
	if ref, ok := m["message_reference"]; ok {
		r, ok := ref.(map[string]any)
		if !ok {
			return fmt.Errorf("%w: message_reference must be an object", provider.ErrInvalid)
		}
		if v, ok := r["channel_id"]; ok && idText(v) != t.Thread {
			return fmt.Errorf("%w: message_reference.channel_id %s is not your thread", provider.ErrOutOfScope, idText(v))
		}
		if v, ok := r["guild_id"]; ok && idText(v) != p.guild {
			return fmt.Errorf("%w: message_reference.guild_id %s is not this guild", provider.ErrOutOfScope, idText(v))
		}
	}
	p.mu.Lock()
	app := p.appID
	p.mu.Unlock()
	for _, k := range []string{"application_id", "webhook_id"} {
		if v, ok := m[k]; ok {
			if app == "" || idText(v) != app {
				return fmt.Errorf("%w: %s %s is not this bot's", provider.ErrOutOfScope, k, idText(v))
			}
			delete(m, k)
		}
	}
	return nil
}

// checkContent refuses a raw call's content over Discord's limit (the
// send verb splits a long text; a raw call is sent as it is).
func checkContent(m params) error {
	v, ok := m["content"]
	if !ok || v == nil {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%w: content must be a string", provider.ErrInvalid)
	}
	if n := utf8.RuneCountInString(s); n > MaxContent {
		return fmt.Errorf("%w: content is %d characters; Discord allows at most %d per message (split it)", provider.ErrInvalid, n, MaxContent)
	}
	return nil
}

// idText writes a JSON id (string or number) as text.
func idText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
