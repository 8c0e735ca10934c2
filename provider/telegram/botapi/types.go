package botapi

import (
	"bytes"
	"encoding/json"
)

// Update kinds returned by [Update.Kind] for the update types the Telegram
// provider routes. Other kinds are reported by their Bot API field name.
const (
	KindMessage         = "message"
	KindEditedMessage   = "edited_message"
	KindCallbackQuery   = "callback_query"
	KindMessageReaction = "message_reaction"
)

// Update is one incoming update. Only the kinds the provider routes are
// decoded into fields; Raw always holds the complete original JSON.
type Update struct {
	UpdateID        int64                   `json:"update_id"`
	Message         *Message                `json:"message,omitempty"`
	EditedMessage   *Message                `json:"edited_message,omitempty"`
	CallbackQuery   *CallbackQuery          `json:"callback_query,omitempty"`
	MessageReaction *MessageReactionUpdated `json:"message_reaction,omitempty"`

	// Raw is the update exactly as Telegram sent it (set by
	// UnmarshalJSON). The supervisor journals it verbatim, so it includes
	// fields and update kinds this package does not model.
	Raw json.RawMessage `json:"-"`

	// DecodeErr is set by GetUpdates on an update it could not decode
	// (only UpdateID and Raw are then set): why.
	DecodeErr error `json:"-"`

	kind string // top-level field naming the update kind, set by UnmarshalJSON
}

// UnmarshalJSON decodes an update and keeps a copy of its JSON in Raw.
func (u *Update) UnmarshalJSON(data []byte) error {
	type plain Update // no methods: avoids recursion
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	// The kind is the one top-level member besides update_id (the first
	// in the document, should there be more).
	kind, err := firstMember(data, "update_id")
	if err != nil {
		return err
	}
	p.kind = kind
	p.Raw = bytes.Clone(data)
	*u = Update(p)
	return nil
}

// firstMember returns the name of the first member of the JSON object
// data other than skip, "" if it has none.
func firstMember(data []byte, skip string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return "", err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		if name, _ := tok.(string); name != skip {
			return name, nil
		}
		var skipped json.RawMessage
		if err := dec.Decode(&skipped); err != nil {
			return "", err
		}
	}
	return "", nil
}

// Kind returns the update's kind: "message", "edited_message",
// "callback_query", "message_reaction", or for other update types the
// Bot API field that carries them (e.g. "my_chat_member"). It returns ""
// for an empty update.
func (u *Update) Kind() string {
	switch {
	case u.Message != nil:
		return KindMessage
	case u.EditedMessage != nil:
		return KindEditedMessage
	case u.CallbackQuery != nil:
		return KindCallbackQuery
	case u.MessageReaction != nil:
		return KindMessageReaction
	}
	return u.kind
}

// message returns the message an update is about, if any: the (edited)
// message itself, or the message a callback button was attached to.
func (u *Update) message() *Message {
	switch {
	case u.Message != nil:
		return u.Message
	case u.EditedMessage != nil:
		return u.EditedMessage
	case u.CallbackQuery != nil:
		return u.CallbackQuery.Message
	}
	return nil
}

// ChatID returns the id of the chat the update belongs to, or 0 if it has
// none (or the kind is not modelled).
func (u *Update) ChatID() int64 {
	if m := u.message(); m != nil {
		return m.Chat.ID
	}
	if u.MessageReaction != nil {
		return u.MessageReaction.Chat.ID
	}
	return 0
}

// ThreadID returns the forum topic (message_thread_id) the update belongs
// to, or 0 for the General topic and for chats without topics. A
// message_thread_id on a message that is not a topic message (a reply
// thread in a plain supergroup) is not a topic and yields 0. Reactions
// carry no thread in the Bot API, so they yield 0: callers map the
// reacted-to message id to its topic themselves.
func (u *Update) ThreadID() int {
	if m := u.message(); m != nil && m.IsTopicMessage {
		return m.MessageThreadID
	}
	return 0
}

// FromID returns the id of the user who caused the update, or 0 if
// unknown (e.g. an anonymous reaction made on behalf of a chat).
func (u *Update) FromID() int64 {
	switch {
	case u.Message != nil && u.Message.From != nil:
		return u.Message.From.ID
	case u.EditedMessage != nil && u.EditedMessage.From != nil:
		return u.EditedMessage.From.ID
	case u.CallbackQuery != nil:
		return u.CallbackQuery.From.ID
	case u.MessageReaction != nil && u.MessageReaction.User != nil:
		return u.MessageReaction.User.ID
	}
	return 0
}

// User is a Telegram user or bot.
type User struct {
	ID           int64  `json:"id"`
	IsBot        bool   `json:"is_bot"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name,omitempty"`
	Username     string `json:"username,omitempty"`
	LanguageCode string `json:"language_code,omitempty"`
	// HasTopicsEnabled is true when the bot has topics in its private
	// chats (threaded mode, switched on in @BotFather; Bot API 9.3).
	// getMe answers it, for the bot only.
	HasTopicsEnabled bool `json:"has_topics_enabled,omitempty"`
}

// Chat is the part of a chat that routing needs.
type Chat struct {
	ID       int64  `json:"id"`
	Type     string `json:"type"` // "private", "group", "supergroup" or "channel"
	Title    string `json:"title,omitempty"`
	Username string `json:"username,omitempty"`
	IsForum  bool   `json:"is_forum,omitempty"`
}

