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
