package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/render"
)

// The message verbs on the Bot API. Markdown is rendered as message
// entities (render.Telegram: UTF-16 offsets) and sent without parse_mode,
// so nothing in an agent's text needs escaping and nothing can be escaped
// wrongly; a long text is sent as several messages, each within
// MaxTextChars UTF-16 code units.

// maxPartWait bounds how long Send waits out a rate limit between the
// parts of one long text: the first part is out, so the rest is sent
// rather than reported as failed.
const maxPartWait = time.Minute

// Send implements provider.Messenger: sendMessage per part, the reply on
// the first part and the buttons (an inline keyboard) on the last.
func (p *Platform) Send(ctx context.Context, t provider.Target, m provider.Message, _ string) (provider.Result, error) {
	parts := render.Telegram(m.Text, MaxTextChars)
	if len(parts) == 0 {
		return provider.Result{}, fmt.Errorf("%w: the text is blank", provider.ErrInvalid)
	}
	var out provider.Result
	for i, part := range parts {
		params := textParams(part)
		if i == 0 && m.ReplyTo != "" {
			params["reply_parameters"] = map[string]any{"message_id": idJSON(m.ReplyTo), "allow_sending_without_reply": true}
		}
		if i == len(parts)-1 && len(m.Buttons) > 0 {
			params["reply_markup"] = keyboard(m.Buttons)
		}
		res, err := p.sendPart(ctx, t, params, i > 0)
		if err != nil {
			if i == 0 {
				return provider.Result{}, err
			}
			// Some parts are out: sending the text again would repeat them.
			return provider.Result{}, fmt.Errorf("%w: sent %d of %d parts (messages %s), then: %v",
				provider.ErrAmbiguous, i, len(parts), strings.Join(messageIDs(out.Refs), ", "), err)
		}
		out.JSON = res.JSON
		out.Refs = append(out.Refs, res.Refs...)
	}
	return out, nil
}

// sendPart sends one part. A later part (rest) waits out a rate limit
// instead of failing, within maxPartWait and ctx.
func (p *Platform) sendPart(ctx context.Context, t provider.Target, params map[string]any, rest bool) (provider.Result, error) {
	deadline := time.Now().Add(maxPartWait)
	for {
		res, err := p.call(ctx, t, "sendMessage", params)
		d, limited := provider.RetryAfter(err)
		if !rest || !limited || time.Now().Add(d).After(deadline) {
			return res, err
		}
		p.log.Info().Dur("retry_after", d).Str("thread", t.Thread).Msg("rate limited between the parts of a long message; waiting")
		select {
		case <-ctx.Done():
			return res, err
		case <-time.After(d):
		}
	}
}

// Edit implements provider.Messenger: editMessageText with the rendered
// text; without buttons the inline keyboard goes (as editMessageText does
// when reply_markup is left out). An edit that changes nothing succeeds.
func (p *Platform) Edit(ctx context.Context, t provider.Target, id string, m provider.Message) (provider.Result, error) {
	parts := render.Telegram(m.Text, MaxTextChars)
	switch {
	case len(parts) == 0:
		return provider.Result{}, fmt.Errorf("%w: the text is blank", provider.ErrInvalid)
	case len(parts) > 1:
		return provider.Result{}, fmt.Errorf("%w: the text does not fit in one message (%d UTF-16 units at most; it needs %d messages): send the rest as a new message",
			provider.ErrInvalid, MaxTextChars, len(parts))
	}
	params := textParams(parts[0])
	params["message_id"] = idJSON(id)
	if len(m.Buttons) > 0 {
		params["reply_markup"] = keyboard(m.Buttons)
	}
	res, err := p.call(ctx, t, "editMessageText", params)
	if isMessageNotModified(err) {
		return provider.Result{Refs: []provider.Ref{{Kind: provider.RefMessage, ID: id}}}, nil
	}
	return res, err
}

// Draft implements provider.Drafter (sendMessageDraft: private chats with
// topics only). The draft shows the rendered text's first message's worth;
// its draft_id is streamID's hash, never 0.
func (p *Platform) Draft(ctx context.Context, t provider.Target, streamID, text string) error {
	parts := render.Telegram(text, MaxTextChars)
	if len(parts) == 0 {
		return fmt.Errorf("%w: the text is blank", provider.ErrInvalid)
	}
	params := map[string]any{"text": parts[0].Text, "draft_id": draftID(streamID)}
	if len(parts[0].Entities) > 0 {
		params["entities"] = parts[0].Entities
	}
	_, err := p.call(ctx, t, "sendMessageDraft", params)
	return err
}

// draftID is a stream's draft_id: a non-zero 31-bit hash of its id, so
// that the drafts of one stream replace each other.
func draftID(streamID string) int64 {
	h := fnv.New32a()
	h.Write([]byte(streamID))
	if id := int64(h.Sum32() & 0x7fffffff); id != 0 {
		return id
	}
	return 1
}

// React implements provider.Reactor (setMessageReaction; Telegram takes
// only its own set of reaction emoji).
func (p *Platform) React(ctx context.Context, t provider.Target, id, emoji string) error {
	_, err := p.call(ctx, t, "setMessageReaction", map[string]any{
		"message_id": idJSON(id),
		"reaction":   []map[string]string{{"type": "emoji", "emoji": emoji}},
	})
	return err
}

// Typing implements provider.Typist (sendChatAction "typing": five
// seconds, or until the bot's next message).
func (p *Platform) Typing(ctx context.Context, t provider.Target) error {
	_, err := p.call(ctx, t, "sendChatAction", map[string]any{"action": "typing"})
	return err
}

// Answer implements provider.Answerer (answerCallbackQuery: the text is a
// toast for the person who pressed).
func (p *Platform) Answer(ctx context.Context, t provider.Target, id, text string) error {
	params := map[string]any{"callback_query_id": id}
	if text != "" {
		params["text"] = text
	}
	_, err := p.call(ctx, t, "answerCallbackQuery", params)
	return err
}

// call makes one Bot API call for a verb, through Call: scoped to t, a
// closed topic reopened, errors classified.
func (p *Platform) call(ctx context.Context, t provider.Target, method string, params map[string]any) (provider.Result, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return provider.Result{}, fmt.Errorf("%w: %s params: %v", provider.ErrInvalid, method, err)
	}
	return p.Call(ctx, t, method, b, "")
}

// textParams are a part's text and entities (no parse_mode), with link
// previews off: an agent's links are references, not invitations.
func textParams(part render.TelegramPart) map[string]any {
	params := map[string]any{"text": part.Text, "link_preview_options": map[string]any{"is_disabled": true}}
	if len(part.Entities) > 0 {
		params["entities"] = part.Entities
	}
	return params
}

// keyboard is one row of callback buttons.
func keyboard(bs []provider.Button) map[string]any {
	row := make([]map[string]string, len(bs))
	for i, b := range bs {
		row[i] = map[string]string{"text": b.Label, "callback_data": b.Data}
	}
	return map[string]any{"inline_keyboard": [][]map[string]string{row}}
}

func messageIDs(refs []provider.Ref) []string {
	var out []string
	for _, r := range refs {
		if r.Kind == provider.RefMessage {
			out = append(out, r.ID)
		}
	}
	return out
}

// isMessageNotModified reports whether an edit changed nothing ("Bad
// Request: message is not modified").
func isMessageNotModified(err error) bool {
	return errors.Is(err, provider.ErrInvalid) && strings.Contains(strings.ToLower(err.Error()), "message is not modified")
}
