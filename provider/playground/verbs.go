package playground

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/render"
)

// The bounds of what a follower sends. The playground has no message
// limit of its own: a message holds any text the bus takes in one
// SendMessage, so a text is never split.
const (
	maxTextChars   = 65536 // characters
	maxButtons     = 8
	maxButtonLabel = 64 // characters
	maxButtonData  = 64 // bytes
	maxAnswerChars = 200
	maxEmojiBytes  = 32
	typingFor      = 5 * time.Second
)

var (
	_ provider.Messenger = (*Platform)(nil)
	_ provider.Reactor   = (*Platform)(nil)
	_ provider.Typist    = (*Platform)(nil)
	_ provider.Answerer  = (*Platform)(nil)
)

// invalid is a refusal of what was asked (INVALID_ARGUMENT).
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{provider.ErrInvalid}, args...)...)
}

// notFound is a refusal naming something the room does not hold.
func notFound(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{provider.ErrNotFound}, args...)...)
}

// verbs are the verbs the playground declares. Send is recorded with its
// idempotency key in the transaction that stores the message (a repeat
// is answered, not made again); an edit, a reaction or an answer made
// again with the same content changes nothing; typing shows for
// typingFor. The playground has no rate limits: nothing is paced.
var verbs = []provider.Verb{
	{Name: provider.VerbSend, Idempotent: true},
	{Name: provider.VerbEdit, Idempotent: true},
	{Name: provider.VerbReact, Idempotent: true},
	{Name: provider.VerbTyping, Lasts: typingFor},
	{Name: provider.VerbAnswer, Idempotent: true},
}

// Send implements provider.Messenger: a message, its Markdown rendered
// on the page, with its buttons under it. A text longer than one message
// may be goes as several, each valid Markdown on its own, in one
// transaction: the reply quotes from the first, the buttons and the prompt
// are the last's.
func (p *Platform) Send(_ context.Context, t provider.Target, m provider.Message, key string) (provider.Result, error) {
	parts := []string{m.Text}
	if utf8.RuneCountInString(m.Text) > maxTextChars {
		parts = slices.DeleteFunc(render.Markdown(m.Text, maxTextChars), func(s string) bool { return strings.TrimSpace(s) == "" })
	}
	var bs []button
	for _, part := range parts {
		var err error
		if bs, err = checkMessage(provider.Message{Text: part, Buttons: m.Buttons}); err != nil {
			return provider.Result{}, err
		}
	}
	var reply int64
	if m.ReplyTo != "" {
		var err error
		if reply, err = parseID(m.ReplyTo); err != nil {
			return provider.Result{}, err
		}
	}
	return p.change(t, provider.VerbSend, key, func(c *roomTx) ([]provider.Ref, error) {
		var refs []provider.Ref
		for i, part := range parts {
			msg, err := c.newMessage(true)
			if err != nil {
				return nil, err
			}
			msg.Text, msg.Markdown = part, true
			if i == len(parts)-1 {
				msg.Prompt, msg.Buttons = m.Prompt, bs
			}
			if i == 0 && reply != 0 {
				r, ok, err := c.find(reply)
				if err != nil {
					return nil, err
				}
				// A message the room no longer holds (its history is
				// bounded) is quoted by its id only.
				msg.ReplyTo, msg.ReplyText = reply, r.Text
				if !ok || r.Deleted {
					msg.ReplyText = ""
				}
			}
			if err := c.store(&msg); err != nil {
				return nil, err
			}
			refs = append(refs, messageRefs(msg)...)
		}
		return refs, nil
	})
}

// Edit implements provider.Messenger: the follower's message id gets the
// text and buttons of m (none: no buttons). The same text and buttons
// again change nothing.
func (p *Platform) Edit(_ context.Context, t provider.Target, id string, m provider.Message) (provider.Result, error) {
	bs, err := checkMessage(m)
	if err != nil {
		return provider.Result{}, err
	}
	mid, err := parseID(id)
	if err != nil {
		return provider.Result{}, err
	}
	return p.change(t, provider.VerbEdit, "", func(c *roomTx) ([]provider.Ref, error) {
		msg, err := c.own(mid)
		switch {
		case err != nil:
			return nil, err
		case !msg.ByBot:
			return nil, invalid("message %d is the person's: a follower edits only its own", mid)
		case msg.File != nil:
			return nil, invalid("message %d is a file: its caption is not edited", mid)
		}
		refs := messageRefs(msg)
		if msg.Markdown && msg.Text == m.Text && slices.Equal(msg.Buttons, bs) {
			return refs, nil
		}
		msg.Text, msg.Markdown, msg.Buttons, msg.Edited = m.Text, true, bs, time.Now().Unix()
		return refs, c.store(&msg)
	})
}

