package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// busService implements chatbus.v1.BusService. Requests are validated by
// the interceptor chain before they get here; the work is the hub's.
type busService struct {
	chatbusv1.UnsafeBusServiceServer
	s *Server
}

func (b *busService) Register(ctx context.Context, req *chatbusv1.RegisterRequest) (*chatbusv1.RegisterResponse, error) {
	threadName := req.GetThreadName()
	if threadName == "" && req.GetCwd() != "" {
		threadName = filepath.Base(req.GetCwd())
	}
	hreq := hub.Request{Provider: req.GetProvider(), HandoffToken: req.GetHandoffToken()}
	if t := req.GetPreviousTarget(); t != nil {
		pt := targetFromProto(t)
		hreq.PreviousTarget = &pt
	}
	reg, err := b.s.core.Register(ctx, registry.Info{
		InstanceID: req.GetInstanceId(),
		ProfileKey: req.GetProfileKey(),
		PID:        req.GetPid(),
		Cwd:        req.GetCwd(),
		ThreadName: threadName,
		Agent:      req.GetAgent(),
	}, hreq)
	if err != nil {
		return nil, toStatus(err)
	}
	b.noteWayIn(reg.Follower, req.GetWayIn(), req.GetWayInDetail())
	b.s.launched(req.GetLaunchId(), reg)
	resp := &chatbusv1.RegisterResponse{
		Session:           &chatbusv1.Session{InstanceId: reg.Follower.InstanceID, Token: reg.Follower.Token},
		Origin:            originToProto(reg.Origin),
		HeartbeatInterval: durationpb.New(b.s.cfg.HeartbeatInterval),
		StaleAfter:        durationpb.New(b.s.cfg.StaleAfter),
		// While its Subscribe stream is open.
		SubscribedHeartbeatInterval: durationpb.New(b.s.cfg.SubscribedHeartbeatInterval),
	}
	if reg.Origin != hub.OriginDetached {
		d, _ := b.s.provs.Description(reg.Binding.Target.Provider)
		resp.Binding = bindingToProto(reg.Binding, d.Platform)
		resp.Capabilities = capabilitiesToProto(d)
	}
	return resp, nil
}

// follower resolves the caller's session.
func (b *busService) follower(sess *chatbusv1.Session) (*registry.Follower, error) {
	f, err := b.s.core.Touch(sess.GetInstanceId(), sess.GetToken())
	return f, toStatus(err)
}

func (b *busService) Heartbeat(_ context.Context, req *chatbusv1.HeartbeatRequest) (*chatbusv1.HeartbeatResponse, error) {
	f, err := b.follower(req.GetSession())
	if err != nil {
		return nil, err
	}
	b.noteWayIn(f, req.GetWayIn(), req.GetWayInDetail())
	b.noteDeliveries(f, req.GetDeliveryReports())
	resp := &chatbusv1.HeartbeatResponse{ServerTime: timestamppb.Now()}
	if b.s.draining.Load() {
		resp.Notices = append(resp.Notices, chatbusv1.Notice_NOTICE_SUPERVISOR_DRAINING)
	}
	if bnd, ok := b.s.core.ThreadNotice(f); ok {
		resp.Notices = append(resp.Notices, chatbusv1.Notice_NOTICE_THREAD_REPLACED)
		resp.Binding = bindingToProto(bnd, b.s.platform(bnd.Target.Provider))
	}
	if _, provider := f.Binding(); provider != "" {
		if serving, why := b.s.provs.Serving(provider); !serving {
			resp.Notices = append(resp.Notices, chatbusv1.Notice_NOTICE_PROVIDER_NOT_SERVING)
			resp.ProviderDetail = provider + ": " + why
		}
	}
	return resp, nil
}

// noteWayIn records what a follower says of its way in to its session
// and publishes a change (unspecified: it says nothing new).
func (b *busService) noteWayIn(f *registry.Follower, w chatbusv1.WayIn, detail string) {
	st := wayInFromProto(w, detail)
	if !f.SetWayIn(st) {
		return
	}
	msg := "way in to the session: " + st.WayIn.String()
	if detail != "" {
		msg += " (" + detail + ")"
	}
	b.s.hub.Publish(events.Event{Kind: events.FollowerWayIn, InstanceID: f.InstanceID, Message: msg,
		Attrs: map[string]string{"way_in": st.WayIn.String(), "detail": detail}})
}

// noteDeliveries publishes what a follower's agent session reported of
// the updates handed to it.
func (b *busService) noteDeliveries(f *registry.Follower, reports []*chatbusv1.DeliveryReport) {
	for _, r := range reports {
		kind := events.FollowerDeliveryFailed
		if r.GetStatus() == chatbusv1.DeliveryStatus_DELIVERY_STATUS_HELD {
			kind = events.FollowerDeliveryHeld
		}
		status := strings.ToLower(strings.TrimPrefix(r.GetStatus().String(), "DELIVERY_STATUS_"))
		msg := fmt.Sprintf("the agent session reported update %d %s", r.GetSeq(), status)
		if r.GetDetail() != "" {
			msg += ": " + r.GetDetail()
		}
		b.s.hub.Publish(events.Event{Kind: kind, InstanceID: f.InstanceID, Message: msg,
			Attrs: map[string]string{"status": status, "seq": strconv.FormatUint(r.GetSeq(), 10), "detail": r.GetDetail()}})
	}
}

