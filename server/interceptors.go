package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"buf.build/go/protovalidate"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/auth"
	protovalidatemw "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/protovalidate"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/selector"
	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	serverauth "github.com/chatbus/chatbus/server/auth"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/safesocket"
)

// interceptorOptions builds the one chain every RPC passes, outermost first:
// recovery, peer uid, bearer secret (not for health), logging,
// undecodable requests (codec.go), validation. A call refused by the peer
// or secret check is reported once, by refusals (rate-limited per peer),
// never again as a "finished call".
func (s *Server) interceptorOptions() ([]grpc.ServerOption, error) {
	validator, err := protovalidate.New()
	if err != nil {
		return nil, fmt.Errorf("protovalidate: %w", err)
	}
	rec := recovery.WithRecoveryHandlerContext(func(ctx context.Context, p any) error {
		s.log.Error().Str("panic", fmt.Sprint(p)).Msg("handler panicked")
		return status.Error(codes.Internal, "internal error")
	})
	needsSecret := selector.MatchFunc(func(_ context.Context, c interceptors.CallMeta) bool {
		return c.Service != grpc_health_v1.Health_ServiceDesc.ServiceName
	})
	g := &gatekeeper{s: s, lim: newRefusalLimiter(nil)}
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(
			recovery.UnaryServerInterceptor(rec),
			g.peerUnary,
			selector.UnaryServerInterceptor(auth.UnaryServerInterceptor(g.checkSecret), needsSecret),
			s.logUnary,
			s.fenceUnary,
			badRequestUnary,
			protovalidatemw.UnaryServerInterceptor(validator),
		),
		grpc.ChainStreamInterceptor(
			recovery.StreamServerInterceptor(rec),
			g.peerStream,
			selector.StreamServerInterceptor(auth.StreamServerInterceptor(g.checkSecret), needsSecret),
			s.logStream,
			s.fenceStream,
			badRequestStream,
			protovalidatemw.StreamServerInterceptor(offStack{validator}),
		),
	}, nil
}

// gatekeeper is the peer and secret checks of one server, with the
// limiter of their refusals' reports.
type gatekeeper struct {
	s   *Server
	lim *refusalLimiter
}

// offStack validates on a short-lived goroutine. Validation is deep enough
// to grow a goroutine's stack by several KiB, and a stream's handler
// goroutine lives as long as the stream: every open Subscribe kept ~8 KiB
// of stack it no longer used until a GC shrank it (docs/performance.md).
// Streams validate once per received message, so the goroutine is cheap
// beside what it saves; unary handlers end at once and validate inline.
type offStack struct{ protovalidate.Validator }

func (v offStack) Validate(msg proto.Message, opts ...protovalidate.ValidationOption) error {
	done := make(chan error, 1)
	go func() { done <- v.Validator.Validate(msg, opts...) }()
	return <-done
}

// rpcLevel logs successful calls at debug (heartbeats are frequent) and
// failures by their code.
func rpcLevel(code codes.Code) zerolog.Level {
	switch code {
	case codes.OK, codes.Canceled:
		return zerolog.DebugLevel
	case codes.Internal, codes.Unknown, codes.DataLoss, codes.Unimplemented:
		return zerolog.ErrorLevel
	}
	return zerolog.WarnLevel
}

// The logging interceptors log each finished call at rpcLevel of its code.
// They are ours rather than go-grpc-middleware's logging interceptors,
// which build every field of a call before knowing whether it will be
// logged: at the default level that was 23 % of a heartbeat's supervisor
// CPU, and their allocations grew every handler's stack (docs/performance.md).
// Here a call that is not logged costs a clock read.

func (s *Server) logUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	resp, err := handler(ctx, req)
	s.metrics.RPC(info.FullMethod, status.Code(err), time.Since(start), true)
	s.logCall(ctx, info.FullMethod, "unary", start, err)
	return resp, err
}

