// Package platform holds what a follower command needs to know of each
// chat platform beyond the platform-neutral Update: the names and params
// of the calls it makes (send, edit, react, typing, answering a button),
// one Adapter per platform, keyed by the binding's platform name, and how
// long text is cut into messages. chatbus-mcp and busctl follow use it;
// adding Slack or Discord is one more Adapter here.
package platform

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrUnknown: no adapter for the platform.
var ErrUnknown = errors.New("no follower adapter for this platform")

// Call is one platform call to make through the supervisor (BusService
// Call): the method and its params. The supervisor fills in the thread.
type Call struct {
	Method string
	Params map[string]any
}

// Button is an inline button: its label and the data a press carries back
// (the text of the interaction's Update).
type Button struct {
	Label, Data string
}

// Adapter is every platform-specific piece of a follower command: the
// calls it makes. What it reads comes from the platform-neutral Update
// (thread, sender, references with kinds, text).
type Adapter interface {
	// Send posts text in the thread, as a reply to replyTo if set, with
	// one row of buttons if any.
	Send(text, replyTo string, buttons []Button) Call
	// Edit replaces the text of a message the follower sent and removes
	// its buttons.
	Edit(messageID, text string) Call
	// React sets the follower's reaction on a message.
	React(messageID, emoji string) Call
	// Typing shows that the session is working; ok is false if the
	// platform has no such call.
	Typing() (c Call, ok bool)
	// Answer acknowledges a button press (interaction), with a short text
	// the presser sees.
	Answer(interactionID, text string) Call
	// UploadKind is the UploadFile kind for a file with this extension
	// ("photo" or "document").
	UploadKind(ext string) string
}

// For returns the adapter of a binding's platform.
func For(name string) (Adapter, error) {
	switch name {
	case "telegram":
		return Telegram{}, nil
	}
	return nil, fmt.Errorf("%w: %q (known: telegram)", ErrUnknown, name)
}

// Telegram is the Bot API: sendMessage with an inline keyboard,
// editMessageText (which drops the keyboard when reply_markup is
// omitted), setMessageReaction, sendChatAction, answerCallbackQuery.
type Telegram struct{}

func (Telegram) Send(text, replyTo string, buttons []Button) Call {
	p := map[string]any{"text": text}
	if replyTo != "" {
		p["reply_parameters"] = map[string]any{"message_id": idValue(replyTo), "allow_sending_without_reply": true}
	}
	if len(buttons) > 0 {
		row := make([]map[string]string, 0, len(buttons))
		for _, b := range buttons {
			row = append(row, map[string]string{"text": b.Label, "callback_data": b.Data})
		}
		p["reply_markup"] = map[string]any{"inline_keyboard": [][]map[string]string{row}}
	}
	return Call{Method: "sendMessage", Params: p}
}

func (Telegram) Edit(messageID, text string) Call {
	return Call{Method: "editMessageText", Params: map[string]any{"message_id": idValue(messageID), "text": text}}
}

func (Telegram) React(messageID, emoji string) Call {
	return Call{Method: "setMessageReaction", Params: map[string]any{
		"message_id": idValue(messageID),
		"reaction":   []map[string]string{{"type": "emoji", "emoji": emoji}},
	}}
}

func (Telegram) Typing() (Call, bool) {
	return Call{Method: "sendChatAction", Params: map[string]any{"action": "typing"}}, true
}

func (Telegram) Answer(id, text string) Call {
	p := map[string]any{"callback_query_id": id}
	if text != "" {
		p["text"] = text
	}
	return Call{Method: "answerCallbackQuery", Params: p}
}

func (Telegram) UploadKind(ext string) string {
	switch ext {
	case ".jpg", ".jpeg", ".png", ".gif", ".webp":
		return "photo" // shown inline, compressed
	}
	return "document"
}

// idValue writes a numeric id as a JSON number (Telegram's message ids),
// anything else as a string.
func idValue(id string) any {
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		return n
	}
	return id
}
