package cluster

import (
	"context"
	"errors"
	"io"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// frame is one gRPC message as its encoded bytes: the relay passes
// messages through without decoding them, so it serves every method of
// every service (BusService, AdminService, DoctorService, health) and
// learns nothing of them.
type frame struct{ b []byte }

// rawCodec is the codec of the relay's servers and clients: frames in,
// the same frames out.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	f, ok := v.(*frame)
	if !ok {
		return nil, status.Errorf(codes.Internal, "relay codec: %T is not a frame", v)
	}
	return f.b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	f, ok := v.(*frame)
	if !ok {
		return status.Errorf(codes.Internal, "relay codec: %T is not a frame", v)
	}
	f.b = append(f.b[:0], data...)
	return nil
}

// Name is "proto": what the peers say their content is.
func (rawCodec) Name() string { return "proto" }

// target picks where a relayed call goes, with the metadata to add
// (the local supervisor's secret), or a status error when there is
// nowhere to send it (no leader known).
type target func(ctx context.Context) (*grpc.ClientConn, metadata.MD, error)

// dropHeaders are the incoming headers never passed on: the transport's
// own, and the caller's credentials (each hop has its own).
func relayedMD(in metadata.MD) metadata.MD {
	out := metadata.MD{}
	for k, v := range in {
		if strings.HasPrefix(k, ":") || k == "content-type" || k == "user-agent" || k == "te" ||
			k == "authorization" || strings.HasPrefix(k, "grpc-") {
			continue
		}
		out[k] = append([]string(nil), v...)
	}
	return out
}

// localHandler answers a unary call on the node itself (the cluster
// view): the request's bytes in, the response's out.
type localHandler func(ctx context.Context, in []byte) ([]byte, error)

// relay is one listener's handler of every call: gate checks the caller,
// local answers what the node answers itself, pick routes the rest,
// track (if set) is told of each call and returns its end.
type relay struct {
	gate  func(ctx context.Context, method string) error
	local map[string]localHandler
	pick  target
	track func(method string) (done func())
}

// handler forwards any call it gets to the connection pick names: the
// caller's messages one way, the answers, headers and trailers the other,
// and the final status as it came.
func (r relay) handler() grpc.StreamHandler {
	return func(_ any, ss grpc.ServerStream) error {
		method, ok := grpc.MethodFromServerStream(ss)
		if !ok {
			return status.Error(codes.Internal, "relay: no method")
		}
		if r.gate != nil {
			if err := r.gate(ss.Context(), method); err != nil {
				return err
			}
		}
		if h, ok := r.local[method]; ok {
			in := &frame{}
			if err := ss.RecvMsg(in); err != nil {
				return err
			}
			out, err := h(ss.Context(), in.b)
			if err != nil {
				return err
			}
			return ss.SendMsg(&frame{b: out})
		}
		if r.track != nil {
			defer r.track(method)()
		}
		pick := r.pick
		conn, add, err := pick(ss.Context())
		if err != nil {
			return err
		}
		in, _ := metadata.FromIncomingContext(ss.Context())
		md := metadata.Join(relayedMD(in), add)
		ctx, cancel := context.WithCancel(metadata.NewOutgoingContext(ss.Context(), md))
		defer cancel()
		cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method,
			grpc.ForceCodec(rawCodec{}))
		if err != nil {
			return err
		}
		// Caller → leader, on its own goroutine; it ends with the caller's
		// half-close, or with the call.
		upErr := make(chan error, 1)
		go func() {
			for {
				f := &frame{}
				if err := ss.RecvMsg(f); err != nil {
					if errors.Is(err, io.EOF) {
						upErr <- cs.CloseSend()
						return
					}
					upErr <- err
					cancel()
					return
				}
				if err := cs.SendMsg(f); err != nil {
					// The leader's side ended: its status comes from RecvMsg.
					upErr <- nil
					return
				}
			}
		}()
		// Leader → caller.
		hdr, err := cs.Header()
		if err == nil && len(hdr) > 0 {
			if err := ss.SendHeader(hdr); err != nil {
				return err
			}
		}
		for {
			f := &frame{}
			if err := cs.RecvMsg(f); err != nil {
				ss.SetTrailer(cs.Trailer())
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			if err := ss.SendMsg(f); err != nil {
				return err
			}
		}
	}
}
