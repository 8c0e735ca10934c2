package server

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/doctor"
)

// doctorService implements chatbus.v1.DoctorService over server/doctor.
type doctorService struct {
	chatbusv1.UnsafeDoctorServiceServer
	s *Server
}

// DefaultLease is the lease of a Prepare that names none.
const DefaultLease = 60 * time.Second

func (d *doctorService) Prepare(ctx context.Context, req *chatbusv1.PrepareRequest) (*chatbusv1.PrepareResponse, error) {
	lease := DefaultLease
	if req.GetLease() != nil {
		lease = req.GetLease().AsDuration()
	}
	o, err := d.s.doctor.Prepare(ctx, req.GetProvider(), req.GetRequestId(), lease)
	if err != nil {
		return nil, toStatus(err)
	}
	return &chatbusv1.PrepareResponse{Owner: ownerToProto(o)}, nil
}

func (d *doctorService) Commit(ctx context.Context, req *chatbusv1.CommitRequest) (*chatbusv1.CommitResponse, error) {
	o, err := d.s.doctor.Commit(ctx, req.GetProvider(), req.GetRequestId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &chatbusv1.CommitResponse{Owner: ownerToProto(o)}, nil
}

func (d *doctorService) Cancel(ctx context.Context, req *chatbusv1.CancelRequest) (*chatbusv1.CancelResponse, error) {
	o, err := d.s.doctor.Cancel(ctx, req.GetProvider(), req.GetRequestId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &chatbusv1.CancelResponse{Owner: ownerToProto(o)}, nil
}

func (d *doctorService) Status(ctx context.Context, req *chatbusv1.StatusRequest) (*chatbusv1.StatusResponse, error) {
	var names []string
	if req.GetProvider() != "" {
		names = []string{req.GetProvider()}
	}
	owners, err := d.s.doctor.Status(ctx, names...)
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &chatbusv1.StatusResponse{}
	for _, o := range owners {
		resp.Owners = append(resp.Owners, ownerToProto(o))
	}
	return resp, nil
}

func (d *doctorService) Restart(req *chatbusv1.RestartRequest, stream chatbusv1.DoctorService_RestartServer) error {
	opts := doctor.RestartOptions{Drain: req.GetDrain().AsDuration(), Deadline: req.GetDeadline().AsDuration()}
	out, err := d.s.doctor.Restart(stream.Context(), req.GetProvider(), opts, func(p doctor.Progress) {
		// A caller that stops reading does not stop the restart.
		_ = stream.Send(&chatbusv1.RestartResponse{Msg: &chatbusv1.RestartResponse_Progress{Progress: &chatbusv1.RestartProgress{
			Phase: restartPhases.Proto(p.Phase), Message: p.Message, Occupancy: occupancyToProto(p.Occupancy),
			Blockers: p.Blockers, Elapsed: durationpb.New(p.Elapsed),
		}}})
	})
	if err != nil {
		return toStatus(err)
	}
	return stream.Send(&chatbusv1.RestartResponse{Msg: &chatbusv1.RestartResponse_Outcome{Outcome: &chatbusv1.RestartOutcome{
		Kind: outcomeKinds.Proto(out.Kind), Reason: outcomeReasons.Proto(out.Reason), Message: out.Message,
		Old: ownerToProto(out.Old), Successor: ownerToProto(out.Successor), Adopted: out.Adopted, ExitProof: out.ExitProof,
		Elapsed: durationpb.New(out.Elapsed), PrepareToReady: durationpb.New(out.PrepareToReady),
	}}})
}

func occupancyToProto(o *providerv1.Occupancy) *chatbusv1.Occupancy {
	if o == nil {
		return nil
	}
	return &chatbusv1.Occupancy{Attached: o.GetAttached(), Inflight: o.GetInflight(), Inbound: o.GetInbound(),
		Outbound: o.GetOutbound(), Cleanup: o.GetCleanup()}
}

func ownerToProto(o doctor.Owner) *chatbusv1.Owner {
	out := &chatbusv1.Owner{
		Provider: o.Provider, Present: o.Present, OwnerId: o.OwnerID, Generation: o.Generation,
		Pid: int32(o.Incarnation.PID), StartTime: o.Incarnation.StartTime, Phase: fencePhases.Proto(o.Phase),
		Admitting: o.Admitting, Occupancy: occupancyToProto(o.Occupancy), RequestId: o.RequestID,
	}
	if !o.LeaseExpires.IsZero() {
		out.LeaseExpiresAt = timestamppb.New(o.LeaseExpires)
	}
	return out
}
