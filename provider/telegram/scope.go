package telegram

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chatbus/chatbus/provider"
)

// MaxTextChars is the longest message text the Bot API accepts.
const MaxTextChars = 4096

// methods are the Bot API methods followers may call, with the parameters
// that name an id of the thread (the supervisor checks those against what
// the thread has seen), and whether the method takes the thread itself
// (message_thread_id, filled in by scope).
var methods = provider.Methods{
	{Name: "sendMessage", Params: []provider.Param{
		{Name: "reply_to_message_id", Kind: provider.RefMessage},
		{Name: "reply_parameters.message_id", Kind: provider.RefMessage},
	}, InThread: true},
	{Name: "editMessageText", Params: messageParam, Lane: provider.LaneEdit, Overwrites: true},
	{Name: "editMessageReplyMarkup", Params: messageParam, Lane: provider.LaneEdit, Overwrites: true},
	{Name: "deleteMessage", Params: messageParam, Lane: provider.LaneEdit},
	{Name: "setMessageReaction", Params: messageParam, Lane: provider.LaneAmbient, Overwrites: true},
	{Name: "sendChatAction", Lane: provider.LaneAmbient, Lasts: typingLasts, InThread: true},
	{Name: "answerCallbackQuery", Params: []provider.Param{
		{Name: "callback_query_id", Kind: provider.RefInteraction, Required: true},
	}, Lane: provider.LanePrompt},
	{Name: "editForumTopic", InThread: true},
	{Name: "closeForumTopic", InThread: true},
	{Name: "reopenForumTopic", InThread: true},
	{Name: "sendMessageDraft", Lane: provider.LaneEdit, InThread: true},
}

// verbs are the message verbs (verbs.go); a private chat has drafts too
// (Describe).
var verbs = []provider.Verb{{Name: provider.VerbSend}, {Name: provider.VerbEdit}, {Name: provider.VerbReact},
	{Name: provider.VerbTyping, Lasts: typingLasts}, {Name: provider.VerbAnswer}}

var messageParam = []provider.Param{{Name: "message_id", Kind: provider.RefMessage, Required: true}}

// DefaultLimits are the Bot API's rate limits as Telegram documents them
// (core.telegram.org/bots/faq, "My bot is hitting limits"): about 30
// messages a second in all, no more than one a second in one chat (short
// bursts go through), no more than 20 a minute in one group. Every chat
// of the provider is its forum supergroup, a group: a forum topic is a
// thread of it, so all of a bot's topics share the chat's and the group's
// limits. Edits count against the chat's limit (Telegram answers 429 to a
// bot editing faster), not the group's; typing and reactions against the
// bot's only. The operator changes them with the "limits" setting.
var DefaultLimits = []provider.RateLimit{
	{Name: "bot", Scope: provider.ScopeBot, Count: 30, Per: time.Second},
	{Name: "chat", Scope: provider.ScopeChat, Count: 3, Per: 3 * time.Second,
		Methods: []string{provider.VerbSend, provider.VerbEdit, provider.VerbDraft, "upload", "sendMessage", "editMessageText", "editMessageReplyMarkup", "sendMessageDraft"}},
	{Name: "group", Scope: provider.ScopeChat, Count: 20, Per: time.Minute,
		Methods: []string{provider.VerbSend, "upload", "sendMessage"}},
}

// PrivateLimits are DefaultLimits for a private chat: Telegram's limit of
// about one message a second in one chat applies, the group's 20 a minute
// does not (a private chat is no group).
var PrivateLimits = []provider.RateLimit{DefaultLimits[0], DefaultLimits[1]}

// typingLasts is how long a chat action shows: five seconds, or until the
// bot's next message (Bot API, sendChatAction).
const typingLasts = 5 * time.Second

// Describe implements provider.Platform.
func (p *Platform) Describe() provider.Description {
	d := provider.Description{Platform: "telegram", Methods: methods, Verbs: verbs, MaxTextChars: MaxTextChars, Limits: p.limits,
		CommandPrefix: "/", ThreadLink: topicLink(p.s.ForumChatID)}
	if p.s.Private() {
		// sendMessageDraft works in private chats only.
		d.Verbs = append(slices.Clip(verbs), provider.Verb{Name: provider.VerbDraft})
	}
	return d
}

// topicLink is the link template of a forum supergroup's topics,
// https://t.me/c/<id>/<topic>, where <id> is the chat id without its -100
// prefix; "" for any other chat (a private chat's topics have no link).
func topicLink(chatID int64) string {
	id, ok := strings.CutPrefix(strconv.FormatInt(chatID, 10), "-100")
	if !ok || id == "" {
		return ""
	}
	return "https://t.me/c/" + id + "/{thread}"
}

// scope fills chat_id (and message_thread_id, for the methods that take
// one) from t, and refuses params naming another chat or thread, or an
// inline message (which cannot be tied to a thread). The supervisor has
// already checked the method and the ids its params name.
func scope(t provider.Target, method string, params json.RawMessage) (json.RawMessage, error) {
	m, err := provider.ParseParams(method, params)
	if err != nil {
		return nil, err
	}
	for _, pin := range []struct{ key, want, what string }{
		{"chat_id", t.Chat, "chat"},
		{"message_thread_id", t.Thread, "thread"},
		{"reply_parameters.chat_id", t.Chat, "chat"},
	} {
		if err := m.Pin(pin.key, pin.want, pin.what); err != nil {
			return nil, err
		}
	}
	if err := m.Refuse(method, "inline_message_id"); err != nil {
		return nil, err
	}
	m["chat_id"] = idJSON(t.Chat)
	if d, _ := methods.Find(method); d.InThread && t.Thread != "" {
		m["message_thread_id"] = idJSON(t.Thread)
	}
	return json.Marshal(m)
}

// idJSON writes an id as a JSON number when it is one (Telegram's ids),
// else as a string (@channelusername).
func idJSON(id string) json.RawMessage {
	if _, err := strconv.ParseInt(id, 10, 64); err == nil {
		return json.RawMessage(id)
	}
	b, _ := json.Marshal(id)
	return b
}

// numericTarget returns t's chat and thread as Telegram's numbers.
func numericTarget(t provider.Target) (chat, thread int64, err error) {
	if chat, err = strconv.ParseInt(t.Chat, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("%w: chat %q is not a Telegram chat id", provider.ErrInvalid, t.Chat)
	}
	if t.Thread != "" {
		if thread, err = strconv.ParseInt(t.Thread, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("%w: thread %q is not a Telegram topic id", provider.ErrInvalid, t.Thread)
		}
	}
	return chat, thread, nil
}

// resultRefs lists the ids a call's result makes available: the message
// it sent or edited, and that message's files. Results that are not a
// message (true, a chat action) make none.
func resultRefs(res json.RawMessage) []provider.Ref {
	var m struct {
		MessageID int64 `json:"message_id"`
		Document  *struct {
			FileID string `json:"file_id"`
		} `json:"document"`
		Photo []struct {
			FileID string `json:"file_id"`
		} `json:"photo"`
	}
	if json.Unmarshal(res, &m) != nil || m.MessageID == 0 {
		return nil
	}
	refs := []provider.Ref{{Kind: provider.RefMessage, ID: strconv.FormatInt(m.MessageID, 10)}}
	if m.Document != nil {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: m.Document.FileID})
	}
	for _, p := range m.Photo {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: p.FileID})
	}
	return refs
}
