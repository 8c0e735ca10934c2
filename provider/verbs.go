package provider

import (
	"context"
	"time"
)

// The message verbs: platform-neutral operations every provider implements
// for its platform. The supervisor calls a verb like a method (its name,
// its params message as JSON); the SDK decodes the params and calls the
// Platform's [Messenger] (and [Reactor], [Typist], [Answerer], where the
// platform has them). The supervisor has checked the ids the params name
// against the thread already.
const (
	VerbSend   = "send"
	VerbEdit   = "edit"
	VerbReact  = "react"
	VerbTyping = "typing"
	VerbAnswer = "answer"
	// VerbDraft shows the text so far of an answer being written (see
	// [Drafter]): only a platform with drafts declares it.
	VerbDraft = "draft"
)

// Message is what Send posts and Edit writes over a message.
type Message struct {
	// Text is Markdown (CommonMark): render it for the platform (see the
	// render package), never send it raw.
	Text string
	// ReplyTo is a message of the thread to answer (Send only); "" none.
	ReplyTo string
	// Buttons are one row of buttons under the message (under the last
	// part of a split text). A press is an update of kind CALLBACK_QUERY
	// whose text is the button's Data, with a RefInteraction to answer.
	// On Edit, the buttons after the edit: none removes them.
	Buttons []Button
	// Prompt: a question the person must answer (a permission prompt).
	Prompt bool
}

// Button is a button under a message.
type Button struct {
	Label string
	Data  string
}

// Messenger is the verbs every platform has. Errors are classified as
// Call's are; a text that cannot be sent as asked (an edit longer than one
// message) is an error wrapping [ErrInvalid].
type Messenger interface {
	// Send posts m in thread t: split into several messages when the
	// rendered text is longer than one may be, every part valid on its
	// own. The Result lists every message sent, in order, as RefMessage
	// refs (and whatever else the platform made available).
	// idempotencyKey is the supervisor's key (may be empty): a platform
	// that de-duplicates sends uses it (then declare the verb idempotent).
	Send(ctx context.Context, t Target, m Message, idempotencyKey string) (Result, error)
	// Edit replaces the text and buttons of message id of thread t, a
	// message the bot sent. The Result names the message.
	Edit(ctx context.Context, t Target, id string, m Message) (Result, error)
}

// Reactor is a [Platform] with reactions: React sets the bot's reaction
// on message id of thread t.
type Reactor interface {
	React(ctx context.Context, t Target, id, emoji string) error
}

// Typist is a [Platform] with a typing indicator: Typing shows, for a few
// seconds, that the bot is working in thread t.
type Typist interface {
	Typing(ctx context.Context, t Target) error
}

// Answerer is a [Platform] whose button presses are answered: Answer
// acknowledges interaction id of thread t with text for the person who
// pressed ("" none).
type Answerer interface {
	Answer(ctx context.Context, t Target, id, text string) error
}

// Drafter is a [Platform] that shows an answer as a draft while it is
// written (Telegram private chats: sendMessageDraft): Draft shows text, the
// answer so far (Markdown, at most one message's worth), in thread t as
// the draft of stream streamID, replacing its previous draft; nothing is
// posted. The supervisor sends the answer itself with Send once it is
// complete. Declare the verb only where drafts work (a platform may have
// them in some chats only).
type Drafter interface {
	Draft(ctx context.Context, t Target, streamID, text string) error
}

// Verb is a message verb a platform implements, as declared.
type Verb struct {
	Name string
	// Idempotent: the platform makes it at most once per idempotency key
	// (as Method.Idempotent).
	Idempotent bool
	// Lasts (typing): how long the indicator shows after one call; the
	// supervisor answers repeats within it without a call.
	Lasts time.Duration
}
