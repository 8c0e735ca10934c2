package playground

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/telegram"
)

// Telegram's limits.
const (
	maxTextChars    = 4096
	maxCaptionChars = 1024
	maxButtonData   = 64
	typingFor       = 5 * time.Second
)

// Errors as Telegram answers them (Bad Request: 400, an ErrInvalid).
var (
	errTextEmpty      = badRequest("message text is empty")
	errTextTooLong    = badRequest("message is too long")
	errEditNotFound   = badRequest("message to edit not found")
	errCantEdit       = badRequest("message can't be edited")
	errNoTextToEdit   = badRequest("there is no text in the message to edit")
	errNotModified    = badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	errDeleteNotFound = badRequest("message to delete not found")
	errReplyNotFound  = badRequest("message to be replied not found")
	errReactNotFound  = badRequest("message to react not found")
	errReactionBad    = badRequest("REACTION_INVALID")
	errTooManyReacts  = badRequest("REACTIONS_TOO_MANY")
	errWrongAction    = badRequest("wrong parameter action in request")
	errQueryInvalid   = badRequest("query is too old and response timeout expired or query ID is invalid")
	errMarkup         = badRequest("can't parse reply keyboard markup JSON object")
	errButtonData     = badRequest("BUTTON_DATA_INVALID")
	errTopicNotMod    = badRequest("TOPIC_NOT_MODIFIED")
	errTopicName      = badRequest("TOPIC_TITLE_EMPTY")
	errMessageIDEmpty = badRequest("message identifier is not specified")
	errCaptionTooLong = badRequest("message caption is too long")
)

func badRequest(desc string) error {
	return fmt.Errorf("%w: Bad Request: %s", provider.ErrInvalid, desc)
}

// chatActions are sendChatAction's valid actions.
var chatActions = map[string]bool{
	"typing": true, "upload_photo": true, "record_video": true, "upload_video": true,
	"record_voice": true, "upload_voice": true, "upload_document": true,
	"choose_sticker": true, "find_location": true, "record_video_note": true,
	"upload_video_note": true,
}

// call is one Call in progress, inside its store transaction.
type call struct {
	p      *Platform
	tx     *bolt.Tx
	thread int64
	params map[string]json.RawMessage
	events []liveEvent // published once the transaction is durable
}

type method struct {
	provider.Method
	do func(c *call) (any, error)
}

var messageParam = []provider.Param{{Name: "message_id", Kind: provider.RefMessage, Required: true}}

// methods are the Bot API methods the playground implements, with the
// parameters that name an id of the thread (the supervisor checks them
// against what the thread has seen; the playground checks them again).
var methods = []method{
	{Method: provider.Method{Name: "sendMessage", Params: []provider.Param{
		{Name: "reply_to_message_id", Kind: provider.RefMessage},
		{Name: "reply_parameters.message_id", Kind: provider.RefMessage},
	}}, do: (*call).sendMessage},
	{Method: provider.Method{Name: "editMessageText", Params: messageParam}, do: (*call).editMessageText},
	{Method: provider.Method{Name: "editMessageReplyMarkup", Params: messageParam}, do: (*call).editMessageReplyMarkup},
	{Method: provider.Method{Name: "deleteMessage", Params: messageParam}, do: (*call).deleteMessage},
	{Method: provider.Method{Name: "setMessageReaction", Params: messageParam}, do: (*call).setMessageReaction},
	{Method: provider.Method{Name: "sendChatAction"}, do: (*call).sendChatAction},
	{Method: provider.Method{Name: "answerCallbackQuery", Params: []provider.Param{
		{Name: "callback_query_id", Kind: provider.RefInteraction, Required: true},
	}}, do: (*call).answerCallbackQuery},
	{Method: provider.Method{Name: "editForumTopic"}, do: (*call).editForumTopic},
	{Method: provider.Method{Name: "closeForumTopic"}, do: func(c *call) (any, error) { return c.setClosed(true) }},
	{Method: provider.Method{Name: "reopenForumTopic"}, do: func(c *call) (any, error) { return c.setClosed(false) }},
}

var methodByName = func() map[string]method {
	m := map[string]method{}
	for _, d := range methods {
		m[d.Name] = d
	}
	return m
}()

