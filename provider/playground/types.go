package playground

import "encoding/json"

// The Bot API's shapes, as the playground writes them into update payloads
// and call results: a follower that reads these reads Telegram's.

type tgUser struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	Username  string `json:"username,omitempty"`
}

type tgChat struct {
	ID      int64  `json:"id"`
	Type    string `json:"type"`
	Title   string `json:"title,omitempty"`
	IsForum bool   `json:"is_forum,omitempty"`
}

type tgMessage struct {
	MessageID       int64           `json:"message_id"`
	MessageThreadID int64           `json:"message_thread_id,omitempty"`
	IsTopicMessage  bool            `json:"is_topic_message,omitempty"`
	From            *tgUser         `json:"from,omitempty"`
	Chat            tgChat          `json:"chat"`
	Date            int64           `json:"date"`
	EditDate        int64           `json:"edit_date,omitempty"`
	Text            string          `json:"text,omitempty"`
	Caption         string          `json:"caption,omitempty"`
	Document        *tgDocument     `json:"document,omitempty"`
	Photo           []tgPhotoSize   `json:"photo,omitempty"`
	ReplyToMessage  *tgMessage      `json:"reply_to_message,omitempty"`
	ReplyMarkup     *inlineKeyboard `json:"reply_markup,omitempty"`
}

type tgDocument struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int64  `json:"file_size,omitempty"`
}

type tgPhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int64  `json:"file_size,omitempty"`
}

// inlineKeyboard is reply_markup.inline_keyboard: rows of buttons.
type inlineKeyboard struct {
	InlineKeyboard [][]button `json:"inline_keyboard"`
}

type button struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data,omitempty"`
	URL          string `json:"url,omitempty"`
}

type tgCallbackQuery struct {
	ID           string     `json:"id"`
	From         tgUser     `json:"from"`
	Message      *tgMessage `json:"message,omitempty"`
	ChatInstance string     `json:"chat_instance"`
	Data         string     `json:"data,omitempty"`
}

type tgReaction struct {
	Type  string `json:"type"`
	Emoji string `json:"emoji,omitempty"`
}

type tgMessageReaction struct {
	Chat        tgChat       `json:"chat"`
	MessageID   int64        `json:"message_id"`
	User        *tgUser      `json:"user,omitempty"`
	Date        int64        `json:"date"`
	OldReaction []tgReaction `json:"old_reaction"`
	NewReaction []tgReaction `json:"new_reaction"`
}

// tgUpdate is an Update with one of its kinds set.
type tgUpdate struct {
	UpdateID        int64              `json:"update_id"`
	Message         *tgMessage         `json:"message,omitempty"`
	CallbackQuery   *tgCallbackQuery   `json:"callback_query,omitempty"`
	MessageReaction *tgMessageReaction `json:"message_reaction,omitempty"`
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own plain structs are marshalled
	}
	return b
}
