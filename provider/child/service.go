package child

import (
	"github.com/chatbus/chatbus/provider"

	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/chatbus/chatbus/internal/proc"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// downloadChunk is the size of one DownloadFile message.
const downloadChunk = 64 << 10

// service is ProviderService: proto in, Server/gate/Platform call, proto
// out. Errors leave through toStatus.
type service struct {
	providerv1.UnsafeProviderServiceServer
	s *Server
}

func (v *service) Identify(ctx context.Context, _ *providerv1.IdentifyRequest) (*providerv1.IdentifyResponse, error) {
	id, err := v.s.identify(ctx)
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	return &providerv1.IdentifyResponse{
		Name:        v.s.cfg.Name,
		OwnerId:     id.OwnerID,
		Generation:  v.s.cfg.Generation,
		Incarnation: incarnationProto(v.s.inc),
		Account:     id.Account,
	}, nil
}

func (v *service) Describe(context.Context, *providerv1.DescribeRequest) (*providerv1.DescribeResponse, error) {
	d := v.s.describe.Proto()
	d.Generation = v.s.cfg.Generation
	return d, nil
}

func (v *service) Updates(stream grpc.BidiStreamingServer[providerv1.UpdatesRequest, providerv1.UpdatesResponse]) error {
	return v.s.updates(stream)
}

func (v *service) Call(ctx context.Context, req *providerv1.CallRequest) (*providerv1.CallResponse, error) {
	if req.GetTarget().GetChat() == "" {
		// Unscoped calls are never made: the thread is what keeps a
		// follower inside its own conversation.
		return nil, provider.ToStatus(fmt.Errorf("call %s names no target thread: %w", req.GetMethod(), provider.ErrInvalid))
	}
	release, err := v.s.gate.admit(cOutbound, 1)
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	defer release()
	t := provider.TargetFromProto(req.GetTarget())
	if isVerb(req.GetMethod()) {
		res, err := v.s.callVerb(ctx, t, req.GetMethod(), req.GetParamsJson(), req.GetIdempotencyKey())
		if err != nil {
			return nil, provider.ToStatus(err)
		}
		return &providerv1.CallResponse{ResultJson: verbResult(res.Refs), References: provider.RefsProto(res.Refs), Pause: res.Pause.Proto()}, nil
	}
	res, err := v.s.cfg.Platform.Call(ctx, t, req.GetMethod(), req.GetParamsJson(), req.GetIdempotencyKey())
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	return &providerv1.CallResponse{ResultJson: res.JSON, References: provider.RefsProto(res.Refs), Pause: res.Pause.Proto()}, nil
}

func (v *service) UploadFile(stream grpc.ClientStreamingServer[providerv1.UploadFileRequest, providerv1.UploadFileResponse]) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	h := first.GetHeader()
	if h == nil {
		return status.Error(codes.InvalidArgument, "the first UploadFile message must be Header")
	}
	release, err := v.s.gate.admit(cOutbound, 1)
	if err != nil {
		return provider.ToStatus(err)
	}
	defer release()
	t := provider.TargetFromProto(h.GetTarget())
	if t.Chat == "" {
		return provider.ToStatus(fmt.Errorf("upload names no target thread: %w", provider.ErrInvalid))
	}
	r := &chunkReader{recv: stream.Recv}
	res, err := v.s.cfg.Platform.Upload(stream.Context(), provider.UploadHeader{
		Target:   t,
		Filename: h.GetFilename(),
		Caption:  h.GetCaption(),
		Kind:     h.GetKind(),
	}, r)
	if err != nil {
		if r.err != nil && r.err != io.EOF && !errors.Is(err, r.err) {
			// The platform failed because the upload stream did.
			return provider.ToStatus(r.err)
		}
		return provider.ToStatus(err)
	}
	return stream.SendAndClose(&providerv1.UploadFileResponse{ResultJson: res.JSON, References: provider.RefsProto(res.Refs)})
}