func (s *Server) logStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	start := time.Now()
	err := handler(srv, ss)
	s.metrics.RPC(info.FullMethod, status.Code(err), 0, false)
	kind := "server_stream"
	switch {
	case info.IsClientStream && info.IsServerStream:
		kind = "bidi_stream"
	case info.IsClientStream:
		kind = "client_stream"
	}
	s.logCall(ss.Context(), info.FullMethod, kind, start, err)
	return err
}

func (s *Server) logCall(ctx context.Context, fullMethod, kind string, start time.Time, err error) {
	code := status.Code(err)
	ev := s.rpcLog.WithLevel(rpcLevel(code))
	if ev == nil { // below the log level: build nothing
		return
	}
	service, method, _ := strings.Cut(strings.TrimPrefix(fullMethod, "/"), "/")
	ev = ev.Str("grpc.service", service).Str("grpc.method", method).Str("grpc.method_type", kind).
		Str("grpc.code", code.String()).Float64("grpc.time_ms", float64(time.Since(start).Microseconds())/1000)
	if info, ok := safesocket.PeerFromContext(ctx); ok && info.Cred != nil {
		ev = ev.Int32("peer.pid", info.Cred.PID)
	}
	if err != nil {
		ev = ev.Str("grpc.error", status.Convert(err).Message())
	}
	ev.Msg("finished call")
}

// checkSecret is the bearer check (go-grpc-middleware auth).
func (g *gatekeeper) checkSecret(ctx context.Context) (context.Context, error) {
	token, err := auth.AuthFromMD(ctx, "bearer")
	if err != nil {
		g.refuse(ctx, "missing bearer secret")
		return nil, status.Error(codes.Unauthenticated, "missing \"authorization: Bearer <secret>\" metadata; the secret is in "+g.s.cfg.secretPath())
	}
	if !serverauth.Equal(token, g.s.secret) {
		g.refuse(ctx, "wrong bearer secret")
		return nil, status.Error(codes.Unauthenticated, "wrong bearer secret")
	}
	return ctx, nil
}

func (g *gatekeeper) checkPeer(ctx context.Context) error {
	info, ok := safesocket.PeerFromContext(ctx)
	if !ok || info.Cred == nil {
		g.refuse(ctx, "peer credentials unknown")
		return status.Error(codes.PermissionDenied, "peer credentials unavailable: connect over the supervisor's Unix socket")
	}
	if int(info.Cred.UID) != g.s.cfg.AllowUID {
		g.refuse(ctx, "peer uid "+strconv.Itoa(int(info.Cred.UID)))
		return status.Errorf(codes.PermissionDenied, "uid %d may not use this supervisor (it serves uid %d)", info.Cred.UID, g.s.cfg.AllowUID)
	}
	return nil
}

func (g *gatekeeper) peerUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := g.checkPeer(ctx); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (g *gatekeeper) peerStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := g.checkPeer(ss.Context()); err != nil {
		return err
	}
	return handler(srv, ss)
}

// refuse publishes an auth refusal as an auth_refused event (which the
// event hub logs), at most refusalBurst a second per peer pid; the next
// one published after some were held back says how many ("suppressed").
func (g *gatekeeper) refuse(ctx context.Context, reason string) {
	var pid int32
	info, hasCred := safesocket.PeerFromContext(ctx)
	hasCred = hasCred && info.Cred != nil
	if hasCred {
		pid = info.Cred.PID
	}
	ok, suppressed := g.lim.allow(pid)
	if !ok {
		return
	}
	attrs := map[string]string{"reason": reason}
	if m, ok := grpc.Method(ctx); ok {
		attrs["method"] = strings.TrimPrefix(m, "/")
	}
	if hasCred {
		attrs["peer_pid"] = strconv.Itoa(int(info.Cred.PID))
		attrs["peer_uid"] = strconv.Itoa(int(info.Cred.UID))
	}
	msg := "call refused: " + reason
	if suppressed > 0 {
		attrs["suppressed"] = strconv.Itoa(suppressed)
		msg += fmt.Sprintf(" (and %d more refusals of this peer not reported)", suppressed)
	}
	g.s.hub.Publish(events.Event{Kind: events.AuthRefused, Message: msg, Attrs: attrs})
}
