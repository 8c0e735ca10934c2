package server

import (
	"context"
	"errors"
	"time"

	middleware "github.com/grpc-ecosystem/go-grpc-middleware/v2"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/store"
)

// A supervisor whose store was opened by a cluster node runs only while
// the node leads. When the node learns that it no longer does (a write
// refused by the fence, its lease ended, or its local lease deadline
// passed), it ends Run's context with a cause that wraps store.ErrFenced.
// Nothing the supervisor does from then on can be recorded, and another
// node's supervisor may already serve: Run then deposes itself before any
// graceful stop (serve):
//
//   - every call, waiting or new, is answered UNAVAILABLE with reason
//     FENCED and a retry hint at once (fenceGate), so that the follower's
//     repeat reaches the new leader through its node;
//   - the provider children are halted: SIGKILL, no grace, since a child
//     cannot move its platform cursor without the store, nothing is lost,
//     and a graceful stop would only let it poll on beside the new
//     leader's child;
//   - only then the ordinary stop, which has nothing left to wait for.

// fencedRetry is the retry hint of a deposed supervisor's answers: about
// the time a node takes to follow the new leader.
const fencedRetry = 500 * time.Millisecond

// deposedBy reports whether ctx ended because this supervisor lost the
// leadership its store is fenced on.
func deposedBy(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), store.ErrFenced)
}

// fencedStatus is a deposed supervisor's answer.
func fencedStatus() error {
	st := status.New(codes.Unavailable, "this node's supervisor no longer leads (fenced): try again, the new leader answers")
	ds, err := st.WithDetails(&errdetails.ErrorInfo{Reason: reasonString(chatbusv1.ErrorReason_ERROR_REASON_FENCED), Domain: ErrorDomain},
		&errdetails.RetryInfo{RetryDelay: durationpb.New(fencedRetry)})
	if err != nil {
		return st.Err()
	}
	return ds.Err()
}

// fenceUnary and fenceStream are the deposition gate: a call runs under a
// context that depose cancels, and a call that ends (or would begin) once
// the supervisor is deposed is answered fencedStatus, whatever its handler
// returned.
func (s *Server) fenceUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.deposed.Err() != nil {
		return nil, fencedStatus()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.deposed, cancel)()
	resp, err := handler(ctx, req)
	if err != nil && s.deposed.Err() != nil {
		return nil, fencedStatus()
	}
	return resp, err
}

func (s *Server) fenceStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if s.deposed.Err() != nil {
		return fencedStatus()
	}
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	defer context.AfterFunc(s.deposed, cancel)()
	ws := middleware.WrapServerStream(ss)
	ws.WrappedContext = ctx
	err := handler(srv, ws)
	if err != nil && s.deposed.Err() != nil {
		return fencedStatus()
	}
	return err
}