// chunkReader reads an upload's chunks as one byte stream. Only the
// Platform's Upload reads it, from one goroutine.
type chunkReader struct {
	recv func() (*providerv1.UploadFileRequest, error)
	buf  []byte
	err  error // sticky: io.EOF at the end, or why the stream failed
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		m, err := r.recv()
		switch {
		case err != nil:
			r.err = err // io.EOF when the supervisor closed its side
		case m.GetHeader() != nil:
			r.err = status.Error(codes.InvalidArgument, "UploadFile: a second Header")
		default:
			r.buf = m.GetChunk()
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

func (v *service) DownloadFile(req *providerv1.DownloadFileRequest, stream grpc.ServerStreamingServer[providerv1.DownloadFileResponse]) error {
	release, err := v.s.gate.admit(cOutbound, 1)
	if err != nil {
		return provider.ToStatus(err)
	}
	defer release()
	rc, size, path, err := v.s.cfg.Platform.Download(stream.Context(), req.GetFileId())
	if err != nil {
		return provider.ToStatus(err)
	}
	if rc == nil {
		return status.Error(codes.Internal, "platform Download returned no reader")
	}
	defer rc.Close()
	buf := make([]byte, downloadChunk)
	first := true
	for {
		n, rerr := io.ReadFull(rc, buf)
		if n > 0 || first {
			msg := &providerv1.DownloadFileResponse{Chunk: buf[:n]}
			if first {
				msg.Size, msg.FilePath = size, path
				first = false
			}
			if err := stream.Send(msg); err != nil {
				return err
			}
		}
		switch {
		case rerr == nil:
		case errors.Is(rerr, io.EOF), errors.Is(rerr, io.ErrUnexpectedEOF):
			return nil
		default:
			return provider.ToStatus(rerr)
		}
	}
}

func (v *service) ProvisionTarget(ctx context.Context, req *providerv1.ProvisionTargetRequest) (*providerv1.ProvisionTargetResponse, error) {
	release, err := v.s.gate.admit(cInflight, 1)
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	defer release()
	preq := provider.ProvisionRequest{Chat: req.GetChat(), Name: req.GetName()}
	if r := req.GetReuse(); r.GetChat() != "" {
		t := provider.TargetFromProto(r)
		preq.Reuse = &t
	}
	t, err := v.s.cfg.Platform.Provision(ctx, preq)
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	return &providerv1.ProvisionTargetResponse{Name: t.Name, Target: provider.TargetProto(t.Target), Reused: t.Reused}, nil
}

func (v *service) CloseTarget(ctx context.Context, req *providerv1.CloseTargetRequest) (*providerv1.CloseTargetResponse, error) {
	release, err := v.s.gate.begin(cCleanup)
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	defer release()
	t := provider.TargetFromProto(req.GetTarget())
	if t.Chat == "" {
		return nil, provider.ToStatus(fmt.Errorf("close names no target thread: %w", provider.ErrInvalid))
	}
	if err := v.s.cfg.Platform.CloseTarget(ctx, t); err != nil {
		return nil, provider.ToStatus(err)
	}
	return &providerv1.CloseTargetResponse{}, nil
}

func (v *service) Attach(_ context.Context, req *providerv1.AttachRequest) (*providerv1.AttachResponse, error) {
	t := provider.TargetFromProto(req.GetTarget())
	if err := v.s.gate.attach(req.GetInstanceId(), t); err != nil {
		return nil, provider.ToStatus(err)
	}
	if w, ok := v.s.cfg.Platform.(provider.AttachWatcher); ok {
		w.Attached(req.GetInstanceId(), t)
	}
	return &providerv1.AttachResponse{}, nil
}

func (v *service) Detach(_ context.Context, req *providerv1.DetachRequest) (*providerv1.DetachResponse, error) {
	if v.s.gate.detach(req.GetInstanceId()) {
		if w, ok := v.s.cfg.Platform.(provider.AttachWatcher); ok {
			w.Detached(req.GetInstanceId())
		}
	}
	return &providerv1.DetachResponse{}, nil
}

// WatchOccupancy sends the occupancy and the fence now, then each new
// value of either. A slow watcher skips intermediate values: it always gets
// the latest, and nothing queues up.
func (v *service) WatchOccupancy(_ *providerv1.WatchOccupancyRequest, stream grpc.ServerStreamingServer[providerv1.WatchOccupancyResponse]) error {
	var last FenceStatus
	for first := true; ; first = false {
		st, changed := v.s.gate.watchStatus()
		if first || st.Occupancy != last.Occupancy || st.Admitting != last.Admitting || st.Phase != last.Phase {
			resp := &providerv1.WatchOccupancyResponse{Occupancy: st.Occupancy.Proto(), Admitting: st.Admitting, Phase: st.Phase.Proto()}
			if err := stream.Send(resp); err != nil {
				return err
			}
			last = st
		}
		select {
		case <-changed:
		case <-stream.Context().Done():
			return status.FromContextError(stream.Context().Err()).Err()
		case <-v.s.stopCtx.Done():
			return provider.ToStatus(provider.ErrShuttingDown)
		}
	}
}

func (v *service) Prepare(ctx context.Context, req *providerv1.PrepareRequest) (*providerv1.PrepareResponse, error) {
	f, owner, err := v.fence(ctx, req.GetFence())
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	st, err := v.s.gate.prepare(f, owner, req.GetLease().AsDuration())
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	return &providerv1.PrepareResponse{Occupancy: st.Occupancy.Proto(), LeaseExpiresAt: timestampOrNil(st)}, nil
}

func (v *service) Commit(ctx context.Context, req *providerv1.CommitRequest) (*providerv1.CommitResponse, error) {
	f, owner, err := v.fence(ctx, req.GetFence())
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	occ, err := v.s.gate.commit(f, owner)
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	return &providerv1.CommitResponse{Occupancy: occ.Proto()}, nil
}

func (v *service) Cancel(ctx context.Context, req *providerv1.CancelRequest) (*providerv1.CancelResponse, error) {
	f, owner, err := v.fence(ctx, req.GetFence())
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	if err := v.s.gate.cancel(f, owner); err != nil {
		return nil, provider.ToStatus(err)
	}
	return &providerv1.CancelResponse{}, nil
}

func (v *service) Status(context.Context, *providerv1.StatusRequest) (*providerv1.StatusResponse, error) {
	st := v.s.gate.status()
	resp := &providerv1.StatusResponse{
		Phase:          st.Phase.Proto(),
		Admitting:      st.Admitting,
		Occupancy:      st.Occupancy.Proto(),
		LeaseExpiresAt: timestampOrNil(st),
		RequestId:      st.RequestID,
	}
	if h := v.s.cfg.Health; h != nil {
		if serving, why := h.Serving(); !serving {
			resp.HealthDetail = why
		}
	}
	return resp, nil
}

// fence converts a wire fence and, when it names an owner id, looks up
// this provider's (the platform is asked at most until it answers once).
func (v *service) fence(ctx context.Context, p *providerv1.Fence) (fenceReq, string, error) {
	f := fenceReq{RequestID: p.GetRequestId(), OwnerID: p.GetOwnerId(), Generation: p.GetGeneration()}
	if inc := p.GetIncarnation(); inc != nil {
		f.Incarnation = &proc.Incarnation{PID: int(inc.GetPid()), StartTime: inc.GetStartTime()}
	}
	if f.OwnerID == "" {
		return f, "", nil
	}
	id, err := v.s.identify(ctx)
	if err != nil {
		return f, "", err
	}
	return f, id.OwnerID, nil
}

func incarnationProto(inc proc.Incarnation) *providerv1.Incarnation {
	return &providerv1.Incarnation{Pid: int32(inc.PID), StartTime: inc.StartTime}
}

func timestampOrNil(st FenceStatus) *timestamppb.Timestamp {
	if st.LeaseExpires.IsZero() {
		return nil
	}
	return timestamppb.New(st.LeaseExpires)
}

func (v *service) ConvertUpdate(ctx context.Context, req *providerv1.ConvertUpdateRequest) (*providerv1.ConvertUpdateResponse, error) {
	u, err := v.s.convertUpdate(ctx, req)
	if err != nil {
		return nil, provider.ToStatus(err)
	}
	return &providerv1.ConvertUpdateResponse{Update: u}, nil
}