// Message is a minimal Bot API message. Fields not listed here are still
// in the enclosing [Update.Raw].
type Message struct {
	MessageID int `json:"message_id"`
	// MessageThreadID is the forum topic of a topic message (see
	// IsTopicMessage); on other messages it names a reply thread.
	MessageThreadID int    `json:"message_thread_id,omitempty"`
	IsTopicMessage  bool   `json:"is_topic_message,omitempty"`
	From            *User  `json:"from,omitempty"`
	Chat            Chat   `json:"chat"`
	Date            int64  `json:"date"` // Unix seconds; 0 for an inaccessible message
	EditDate        int64  `json:"edit_date,omitempty"`
	Text            string `json:"text,omitempty"`
	// Entities are the text's formatting (bold, code, links…), offsets in
	// UTF-16 code units.
	Entities []MessageEntity `json:"entities,omitempty"`
	Caption  string          `json:"caption,omitempty"`
	// Document is set for a file sent as a document.
	Document *Document `json:"document,omitempty"`
	// Photo is set for a photo: the sizes Telegram made of it.
	Photo []PhotoSize `json:"photo,omitempty"`
	// Voice is set for a voice note (OGG/Opus, recorded in the app);
	// Audio for an audio file sent as music.
	Voice          *Voice   `json:"voice,omitempty"`
	Audio          *Audio   `json:"audio,omitempty"`
	ReplyToMessage *Message `json:"reply_to_message,omitempty"`
	// ReplyMarkup is the inline keyboard attached to the message, as JSON.
	ReplyMarkup json.RawMessage `json:"reply_markup,omitempty"`
	// ForumTopicClosed and ForumTopicReopened are set on the service
	// message Telegram posts in a topic someone closed or reopened.
	ForumTopicClosed   *ForumTopicClosed   `json:"forum_topic_closed,omitempty"`
	ForumTopicReopened *ForumTopicReopened `json:"forum_topic_reopened,omitempty"`
}

// MessageEntity is one span of special text: its type ("bold",
// "italic", "underline", "strikethrough", "spoiler", "blockquote",
// "expandable_blockquote", "code", "pre", "text_link", "url", "mention",
// …), its offset and length in UTF-16 code units, a text_link's url and a
// pre block's language.
type MessageEntity struct {
	Type     string `json:"type"`
	Offset   int    `json:"offset"`
	Length   int    `json:"length"`
	URL      string `json:"url,omitempty"`
	Language string `json:"language,omitempty"`
}

// ForumTopicClosed is the service message of a closed topic (it holds no
// information).
type ForumTopicClosed struct{}

// ForumTopicReopened is the service message of a reopened topic (it holds
// no information).
type ForumTopicReopened struct{}

// Document is a general file attached to a message.
type Document struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int64  `json:"file_size,omitempty"`
}

// Voice is a voice note.
type Voice struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"` // seconds
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int64  `json:"file_size,omitempty"`
}

// Audio is an audio file Telegram treats as music.
type Audio struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"` // seconds
	Performer    string `json:"performer,omitempty"`
	Title        string `json:"title,omitempty"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int64  `json:"file_size,omitempty"`
}

// PhotoSize is one size of a photo.
type PhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int64  `json:"file_size,omitempty"`
}

// CallbackQuery is a press of an inline keyboard button.
type CallbackQuery struct {
	ID   string `json:"id"`
	From User   `json:"from"`
	// Message is the message carrying the button; nil for buttons on
	// inline-mode messages. Telegram sends only chat, message_id and
	// date=0 when the message is too old to be accessible.
	Message      *Message `json:"message,omitempty"`
	ChatInstance string   `json:"chat_instance,omitempty"`
	Data         string   `json:"data,omitempty"`
}

// MessageReactionUpdated is a change of a user's reactions on a message.
type MessageReactionUpdated struct {
	Chat      Chat  `json:"chat"`
	MessageID int   `json:"message_id"`
	User      *User `json:"user,omitempty"`       // nil for anonymous reactions
	ActorChat *Chat `json:"actor_chat,omitempty"` // set for anonymous reactions
	Date      int64 `json:"date"`

	OldReaction []ReactionType `json:"old_reaction"`
	NewReaction []ReactionType `json:"new_reaction"`
}

// ReactionType is one reaction: an emoji, a custom emoji or a paid star.
type ReactionType struct {
	Type          string `json:"type"` // "emoji", "custom_emoji" or "paid"
	Emoji         string `json:"emoji,omitempty"`
	CustomEmojiID string `json:"custom_emoji_id,omitempty"`
}

// ForumTopic is a topic of a forum supergroup.
type ForumTopic struct {
	MessageThreadID int    `json:"message_thread_id"`
	Name            string `json:"name"`
	IconColor       int    `json:"icon_color"`
}

// File is a file ready to be downloaded with [Client.DownloadFile].
type File struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileSize     int64  `json:"file_size,omitempty"`
	// FilePath is the path to pass to DownloadFile; Telegram guarantees
	// it for at least an hour after GetFile.
	FilePath string `json:"file_path,omitempty"`
}

// Chat member statuses ([ChatMember.Status]).
const (
	MemberCreator       = "creator"
	MemberAdministrator = "administrator"
	MemberMember        = "member"
	MemberRestricted    = "restricted"
	MemberLeft          = "left"
	MemberKicked        = "kicked"
)

// ChatMember is a user's membership of a chat: the part the provider
// checks (is the bot an administrator that may manage topics).
type ChatMember struct {
	Status string `json:"status"`
	User   User   `json:"user"`
	// CanManageTopics is the administrator right to create, rename, close
	// and reopen forum topics (administrators only; the creator has every
	// right).
	CanManageTopics bool `json:"can_manage_topics,omitempty"`
}