// Call implements provider.Platform: the call is scoped to t, made in one
// store transaction with its idempotency record, and its live events are
// published once durable. A repeated idempotency key returns the first
// result without doing anything again.
func (p *Platform) Call(_ context.Context, t provider.Target, name string, params json.RawMessage, key string) (provider.Result, error) {
	m, ok := methodByName[name]
	if !ok {
		return provider.Result{}, fmt.Errorf("%w: Not Found: method %s is not a playground method", provider.ErrNotFound, name)
	}
	thread, err := threadOf(t)
	if err != nil {
		return provider.Result{}, err
	}
	args, err := telegram.ParamsInThread(t, name, params)
	if err != nil {
		return provider.Result{}, err
	}
	idem := ""
	if key != "" {
		idem = t.Thread + "/" + name + "/" + key
	}
	var res json.RawMessage
	var events []liveEvent
	err = p.st.db.Update(func(tx *bolt.Tx) error {
		if r, ok := p.st.idempotent(tx, idem); ok {
			res = r
			return nil
		}
		if err := p.st.mustRoom(tx, thread, provider.ErrTargetGone); err != nil {
			return err
		}
		c := &call{p: p, tx: tx, thread: thread, params: args}
		v, err := m.do(c)
		if err != nil {
			return err
		}
		res, events = mustJSON(v), c.events
		return p.st.rememberResult(tx, idem, res)
	})
	if err != nil {
		return provider.Result{}, classify(err)
	}
	for _, e := range events {
		p.live.publish(e)
	}
	return provider.Result{JSON: res, Refs: resultRefs(res)}, nil
}

// classify keeps the SDK's classes; a store failure is the platform being
// unavailable (the transaction rolled back: nothing was done).
func classify(err error) error {
	for _, s := range []error{provider.ErrInvalid, provider.ErrNotFound, provider.ErrOutOfScope, provider.ErrTargetGone, provider.ErrPermissionDenied} {
		if errors.Is(err, s) {
			return err
		}
	}
	return fmt.Errorf("%w: playground store: %v", provider.ErrUnavailable, err)
}

// idText returns a JSON id (number or string) as text.
func idText(v json.RawMessage) string { return string(bytes.Trim(bytes.TrimSpace(v), `"`)) }

func (c *call) str(name string) (string, error) {
	v, ok := c.params[name]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", badRequest(fmt.Sprintf("field %q must be a string", name))
	}
	return s, nil
}

// id reads an integer id given as a number or a numeric string; 0 when
// absent.
func (c *call) id(raw json.RawMessage) (int64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	n, err := strconv.ParseInt(idText(raw), 10, 64)
	if err != nil {
		return 0, badRequest(fmt.Sprintf("can't parse id %s", raw))
	}
	return n, nil
}

// own returns the message id names in the caller's thread, refusing one
// of another thread (ErrOutOfScope) and answering missing when there is
// none (or it was deleted).
func (c *call) own(id int64, missing error) (message, error) {
	if id == 0 {
		return message{}, errMessageIDEmpty
	}
	m, ok, other, err := c.p.st.message(c.tx, c.thread, id)
	switch {
	case err != nil:
		return m, err
	case !ok && other != 0:
		return m, fmt.Errorf("%w: message %d is in another thread", provider.ErrOutOfScope, id)
	case !ok || m.Deleted:
		return m, missing
	}
	return m, nil
}

// markup parses reply_markup: an inline keyboard, or none.
func (c *call) markup() (*inlineKeyboard, error) {
	v, ok := c.params["reply_markup"]
	if !ok || string(v) == "null" {
		return nil, nil
	}
	var raw json.RawMessage = v
	var s string
	if json.Unmarshal(v, &s) == nil { // Telegram also takes it JSON-serialized
		raw = json.RawMessage(s)
	}
	var kb inlineKeyboard
	if err := json.Unmarshal(raw, &kb); err != nil || kb.InlineKeyboard == nil {
		return nil, errMarkup
	}
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			switch {
			case b.Text == "":
				return nil, badRequest("text buttons are unallowed in the inline keyboard")
			case (b.CallbackData == "") == (b.URL == ""):
				return nil, errMarkup // exactly one action per button
			case len(b.CallbackData) > maxButtonData:
				return nil, errButtonData
			}
		}
	}
	return &kb, nil
}

func (c *call) text(field string, limit int, tooLong error) (string, error) {
	s, err := c.str(field)
	if err != nil {
		return "", err
	}
	if utf8.RuneCountInString(s) > limit {
		return "", tooLong
	}
	return s, nil
}

