package server

import (
	"context"
	"os"
	"slices"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/events"
)

// adminService implements chatbus.v1.AdminService.
type adminService struct {
	chatbusv1.UnsafeAdminServiceServer
	s *Server
}

func (a *adminService) GetInfo(context.Context, *chatbusv1.GetInfoRequest) (*chatbusv1.GetInfoResponse, error) {
	c := a.s.cfg
	return &chatbusv1.GetInfoResponse{
		Version:       c.Version,
		Pid:           int32(os.Getpid()),
		Profile:       c.Profile,
		SocketPath:    c.Socket,
		StateDir:      c.StateDir,
		StartedAt:     timestamppb.New(a.s.started),
		FollowerCount: int32(a.s.reg.Len()),
		ConfigPath:    c.ConfigPath,
	}, nil
}

func (a *adminService) ListFollowers(context.Context, *chatbusv1.ListFollowersRequest) (*chatbusv1.ListFollowersResponse, error) {
	fs := a.s.reg.List()
	resp := &chatbusv1.ListFollowersResponse{Followers: make([]*chatbusv1.Follower, 0, len(fs))}
	for _, f := range fs {
		resp.Followers = append(resp.Followers, followerToProto(f))
	}
	return resp, nil
}

func (a *adminService) ListEvents(context.Context, *chatbusv1.ListEventsRequest) (*chatbusv1.ListEventsResponse, error) {
	recent := a.s.hub.Recent()
	resp := &chatbusv1.ListEventsResponse{Events: make([]*chatbusv1.Event, 0, len(recent))}
	for _, e := range recent {
		resp.Events = append(resp.Events, eventToProto(e))
	}
	return resp, nil
}

func (a *adminService) WatchEvents(req *chatbusv1.WatchEventsRequest, stream chatbusv1.AdminService_WatchEventsServer) error {
	w := a.s.hub.Watch(req.GetReplayRecent())
	defer w.Close()
	// Headers tell the caller the watch is in place before any event.
	if err := stream.SendHeader(metadata.MD{}); err != nil {
		return err
	}
	kinds := req.GetKinds()
	for {
		select {
		case <-stream.Context().Done():
			return nil
		case e := <-w.C():
			if len(kinds) > 0 && e.Kind != events.Dropped && !slices.Contains(kinds, chatbusv1.EventKind(e.Kind)) {
				continue
			}
			if err := stream.Send(&chatbusv1.WatchEventsResponse{Event: eventToProto(e)}); err != nil {
				return err
			}
			if e.Kind == events.SupervisorStopping {
				return nil
			}
		}
	}
}
