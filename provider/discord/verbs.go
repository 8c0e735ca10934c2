package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/disgoorg/disgo/rest"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/render"
)

// The message verbs on Discord. Discord renders Markdown itself, so a text
// is sent as the Markdown it is, cut by render.Discord at 2,000 characters
// (a fenced block cut in two is closed and opened again). Buttons are
// message components: action rows of at most five buttons each, under the
// last part, whose custom_id is the button's data. Mentions in an agent's
// text ping users only: never @everyone, @here or a role.

var (
	_ provider.Messenger = (*Platform)(nil)
	_ provider.Reactor   = (*Platform)(nil)
	_ provider.Typist    = (*Platform)(nil)
	_ provider.Answerer  = (*Platform)(nil)
)

// verbs are the verbs declared. Send is idempotent: each part carries a
// nonce derived from the idempotency key and its index, with
// enforce_nonce, so a send made again (by the supervisor, after an
// outcome it could not know) makes no part twice — within the few minutes
// Discord remembers nonces. The others are not made idempotent by
// Discord.
var verbs = []provider.Verb{
	{Name: provider.VerbSend, Idempotent: true},
	{Name: provider.VerbEdit},
	{Name: provider.VerbReact},
	{Name: provider.VerbTyping, Lasts: typingLasts},
	{Name: provider.VerbAnswer},
}

// typingLasts is how long Discord shows the bot typing after one call
// (or until it sends).
const typingLasts = 10 * time.Second

// Button styles (Discord's): secondary for ordinary buttons; a prompt's
// first button is success (the yes) and its last, if there are more, danger
// (the no).
const (
	styleSecondary = 2
	styleSuccess   = 3
	styleDanger    = 4
)

// Discord's limits on buttons.
const (
	rowButtons    = 5
	maxRows       = 5
	maxLabel      = 80
	maxCustomID   = 100
	componentRow  = 1
	componentButn = 2
)

// mentions let an agent's text ping the users it names (and the author of
// the message it answers), never @everyone, @here or a role.
var mentions = map[string]any{"parse": []string{"users"}, "replied_user": true}

// partRetries bounds the attempts at a later part of a send that Discord
// certainly did not take (rate limited, unreachable), so that a send is
// not left half made.
const partRetries = 3

// Send implements provider.Messenger: the parts render.Discord cuts the
// text into, in order, the reply on the first, the buttons under the
// last. A failure of the first part is Discord's; once a part is out, a
// later one's failure is reported as ambiguous (the supervisor sends the
// whole again with its key: the nonces keep the parts out already from
// being made twice), except a refusal that another attempt would meet
// again, which says what was sent. Sent to the channel's control place
// (thread ""), it answers a command (sendControl).
func (p *Platform) Send(ctx context.Context, t provider.Target, m provider.Message, key string) (provider.Result, error) {
	control := p.isControl(t)
	if !control {
		if err := p.scope(t, provider.Params{}); err != nil {
			return provider.Result{}, err
		}
	}
	rows, err := components(m.Buttons, m.Prompt)
	if err != nil {
		return provider.Result{}, err
	}
	if !control && m.ReplyTo != "" && !isSnowflake(m.ReplyTo) {
		return provider.Result{}, fmt.Errorf("%w: reply_to %q is not a Discord message id", provider.ErrInvalid, m.ReplyTo)
	}
	parts := render.Discord(m.Text, MaxContent)
	if len(parts) == 0 {
		if len(rows) == 0 {
			return provider.Result{}, fmt.Errorf("%w: the text is blank and there are no buttons: nothing to send", provider.ErrInvalid)
		}
		parts = []string{""} // the buttons alone
	}
	if control {
		return p.sendControl(ctx, m, rows, parts, key)
	}
	return p.sendParts(ctx, t.Thread, m.ReplyTo, rows, parts, key)
}

