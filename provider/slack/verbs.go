package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chatbus/chatbus/internal/backoff"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/render"
)

// The message verbs on Slack (provider.Messenger, Reactor, Answerer):
//
//   - send: the Markdown rendered as mrkdwn (render.Slack), cut into
//     messages of render's default 3,000 characters, the limit of a
//     section block's text, each posted in the thread in order. Buttons
//     go under the last part as Block Kit: a section block with the part
//     and an actions block with one button per Button (value: its data);
//     the message's text stays the part, which Slack shows in
//     notifications and where blocks cannot be shown. reply_to is not
//     shown: Slack cannot quote one message of a thread in a reply, and
//     in a thread every message already answers the conversation; a
//     permalink line would cost a call per message and show a long link
//     under every answer. Sent to the channel's control place (thread
//     ""), the supervisor's answers to commands, it posts at the
//     channel's top level; edit works there too.
//   - edit: chat.update of the text and blocks (blocks: [] removes the
//     buttons; Slack keeps the old blocks when none are named).
//   - react: reactions.add with Slack's name for the emoji
//     (emoji.go); a reaction the bot already has is done.
//   - answer: an ephemeral message in the thread to the person who
//     pressed (chat.postEphemeral): the press itself was acknowledged on
//     the Socket Mode connection when it arrived, as Slack requires
//     within 3 s. The presser is in the interaction id (see
//     interactionID), so an answer needs nothing the provider kept in
//     memory: it works after a restart. (A press's response_url would
//     do as well, but only the payload has it.)
//   - typing: not implemented. Slack shows a bot typing only in an AI
//     app's own assistant threads (assistant.threads.setStatus, scope
//     assistant:write, in the app's DM and split view), not in a channel's
//     threads, where the followers live.
//
// Only react is idempotent: Slack keeps one reaction of a name per person
// on a message (a second reactions.add answers already_reacted), so
// making it again has no effect. Slack de-duplicates no message post or
// update by a key.

// verbs are the verbs declared (see the comment above).
var verbs = []provider.Verb{
	{Name: provider.VerbSend}, {Name: provider.VerbEdit},
	{Name: provider.VerbReact, Idempotent: true}, {Name: provider.VerbAnswer},
}

var (
	_ provider.Messenger = (*Platform)(nil)
	_ provider.Reactor   = (*Platform)(nil)
	_ provider.Answerer  = (*Platform)(nil)
)

// buttonBlock is the block_id of the actions block of a message's
// buttons; each button's action_id is buttonAction and its index.
const (
	buttonBlock  = "chatbus-buttons"
	buttonAction = "chatbus-"
	// maxPartRetries bounds how often a later part of a split message is
	// tried again after Slack asked to wait (HTTP 429).
	maxPartRetries = 5
)

// Send implements provider.Messenger (see the comment at the top).
// Slack has no idempotency keys, so the key is not used.
func (p *Platform) Send(ctx context.Context, t provider.Target, m provider.Message, _ string) (provider.Result, error) {
	if err := p.inThreadOrControl(t, provider.VerbSend); err != nil {
		return provider.Result{}, err
	}
	parts := render.Slack(m.Text, 0)
	if len(parts) == 0 {
		return provider.Result{}, fmt.Errorf("%w: send: the text renders to nothing", provider.ErrInvalid)
	}
	var res provider.Result
	var sent []string
	for i, part := range parts {
		params := map[string]any{"channel": t.Chat, "text": part}
		if t.Thread != "" {
			params["thread_ts"] = t.Thread
		}
		if i == len(parts)-1 && len(m.Buttons) > 0 {
			params["blocks"] = messageBlocks(part, m.Buttons)
		}
		ts, err := p.postPart(ctx, t, params, i > 0)
		if err != nil {
			if i == 0 {
				return provider.Result{}, err
			}
			// What was sent stays sent: a clean failure would make a
			// retry send the first parts again.
			return provider.Result{}, fmt.Errorf("%w: part %d of %d failed after parts %s were sent: %v",
				provider.ErrAmbiguous, i+1, len(parts), strings.Join(sent, ", "), err)
		}
		sent = append(sent, ts)
		res.Refs = append(res.Refs, provider.Ref{Kind: provider.RefMessage, ID: ts})
	}
	return res, nil
}

