package server

import (
	"context"
	"os"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/store"
)

// adminService implements chatbus.v1.AdminService.
type adminService struct {
	chatbusv1.UnsafeAdminServiceServer
	s *Server
}

func (a *adminService) GetInfo(context.Context, *chatbusv1.GetInfoRequest) (*chatbusv1.GetInfoResponse, error) {
	c := a.s.cfg
	consoleURL := ""
	if a.s.console != nil {
		consoleURL = a.s.console.URL()
	}
	return &chatbusv1.GetInfoResponse{
		ConsoleUrl:    consoleURL,
		Version:       c.Version,
		Pid:           int32(os.Getpid()),
		Profile:       c.Profile,
		SocketPath:    c.Socket,
		StateDir:      c.StateDir,
		StartedAt:     timestamppb.New(a.s.started),
		FollowerCount: int32(a.s.core.FollowerCount()),
		ConfigPath:    c.ConfigPath,
	}, nil
}

func (a *adminService) ListFollowers(context.Context, *chatbusv1.ListFollowersRequest) (*chatbusv1.ListFollowersResponse, error) {
	fs := a.s.core.Followers()
	resp := &chatbusv1.ListFollowersResponse{Followers: make([]*chatbusv1.Follower, 0, len(fs))}
	for _, f := range fs {
		var bp *store.Binding
		platform := ""
		if key := a.s.core.Binding(f); key != "" {
			if b, err := a.s.store.GetBinding(key); err == nil {
				bp, platform = &b, a.s.platform(b.Target.Provider)
			}
		}
		resp.Followers = append(resp.Followers, followerToProto(f, bp, platform))
	}
	return resp, nil
}

func (a *adminService) ListBindings(context.Context, *chatbusv1.ListBindingsRequest) (*chatbusv1.ListBindingsResponse, error) {
	bs, err := a.s.store.ListBindings()
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &chatbusv1.ListBindingsResponse{Bindings: make([]*chatbusv1.BindingInfo, 0, len(bs))}
	for _, b := range bs {
		st, err := a.s.store.Stats(b.Key)
		if err != nil {
			return nil, toStatus(err)
		}
		resp.Bindings = append(resp.Bindings, &chatbusv1.BindingInfo{
			Binding:    bindingToProto(b, a.s.platform(b.Target.Provider)),
			OwnerKind:  b.OwnerKind,
			LastAction: b.LastAction,
			LastError:  b.LastError,
			CreatedAt:  timestamppb.New(b.Created),
			UpdatedAt:  timestamppb.New(b.Updated),
			Live:       a.s.core.Live(b.Key),
			Journal:    statsToProto(st),
		})
	}
	return resp, nil
}

func (a *adminService) ListProviders(context.Context, *chatbusv1.ListProvidersRequest) (*chatbusv1.ListProvidersResponse, error) {
	sts := a.s.provs.Statuses()
	resp := &chatbusv1.ListProvidersResponse{Providers: make([]*chatbusv1.ProviderInfo, 0, len(sts))}
	for _, st := range sts {
		resp.Providers = append(resp.Providers, providerToProto(st))
	}
	return resp, nil
}

func (a *adminService) ListUpdates(_ context.Context, req *chatbusv1.ListUpdatesRequest) (*chatbusv1.ListUpdatesResponse, error) {
	key := req.GetBinding()
	if req.GetUnrouted() {
		key = ""
	} else if key == "" {
		return nil, status.Error(codes.InvalidArgument, "name a binding (its profile key) or ask for the unrouted updates")
	} else if _, err := a.s.store.GetBinding(key); err != nil {
		return nil, toStatus(err)
	}
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = 100
	}
	ups, err := a.s.store.Read(key, 0, limit)
	if err != nil {
		return nil, toStatus(err)
	}
	st, err := a.s.store.Stats(key)
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &chatbusv1.ListUpdatesResponse{Stats: statsToProto(st), Updates: make([]*chatbusv1.Update, 0, len(ups))}
	for _, u := range ups {
		resp.Updates = append(resp.Updates, updateToProto(u, a.s.platform(u.Provider)))
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
			if len(kinds) > 0 && e.Kind != events.Dropped && !slices.Contains(kinds, eventKinds.Proto(e.Kind)) {
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

func (a *adminService) Reload(ctx context.Context, _ *chatbusv1.ReloadRequest) (*chatbusv1.ReloadResponse, error) {
	res, err := a.s.Reload(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &chatbusv1.ReloadResponse{ConfigPath: res.ConfigPath, Refused: res.Refused}
	for _, c := range res.Changes {
		resp.Changes = append(resp.Changes, &chatbusv1.ConfigChange{Key: c.Key, Action: changeActions.Proto(c.Action),
			OldValue: c.Old, NewValue: c.New, Detail: c.Detail})
	}
	return resp, nil
}

func (a *adminService) Shutdown(ctx context.Context, _ *chatbusv1.ShutdownRequest) (*chatbusv1.ShutdownResponse, error) {
	if err := a.s.Shutdown(ctx); err != nil {
		return nil, toStatus(err)
	}
	return &chatbusv1.ShutdownResponse{Pid: int32(os.Getpid())}, nil
}