// newMessage allocates a bot message in the caller's room.
func (c *call) newMessage() (tgMessage, error) {
	id, err := next(c.tx, kNextMsg, firstMessageID)
	if err != nil {
		return tgMessage{}, err
	}
	return tgMessage{MessageID: id, MessageThreadID: c.thread, IsTopicMessage: true, From: &bot, Chat: c.p.chat, Date: time.Now().Unix()}, nil
}

// store saves m and queues its live event.
func (c *call) store(m message) error {
	if err := c.p.st.putMessage(c.tx, m); err != nil {
		return err
	}
	c.events = append(c.events, liveEvent{Type: "message", Room: c.thread, Message: c.p.view(m)})
	return nil
}

func (c *call) sendMessage() (any, error) {
	text, err := c.text("text", maxTextChars, errTextTooLong)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, errTextEmpty
	}
	kb, err := c.markup()
	if err != nil {
		return nil, err
	}
	reply, err := c.replyTo()
	if err != nil {
		return nil, err
	}
	msg, err := c.newMessage()
	if err != nil {
		return nil, err
	}
	msg.Text, msg.ReplyMarkup, msg.ReplyToMessage = text, kb, reply
	return msg, c.store(message{Msg: msg, ByBot: true})
}

// replyTo reads reply_parameters (or the older reply_to_message_id): the
// message replied to, which must be in the thread unless
// allow_sending_without_reply.
func (c *call) replyTo() (*tgMessage, error) {
	raw, lenient := c.params["reply_to_message_id"], false
	if v, ok := c.params["reply_parameters"]; ok {
		var rp struct {
			MessageID json.RawMessage `json:"message_id"`
			Allow     bool            `json:"allow_sending_without_reply"`
		}
		if err := json.Unmarshal(v, &rp); err != nil {
			return nil, badRequest("can't parse reply parameters JSON object")
		}
		raw, lenient = rp.MessageID, rp.Allow
	}
	id, err := c.id(raw)
	if err != nil || id == 0 {
		return nil, err
	}
	m, err := c.own(id, errReplyNotFound)
	if errors.Is(err, errReplyNotFound) && lenient {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := m.Msg
	r.ReplyToMessage = nil // Telegram nests one level
	return &r, nil
}

// editable returns the bot's message named by message_id, for an edit.
func (c *call) editable() (message, error) {
	m, err := c.named(errEditNotFound)
	if err == nil && !m.ByBot {
		err = errCantEdit
	}
	return m, err
}

// named returns the message of the thread named by message_id (missing:
// there is none).
func (c *call) named(missing error) (message, error) {
	id, err := c.id(c.params["message_id"])
	if err != nil {
		return message{}, err
	}
	return c.own(id, missing)
}

func (c *call) editMessageText() (any, error) {
	m, err := c.editable()
	if err != nil {
		return nil, err
	}
	text, err := c.text("text", maxTextChars, errTextTooLong)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, errTextEmpty
	}
	if m.Msg.Text == "" {
		return nil, errNoTextToEdit
	}
	kb, err := c.markup()
	if err != nil {
		return nil, err
	}
	if text == m.Msg.Text && sameMarkup(kb, m.Msg.ReplyMarkup) {
		return nil, errNotModified
	}
	// Like Telegram: an edit without reply_markup removes the keyboard.
	m.Msg.Text, m.Msg.ReplyMarkup, m.Msg.EditDate = text, kb, time.Now().Unix()
	return m.Msg, c.store(m)
}

func (c *call) editMessageReplyMarkup() (any, error) {
	m, err := c.editable()
	if err != nil {
		return nil, err
	}
	kb, err := c.markup()
	if err != nil {
		return nil, err
	}
	if sameMarkup(kb, m.Msg.ReplyMarkup) {
		return nil, errNotModified
	}
	m.Msg.ReplyMarkup, m.Msg.EditDate = kb, time.Now().Unix()
	return m.Msg, c.store(m)
}

func sameMarkup(a, b *inlineKeyboard) bool {
	return bytes.Equal(mustJSON(a), mustJSON(b))
}

func (c *call) deleteMessage() (any, error) {
	m, err := c.named(errDeleteNotFound)
	if err != nil {
		return nil, err
	}
	// The bot is the forum's administrator: it may delete anyone's.
	m.Deleted = true
	return true, c.store(m)
}

