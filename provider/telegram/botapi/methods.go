package botapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// call performs method with params (see Do) under the request timeout and
// decodes the result into out (nil: the result is ignored, as for the
// methods that answer "true").
func (c *Client) call(ctx context.Context, method string, params, out any) error {
	res, err := c.Do(ctx, method, params)
	if err != nil {
		return err
	}
	return c.decodeResult(method, res, out)
}

// callFor performs method with params, as call does, and returns its
// result decoded as a T.
func callFor[T any](ctx context.Context, c *Client, method string, params any) (T, error) {
	var out T
	err := c.call(ctx, method, params, &out)
	return out, err
}

func (c *Client) decodeResult(method string, res json.RawMessage, out any) error {
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res, out); err != nil {
		return &DecodeError{Method: method, StatusCode: 200, ContentType: "application/json",
			Body: c.snippet(res), Err: fmt.Errorf("decoding result: %w", err)}
	}
	return nil
}

// GetMe returns the bot's own user. It is the cheapest way to check a
// token.
func (c *Client) GetMe(ctx context.Context) (User, error) {
	return callFor[User](ctx, c, "getMe", nil)
}

// BotCommand is one command of the bot's menu.
type BotCommand struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

// SetMyCommands replaces the bot's command menu (the default scope, every
// language). Setting the same list again changes nothing.
func (c *Client) SetMyCommands(ctx context.Context, cmds []BotCommand) error {
	var ok bool
	return c.call(ctx, "setMyCommands", map[string]any{"commands": cmds}, &ok)
}

// GetUpdatesParams are the parameters of getUpdates.
type GetUpdatesParams struct {
	// Offset is the first update id wanted. Every update with a lower id
	// is confirmed (Telegram forgets it). Zero: start with the oldest
	// unconfirmed update.
	Offset int64 `json:"offset,omitempty"`
	// Limit caps the batch size, 1..100. Zero: Telegram's default, 100.
	Limit int `json:"limit,omitempty"`
	// Timeout is the long-poll timeout in seconds. Zero: short polling.
	Timeout int `json:"timeout,omitempty"`
	// AllowedUpdates lists the update kinds wanted. Telegram remembers the
	// last list it was sent across calls. A nil or empty list is not sent,
	// which keeps the remembered one.
	AllowedUpdates []string `json:"allowed_updates,omitempty"`
}

// GetUpdates long-polls for updates. The HTTP request is given Timeout
// seconds plus Config.PollGrace before it is abandoned, so a server that
// holds the request for the whole long poll is not mistaken for a hung
// one. Most callers want [Poller] instead.
func (c *Client) GetUpdates(ctx context.Context, p GetUpdatesParams) ([]Update, error) {
	timeout := time.Duration(max(p.Timeout, 0))*time.Second + c.pollGrace
	res, err := c.doJSON(ctx, "getUpdates", p, timeout)
	if err != nil {
		return nil, err
	}
	var raws []json.RawMessage
	if err := c.decodeResult("getUpdates", res, &raws); err != nil {
		return nil, err
	}
	ups := make([]Update, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &ups[i]); err != nil {
			// One update this package cannot decode (a field of a type
			// it does not expect) must not hold back the others: it is
			// handed over with its error, to be set aside. Without an
			// update id it cannot even be acknowledged, so the batch
			// fails as a whole.
			var id struct {
				UpdateID int64 `json:"update_id"`
			}
			if json.Unmarshal(raw, &id) != nil || id.UpdateID == 0 {
				return nil, &DecodeError{Method: "getUpdates", StatusCode: 200, ContentType: "application/json",
					Body: c.snippet(res), Err: fmt.Errorf("update %d: %w", i, err)}
			}
			ups[i] = Update{UpdateID: id.UpdateID, Raw: bytes.Clone(raw), DecodeErr: err}
		}
	}
	return ups, nil
}

// SendMessageParams are the parameters of sendMessage.
type SendMessageParams struct {
	ChatID int64 `json:"chat_id"`
	// MessageThreadID is the forum topic; zero posts to the General topic
	// (or to a chat without topics).
	MessageThreadID int    `json:"message_thread_id,omitempty"`
	Text            string `json:"text"`
	// ParseMode is "", "MarkdownV2", "HTML" or "Markdown".
	ParseMode           string `json:"parse_mode,omitempty"`
	DisableNotification bool   `json:"disable_notification,omitempty"`
	// ReplyToMessageID, if set, makes the message a reply (sent as
	// reply_parameters).
	ReplyToMessageID int `json:"-"`
	// ReplyMarkup is passed through as JSON (e.g. an inline keyboard).
	ReplyMarkup json.RawMessage `json:"reply_markup,omitempty"`
}

type replyParameters struct {
	MessageID int `json:"message_id"`
}

