package server

import (
	"context"
	"fmt"
	"path/filepath"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/registry"
)

// busService implements chatbus.v1.BusService. Requests are validated by
// the interceptor chain before they get here.
type busService struct {
	chatbusv1.UnsafeBusServiceServer
	s *Server
}

func (b *busService) Register(_ context.Context, req *chatbusv1.RegisterRequest) (*chatbusv1.RegisterResponse, error) {
	threadName := req.GetThreadName()
	if threadName == "" && req.GetCwd() != "" {
		threadName = filepath.Base(req.GetCwd())
	}
	f, err := b.s.reg.Register(registry.Info{
		InstanceID: req.GetInstanceId(),
		ProfileKey: req.GetProfileKey(),
		PID:        req.GetPid(),
		Cwd:        req.GetCwd(),
		ThreadName: threadName,
	})
	if err != nil {
		return nil, toStatus(err)
	}
	return &chatbusv1.RegisterResponse{
		Session:           &chatbusv1.Session{InstanceId: f.InstanceID, Token: f.Token},
		Origin:            chatbusv1.Origin_ORIGIN_DETACHED,
		HeartbeatInterval: durationpb.New(b.s.cfg.HeartbeatInterval),
		StaleAfter:        durationpb.New(b.s.cfg.StaleAfter),
	}, nil
}

// follower resolves the caller's session.
func (b *busService) follower(sess *chatbusv1.Session) (*registry.Follower, error) {
	f, err := b.s.reg.Touch(sess.GetInstanceId(), sess.GetToken())
	return f, toStatus(err)
}

func (b *busService) Heartbeat(_ context.Context, req *chatbusv1.HeartbeatRequest) (*chatbusv1.HeartbeatResponse, error) {
	if _, err := b.follower(req.GetSession()); err != nil {
		return nil, err
	}
	resp := &chatbusv1.HeartbeatResponse{ServerTime: timestamppb.Now()}
	if b.s.draining.Load() {
		resp.Notices = append(resp.Notices, chatbusv1.Notice_NOTICE_SUPERVISOR_DRAINING)
	}
	return resp, nil
}

func (b *busService) Subscribe(req *chatbusv1.SubscribeRequest, stream chatbusv1.BusService_SubscribeServer) error {
	f, err := b.follower(req.GetSession())
	if err != nil {
		return err
	}
	superseded, detach := f.AttachStream()
	defer detach()
	if err := stream.SendHeader(metadata.MD{}); err != nil {
		return err
	}
	// No provider delivers updates yet: the stream stays open until the
	// registration ends, the caller goes away or a newer stream takes over.
	select {
	case <-f.Done():
		return toStatus(f.Err())
	case <-superseded:
		return toStatus(registry.ErrSuperseded)
	case <-stream.Context().Done():
		return toStatus(stream.Context().Err())
	}
}

func (b *busService) Ack(_ context.Context, req *chatbusv1.AckRequest) (*chatbusv1.AckResponse, error) {
	if _, err := b.follower(req.GetSession()); err != nil {
		return nil, err
	}
	// Nothing has been delivered to a detached follower.
	return nil, toStatus(fmt.Errorf("ack %d: %w (nothing delivered yet)", req.GetSeq(), ErrNotDelivered))
}

func (b *busService) Call(_ context.Context, req *chatbusv1.CallRequest) (*chatbusv1.CallResponse, error) {
	if _, err := b.follower(req.GetSession()); err != nil {
		return nil, err
	}
	return nil, toStatus(fmt.Errorf("call %s: %w", req.GetMethod(), ErrNotBound))
}

func (b *busService) Suspend(_ context.Context, req *chatbusv1.SuspendRequest) (*chatbusv1.SuspendResponse, error) {
	if _, err := b.follower(req.GetSession()); err != nil {
		return nil, err
	}
	return nil, toStatus(fmt.Errorf("suspend: %w", ErrNotBound))
}

func (b *busService) Unregister(_ context.Context, req *chatbusv1.UnregisterRequest) (*chatbusv1.UnregisterResponse, error) {
	f, err := b.follower(req.GetSession())
	if err != nil {
		return nil, err
	}
	b.s.reg.Unregister(f)
	return &chatbusv1.UnregisterResponse{}, nil
}
