package server_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/safesocket"
	"github.com/chatbus/chatbus/server/servertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func register(t *testing.T, c *client.Client, instance string) *chatbusv1.RegisterResponse {
	t.Helper()
	resp, err := c.Bus.Register(ctxT(t), &chatbusv1.RegisterRequest{
		InstanceId: instance, ProfileKey: "manual:" + instance, Cwd: "/home/u/proj-" + instance, Pid: 4242,
	})
	if err != nil {
		t.Fatalf("register %s: %v", instance, err)
	}
	return resp
}

// TestLifecycle: register → heartbeat → subscribe → silence → pruned within
// one prune tick, stream ended, event seen on WatchEvents.
func TestLifecycle(t *testing.T) {
	// With its stream open a follower may stay silent 2×200ms+500ms.
	sup := servertest.Start(t, server.Config{HeartbeatInterval: 100 * time.Millisecond, StaleAfter: 500 * time.Millisecond,
		SubscribedHeartbeatInterval: 200 * time.Millisecond})
	c := sup.Dial(t)
	ctx := ctxT(t)

	watch, err := c.Admin.WatchEvents(ctx, &chatbusv1.WatchEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Header(); err != nil { // the watcher is registered once headers arrive
		t.Fatal(err)
	}

	resp := register(t, c, "a")
	if got := resp.GetHeartbeatInterval().AsDuration(); got != 100*time.Millisecond {
		t.Errorf("heartbeat interval %s", got)
	}
	if resp.GetOrigin() != chatbusv1.Origin_ORIGIN_DETACHED {
		t.Errorf("origin %v", resp.GetOrigin())
	}
	if _, err := c.Bus.Heartbeat(ctx, &chatbusv1.HeartbeatRequest{Session: resp.GetSession()}); err != nil {
		t.Fatal(err)
	}
	stream, err := c.Bus.Subscribe(ctx, &chatbusv1.SubscribeRequest{Session: resp.GetSession()})
	if err != nil {
		t.Fatal(err)
	}

	followers, err := c.Followers(ctx)
	if err != nil || len(followers) != 1 || followers[0].GetThreadName() != "proj-a" {
		t.Fatalf("followers = %v, %v", followers, err)
	}

	// Stop heartbeating: the stream must end because the follower is
	// pruned, once silent beyond the subscribed bound.
	start := time.Now()
	_, err = stream.Recv()
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "pruned") {
		t.Fatalf("stream ended with %v, want FailedPrecondition (pruned)", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("pruned after %s", waited)
	}
	var kinds []chatbusv1.EventKind
	for len(kinds) < 2 {
		e, err := watch.Recv()
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.GetEvent().GetKind())
	}
	if kinds[0] != chatbusv1.EventKind_EVENT_KIND_FOLLOWER_REGISTERED || kinds[1] != chatbusv1.EventKind_EVENT_KIND_FOLLOWER_PRUNED {
		t.Errorf("events %v", kinds)
	}
	if _, err := c.Bus.Heartbeat(ctx, &chatbusv1.HeartbeatRequest{Session: resp.GetSession()}); status.Code(err) != codes.NotFound {
		t.Errorf("heartbeat after prune: %v, want NotFound", err)
	}
}

func TestClientFollowerHeartbeats(t *testing.T) {
	// Heartbeats every 100ms, stale after 1s: ten missed in a row on a
	// loaded machine before anything is pruned.
	sup := servertest.Start(t, server.Config{HeartbeatInterval: 100 * time.Millisecond, StaleAfter: time.Second})
	c := sup.Dial(t)
	ctx := ctxT(t)
	f, err := c.Register(ctx, client.Registration{ProfileKey: "manual:1", Cwd: "/x/y"})
	if err != nil {
		t.Fatal(err)
	}
	// Outlive stale-after several times over: the heartbeat keeps it alive.
	for range 3 {
		time.Sleep(time.Second)
		fs, err := c.Followers(ctx)
		if err != nil || len(fs) != 1 {
			t.Fatalf("followers %v %v", fs, err)
		}
	}
	if err := f.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if fs, _ := c.Followers(ctx); len(fs) != 0 {
		t.Errorf("after close: %v", fs)
	}
}

