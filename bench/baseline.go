package bench

import (
	"context"
	"errors"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// The baseline is a bare gRPC server: grpc.health.v1 and two server
// streams, no interceptors, no store. It is what the supervisor's figures
// are divided by, measured in the same run on the same kind of Unix
// socket. Its messages are the supervisor's own (chatbus.v1
// SubscribeResponse carrying an Update with the same Telegram-like
// payload), so a raw hop and a forwarded update move the same bytes.
//
// The service is written by hand (no .proto): it reuses well-known and
// chatbus.v1 message types, and nothing but this package speaks it.
const baselineService = "chatbus.bench.v1.BaselineService"

// Full method names.
const (
	pushMethod = "/" + baselineService + "/Push"
	holdMethod = "/" + baselineService + "/Hold"
)

// MaxMessageBytes matches the supervisor's message bound.
const MaxMessageBytes = 4 << 20

var baselineDesc = grpc.ServiceDesc{
	ServiceName: baselineService,
	HandlerType: (*any)(nil),
	Streams: []grpc.StreamDesc{
		{StreamName: "Push", Handler: pushHandler, ServerStreams: true},
		{StreamName: "Hold", Handler: holdHandler, ServerStreams: true},
	},
	Metadata: "bench/baseline.go",
}

var (
	pushStreamDesc = grpc.StreamDesc{StreamName: "Push", ServerStreams: true}
	holdStreamDesc = grpc.StreamDesc{StreamName: "Hold", ServerStreams: true}
)

// NewBaselineServer returns the bare server, with the supervisor's
// transport options (message bounds, concurrent streams, keepalive policy
// and the pings of idle connections at the supervisor's default 20s, 10s)
// and none of its interceptors. Health reports SERVING for "".
func NewBaselineServer() *grpc.Server {
	gs := grpc.NewServer(
		grpc.MaxRecvMsgSize(MaxMessageBytes),
		grpc.MaxSendMsgSize(MaxMessageBytes),
		grpc.MaxConcurrentStreams(1<<16),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: 20 * time.Second, Timeout: 10 * time.Second}),
	)
	hs := health.NewServer()
	hs.SetServingStatus("", grpc_health_v1.HealthCheckResponse_SERVING)
	grpc_health_v1.RegisterHealthServer(gs, hs)
	gs.RegisterService(&baselineDesc, nil)
	return gs
}

// PushRequest asks the baseline server for Count updates, one every
// Interval (0: as fast as the stream takes them).
type PushRequest struct {
	Count    int
	Interval time.Duration
}

// SampleUpdate is the update the baseline server pushes (and the shape of
// what provider-bench injects): thread 1001 of chat -1009000000001.
func SampleUpdate() *chatbusv1.Update {
	const chat, thread = -1009000000001, 1001
	now := time.Now()
	text, payload := TelegramUpdate(nil, 1, chat, thread, now)
	return &chatbusv1.Update{
		Seq:              1,
		Target:           &chatbusv1.Target{Provider: "bench", ChatId: chat, ThreadId: thread},
		Kind:             chatbusv1.UpdateKind_UPDATE_KIND_MESSAGE,
		PlatformUpdateId: 1,
		FromUserId:       UserID,
		Text:             text,
		Payload:          payload,
		ReceivedAt:       timestamppb.New(now),
	}
}

func pushHandler(_ any, ss grpc.ServerStream) error {
	req := new(structpb.Struct)
	if err := ss.RecvMsg(req); err != nil {
		return err
	}
	count := int(req.GetFields()["count"].GetNumberValue())
	interval := time.Duration(req.GetFields()["interval_ns"].GetNumberValue())
	tmpl := SampleUpdate()
	start := time.Now()
	for i := range count {
		if interval > 0 {
			if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
				time.Sleep(d)
			}
		}
		// A fresh message per update, as the supervisor builds one per
		// journalled update.
		now := time.Now()
		u := &chatbusv1.Update{
			Seq: uint64(i + 1), Target: tmpl.Target, Kind: tmpl.Kind, PlatformUpdateId: int64(i + 1),
			FromUserId: tmpl.FromUserId, Payload: tmpl.Payload, ReceivedAt: timestamppb.New(now),
		}
		u.Text = Text(now)
		if err := ss.SendMsg(&chatbusv1.SubscribeResponse{Update: u}); err != nil {
			return err
		}
	}
	return nil
}

func holdHandler(_ any, ss grpc.ServerStream) error {
	req := new(emptypb.Empty)
	if err := ss.RecvMsg(req); err != nil {
		return err
	}
	// Headers first, as the supervisor's Subscribe does: the caller knows
	// its stream is in place.
	if err := ss.SendHeader(nil); err != nil {
		return err
	}
	<-ss.Context().Done()
	return nil
}

// Push opens a Push stream on cc and calls fn with each update and the
// time it arrived, until the server has sent them all (nil), ctx ends or
// fn fails.
func Push(ctx context.Context, cc grpc.ClientConnInterface, req PushRequest, fn func(u *chatbusv1.Update, at time.Time) error) error {
	st, err := cc.NewStream(ctx, &pushStreamDesc, pushMethod)
	if err != nil {
		return err
	}
	body, err := structpb.NewStruct(map[string]any{"count": req.Count, "interval_ns": float64(req.Interval)})
	if err != nil {
		return err
	}
	if err := st.SendMsg(body); err != nil {
		return err
	}
	if err := st.CloseSend(); err != nil {
		return err
	}
	for {
		m := new(chatbusv1.SubscribeResponse)
		if err := st.RecvMsg(m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := fn(m.GetUpdate(), time.Now()); err != nil {
			return err
		}
	}
}

// Hold opens a Hold stream on cc and returns once the server's headers
// arrived (the stream is in place). The stream stays open until ctx ends.
func Hold(ctx context.Context, cc grpc.ClientConnInterface) error {
	st, err := cc.NewStream(ctx, &holdStreamDesc, holdMethod)
	if err != nil {
		return err
	}
	if err := st.SendMsg(&emptypb.Empty{}); err != nil {
		return err
	}
	if err := st.CloseSend(); err != nil {
		return err
	}
	_, err = st.Header()
	return err
}
