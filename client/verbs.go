package client

import (
	"context"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// The message verbs: what a follower says in its thread, in words every
// platform has. Text is Markdown; the provider renders it for its
// platform (Telegram entities, Slack mrkdwn, Discord Markdown, HTML on the
// playground) and splits what is longer than one message may be. Like
// Call, each verb carries an idempotency key (made for it when empty) and
// waits out a supervisor or provider restart until ctx ends; a
// DEADLINE_EXCEEDED then does not mean the verb is lost (see Call).
// Registered().GetCapabilities().GetVerbs() says which verbs the thread's
// platform has: every one has send and edit.

// Message is a message to send.
type Message struct {
	// Text is Markdown (CommonMark).
	Text string
	// ReplyTo is a message of the thread to answer; "" none.
	ReplyTo string
	// Buttons are one row of buttons under the message (at most 8). A
	// press arrives as an update of kind CALLBACK_QUERY whose text is the
	// button's Data; answer it with Answer.
	Buttons []Button
	// Prompt marks a question the person must answer before the session
	// goes on (a permission prompt): it is sent ahead of other messages.
	Prompt bool
}

// Button is a button under a message: its label and the data a press
// carries back (at most 64 bytes).
type Button struct {
	Label, Data string
}

// Send posts m in the thread and returns the ids of the messages sent, in
// order (several when the text was split).
func (f *Follower) Send(ctx context.Context, m Message, idempotencyKey string) ([]string, error) {
	key := keyOr(idempotencyKey)
	resp, err := retried(ctx, f, func(sess *chatbusv1.Session) (*chatbusv1.SendMessageResponse, error) {
		return f.c.Bus.SendMessage(ctx, &chatbusv1.SendMessageRequest{
			Session: sess, Text: m.Text, ReplyTo: m.ReplyTo, Buttons: buttonsProto(m.Buttons), Prompt: m.Prompt, IdempotencyKey: key,
		})
	})
	return resp.GetMessageIds(), err
}

// Edit replaces the text of a message the follower sent, and its buttons
// (none removes them). The text must fit in one message.
func (f *Follower) Edit(ctx context.Context, messageID, text string, buttons []Button, idempotencyKey string) error {
	key := keyOr(idempotencyKey)
	_, err := retried(ctx, f, func(sess *chatbusv1.Session) (*chatbusv1.EditMessageResponse, error) {
		return f.c.Bus.EditMessage(ctx, &chatbusv1.EditMessageRequest{
			Session: sess, MessageId: messageID, Text: text, Buttons: buttonsProto(buttons), IdempotencyKey: key,
		})
	})
	return err
}

// StreamUpdate is one call of a streamed answer (see Stream).
type StreamUpdate struct {
	// StreamID is the follower's id of the answer, the same in every
	// call for it.
	StreamID string
	// Text is the whole text so far (Markdown), not a delta.
	Text string
	// Final: Text is the answer's final text.
	Final bool
	// ReplyTo is a message of the thread the answer answers; "" none.
	ReplyTo string
	// Buttons are shown under the growing message (where it is one) and,
	// with Final, under the final message.
	Buttons []Button
}

// Stream shows an answer as it is written: call it with the text so far
// each time it grows and once with Final. Where the platform has drafts
// (Telegram private chats) the person sees a draft, then the final
// message; elsewhere one message edited as it grows. A non-final call
// returns at once when another of the stream is under way (its text is
// shown next); the final one lands once (idempotencyKey, else one made
// of the stream's id). It returns the messages that show the answer so
// far.
func (f *Follower) Stream(ctx context.Context, u StreamUpdate, idempotencyKey string) ([]string, error) {
	resp, err := retried(ctx, f, func(sess *chatbusv1.Session) (*chatbusv1.StreamMessageResponse, error) {
		return f.c.Bus.StreamMessage(ctx, &chatbusv1.StreamMessageRequest{
			Session: sess, StreamId: u.StreamID, Text: u.Text, Final: u.Final, ReplyTo: u.ReplyTo,
			Buttons: buttonsProto(u.Buttons), IdempotencyKey: idempotencyKey,
		})
	})
	return resp.GetMessageIds(), err
}

// React sets the follower's reaction on a message of its thread.
func (f *Follower) React(ctx context.Context, messageID, emoji, idempotencyKey string) error {
	key := keyOr(idempotencyKey)
	_, err := retried(ctx, f, func(sess *chatbusv1.Session) (*chatbusv1.ReactResponse, error) {
		return f.c.Bus.React(ctx, &chatbusv1.ReactRequest{Session: sess, MessageId: messageID, Emoji: emoji, IdempotencyKey: key})
	})
	return err
}

// Typing shows in the thread, for a few seconds, that the session works.
func (f *Follower) Typing(ctx context.Context) error {
	_, err := retried(ctx, f, func(sess *chatbusv1.Session) (*chatbusv1.SendTypingResponse, error) {
		return f.c.Bus.SendTyping(ctx, &chatbusv1.SendTypingRequest{Session: sess})
	})
	return err
}

// Answer acknowledges a button press (the update's interaction
// reference), with a short notice for the person who pressed ("" none).
func (f *Follower) Answer(ctx context.Context, interactionID, text, idempotencyKey string) error {
	key := keyOr(idempotencyKey)
	_, err := retried(ctx, f, func(sess *chatbusv1.Session) (*chatbusv1.AnswerInteractionResponse, error) {
		return f.c.Bus.AnswerInteraction(ctx, &chatbusv1.AnswerInteractionRequest{Session: sess, InteractionId: interactionID, Text: text, IdempotencyKey: key})
	})
	return err
}

func keyOr(k string) string {
	if k == "" {
		return NewIdempotencyKey()
	}
	return k
}

func buttonsProto(bs []Button) []*chatbusv1.Button {
	if len(bs) == 0 {
		return nil
	}
	out := make([]*chatbusv1.Button, len(bs))
	for i, b := range bs {
		out[i] = &chatbusv1.Button{Label: b.Label, Data: b.Data}
	}
	return out
}
