package server

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/store"
)

func (a *adminService) ListDeadLetters(_ context.Context, req *chatbusv1.ListDeadLettersRequest) (*chatbusv1.ListDeadLettersResponse, error) {
	dls, err := a.s.provs.DeadLetters(req.GetProvider())
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &chatbusv1.ListDeadLettersResponse{DeadLetters: make([]*chatbusv1.DeadLetter, 0, len(dls))}
	for _, d := range dls {
		resp.DeadLetters = append(resp.DeadLetters, deadLetterToProto(d))
	}
	return resp, nil
}

func (a *adminService) RetryDeadLetter(ctx context.Context, req *chatbusv1.RetryDeadLetterRequest) (*chatbusv1.RetryDeadLetterResponse, error) {
	in, err := a.s.provs.RetryDeadLetter(ctx, req.GetProvider(), req.GetId())
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &chatbusv1.RetryDeadLetterResponse{}
	if in != nil {
		u := in.Update
		u.Provider = req.GetProvider()
		resp.Update = updateToProto(u, a.s.platform(u.Provider))
	}
	return resp, nil
}

func (a *adminService) DropDeadLetter(_ context.Context, req *chatbusv1.DropDeadLetterRequest) (*chatbusv1.DropDeadLetterResponse, error) {
	if err := a.s.provs.DropDeadLetter(req.GetProvider(), req.GetId()); err != nil {
		return nil, toStatus(err)
	}
	return &chatbusv1.DropDeadLetterResponse{}, nil
}

func deadLetterToProto(d store.DeadLetter) *chatbusv1.DeadLetter {
	return &chatbusv1.DeadLetter{
		Provider: d.Provider, Id: d.ID, PlatformUpdateId: d.PlatformUpdateID, Kind: updateKinds.Proto(d.Kind),
		Error: d.Error, Payload: d.Payload, ReceivedAt: timestamppb.New(d.ReceivedAt), Retries: uint32(d.Retries),
		Cause: deadLetterCauses.Proto(d.Cause),
	}
}
