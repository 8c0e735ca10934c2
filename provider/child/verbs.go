package child

import (
	"github.com/chatbus/chatbus/provider"

	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// verbs are the verbs p implements: those d declares, or, if it declares
// none, every verb p has an interface for. A declared verb p does not
// implement is an error.
func verbs(p provider.Platform, d provider.Description) ([]provider.Verb, error) {
	has := func(name string) bool {
		switch name {
		case provider.VerbSend, provider.VerbEdit:
			_, ok := p.(provider.Messenger)
			return ok
		case provider.VerbReact:
			_, ok := p.(provider.Reactor)
			return ok
		case provider.VerbTyping:
			_, ok := p.(provider.Typist)
			return ok
		case provider.VerbAnswer:
			_, ok := p.(provider.Answerer)
			return ok
		case provider.VerbDraft:
			_, ok := p.(provider.Drafter)
			return ok
		}
		return false
	}
	if len(d.Verbs) == 0 {
		var out []provider.Verb
		for _, name := range []string{provider.VerbSend, provider.VerbEdit, provider.VerbReact, provider.VerbTyping, provider.VerbAnswer} {
			if has(name) {
				out = append(out, provider.Verb{Name: name})
			}
		}
		return out, nil
	}
	for _, v := range d.Verbs {
		if !has(v.Name) {
			return nil, fmt.Errorf("verb %q is declared but not implemented: %w", v.Name, provider.ErrInvalid)
		}
	}
	return d.Verbs, nil
}

// isVerb reports whether method names a message verb.
func isVerb(method string) bool {
	switch method {
	case provider.VerbSend, provider.VerbEdit, provider.VerbReact, provider.VerbTyping, provider.VerbAnswer, provider.VerbDraft:
		return true
	}
	return false
}

// verbParams reads a verb's params strictly: an unknown field is an error
// (a supervisor of a newer contract than this provider).
var verbParams = protojson.UnmarshalOptions{}

// callVerb decodes a verb's params and makes it on the Platform.
func (s *Server) callVerb(ctx context.Context, t provider.Target, verb string, params []byte, key string) (provider.Result, error) {
	decode := func(m proto.Message) error {
		if len(params) == 0 {
			return nil
		}
		if err := verbParams.Unmarshal(params, m); err != nil {
			return fmt.Errorf("%s params: %v: %w", verb, err, provider.ErrInvalid)
		}
		return nil
	}
	p := s.cfg.Platform
	unsupported := &provider.Error{Code: codes.Unimplemented, Message: fmt.Sprintf("%s has no %s verb", s.describe.Platform, verb)}
	switch verb {
	case provider.VerbSend:
		var in providerv1.SendParams
		if err := decode(&in); err != nil {
			return provider.Result{}, err
		}
		if m, ok := p.(provider.Messenger); ok {
			return m.Send(ctx, t, provider.Message{Text: in.GetText(), ReplyTo: in.GetReplyTo(), Buttons: buttonsFrom(in.GetButtons()), Prompt: in.GetPrompt()}, key)
		}
	case provider.VerbEdit:
		var in providerv1.EditParams
		if err := decode(&in); err != nil {
			return provider.Result{}, err
		}
		if m, ok := p.(provider.Messenger); ok {
			return m.Edit(ctx, t, in.GetMessageId(), provider.Message{Text: in.GetText(), Buttons: buttonsFrom(in.GetButtons())})
		}
	case provider.VerbReact:
		var in providerv1.ReactParams
		if err := decode(&in); err != nil {
			return provider.Result{}, err
		}
		if r, ok := p.(provider.Reactor); ok {
			return provider.Result{}, r.React(ctx, t, in.GetMessageId(), in.GetEmoji())
		}
	case provider.VerbTyping:
		if err := decode(&providerv1.TypingParams{}); err != nil {
			return provider.Result{}, err
		}
		if ty, ok := p.(provider.Typist); ok {
			return provider.Result{}, ty.Typing(ctx, t)
		}
	case provider.VerbAnswer:
		var in providerv1.AnswerParams
		if err := decode(&in); err != nil {
			return provider.Result{}, err
		}
		if a, ok := p.(provider.Answerer); ok {
			return provider.Result{}, a.Answer(ctx, t, in.GetInteractionId(), in.GetText())
		}
	case provider.VerbDraft:
		var in providerv1.DraftParams
		if err := decode(&in); err != nil {
			return provider.Result{}, err
		}
		if d, ok := p.(provider.Drafter); ok {
			return provider.Result{}, d.Draft(ctx, t, in.GetStreamId(), in.GetText())
		}
	}
	return provider.Result{}, unsupported
}

// verbResult is a verb's result_json: the messages it sent or edited.
func verbResult(refs []provider.Ref) []byte {
	out := &providerv1.VerbResult{}
	for _, r := range refs {
		if r.Kind == provider.RefMessage {
			out.MessageIds = append(out.MessageIds, r.ID)
		}
	}
	b, _ := protojson.MarshalOptions{UseProtoNames: true}.Marshal(out)
	return b
}

func buttonsFrom(bs []*providerv1.Button) []provider.Button {
	if len(bs) == 0 {
		return nil
	}
	out := make([]provider.Button, len(bs))
	for i, b := range bs {
		out[i] = provider.Button{Label: b.GetLabel(), Data: b.GetData()}
	}
	return out
}