func (b *busService) Subscribe(req *chatbusv1.SubscribeRequest, stream chatbusv1.BusService_SubscribeServer) error {
	f, err := b.follower(req.GetSession())
	if err != nil {
		return err
	}
	// Headers first: the caller knows its stream is in place.
	if err := stream.SendHeader(metadata.MD{}); err != nil {
		return err
	}
	platform := b.s.platformOf(f)
	// A follower that asks for batches (max_batch > 1) gets up to that many
	// updates per message in updates; one that does not, one per message in
	// update, as before. A change of the binding's thread is sent as
	// binding_changed, between updates.
	batched := req.GetMaxBatch() > 1
	// A person's request that the session stop (the chat's stop command)
	// is sent as stop_requested, between updates, on every stream the
	// session opens after it.
	err = b.s.core.StreamNotices(stream.Context(), f, req.GetAfterSeq(), int(req.GetMaxBatch()), func(ups []store.Encoded) error {
		return stream.SendMsg(subscribeResponse(ups, platform, batched))
	}, hub.Notices{
		ThreadChanged: func() error {
			bnd, err := b.s.core.BindingOf(f)
			if err != nil {
				return nil // it ended meanwhile: Stream says how
			}
			return stream.Send(&chatbusv1.SubscribeResponse{BindingChanged: bindingToProto(bnd, b.s.platform(bnd.Target.Provider))})
		},
		StopRequested: func(r *registry.StopRequest) error {
			return stream.Send(&chatbusv1.SubscribeResponse{StopRequested: &chatbusv1.StopRequest{RequestedBy: r.By, Provider: r.Provider}})
		},
	})
	if errors.Is(err, context.Canceled) && stream.Context().Err() != nil {
		return nil // the caller went away
	}
	return toStatus(err)
}

func (b *busService) Ack(_ context.Context, req *chatbusv1.AckRequest) (*chatbusv1.AckResponse, error) {
	f, err := b.follower(req.GetSession())
	if err != nil {
		return nil, err
	}
	acked, err := b.s.core.Ack(f, req.GetSeq())
	if err != nil {
		return nil, toStatus(err)
	}
	return &chatbusv1.AckResponse{AckedThrough: acked}, nil
}

func (b *busService) Call(ctx context.Context, req *chatbusv1.CallRequest) (*chatbusv1.CallResponse, error) {
	start := time.Now()
	f, err := b.follower(req.GetSession())
	if err != nil {
		b.s.recordCall(nil, req.GetMethod(), status.Code(err), start)
		return nil, err
	}
	res, err := b.s.core.Call(ctx, f, req.GetMethod(), req.GetParamsJson(), req.GetIdempotencyKey())
	if err != nil {
		err = toStatus(err)
		b.s.recordCall(f, req.GetMethod(), status.Code(err), start)
		return nil, err
	}
	b.s.recordCall(f, req.GetMethod(), codes.OK, start)
	return &chatbusv1.CallResponse{ResultJson: res.JSON, References: refsToProto(res.Refs)}, nil
}

func (b *busService) UploadFile(stream chatbusv1.BusService_UploadFileServer) error {
	first, err := stream.Recv()
	if err != nil {
		return toStatus(err)
	}
	hdr := first.GetHeader()
	if hdr == nil {
		return toStatus(errUploadHeader)
	}
	f, err := b.follower(hdr.GetSession())
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	go func() {
		for {
			msg, err := stream.Recv()
			if err == io.EOF {
				pw.Close()
				return
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			if _, err := pw.Write(msg.GetChunk()); err != nil {
				return // the reader gave up
			}
		}
	}()
	res, err := b.s.core.Upload(stream.Context(), f, hub.Upload{Filename: hdr.GetFilename(), Caption: hdr.GetCaption(), Kind: hdr.GetKind(), Key: hdr.GetIdempotencyKey()}, pr)
	pr.CloseWithError(io.ErrClosedPipe)
	if err != nil {
		return toStatus(err)
	}
	return stream.SendAndClose(&chatbusv1.UploadFileResponse{ResultJson: res.JSON, References: refsToProto(res.Refs)})
}

func (b *busService) DownloadFile(req *chatbusv1.DownloadFileRequest, stream chatbusv1.BusService_DownloadFileServer) error {
	f, err := b.follower(req.GetSession())
	if err != nil {
		return err
	}
	first := true
	return toStatus(b.s.core.Download(stream.Context(), f, req.GetFileId(), func(chunk []byte, size int64, path string) error {
		msg := &chatbusv1.DownloadFileResponse{Chunk: chunk}
		if first {
			msg.Size, msg.FilePath, first = size, path, false
		}
		return stream.Send(msg)
	}))
}

func (b *busService) Suspend(_ context.Context, req *chatbusv1.SuspendRequest) (*chatbusv1.SuspendResponse, error) {
	f, err := b.follower(req.GetSession())
	if err != nil {
		return nil, err
	}
	token, expires, err := b.s.core.Suspend(f)
	if err != nil {
		return nil, toStatus(err)
	}
	return &chatbusv1.SuspendResponse{HandoffToken: token, ExpiresAt: timestamppb.New(expires)}, nil
}

func (b *busService) Unregister(_ context.Context, req *chatbusv1.UnregisterRequest) (*chatbusv1.UnregisterResponse, error) {
	f, err := b.follower(req.GetSession())
	if err != nil {
		return nil, err
	}
	b.s.core.Unregister(f)
	return &chatbusv1.UnregisterResponse{}, nil
}

// platformOf names the platform of the follower's binding, "" if it has
// none or its provider has not described itself yet. It reads what the
// registry holds (the binding's provider never changes while a follower
// holds it), not the stored binding: a store read on the Subscribe
// handler's goroutine grew that goroutine's stack from 8 to 16 KiB, kept
// for as long as the stream stays open (docs/performance.md).
func (s *Server) platformOf(f *registry.Follower) string {
	_, provider := f.Binding()
	if provider == "" {
		return ""
	}
	return s.platform(provider)
}

// platform names the platform of a provider, "" until it described itself.
func (s *Server) platform(provider string) string {
	d, _ := s.provs.Description(provider)
	return d.Platform
}