// sendParts creates the messages of a send in channel (a thread, or the
// channel itself for the control place), in order: the reply on the
// first, the buttons under the last (see Send).
func (p *Platform) sendParts(ctx context.Context, channel, replyTo string, rows []any, parts []string, key string) (provider.Result, error) {
	var res provider.Result
	var last bucket // what the answer to the last part said of the channel's bucket
	for i, content := range parts {
		body := map[string]any{"allowed_mentions": mentions}
		if content != "" {
			body["content"] = content
		}
		if i == 0 && replyTo != "" {
			// A reply to a message deleted meanwhile goes out unanswered
			// rather than not at all.
			body["message_reference"] = map[string]any{"message_id": replyTo, "fail_if_not_exists": false}
		}
		if i == len(parts)-1 && len(rows) > 0 {
			body["components"] = rows
		}
		if key != "" {
			body["nonce"], body["enforce_nonce"] = partNonce(key, i), true
		}
		out, b, err := p.sendPart(ctx, channel, body, i > 0, last)
		if err != nil {
			return provider.Result{}, partFailure(err, i, len(parts), res.Refs)
		}
		last = b
		res.Refs = append(res.Refs, resultRefs(out)...)
		res.JSON = out
	}
	res.Pause = last.pause()
	return res, nil
}

// sendPart creates one message. A later part (retry) waits first for
// the thread's bucket to reset if the part before it emptied it (prev),
// and is tried again, after the wait Discord asked for, if Discord
// certainly did not take it, while ctx allows: the supervisor paces a
// send as a whole, and its parts are one call.
func (p *Platform) sendPart(ctx context.Context, thread string, body map[string]any, retry bool, prev bucket) (json.RawMessage, bucket, error) {
	if retry && prev.empty() {
		if d, ok := ctx.Deadline(); !ok || time.Until(d) >= prev.resetAfter {
			select {
			case <-ctx.Done():
			case <-time.After(prev.resetAfter):
			}
		}
	}
	for attempt := 1; ; attempt++ {
		var out json.RawMessage
		b, err := p.paced(ctx, rest.CreateMessage.Compile(nil, thread), body, &out)
		if err == nil {
			return out, b, nil
		}
		merr := p.mapErr(err, true, true)
		if !retry || attempt == partRetries || !(errors.Is(merr, provider.ErrRateLimited) || errors.Is(merr, provider.ErrUnavailable)) {
			return nil, bucket{}, merr
		}
		wait, ok := provider.RetryAfter(merr)
		if !ok {
			wait = p.o.Timing.Retry
		}
		if d, ok := ctx.Deadline(); ok && time.Until(d) < wait {
			return nil, bucket{}, merr
		}
		select {
		case <-ctx.Done():
			return nil, bucket{}, merr
		case <-time.After(wait):
		}
	}
}

// partFailure is the error of a send whose part i (of n) failed, after
// the parts sent.
func partFailure(err error, i, n int, sent []provider.Ref) error {
	if i == 0 || errors.Is(err, provider.ErrTargetGone) {
		// Nothing is out, or what is out went with the thread (the
		// supervisor sends it all again in the binding's new thread).
		return err
	}
	var ids []string
	for _, r := range sent {
		if r.Kind == provider.RefMessage {
			ids = append(ids, r.ID)
		}
	}
	what := fmt.Sprintf("parts 1–%d of %d were sent (messages %s); part %d", i, n, strings.Join(ids, ", "), i+1)
	if errors.Is(err, provider.ErrInvalid) || errors.Is(err, provider.ErrPermissionDenied) || errors.Is(err, provider.ErrNotFound) {
		// Discord refused it; sending again would be refused again.
		return fmt.Errorf("%s was refused: %w", what, err)
	}
	if errors.Is(err, provider.ErrAmbiguous) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%w: %s: %v", provider.ErrAmbiguous, what, err)
}

// partNonce is the nonce of part i of a send: one per part, derived from
// the idempotency key.
func partNonce(key string, i int) string {
	return nonce(key + "\x00part " + strconv.Itoa(i))
}

// components are the action rows of buttons (nil for none), checked
// against Discord's limits so that a send is refused before any part is
// out.
func components(bs []provider.Button, prompt bool) ([]any, error) {
	if len(bs) == 0 {
		return nil, nil
	}
	if len(bs) > rowButtons*maxRows {
		return nil, fmt.Errorf("%w: %d buttons; Discord takes at most %d", provider.ErrInvalid, len(bs), rowButtons*maxRows)
	}
	seen := map[string]bool{}
	var rows []any
	var row []any
	for i, b := range bs {
		switch n := utf8.RuneCountInString(b.Label); {
		case n == 0:
			return nil, fmt.Errorf("%w: button %d has no label", provider.ErrInvalid, i+1)
		case n > maxLabel:
			return nil, fmt.Errorf("%w: button %d's label is %d characters; Discord takes at most %d", provider.ErrInvalid, i+1, n, maxLabel)
		}
		switch n := utf8.RuneCountInString(b.Data); {
		case n == 0:
			return nil, fmt.Errorf("%w: button %d has no data", provider.ErrInvalid, i+1)
		case n > maxCustomID:
			return nil, fmt.Errorf("%w: button %d's data is %d characters; Discord takes at most %d", provider.ErrInvalid, i+1, n, maxCustomID)
		case seen[b.Data]:
			return nil, fmt.Errorf("%w: two buttons have the data %q; Discord wants them distinct", provider.ErrInvalid, b.Data)
		}
		seen[b.Data] = true
		style := styleSecondary
		switch {
		case prompt && i == 0:
			style = styleSuccess
		case prompt && i == len(bs)-1:
			style = styleDanger
		}
		row = append(row, map[string]any{"type": componentButn, "style": style, "label": b.Label, "custom_id": b.Data})
		if len(row) == rowButtons || i == len(bs)-1 {
			rows = append(rows, map[string]any{"type": componentRow, "components": row})
			row = nil
		}
	}
	return rows, nil
}

