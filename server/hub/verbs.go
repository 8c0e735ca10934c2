package hub

import (
	"context"
	"fmt"

	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// The message verbs: platform-neutral operations every provider implements
// for its platform (send, edit, react, typing, answer). A verb travels the
// call path as a method of its own name whose params are the verb's params
// message in protobuf's JSON form (chatbus.provider.v1.SendParams, …), so a
// verb has what every call has: a durable record and at most one attempt
// per idempotency key, the wait while its provider restarts, the scope
// check of the ids it names, a new thread when its thread was deleted.
const (
	VerbSend   = "send"
	VerbEdit   = "edit"
	VerbReact  = "react"
	VerbTyping = "typing"
	VerbAnswer = "answer"
	// VerbDraft shows an answer's text so far as a draft (platforms with
	// drafts only); see StreamMessage.
	VerbDraft = "draft"
)

// verbParams are the params of each verb that name an id of the thread:
// the supervisor's own declaration, the same for every provider.
var verbParams = map[string][]Param{
	VerbSend:   {{Name: "reply_to", Kind: store.RefMessage}},
	VerbEdit:   {{Name: "message_id", Kind: store.RefMessage, Required: true}},
	VerbReact:  {{Name: "message_id", Kind: store.RefMessage, Required: true}},
	VerbTyping: nil,
	VerbAnswer: {{Name: "interaction_id", Kind: store.RefInteraction, Required: true}},
	VerbDraft:  nil,
}

// IsVerb reports whether name is one of the message verbs.
func IsVerb(name string) bool {
	_, ok := verbParams[name]
	return ok
}

// VerbMethod is the method a provider's declared verb is called as: the
// verb's name, the supervisor's params, the provider's idempotency.
func VerbMethod(name string, idempotent bool) (Method, bool) {
	params, ok := verbParams[name]
	if !ok {
		return Method{}, false
	}
	return Method{Name: name, Params: params, Idempotent: idempotent, Verb: true}, true
}

// Verb makes a message verb in the follower's own thread: params is the
// verb's params message as JSON (see the constants). Like Call, it is made
// at most once per idempotency key, and the ids it names must be the
// thread's.
func (h *Hub) Verb(ctx context.Context, f *registry.Follower, verb string, params []byte, idempotencyKey string) (Result, error) {
	if !IsVerb(verb) {
		return Result{}, fmt.Errorf("%w: %q is not a message verb", ErrMethodNotAllowed, verb)
	}
	return h.call(ctx, f, verb, true, params, idempotencyKey)
}