func TestReplaceEndsOldStream(t *testing.T) {
	sup := servertest.Start(t, server.Config{})
	c := sup.Dial(t)
	ctx := ctxT(t)
	old := register(t, c, "a")
	stream, err := c.Bus.Subscribe(ctx, &chatbusv1.SubscribeRequest{Session: old.GetSession()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Header(); err != nil { // the stream is in place
		t.Fatal(err)
	}
	register(t, c, "a")
	if _, err := stream.Recv(); status.Code(err) != codes.Aborted {
		t.Errorf("old stream: %v, want Aborted", err)
	}
	if fs, _ := c.Followers(ctx); len(fs) != 1 {
		t.Errorf("%d followers", len(fs))
	}
}

func TestAuthRefusals(t *testing.T) {
	sup := servertest.Start(t, server.Config{})
	good := sup.Dial(t)
	ctx := ctxT(t)
	a := register(t, good, "a")
	b := register(t, good, "b")

	noSecret := sup.Dial(t, client.WithSecret(""))
	wrong := sup.Dial(t, client.WithSecret(strings.Repeat("x", 43)))

	tests := []struct {
		name string
		call func() error
		want codes.Code
	}{
		{name: "missing secret", want: codes.Unauthenticated, call: func() error {
			_, err := noSecret.Info(ctx)
			return err
		}},
		{name: "wrong secret", want: codes.Unauthenticated, call: func() error {
			_, err := wrong.Bus.Register(ctx, &chatbusv1.RegisterRequest{InstanceId: "x", ProfileKey: "k", Pid: 1})
			return err
		}},
		{name: "wrong secret on a stream", want: codes.Unauthenticated, call: func() error {
			s, err := wrong.Admin.WatchEvents(ctx, &chatbusv1.WatchEventsRequest{})
			if err != nil {
				return err
			}
			_, err = s.Recv()
			return err
		}},
		{name: "foreign session token", want: codes.PermissionDenied, call: func() error {
			_, err := good.Bus.Heartbeat(ctx, &chatbusv1.HeartbeatRequest{Session: &chatbusv1.Session{InstanceId: "a", Token: b.GetSession().GetToken()}})
			return err
		}},
		{name: "foreign token on ack", want: codes.PermissionDenied, call: func() error {
			_, err := good.Bus.Ack(ctx, &chatbusv1.AckRequest{Session: &chatbusv1.Session{InstanceId: "b", Token: a.GetSession().GetToken()}, Seq: 1})
			return err
		}},
		{name: "foreign token on unregister", want: codes.PermissionDenied, call: func() error {
			_, err := good.Bus.Unregister(ctx, &chatbusv1.UnregisterRequest{Session: &chatbusv1.Session{InstanceId: "b", Token: a.GetSession().GetToken()}})
			return err
		}},
		{name: "foreign token on subscribe", want: codes.PermissionDenied, call: func() error {
			s, err := good.Bus.Subscribe(ctx, &chatbusv1.SubscribeRequest{Session: &chatbusv1.Session{InstanceId: "a", Token: b.GetSession().GetToken()}})
			if err != nil {
				return err
			}
			_, err = s.Recv()
			return err
		}},
		{name: "made-up token", want: codes.NotFound, call: func() error {
			_, err := good.Bus.Heartbeat(ctx, &chatbusv1.HeartbeatRequest{Session: &chatbusv1.Session{InstanceId: "a", Token: strings.Repeat("z", 32)}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); status.Code(err) != tt.want {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
	// Both real followers are untouched.
	for _, r := range []*chatbusv1.RegisterResponse{a, b} {
		if _, err := good.Bus.Heartbeat(ctx, &chatbusv1.HeartbeatRequest{Session: r.GetSession()}); err != nil {
			t.Errorf("%s: %v", r.GetSession().GetInstanceId(), err)
		}
	}
	if _, err := noSecret.Info(ctx); !errors.Is(err, client.ErrUnauthenticated) {
		t.Errorf("client mapping: %v", err)
	}
	// Health needs no secret.
	hc := grpc_health_v1.NewHealthClient(noSecret.Conn())
	if r, err := hc.Check(ctx, &grpc_health_v1.HealthCheckRequest{}); err != nil || r.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
		t.Errorf("health: %v %v", r, err)
	}
}

func TestForeignUIDRefused(t *testing.T) {
	// The test runs as one user; a supervisor that serves another uid must
	// refuse it, health included, with PermissionDenied.
	sup := servertest.Start(t, server.Config{AllowUID: os.Getuid() + 1000})
	c := sup.Dial(t)
	ctx := ctxT(t)
	if _, err := c.Info(ctx); status.Code(err) != codes.PermissionDenied || !errors.Is(err, client.ErrPermissionDenied) {
		t.Errorf("info: %v", err)
	}
	if _, err := grpc_health_v1.NewHealthClient(c.Conn()).Check(ctx, &grpc_health_v1.HealthCheckRequest{}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("health: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	sup := servertest.Start(t, server.Config{})
	c := sup.Dial(t)
	ctx := ctxT(t)
	tests := []struct {
		name string
		req  *chatbusv1.RegisterRequest
		want codes.Code
	}{
		{name: "empty instance id", want: codes.InvalidArgument, req: &chatbusv1.RegisterRequest{ProfileKey: "k", Pid: 1}},
		{name: "instance id with spaces", want: codes.InvalidArgument, req: &chatbusv1.RegisterRequest{InstanceId: "a b", ProfileKey: "k", Pid: 1}},
		{name: "negative pid", want: codes.InvalidArgument, req: &chatbusv1.RegisterRequest{InstanceId: "a", ProfileKey: "k", Pid: -5}},
		{name: "missing profile key", want: codes.InvalidArgument, req: &chatbusv1.RegisterRequest{InstanceId: "a", Pid: 1}},
		{name: "absurd thread name", want: codes.InvalidArgument, req: &chatbusv1.RegisterRequest{InstanceId: "a", ProfileKey: "k", Pid: 1, ThreadName: strings.Repeat("n", 129)}},
		{name: "control characters in thread name", want: codes.InvalidArgument, req: &chatbusv1.RegisterRequest{InstanceId: "a", ProfileKey: "k", Pid: 1, ThreadName: "evil\x1b[2J"}},
		{name: "oversize request", want: codes.ResourceExhausted, req: &chatbusv1.RegisterRequest{InstanceId: "a", ProfileKey: "k", Pid: 1, Cwd: strings.Repeat("c", server.MaxMessageBytes+1)}},
		{name: "valid", want: codes.OK, req: &chatbusv1.RegisterRequest{InstanceId: "12:34", ProfileKey: "manual:1", Pid: 1, ThreadName: "проект ✓"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Bus.Register(ctx, tt.req)
			if status.Code(err) != tt.want {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := c.Bus.Ack(ctx, &chatbusv1.AckRequest{Session: &chatbusv1.Session{InstanceId: "a", Token: "short"}, Seq: 1}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("short token: %v", err)
	}
	if _, err := c.Bus.Heartbeat(ctx, &chatbusv1.HeartbeatRequest{}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("no session: %v", err)
	}
	// A stream's request is validated as it is received.
	if st, err := c.Bus.Subscribe(ctx, &chatbusv1.SubscribeRequest{Session: &chatbusv1.Session{InstanceId: "a", Token: "short"}}); err != nil {
		t.Errorf("Subscribe: %v", err)
	} else if _, err := st.Recv(); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Subscribe with a short token: %v, want InvalidArgument", err)
	}
	if _, err := c.Info(ctx); err != nil {
		t.Errorf("still serving? %v", err)
	}
}

func TestLiveSocketRefused(t *testing.T) {
	sup := servertest.Start(t, server.Config{})
	second, err := server.New(server.Config{Socket: sup.Config.Socket, StateDir: t.TempDir(), LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = second.Run(ctxT(t))
	var running *safesocket.AlreadyRunningError
	if !errors.As(err, &running) || running.PID != os.Getpid() {
		t.Fatalf("second Run = %v, want already running (pid %d)", err, os.Getpid())
	}
	if !strings.Contains(err.Error(), "already running (pid ") {
		t.Errorf("message %q", err)
	}
	// The first one is untouched.
	if _, err := sup.Dial(t).Info(ctxT(t)); err != nil {
		t.Fatal(err)
	}
}

func TestStaleSocketRemoved(t *testing.T) {
	socket := filepath.Join(servertest.SocketDir(t), "supervisor.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // leaves the file behind, as a crashed supervisor would
	if _, err := os.Stat(socket); err != nil {
		t.Fatal(err)
	}
	sup := servertest.Start(t, server.Config{Socket: socket})
	if _, err := sup.Dial(t).Info(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(socket); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Dir(socket)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode: %v %v", fi.Mode(), err)
	}
	if err := sup.Stop(t); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after stop: %v", err)
	}
}

func TestRaceForOneProfile(t *testing.T) {
	socket := filepath.Join(servertest.SocketDir(t), "supervisor.sock")
	state := t.TempDir()
	const n = 4
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu     sync.Mutex
		ready  int
		failed []error
		wg     sync.WaitGroup
	)
	start := make(chan struct{})
	for range n {
		srv, err := server.New(server.Config{Socket: socket, StateDir: state, LockTimeout: time.Second,
			OnReady: func() { mu.Lock(); ready++; mu.Unlock() }})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			<-start
			if err := srv.Run(ctx); err != nil {
				mu.Lock()
				failed = append(failed, err)
				mu.Unlock()
			}
		})
	}
	close(start)
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		done := len(failed) == n-1 && ready == 1
		mu.Unlock()
		if done || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	if ready != 1 || len(failed) != n-1 {
		t.Errorf("%d served, %d failed; want exactly one serving: %v", ready, len(failed), failed)
	}
	for _, err := range failed {
		if !errors.Is(err, safesocket.ErrAlreadyRunning) && !errors.Is(err, safesocket.ErrLocked) {
			t.Errorf("loser error: %v", err)
		}
	}
	mu.Unlock()
	cancel()
	wg.Wait()
}

func TestShutdownWithOpenStreams(t *testing.T) {
	sup := servertest.Start(t, server.Config{ShutdownTimeout: time.Second})
	c := sup.Dial(t)
	ctx := ctxT(t)
	r := register(t, c, "a")
	stream, err := c.Bus.Subscribe(ctx, &chatbusv1.SubscribeRequest{Session: r.GetSession()})
	if err != nil {
		t.Fatal(err)
	}
	events, err := c.Admin.WatchEvents(ctx, &chatbusv1.WatchEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	events.Header()
	start := time.Now()
	if err := sup.Stop(t); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("stop took %s", d)
	}
	if _, err := stream.Recv(); status.Code(err) != codes.Unavailable {
		t.Errorf("stream after stop: %v", err)
	}
	if _, err := os.Stat(sup.Config.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket not removed: %v", err)
	}
}

// TestPlainGRPCClient talks to the supervisor with nothing but grpc-go and
// metadata, the way another language's client does.
func TestPlainGRPCClient(t *testing.T) {
	sup := servertest.Start(t, server.Config{})
	cc, err := grpc.NewClient("unix://"+sup.Config.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx := ctxT(t)
	_, err = chatbusv1.NewAdminServiceClient(cc).GetInfo(ctx, &chatbusv1.GetInfoRequest{})
	if status.Code(err) != codes.Unauthenticated {
		t.Fatalf("without metadata: %v", err)
	}
	_ = sup
}

// rawCodec sends request bytes as they are (responses are not read).
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return v.([]byte), nil }
func (rawCodec) Unmarshal([]byte, any) error   { return nil }
func (rawCodec) Name() string                  { return "proto" }

// TestUndecodableRequest: a request that is not valid protobuf, or holds a
// string that is not UTF-8, is the caller's fault: INVALID_ARGUMENT naming
// what is wrong, never INTERNAL; and only after the secret was checked.
func TestUndecodableRequest(t *testing.T) {
	sup := servertest.Start(t, server.Config{})
	c := sup.Dial(t)
	ctx := ctxT(t)
	for _, tc := range []struct {
		name string
		body []byte
		want string
	}{
		{"not protobuf", []byte{0xff, 0xff, 0xff, 0xff}, "request is not a valid message"},
		{"string not UTF-8", []byte{0x0a, 0x02, 0xff, 0xfe}, "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out []byte
			err := c.Conn().Invoke(ctx, "/chatbus.v1.BusService/Register", tc.body, &out, grpc.ForceCodec(rawCodec{}))
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), tc.want) {
				t.Errorf("Register: %v, want InvalidArgument mentioning %q", err, tc.want)
			}
			st, err := c.Conn().NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, "/chatbus.v1.BusService/Subscribe", grpc.ForceCodec(rawCodec{}))
			if err == nil {
				if err = st.SendMsg(tc.body); err == nil {
					st.CloseSend()
					err = st.RecvMsg(&out)
				}
			}
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("Subscribe: %v, want InvalidArgument", err)
			}
		})
	}
	// Without the secret, the refusal is about the secret.
	conn, err := grpc.NewClient("unix://"+sup.Config.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var out []byte
	if err := conn.Invoke(ctx, "/chatbus.v1.BusService/Register", []byte{0xff, 0xff}, &out, grpc.ForceCodec(rawCodec{})); status.Code(err) != codes.Unauthenticated {
		t.Errorf("without the secret: %v, want Unauthenticated", err)
	}
	if _, err := c.Info(ctx); err != nil {
		t.Errorf("still serving? %v", err)
	}
}