// Edit implements provider.Messenger: the message's content and buttons
// are replaced (no buttons: removed). A text that renders to more than one
// message is refused.
func (p *Platform) Edit(ctx context.Context, t provider.Target, id string, m provider.Message) (provider.Result, error) {
	if err := p.scope(t, provider.Params{}); err != nil {
		return provider.Result{}, err
	}
	if !isSnowflake(id) {
		return provider.Result{}, fmt.Errorf("%w: message_id %q is not a Discord message id", provider.ErrInvalid, id)
	}
	rows, err := components(m.Buttons, m.Prompt)
	if err != nil {
		return provider.Result{}, err
	}
	parts := render.Discord(m.Text, MaxContent)
	switch {
	case len(parts) == 0:
		return provider.Result{}, fmt.Errorf("%w: an edit needs a text", provider.ErrInvalid)
	case len(parts) > 1:
		return provider.Result{}, fmt.Errorf("%w: the text is %d characters, more than one Discord message takes (%d): an edit cannot split it", provider.ErrInvalid, utf8.RuneCountInString(m.Text), MaxContent)
	}
	if rows == nil {
		rows = []any{} // removes the buttons
	}
	body := map[string]any{"content": parts[0], "components": rows, "allowed_mentions": mentions}
	var out json.RawMessage
	b, err := p.paced(ctx, rest.UpdateMessage.Compile(nil, t.Thread, id), body, &out)
	if err != nil {
		return provider.Result{}, p.mapErr(err, true, true)
	}
	return provider.Result{JSON: out, Refs: resultRefs(out), Pause: b.pause()}, nil
}

// React implements provider.Reactor: the bot's reaction (PUT
// …/reactions/{emoji}/@me). emoji is a unicode emoji, a custom one as
// name:id, or as Discord writes it in a message, <:name:id>.
func (p *Platform) React(ctx context.Context, t provider.Target, id, emoji string) error {
	if err := p.scope(t, provider.Params{}); err != nil {
		return err
	}
	if !isSnowflake(id) {
		return fmt.Errorf("%w: message_id %q is not a Discord message id", provider.ErrInvalid, id)
	}
	_, err := p.react(ctx, t.Thread, id, emoji)
	return err
}

// customEmoji is a custom emoji as a message writes it.
var customEmoji = regexp.MustCompile(`^<a?:(\w{2,32}):(\d{1,20})>$`)

// react adds the bot's reaction to message id of thread, and returns
// what Discord said of the thread's reaction bucket.
func (p *Platform) react(ctx context.Context, thread, id, emoji string) (bucket, error) {
	if m := customEmoji.FindStringSubmatch(emoji); m != nil {
		emoji = m[1] + ":" + m[2]
	}
	if emoji == "" || utf8.RuneCountInString(emoji) > 64 {
		return bucket{}, fmt.Errorf("%w: the reaction needs an emoji: a unicode emoji or name:id", provider.ErrInvalid)
	}
	b, err := p.paced(ctx, rest.AddReaction.Compile(nil, thread, id, url.PathEscape(emoji)), nil, nil)
	return b, p.mapErr(err, true, true)
}

// Typing implements provider.Typist: Discord shows the bot typing for
// about ten seconds, or until it sends.
func (p *Platform) Typing(ctx context.Context, t provider.Target) error {
	if err := p.scope(t, provider.Params{}); err != nil {
		return err
	}
	_, err := p.paced(ctx, rest.SendTyping.Compile(nil, t.Thread), nil, nil)
	return p.mapErr(err, true, true)
}
