package server

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	encproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/store"
)

// grpc-go answers a request that does not decode (not protobuf, a string
// that is not UTF-8) with INTERNAL, as if the supervisor had failed. It is
// the caller's fault: INVALID_ARGUMENT. The server's codec therefore never
// fails a decode: it leaves the message empty with a marker in its unknown
// fields, and badRequest (in the interceptor chain, after the secret is
// checked) turns the marker into INVALID_ARGUMENT with the decoder's words.

// badRequestField is the field number of the marker: the largest a field
// may have, which no chatbus message uses.
const badRequestField protowire.Number = protowire.MaxValidNumber

const badRequestPrefix = "chatbus: undecodable request: "

// lenientCodec is the proto codec, with decode failures marked instead of
// returned.
type lenientCodec struct{ encoding.CodecV2 }

func newLenientCodec() lenientCodec { return lenientCodec{encoding.GetCodecV2(encproto.Name)} }

func (c lenientCodec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.CodecV2.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	m, ok := v.(proto.Message)
	if !ok {
		return err
	}
	proto.Reset(m)
	marker := protowire.AppendTag(nil, badRequestField, protowire.BytesType)
	marker = protowire.AppendString(marker, badRequestPrefix+err.Error())
	m.ProtoReflect().SetUnknown(marker)
	return nil
}

// Marshal is the proto codec's, except for a message already in its wire
// form (wireMessage), whose buffer goes to the transport as it is.
func (c lenientCodec) Marshal(v any) (mem.BufferSlice, error) {
	if w, ok := v.(*wireMessage); ok {
		return w.buf, nil
	}
	return c.CodecV2.Marshal(v)
}

// wireMessage is a message already encoded: a Subscribe response built
// from the journal's bytes (encode once, send many). Sending it hands buf
// to the transport, which frees it once written.
//
// It is the one hand encoder of a message of the contract, kept for what
// it buys: busbench's encoder phase measures it against the generated
// code's way to send the same response (decode each stored update, set
// its seq and platform, marshal), in one run; docs/performance.md has the
// figure. TestSubscribeWireProperty holds the two equal, field by field,
// over random updates.
type wireMessage struct{ buf mem.BufferSlice }

// The fields of chatbus.v1.SubscribeResponse that carry updates.
var (
	subscribeFields = (&chatbusv1.SubscribeResponse{}).ProtoReflect().Descriptor().Fields()
	fieldUpdate     = subscribeFields.ByName("update").Number()
	fieldUpdates    = subscribeFields.ByName("updates").Number()
)

// subscribeResponse is a SubscribeResponse carrying ups (in updates if
// batched, else the one in update), each as the journal holds it with its
// seq and platform added: one copy of the stored bytes into a pooled
// buffer, nothing decoded or allocated per update.
func subscribeResponse(ups []store.Encoded, platform string, batched bool) *wireMessage {
	num := fieldUpdates
	if !batched {
		num, ups = fieldUpdate, ups[:1]
	}
	n := 0
	for i := range ups {
		n += store.WireUpdateSize(num, &ups[i], platform)
	}
	pool := mem.DefaultBufferPool()
	buf := pool.Get(n)
	b := (*buf)[:0]
	for i := range ups {
		b = store.AppendWireUpdate(b, num, &ups[i], platform)
	}
	*buf = b
	return &wireMessage{buf: mem.BufferSlice{mem.NewBuffer(buf, pool)}}
}

// undecodable returns the decoder's error a marked message carries.
func undecodable(v any) (string, bool) {
	m, ok := v.(proto.Message)
	if !ok {
		return "", false
	}
	u := m.ProtoReflect().GetUnknown()
	num, typ, n := protowire.ConsumeTag(u)
	if n < 0 || num != badRequestField || typ != protowire.BytesType {
		return "", false
	}
	s, k := protowire.ConsumeString(u[n:])
	if k < 0 || !strings.HasPrefix(s, badRequestPrefix) {
		return "", false
	}
	return strings.TrimPrefix(s, badRequestPrefix), true
}

func badRequestStatus(why string) error {
	return status.Error(codes.InvalidArgument, "request is not a valid message: "+why)
}

func badRequestUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if why, bad := undecodable(req); bad {
		return nil, badRequestStatus(why)
	}
	return handler(ctx, req)
}

func badRequestStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, decodeChecked{ss})
}

// decodeChecked fails a stream's RecvMsg of an undecodable message.
type decodeChecked struct{ grpc.ServerStream }

func (s decodeChecked) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if why, bad := undecodable(m); bad {
		return badRequestStatus(why)
	}
	return nil
}