// postPart posts one message of a send into thread t and returns its ts.
// A later part (one after the first) asked to wait is tried again after
// Slack's Retry-After while ctx allows: nothing of it was posted, and the
// parts before it are out already.
func (p *Platform) postPart(ctx context.Context, t provider.Target, params map[string]any, later bool) (string, error) {
	for attempt := 0; ; attempt++ {
		raw, err := p.post(ctx, t.Chat, "chat.postMessage", params)
		if err == nil {
			if err := p.checkThreaded(ctx, t, raw); err != nil {
				return "", err
			}
			ts := tsOf(raw)
			p.threads.note(t.Chat, ts, t.Thread)
			p.inChannel(t.Chat)
			return ts, nil
		}
		after, limited := provider.RetryAfter(err)
		if !later || !errors.Is(err, provider.ErrRateLimited) || attempt == maxPartRetries {
			return "", err
		}
		if !limited || after <= 0 {
			after = time.Second
		}
		if !fits(ctx, after) {
			return "", err
		}
		p.log.Info().Dur("retry_after", after).Str("thread", t.Thread).Msg("rate limited between the parts of a long message; waiting")
		if backoff.Sleep(ctx, after) != nil {
			return "", err
		}
	}
}

// Edit implements provider.Messenger: the text must render to one
// message.
func (p *Platform) Edit(ctx context.Context, t provider.Target, id string, m provider.Message) (provider.Result, error) {
	if err := p.inThreadOrControl(t, provider.VerbEdit); err != nil {
		return provider.Result{}, err
	}
	parts := render.Slack(m.Text, 0)
	if len(parts) != 1 {
		return provider.Result{}, fmt.Errorf("%w: edit: the text renders to %d messages; an edit must fit in one (%d characters of mrkdwn)",
			provider.ErrInvalid, len(parts), render.SlackLimit)
	}
	params := map[string]any{"channel": t.Chat, "ts": id, "text": parts[0], "blocks": []any{}}
	if len(m.Buttons) > 0 {
		params["blocks"] = messageBlocks(parts[0], m.Buttons)
	}
	if _, err := p.post(ctx, t.Chat, "chat.update", params); err != nil {
		return provider.Result{}, err
	}
	return provider.Result{Refs: []provider.Ref{{Kind: provider.RefMessage, ID: id}}}, nil
}

// React implements provider.Reactor.
func (p *Platform) React(ctx context.Context, t provider.Target, id, e string) error {
	if err := inThread(t, provider.VerbReact); err != nil {
		return err
	}
	name, err := emojiName(e)
	if err != nil {
		return fmt.Errorf("%w: react: %w", provider.ErrInvalid, err)
	}
	_, err = p.post(ctx, t.Chat, "reactions.add", map[string]any{"channel": t.Chat, "timestamp": id, "name": name})
	if slackCode(err) == "already_reacted" {
		return nil
	}
	return err
}

// Answer implements provider.Answerer: text, if any, goes to the person
// who pressed as an ephemeral message in the thread (at the channel's top
// level for a button under an answer in the control place).
func (p *Platform) Answer(ctx context.Context, t provider.Target, id, text string) error {
	if err := p.inThreadOrControl(t, provider.VerbAnswer); err != nil {
		return err
	}
	user, _, ok := parseInteractionID(id)
	if !ok {
		return fmt.Errorf("%w: answer: %q is not an interaction of this provider", provider.ErrInvalid, id)
	}
	parts := render.Slack(text, 0)
	if len(parts) == 0 {
		return nil // nothing to say: the press was acknowledged when it arrived
	}
	params := map[string]any{"channel": t.Chat, "user": user, "text": strings.Join(parts, "\n")}
	if t.Thread != "" {
		params["thread_ts"] = t.Thread
	}
	_, err := p.post(ctx, t.Chat, "chat.postEphemeral", params)
	return err
}

// interactionID names a button press for Answer: the presser's user id
// and the press's trigger id.
func interactionID(user, trigger string) string { return user + "/" + trigger }

