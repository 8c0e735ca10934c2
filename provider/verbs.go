package provider

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
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

// verbs are the verbs p implements: those d declares, or, if it declares
// none, every verb p has an interface for. A declared verb p does not
// implement is an error.
func verbs(p Platform, d Description) ([]Verb, error) {
	has := func(name string) bool {
		switch name {
		case VerbSend, VerbEdit:
			_, ok := p.(Messenger)
			return ok
		case VerbReact:
			_, ok := p.(Reactor)
			return ok
		case VerbTyping:
			_, ok := p.(Typist)
			return ok
		case VerbAnswer:
			_, ok := p.(Answerer)
			return ok
		case VerbDraft:
			_, ok := p.(Drafter)
			return ok
		}
		return false
	}
	if len(d.Verbs) == 0 {
		var out []Verb
		for _, name := range []string{VerbSend, VerbEdit, VerbReact, VerbTyping, VerbAnswer} {
			if has(name) {
				out = append(out, Verb{Name: name})
			}
		}
		return out, nil
	}
	for _, v := range d.Verbs {
		if !has(v.Name) {
			return nil, fmt.Errorf("verb %q is declared but not implemented: %w", v.Name, ErrInvalid)
		}
	}
	return d.Verbs, nil
}

// isVerb reports whether method names a message verb.
func isVerb(method string) bool {
	switch method {
	case VerbSend, VerbEdit, VerbReact, VerbTyping, VerbAnswer, VerbDraft:
		return true
	}
	return false
}

// verbParams reads a verb's params strictly: an unknown field is an error
// (a supervisor of a newer contract than this provider).
var verbParams = protojson.UnmarshalOptions{}

// callVerb decodes a verb's params and makes it on the Platform.
func (s *Server) callVerb(ctx context.Context, t Target, verb string, params []byte, key string) (Result, error) {
	decode := func(m proto.Message) error {
		if len(params) == 0 {
			return nil
		}
		if err := verbParams.Unmarshal(params, m); err != nil {
			return fmt.Errorf("%s params: %v: %w", verb, err, ErrInvalid)
		}
		return nil
	}
	p := s.cfg.Platform
	unsupported := &Error{Code: codes.Unimplemented, Message: fmt.Sprintf("%s has no %s verb", s.describe.Platform, verb)}
	switch verb {
	case VerbSend:
		var in providerv1.SendParams
		if err := decode(&in); err != nil {
			return Result{}, err
		}
		if m, ok := p.(Messenger); ok {
			return m.Send(ctx, t, Message{Text: in.GetText(), ReplyTo: in.GetReplyTo(), Buttons: buttonsFrom(in.GetButtons()), Prompt: in.GetPrompt()}, key)
		}
	case VerbEdit:
		var in providerv1.EditParams
		if err := decode(&in); err != nil {
			return Result{}, err
		}
		if m, ok := p.(Messenger); ok {
			return m.Edit(ctx, t, in.GetMessageId(), Message{Text: in.GetText(), Buttons: buttonsFrom(in.GetButtons())})
		}
	case VerbReact:
		var in providerv1.ReactParams
		if err := decode(&in); err != nil {
			return Result{}, err
		}
		if r, ok := p.(Reactor); ok {
			return Result{}, r.React(ctx, t, in.GetMessageId(), in.GetEmoji())
		}
	case VerbTyping:
		if err := decode(&providerv1.TypingParams{}); err != nil {
			return Result{}, err
		}
		if ty, ok := p.(Typist); ok {
			return Result{}, ty.Typing(ctx, t)
		}
	case VerbAnswer:
		var in providerv1.AnswerParams
		if err := decode(&in); err != nil {
			return Result{}, err
		}
		if a, ok := p.(Answerer); ok {
			return Result{}, a.Answer(ctx, t, in.GetInteractionId(), in.GetText())
		}
	case VerbDraft:
		var in providerv1.DraftParams
		if err := decode(&in); err != nil {
			return Result{}, err
		}
		if d, ok := p.(Drafter); ok {
			return Result{}, d.Draft(ctx, t, in.GetStreamId(), in.GetText())
		}
	}
	return Result{}, unsupported
}

// verbResult is a verb's result_json: the messages it sent or edited.
func verbResult(refs []Ref) []byte {
	out := &providerv1.VerbResult{}
	for _, r := range refs {
		if r.Kind == RefMessage {
			out.MessageIds = append(out.MessageIds, r.ID)
		}
	}
	b, _ := protojson.MarshalOptions{UseProtoNames: true}.Marshal(out)
	return b
}

func buttonsFrom(bs []*providerv1.Button) []Button {
	if len(bs) == 0 {
		return nil
	}
	out := make([]Button, len(bs))
	for i, b := range bs {
		out[i] = Button{Label: b.GetLabel(), Data: b.GetData()}
	}
	return out
}