// SendMessage sends a text message and returns it as Telegram stored it.
func (c *Client) SendMessage(ctx context.Context, p SendMessageParams) (Message, error) {
	wire := struct {
		SendMessageParams
		ReplyParameters *replyParameters `json:"reply_parameters,omitempty"`
	}{SendMessageParams: p}
	if p.ReplyToMessageID != 0 {
		wire.ReplyParameters = &replyParameters{MessageID: p.ReplyToMessageID}
	}
	return callFor[Message](ctx, c, "sendMessage", wire)
}

// EditMessageTextParams are the parameters of editMessageText for a
// message in a chat (inline-mode messages are not supported).
type EditMessageTextParams struct {
	ChatID      int64           `json:"chat_id"`
	MessageID   int             `json:"message_id"`
	Text        string          `json:"text"`
	ParseMode   string          `json:"parse_mode,omitempty"`
	ReplyMarkup json.RawMessage `json:"reply_markup,omitempty"`
}

// EditMessageText replaces the text of a message the bot sent and returns
// the edited message. Telegram answers 400 "Bad Request: message is not
// modified: …" when nothing changes.
func (c *Client) EditMessageText(ctx context.Context, p EditMessageTextParams) (Message, error) {
	return callFor[Message](ctx, c, "editMessageText", p)
}

// DeleteMessage deletes a message.
func (c *Client) DeleteMessage(ctx context.Context, chatID int64, messageID int) error {
	return c.call(ctx, "deleteMessage", struct {
		ChatID    int64 `json:"chat_id"`
		MessageID int   `json:"message_id"`
	}{chatID, messageID}, nil)
}

// SendChatAction shows a status such as "typing" in the chat (or topic)
// for about five seconds.
func (c *Client) SendChatAction(ctx context.Context, chatID int64, threadID int, action string) error {
	return c.call(ctx, "sendChatAction", struct {
		ChatID          int64  `json:"chat_id"`
		MessageThreadID int    `json:"message_thread_id,omitempty"`
		Action          string `json:"action"`
	}{chatID, threadID, action}, nil)
}

// AnswerCallbackQueryParams are the parameters of answerCallbackQuery.
type AnswerCallbackQueryParams struct {
	CallbackQueryID string `json:"callback_query_id"`
	Text            string `json:"text,omitempty"`
	ShowAlert       bool   `json:"show_alert,omitempty"`
	URL             string `json:"url,omitempty"`
	CacheTime       int    `json:"cache_time,omitempty"`
}

// AnswerCallbackQuery acknowledges a button press (stopping the client's
// progress indicator), optionally showing Text.
func (c *Client) AnswerCallbackQuery(ctx context.Context, p AnswerCallbackQueryParams) error {
	return c.call(ctx, "answerCallbackQuery", p, nil)
}

// CreateForumTopic creates a topic in a forum supergroup. iconColor zero
// lets Telegram choose; otherwise it must be one of Telegram's six colours
// (0x6FB9F0, 0xFFD67E, 0xCB86DB, 0x8EEE98, 0xFF93B2, 0xFB6F5F).
func (c *Client) CreateForumTopic(ctx context.Context, chatID int64, name string, iconColor int) (ForumTopic, error) {
	return callFor[ForumTopic](ctx, c, "createForumTopic", struct {
		ChatID    int64  `json:"chat_id"`
		Name      string `json:"name"`
		IconColor int    `json:"icon_color,omitempty"`
	}{chatID, name, iconColor})
}

// topicParams name a topic of a chat, for the methods on a topic.
type topicParams struct {
	ChatID          int64 `json:"chat_id"`
	MessageThreadID int   `json:"message_thread_id"`
}

// EditForumTopic renames a topic.
func (c *Client) EditForumTopic(ctx context.Context, chatID int64, threadID int, name string) error {
	return c.call(ctx, "editForumTopic", struct {
		topicParams
		Name string `json:"name"`
	}{topicParams{chatID, threadID}, name}, nil)
}

// CloseForumTopic closes a topic; it stays readable.
func (c *Client) CloseForumTopic(ctx context.Context, chatID int64, threadID int) error {
	return c.call(ctx, "closeForumTopic", topicParams{chatID, threadID}, nil)
}

// ReopenForumTopic reopens a closed topic. Telegram answers
// TOPIC_NOT_MODIFIED for one that is open.
func (c *Client) ReopenForumTopic(ctx context.Context, chatID int64, threadID int) error {
	return c.call(ctx, "reopenForumTopic", topicParams{chatID, threadID}, nil)
}

// GetChat returns what Telegram says of a chat (the part modelled by
// [Chat]: its type, title and whether it is a forum).
func (c *Client) GetChat(ctx context.Context, chatID int64) (Chat, error) {
	return callFor[Chat](ctx, c, "getChat", struct {
		ChatID int64 `json:"chat_id"`
	}{chatID})
}

// GetChatMember returns a user's membership of a chat; for the bot itself
// it says whether it is an administrator and with which rights.
func (c *Client) GetChatMember(ctx context.Context, chatID, userID int64) (ChatMember, error) {
	return callFor[ChatMember](ctx, c, "getChatMember", struct {
		ChatID int64 `json:"chat_id"`
		UserID int64 `json:"user_id"`
	}{chatID, userID})
}
