package main

import (
	"fmt"
	"strconv"
)

// call is one platform call to make through the supervisor (Call): the
// method and its params. The supervisor fills in the thread.
type call struct {
	method string
	params map[string]any
}

// button is an inline button: its label and the data a press carries back
// (the Update's text of an interaction).
type button struct {
	label, data string
}

// platform holds every platform-specific piece of chatbus-mcp: the names
// and params of the calls it makes. Everything it reads comes from the
// platform-neutral Update (thread, sender, references with kinds, text),
// so adding Slack or Discord is one more implementation here.
type platform interface {
	// send posts text in the thread, as a reply to replyTo if set, with
	// one row of buttons if any.
	send(text, replyTo string, buttons []button) call
	// edit replaces the text of a message the follower sent and removes
	// its buttons.
	edit(messageID, text string) call
	// react sets the follower's reaction on a message.
	react(messageID, emoji string) call
	// typing shows that the session is working; ok is false if the
	// platform has no such call.
	typing() (c call, ok bool)
	// answer acknowledges a button press (interaction), with a short text
	// the presser sees.
	answer(interactionID, text string) call
	// uploadKind is the UploadFile kind for a file with this extension
	// ("photo" or "document").
	uploadKind(ext string) string
}

// platformFor returns the adapter of a binding's platform.
func platformFor(name string) (platform, error) {
	switch name {
	case "telegram":
		return telegram{}, nil
	}
	return nil, fmt.Errorf("chatbus-mcp does not know the platform %q yet (it knows telegram)", name)
}

// telegram is the Bot API: sendMessage with an inline keyboard,
// editMessageText (which drops the keyboard when reply_markup is
// omitted), setMessageReaction, sendChatAction, answerCallbackQuery.
type telegram struct{}

func (telegram) send(text, replyTo string, buttons []button) call {
	p := map[string]any{"text": text}
	if replyTo != "" {
		p["reply_parameters"] = map[string]any{"message_id": idValue(replyTo), "allow_sending_without_reply": true}
	}
	if len(buttons) > 0 {
		row := make([]map[string]string, 0, len(buttons))
		for _, b := range buttons {
			row = append(row, map[string]string{"text": b.label, "callback_data": b.data})
		}
		p["reply_markup"] = map[string]any{"inline_keyboard": [][]map[string]string{row}}
	}
	return call{method: "sendMessage", params: p}
}

func (telegram) edit(messageID, text string) call {
	return call{method: "editMessageText", params: map[string]any{"message_id": idValue(messageID), "text": text}}
}

func (telegram) react(messageID, emoji string) call {
	return call{method: "setMessageReaction", params: map[string]any{
		"message_id": idValue(messageID),
		"reaction":   []map[string]string{{"type": "emoji", "emoji": emoji}},
	}}
}

func (telegram) typing() (call, bool) {
	return call{method: "sendChatAction", params: map[string]any{"action": "typing"}}, true
}

func (telegram) answer(id, text string) call {
	p := map[string]any{"callback_query_id": id}
	if text != "" {
		p["text"] = text
	}
	return call{method: "answerCallbackQuery", params: p}
}

func (telegram) uploadKind(ext string) string {
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