func (c *call) setMessageReaction() (any, error) {
	m, err := c.named(errReactNotFound)
	if err != nil {
		return nil, err
	}
	var rs []tgReaction
	if v, ok := c.params["reaction"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &rs); err != nil {
			return nil, errReactionBad
		}
	}
	if len(rs) > 1 {
		return nil, errTooManyReacts // a bot sets at most one
	}
	var emoji []string
	for _, r := range rs {
		if r.Type != "emoji" || r.Emoji == "" {
			return nil, errReactionBad
		}
		emoji = append(emoji, r.Emoji)
	}
	if m.Reaction == nil {
		m.Reaction = map[string][]string{}
	}
	m.Reaction["bot"] = emoji
	return true, c.store(m)
}

func (c *call) sendChatAction() (any, error) {
	action, err := c.str("action")
	if err != nil {
		return nil, err
	}
	if !chatActions[action] {
		return nil, errWrongAction
	}
	c.events = append(c.events, liveEvent{Type: "typing", Room: c.thread, Text: action, Until: time.Now().Add(typingFor).UnixMilli()})
	return true, nil
}

func (c *call) answerCallbackQuery() (any, error) {
	id, err := c.str("callback_query_id")
	if err != nil {
		return nil, err
	}
	var cb callback
	ok, err := getJSON(c.tx.Bucket(bCallbacks), []byte(id), &cb)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, errQueryInvalid
	case cb.Thread != c.thread:
		return nil, fmt.Errorf("%w: callback query %s is of another thread", provider.ErrOutOfScope, id)
	case cb.Answered:
		return nil, errQueryInvalid
	}
	text, err := c.text("text", 200, badRequest("MESSAGE_TOO_LONG"))
	if err != nil {
		return nil, err
	}
	var alert bool
	if v, ok := c.params["show_alert"]; ok {
		json.Unmarshal(v, &alert)
	}
	cb.Answered = true
	if err := putJSON(c.tx.Bucket(bCallbacks), []byte(id), cb); err != nil {
		return nil, err
	}
	if m, ok, _, err := c.p.st.message(c.tx, c.thread, cb.Message); err == nil && ok && text != "" {
		m.Answer = text
		if err := c.store(m); err != nil {
			return nil, err
		}
	}
	c.events = append(c.events, liveEvent{Type: "answer", Room: c.thread, ID: id, Text: text, Alert: alert})
	return true, nil
}

func (c *call) editForumTopic() (any, error) {
	name, err := c.str("name")
	if err != nil {
		return nil, err
	}
	r, _, err := c.p.st.room(c.tx, c.thread)
	if err != nil {
		return nil, err
	}
	if _, ok := c.params["name"]; ok && strings.TrimSpace(name) == "" {
		return nil, errTopicName
	}
	if name == "" || name == r.Name {
		return nil, errTopicNotMod
	}
	if utf8.RuneCountInString(name) > 128 {
		return nil, badRequest("TOPIC_TITLE_INVALID")
	}
	r.Name = name
	return true, c.putRoom(r)
}

func (c *call) setClosed(closed bool) (any, error) {
	r, _, err := c.p.st.room(c.tx, c.thread)
	if err != nil {
		return nil, err
	}
	if r.Closed == closed {
		return nil, errTopicNotMod
	}
	r.Closed = closed
	return true, c.putRoom(r)
}

func (c *call) putRoom(r room) error {
	if err := c.p.st.putRoom(c.tx, r); err != nil {
		return err
	}
	c.events = append(c.events, liveEvent{Type: "room", Room: r.ID, RoomInfo: &r})
	return nil
}

// resultRefs lists what a result makes available to the thread: the
// message it sent or edited, and that message's files.
func resultRefs(res json.RawMessage) []provider.Ref {
	var m tgMessage
	if json.Unmarshal(res, &m) != nil || m.MessageID == 0 {
		return nil
	}
	return messageRefs(&m)
}

// messageRefs are a message's id and its files' ids.
func messageRefs(m *tgMessage) []provider.Ref {
	refs := []provider.Ref{{Kind: provider.RefMessage, ID: strconv.FormatInt(m.MessageID, 10)}}
	if m.Document != nil {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: m.Document.FileID})
	}
	for _, ph := range m.Photo {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: ph.FileID})
	}
	return refs
}
