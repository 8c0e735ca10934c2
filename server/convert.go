package server

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/registry"
)

func followerToProto(f *registry.Follower) *chatbusv1.Follower {
	return &chatbusv1.Follower{
		InstanceId:    f.InstanceID,
		ProfileKey:    f.ProfileKey,
		Pid:           f.PID,
		Cwd:           f.Cwd,
		ThreadName:    f.ThreadName,
		ConnectedAt:   timestamppb.New(f.ConnectedAt),
		LastHeartbeat: timestamppb.New(f.LastSeen()),
		Subscribed:    f.Subscribed(),
		Origin:        chatbusv1.Origin_ORIGIN_DETACHED,
	}
}

func eventToProto(e events.Event) *chatbusv1.Event {
	return &chatbusv1.Event{
		Id:         e.ID,
		Time:       timestamppb.New(e.Time),
		Kind:       chatbusv1.EventKind(e.Kind),
		Message:    e.Message,
		InstanceId: e.InstanceID,
		Attrs:      e.Attrs,
	}
}