// React implements provider.Reactor: the follower's reaction on message
// id (one at a time: a new one replaces it).
func (p *Platform) React(_ context.Context, t provider.Target, id, emoji string) error {
	if emoji == "" || len(emoji) > maxEmojiBytes || !utf8.ValidString(emoji) || strings.TrimSpace(emoji) != emoji {
		return invalid("a reaction is one emoji, got %q", emoji)
	}
	mid, err := parseID(id)
	if err != nil {
		return err
	}
	_, err = p.change(t, provider.VerbReact, "", func(c *roomTx) ([]provider.Ref, error) {
		msg, err := c.own(mid)
		if err != nil {
			return nil, err
		}
		if r := msg.Reaction["bot"]; len(r) == 1 && r[0] == emoji {
			return nil, nil
		}
		if msg.Reaction == nil {
			msg.Reaction = map[string][]string{}
		}
		msg.Reaction["bot"] = []string{emoji}
		return nil, c.store(&msg)
	})
	return err
}

// Typing implements provider.Typist: the page shows "follower is
// typing…" for typingFor, or until the follower's next message.
func (p *Platform) Typing(_ context.Context, t provider.Target) error {
	room, err := threadOf(t)
	if err != nil {
		return err
	}
	err = p.st.db.View(func(tx *bolt.Tx) error { return p.st.mustRoom(tx, room, provider.ErrTargetGone) })
	if err != nil {
		return classify(err)
	}
	p.live.publish(liveEvent{Type: "typing", Room: room, Until: time.Now().Add(typingFor).UnixMilli()})
	return nil
}

// Answer implements provider.Answerer: press id is answered; text, if
// any, is shown to the person (a notice, and under the message). A press
// is answered once; the same answer again changes nothing.
func (p *Platform) Answer(_ context.Context, t provider.Target, id, text string) error {
	if utf8.RuneCountInString(text) > maxAnswerChars {
		return invalid("an answer is at most %d characters", maxAnswerChars)
	}
	_, err := p.change(t, provider.VerbAnswer, "", func(c *roomTx) ([]provider.Ref, error) {
		var cb callback
		ok, err := getJSON(c.tx.Bucket(bCallbacks), []byte(id), &cb)
		switch {
		case err != nil:
			return nil, err
		case !ok:
			return nil, notFound("no press %q to answer", id)
		case cb.Thread != c.room:
			return nil, fmt.Errorf("%w: press %s is of another room", provider.ErrOutOfScope, id)
		case cb.Answered && cb.Answer == text:
			return nil, nil
		case cb.Answered:
			return nil, invalid("press %s was answered already", id)
		}
		cb.Answered, cb.Answer = true, text
		if err := putJSON(c.tx.Bucket(bCallbacks), []byte(id), cb); err != nil {
			return nil, err
		}
		if m, ok, err := c.find(cb.Message); err != nil {
			return nil, err
		} else if ok && text != "" {
			m.Answer = text
			if err := c.store(&m); err != nil {
				return nil, err
			}
		}
		c.events = append(c.events, liveEvent{Type: "answer", Room: c.room, ID: id, Text: text})
		return nil, nil
	})
	return err
}

// Call implements provider.Platform. The playground has no methods of its
// own: followers use the message verbs.
func (p *Platform) Call(_ context.Context, _ provider.Target, name string, _ json.RawMessage, _ string) (provider.Result, error) {
	return provider.Result{}, notFound("the playground has no method %q: followers use the message verbs (send, edit, react, typing, answer)", name)
}