func parseInteractionID(id string) (user, trigger string, ok bool) {
	user, trigger, ok = strings.Cut(id, "/")
	return user, trigger, ok && userID.MatchString(user) && trigger != ""
}

// messageBlocks is a message's text with buttons under it: a section
// block of the mrkdwn and an actions block.
func messageBlocks(text string, buttons []provider.Button) []any {
	elements := make([]any, len(buttons))
	for i, b := range buttons {
		elements[i] = map[string]any{
			"type":      "button",
			"action_id": buttonAction + strconv.Itoa(i),
			"value":     b.Data,
			"text":      map[string]any{"type": "plain_text", "text": b.Label, "emoji": true},
		}
	}
	return []any{
		map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": text}},
		map[string]any{"type": "actions", "block_id": buttonBlock, "elements": elements},
	}
}

// inThreadOrControl is inThread, except that the channel's control place
// (thread "") takes the supervisor's answers to commands too: a message
// at the channel's top level (see control.go).
func (p *Platform) inThreadOrControl(t provider.Target, verb string) error {
	if t.Thread == "" && t.Chat != p.s.ChannelID {
		return fmt.Errorf("%w: %s: chat %s is not this provider's channel", provider.ErrOutOfScope, verb, t.Chat)
	}
	if t.Thread == "" {
		return nil
	}
	return inThread(t, verb)
}

func inThread(t provider.Target, verb string) error {
	if t.Thread == "" {
		return fmt.Errorf("%w: %s: the channel itself is not a thread", provider.ErrOutOfScope, verb)
	}
	return nil
}

// post makes a Web API call of the provider's own with params as its JSON
// body, in channel: the answer, or the error classified (and the health
// told what it says of the tokens and the channel).
func (p *Platform) post(ctx context.Context, channel, method string, params map[string]any) (json.RawMessage, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", provider.ErrInvalid, method, err)
	}
	raw, err := p.web.post(ctx, method, body)
	p.noteResult(channel, err)
	if err != nil {
		return nil, mapErr(err)
	}
	return raw, nil
}

// checkThreaded checks the answer of a chat.postMessage into thread t.
// Slack posts a reply whose root was deleted before anyone replied at the
// channel's top level, and answers ok: the only sign is that the message
// in the answer has no thread_ts (slack-go issue #1571). Such a stray
// message is taken back (chat.delete) and the thread reported gone
// (provider.ErrTargetGone), so that the supervisor gives the binding a
// new root, makes the call there, and tells the follower. Should the
// stray message not go, it stays in the channel (logged): the thread is
// gone either way.
func (p *Platform) checkThreaded(ctx context.Context, t provider.Target, raw json.RawMessage) error {
	var ans struct {
		TS      string `json:"ts"`
		Message struct {
			ThreadTS string `json:"thread_ts"`
		} `json:"message"`
	}
	if json.Unmarshal(raw, &ans) != nil || ans.TS == "" || ans.Message.ThreadTS == t.Thread {
		return nil
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	var err error
	for attempt := 0; ; attempt++ {
		// Asked to wait (chat.delete has its own limit), it waits and
		// tries again while its 15 s allow: a stray copy is what the
		// person would see.
		_, err = p.post(dctx, t.Chat, "chat.delete", map[string]any{"channel": t.Chat, "ts": ans.TS})
		after, limited := provider.RetryAfter(err)
		if !limited || attempt == maxPartRetries || !fits(dctx, after) || backoff.Sleep(dctx, after) != nil {
			break
		}
	}
	log := p.log.Warn().Str("channel", t.Chat).Str("thread", t.Thread).Str("stray", ans.TS)
	if err != nil {
		log.Err(err).Msg("the thread's root is gone: Slack posted a reply at the channel's top level, and it could not be taken back")
	} else {
		log.Msg("the thread's root is gone: Slack posted a reply at the channel's top level; it was taken back")
	}
	return fmt.Errorf("%w: thread %s: its root message was deleted", provider.ErrTargetGone, t.Thread)
}

// tsOf is the ts of a chat.postMessage answer.
func tsOf(raw json.RawMessage) string {
	var ans struct {
		TS string `json:"ts"`
	}
	json.Unmarshal(raw, &ans)
	return ans.TS
}
