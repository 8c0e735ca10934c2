package server

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// The message verbs of BusService. Each handler writes the verb's params
// message (chatbus.provider.v1) as JSON once, here; from then on a verb is
// a call like any other (hub.Verb): recorded, scoped, held while its
// provider restarts, and decoded once more by the provider.

// verbJSON writes a verb's params as the provider reads them.
var verbJSON = protojson.MarshalOptions{UseProtoNames: true}

func (b *busService) SendMessage(ctx context.Context, req *chatbusv1.SendMessageRequest) (*chatbusv1.SendMessageResponse, error) {
	res, err := b.verb(ctx, req.GetSession(), hub.VerbSend, &providerv1.SendParams{
		Text: req.GetText(), ReplyTo: req.GetReplyTo(), Buttons: buttonsToProvider(req.GetButtons()), Prompt: req.GetPrompt(),
	}, req.GetIdempotencyKey())
	if err != nil {
		return nil, err
	}
	return &chatbusv1.SendMessageResponse{MessageIds: messageIDs(res.Refs)}, nil
}

func (b *busService) EditMessage(ctx context.Context, req *chatbusv1.EditMessageRequest) (*chatbusv1.EditMessageResponse, error) {
	_, err := b.verb(ctx, req.GetSession(), hub.VerbEdit, &providerv1.EditParams{
		MessageId: req.GetMessageId(), Text: req.GetText(), Buttons: buttonsToProvider(req.GetButtons()),
	}, req.GetIdempotencyKey())
	if err != nil {
		return nil, err
	}
	return &chatbusv1.EditMessageResponse{}, nil
}

func (b *busService) React(ctx context.Context, req *chatbusv1.ReactRequest) (*chatbusv1.ReactResponse, error) {
	_, err := b.verb(ctx, req.GetSession(), hub.VerbReact, &providerv1.ReactParams{
		MessageId: req.GetMessageId(), Emoji: req.GetEmoji(),
	}, req.GetIdempotencyKey())
	if err != nil {
		return nil, err
	}
	return &chatbusv1.ReactResponse{}, nil
}

func (b *busService) SendTyping(ctx context.Context, req *chatbusv1.SendTypingRequest) (*chatbusv1.SendTypingResponse, error) {
	if _, err := b.verb(ctx, req.GetSession(), hub.VerbTyping, &providerv1.TypingParams{}, ""); err != nil {
		return nil, err
	}
	return &chatbusv1.SendTypingResponse{}, nil
}

func (b *busService) AnswerInteraction(ctx context.Context, req *chatbusv1.AnswerInteractionRequest) (*chatbusv1.AnswerInteractionResponse, error) {
	_, err := b.verb(ctx, req.GetSession(), hub.VerbAnswer, &providerv1.AnswerParams{
		InteractionId: req.GetInteractionId(), Text: req.GetText(),
	}, req.GetIdempotencyKey())
	if err != nil {
		return nil, err
	}
	return &chatbusv1.AnswerInteractionResponse{}, nil
}

// verb makes one message verb for the session, recorded in the call
// metrics under the verb's name.
func (b *busService) verb(ctx context.Context, sess *chatbusv1.Session, verb string, params proto.Message, key string) (hub.Result, error) {
	start := time.Now()
	f, err := b.follower(sess)
	if err != nil {
		b.s.recordCall(nil, verb, status.Code(err), start)
		return hub.Result{}, err
	}
	js, err := verbJSON.Marshal(params)
	if err != nil {
		return hub.Result{}, status.Errorf(codes.Internal, "%s params: %v", verb, err)
	}
	res, err := b.s.core.Verb(ctx, f, verb, js, key)
	if err != nil {
		err = toStatus(err)
		b.s.recordCall(f, verb, status.Code(err), start)
		return hub.Result{}, err
	}
	b.s.recordCall(f, verb, codes.OK, start)
	return res, nil
}

func buttonsToProvider(bs []*chatbusv1.Button) []*providerv1.Button {
	if len(bs) == 0 {
		return nil
	}
	out := make([]*providerv1.Button, len(bs))
	for i, b := range bs {
		out[i] = &providerv1.Button{Label: b.GetLabel(), Data: b.GetData()}
	}
	return out
}

// messageIDs are the messages among refs, in order.
func messageIDs(refs []store.Ref) []string {
	var out []string
	for _, r := range refs {
		if r.Kind == store.RefMessage {
			out = append(out, r.ID)
		}
	}
	return out
}