// checkMessage checks m's text and buttons.
func checkMessage(m provider.Message) ([]button, error) {
	switch {
	case strings.TrimSpace(m.Text) == "":
		return nil, invalid("the text is empty")
	case !utf8.ValidString(m.Text):
		return nil, invalid("the text is not UTF-8")
	case utf8.RuneCountInString(m.Text) > maxTextChars:
		return nil, invalid("the text is longer than %d characters", maxTextChars)
	case len(m.Buttons) > maxButtons:
		return nil, invalid("%d buttons; at most %d", len(m.Buttons), maxButtons)
	}
	var out []button
	for _, b := range m.Buttons {
		switch {
		case strings.TrimSpace(b.Label) == "" || utf8.RuneCountInString(b.Label) > maxButtonLabel:
			return nil, invalid("a button's label is 1 to %d characters, got %q", maxButtonLabel, b.Label)
		case b.Data == "" || len(b.Data) > maxButtonData:
			return nil, invalid("a button's data is 1 to %d bytes, got %d", maxButtonData, len(b.Data))
		}
		out = append(out, button{Label: b.Label, Data: b.Data})
	}
	return out, nil
}

// parseID reads a message id.
func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, invalid("%q is not a playground message id", s)
	}
	return id, nil
}

// roomTx is one change in a room, inside its store transaction. The live
// events it queues are published once the transaction is durable.
type roomTx struct {
	p      *Platform
	tx     *bolt.Tx
	room   int64
	events []liveEvent
}

// change makes fn in room t in one store transaction, and publishes its
// live events once durable. With a key, the references fn made are
// recorded under it (per room and verb) in that transaction, and a repeat
// returns them without calling fn.
func (p *Platform) change(t provider.Target, verb, key string, fn func(c *roomTx) ([]provider.Ref, error)) (provider.Result, error) {
	room, err := threadOf(t)
	if err != nil {
		return provider.Result{}, err
	}
	idem := ""
	if key != "" {
		idem = t.Thread + "/" + verb + "/" + key
	}
	var refs []ref
	var events []liveEvent
	err = p.st.db.Update(func(tx *bolt.Tx) error {
		if got, ok, err := p.st.idempotent(tx, idem); err != nil || ok {
			refs = got
			return err
		}
		if err := p.st.mustRoom(tx, room, provider.ErrTargetGone); err != nil {
			return err
		}
		c := &roomTx{p: p, tx: tx, room: room}
		made, err := fn(c)
		if err != nil {
			return err
		}
		refs, events = refsOf(made), c.events
		return p.st.rememberResult(tx, idem, refs)
	})
	if err != nil {
		return provider.Result{}, classify(err)
	}
	for _, e := range events {
		p.live.publish(e)
	}
	return provider.Result{Refs: refsFrom(refs)}, nil
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

// find returns message id if the room holds it (ok false if it holds
// none by that id); a message of another room is ErrOutOfScope.
func (c *roomTx) find(id int64) (message, bool, error) {
	m, ok, other, err := c.p.st.message(c.tx, c.room, id)
	switch {
	case err != nil:
		return m, false, err
	case !ok && other != 0:
		return m, false, fmt.Errorf("%w: message %d is in another room", provider.ErrOutOfScope, id)
	}
	return m, ok, nil
}

// own returns message id of the room: ErrOutOfScope for one of another
// room, ErrNotFound when the room does not hold it (any more) or it was
// deleted.
func (c *roomTx) own(id int64) (message, error) {
	m, ok, err := c.find(id)
	switch {
	case err != nil:
		return m, err
	case !ok:
		return m, notFound("room %d holds no message %d", c.room, id)
	case m.Deleted:
		return m, notFound("message %d was deleted", id)
	}
	return m, nil
}

// newMessage allocates a message in the room.
func (c *roomTx) newMessage(byBot bool) (message, error) {
	id, err := next(c.tx, kNextMsg, firstMessageID)
	if err != nil {
		return message{}, err
	}
	return message{ID: id, Room: c.room, ByBot: byBot, Date: time.Now().Unix()}, nil
}

// store saves m as its next revision and queues its live event.
func (c *roomTx) store(m *message) error {
	m.Rev++
	if err := c.p.st.putMessage(c.tx, *m); err != nil {
		return err
	}
	c.events = append(c.events, liveEvent{Type: "message", Room: c.room, Message: view(*m)})
	return nil
}
