package child_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/internal/enumtab"
	"github.com/chatbus/chatbus/internal/proc"
	"github.com/chatbus/chatbus/internal/testkit"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
)

func TestHandshakeHealthIdentify(t *testing.T) {
	ctx := providertest.Context(t)
	h := start(t, &providertest.Fake{Identity: provider.Identity{OwnerID: "12345", Account: "@chatbus_bot"}})

	if want := "1|unix|" + h.Socket + "|grpc\n"; h.Handshake != want {
		t.Fatalf("handshake %q, want %q", h.Handshake, want)
	}
	if got, err := child.ParseHandshake(h.Handshake); err != nil || got != h.Socket {
		t.Fatalf("ParseHandshake = %q, %v", got, err)
	}
	fi, err := os.Stat(h.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a 0600 socket", fi.Mode())
	}

	for _, svc := range []string{"fake", ""} {
		res, err := h.Health.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: svc})
		if err != nil || res.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
			t.Fatalf("health %q: %v %v", svc, res, err)
		}
	}
	_, err = h.Health.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: "other"})
	wantCode(t, err, codes.NotFound, "")

	id, err := h.Client.Identify(ctx, &providerv1.IdentifyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	inc, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	if id.GetName() != "fake" || id.GetOwnerId() != "12345" || id.GetAccount() != "@chatbus_bot" || id.GetGeneration() != 3 {
		t.Fatalf("Identify = %v", id)
	}
	// Describe says the generation too, without the platform: the
	// supervisor refuses a child of another one before using it.
	if d, err := h.Client.Describe(ctx, &providerv1.DescribeRequest{}); err != nil || d.GetGeneration() != 3 {
		t.Fatalf("Describe = %v, %v; want generation 3", d, err)
	}
	if int(id.GetIncarnation().GetPid()) != inc.PID || id.GetIncarnation().GetStartTime() != inc.StartTime {
		t.Fatalf("incarnation %v, want %v", id.GetIncarnation(), inc)
	}

	if err := h.Stop(); err != nil {
		t.Fatalf("Serve returned %v after cancel, want nil", err)
	}
	if _, err := os.Lstat(h.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
}

func TestPlatformHealth(t *testing.T) {
	ctx := providertest.Context(t)
	health := provider.NewHealth()
	health.Set(false, "409 Conflict") // before Serve
	h := start(t, &providertest.Fake{}, func(c *child.Config) { c.Health = health })
	check := func(svc string, want grpc_health_v1.HealthCheckResponse_ServingStatus) {
		t.Helper()
		res, err := h.Health.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: svc})
		if err != nil || res.GetStatus() != want {
			t.Fatalf("health %q = %v, %v; want %v", svc, res.GetStatus(), err, want)
		}
	}
	check("fake", grpc_health_v1.HealthCheckResponse_NOT_SERVING)
	check("", grpc_health_v1.HealthCheckResponse_SERVING)
	health.Set(true, "")
	check("fake", grpc_health_v1.HealthCheckResponse_SERVING)
	health.Set(false, "401 Unauthorized")
	check("fake", grpc_health_v1.HealthCheckResponse_NOT_SERVING)
	if ok, why := health.Serving(); ok || why != "401 Unauthorized" {
		t.Fatalf("Serving = %v, %q", ok, why)
	}
}

func TestUpdates(t *testing.T) {
	t.Run("cursor, order, deliver waits for ack", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run := p.open(t, ctx, h, 42)
		if run.cursor != 42 {
			t.Fatalf("Run cursor %d, want 42", run.cursor)
		}

		res := deliverAsync(ctx, run.sink, updates(5, 6, 7))
		m, err := s.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if got := m.GetUpdates(); len(got) != 3 {
			t.Fatalf("got %v, want updates 5, 6 and 7 in one message", got)
		}
		for i, want := range []int64{5, 6, 7} {
			if u := m.GetUpdates()[i]; u.GetUpdateId() != want || u.GetText() != "u"+itoa(want) || u.GetReceivedAt() == nil {
				t.Fatalf("got %v, want update %d with received_at", u, want)
			}
		}
		notYet(t, res, "Deliver before any ack")
		if got := h.Server.Occupancy().Inbound; got != 3 {
			t.Fatalf("inbound %d, want 3", got)
		}
		ack(t, s, 6)
		testkit.Eventually(t, "inbound 1", func() bool { return h.Server.Occupancy().Inbound == 1 })
		notYet(t, res, "Deliver after a partial ack")
		ack(t, s, 7)
		wantAcked(t, res, "Deliver", 7)
		if got := h.Server.Occupancy().Inbound; got != 0 {
			t.Fatalf("inbound %d after the ack, want 0", got)
		}

		// A duplicate or older ack is harmless.
		ack(t, s, 6)
		res = deliverAsync(ctx, run.sink, updates(8))
		if _, err := s.Recv(); err != nil {
			t.Fatal(err)
		}
		ack(t, s, 8)
		wantAcked(t, res, "Deliver", 8)
		// Ids must keep increasing.
		redeliver(t, ctx, run.sink, 8)
	})

	t.Run("partial ack point when the stream ends; stream end cancels Run", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run, cancelStream := p.openEndable(t, ctx, h, 0)

		res := deliverAsync(ctx, run.sink, updates(10, 11, 12))
		recvN(t, s, 3)
		ack(t, s, 11)
		testkit.Eventually(t, "inbound 1", func() bool { return h.Server.Occupancy().Inbound == 1 })
		cancelStream()
		r := testkit.Recv(t, res, "res")
		if r.acked != 11 || !errors.Is(r.err, provider.ErrStreamEnded) {
			t.Fatalf("Deliver = %d, %v; want 11, ErrStreamEnded", r.acked, r.err)
		}
		select {
		case <-run.ctx.Done():
		case <-time.After(wait):
			t.Fatal("Run's ctx not cancelled when the stream ended")
		}
		testkit.Eventually(t, "inbound 0", func() bool { return h.Server.Occupancy().Inbound == 0 })
		if a, err := run.sink.Deliver(ctx, updates(13)); a != 11 || !errors.Is(err, provider.ErrStreamEnded) {
			t.Fatalf("Deliver on an ended stream = %d, %v", a, err)
		}
	})

	t.Run("partial ack point when Deliver's ctx ends", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run := p.open(t, ctx, h, 0)
		dctx, cancelDeliver := context.WithCancel(ctx)
		res := deliverAsync(dctx, run.sink, updates(1, 2))
		recvN(t, s, 2)
		ack(t, s, 1)
		testkit.Eventually(t, "inbound 1", func() bool { return h.Server.Occupancy().Inbound == 1 })
		cancelDeliver()
		if r := testkit.Recv(t, res, "res"); r.acked != 1 || !errors.Is(r.err, context.Canceled) {
			t.Fatalf("Deliver = %d, %v; want 1, context.Canceled", r.acked, r.err)
		}
		// Still delivered and unacknowledged until the supervisor acks.
		if got := h.Server.Occupancy().Inbound; got != 1 {
			t.Fatalf("inbound %d, want 1", got)
		}
		ack(t, s, 2)
		testkit.Eventually(t, "inbound 0", func() bool { return h.Server.Occupancy().Inbound == 0 })
	})

	t.Run("supervisor closing its side ends the stream cleanly", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run := p.open(t, ctx, h, 3)
		if err := s.CloseSend(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Recv(); err != io.EOF {
			t.Fatalf("Recv = %v, want io.EOF", err)
		}
		<-run.ctx.Done()
	})

	t.Run("second stream supersedes the first", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s1, run1 := p.open(t, ctx, h, 1)
		s2 := openUpdates(t, ctx, h, 2)
		run2 := p.next(t)
		if run2.cursor != 2 || run1.ctx.Err() == nil {
			t.Fatalf("second Run cursor %d, first ctx %v", run2.cursor, run1.ctx.Err())
		}
		if got, want := fmt.Sprint(p.events()), "[start 1 end 1 start 2]"; got != want {
			t.Fatalf("Run events %s, want %s (no overlap)", got, want)
		}
		_, err := s1.Recv()
		wantCode(t, err, codes.Aborted, "superseded")
		if a, err := run1.sink.Deliver(ctx, updates(1)); a != 0 || !errors.Is(err, provider.ErrSuperseded) {
			t.Fatalf("old sink Deliver = %d, %v", a, err)
		}
		res := deliverAsync(ctx, run2.sink, updates(20))
		if got := recvIDs(t, s2); !slices.Equal(got, []int64{20}) {
			t.Fatalf("new stream Recv = %v, want [20]", got)
		}
		ack(t, s2, 20)
		wantAcked(t, res, "Deliver", 20)
	})

	t.Run("protocol violations", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)

		s, err := h.Client.Updates(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ack(t, s, 1)
		_, err = s.Recv()
		wantCode(t, err, codes.InvalidArgument, "must be Start")

		s = openUpdates(t, ctx, h, 0)
		run := p.next(t)
		ack(t, s, 99) // nothing was delivered
		_, err = s.Recv()
		wantCode(t, err, codes.InvalidArgument, "beyond the last delivered")
		<-run.ctx.Done()
	})

	t.Run("default fake platform leaves unacknowledged updates at the platform", func(t *testing.T) {
		ctx := providertest.Context(t)
		f := &providertest.Fake{}
		h := start(t, f)
		f.Push(updates(1, 2, 3)...)
		sctx, cancelStream := context.WithCancel(ctx)
		s := openUpdates(t, sctx, h, 0)
		recvN(t, s, 3)
		ack(t, s, 2)
		testkit.Eventually(t, "inbound 1", func() bool { return h.Server.Occupancy().Inbound == 1 })
		cancelStream() // Deliver returns the partial ack point 2
		testkit.Eventually(t, "platform forgets 1 and 2", func() bool { return len(f.Pending()) == 1 })
		// The successor stream starts at the stored cursor and gets 3 again.
		s = openUpdates(t, ctx, h, 3)
		if got := recvIDs(t, s); !slices.Equal(got, []int64{3}) {
			t.Fatalf("redelivery = %v, want [3]", got)
		}
		ack(t, s, 3)
		testkit.Eventually(t, "platform forgets 3", func() bool { return len(f.Pending()) == 0 })
		if got := fmt.Sprint(f.Runs()); got != "[0 3]" {
			t.Fatalf("Run cursors %s", got)
		}
	})
}

func TestOccupancy(t *testing.T) {
	ctx := providertest.Context(t)
	prov, call, upload, closeT := newBlocker(), newBlocker(), newBlocker(), newBlocker()
	p := newRunProbe()
	f := &providertest.Fake{
		RunFunc: p.run,
		ProvisionFunc: func(ctx context.Context, req provider.ProvisionRequest) (provider.Provisioned, error) {
			return provider.Provisioned{Target: provider.Target{Chat: req.Chat, Thread: "7", Name: req.Name}}, prov.block(ctx)
		},
		CallFunc: func(ctx context.Context, _ provider.Target, method string, _ json.RawMessage, _ string) (provider.Result, error) {
			return provider.Result{JSON: []byte(`{"ok":true}`)}, call.block(ctx)
		},
		UploadFunc: func(ctx context.Context, _ provider.UploadHeader, r io.Reader) (provider.Result, error) {
			if _, err := io.ReadAll(r); err != nil {
				return provider.Result{}, err
			}
			return provider.Result{JSON: []byte(`{}`)}, upload.block(ctx)
		},
		CloseTargetFunc: func(ctx context.Context, _ provider.Target) error { return closeT.block(ctx) },
	}
	h := start(t, f)
	w := watchOccupancy(t, h)
	w.waitFor(t, child.Occupancy{})

	t.Run("attached", func(t *testing.T) {
		steps := []struct {
			name   string
			do     func() error
			attach uint32
		}{
			{"attach a", func() error { return attach(ctx, h, "a") }, 1},
			{"attach a again is idempotent", func() error { return attach(ctx, h, "a") }, 1},
			{"attach b", func() error { return attach(ctx, h, "b") }, 2},
			{"detach unknown is a no-op", func() error { return detach(ctx, h, "nobody") }, 2},
			{"detach a", func() error { return detach(ctx, h, "a") }, 1},
			{"detach a again", func() error { return detach(ctx, h, "a") }, 1},
			{"detach b", func() error { return detach(ctx, h, "b") }, 0},
		}
		for _, s := range steps {
			if err := s.do(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if got := h.Server.Occupancy(); got != (child.Occupancy{Attached: s.attach}) {
				t.Fatalf("%s: occupancy {%v}", s.name, got)
			}
		}
		w.waitFor(t, child.Occupancy{})
		_, err := h.Client.Attach(ctx, &providerv1.AttachRequest{})
		wantCode(t, err, codes.InvalidArgument, "instance id")
	})

	cases := []struct {
		name string
		rpc  func() error
		b    *blocker
		want child.Occupancy
	}{
		{"inflight: ProvisionTarget", func() error {
			res, err := h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "A · x", Chat: "-5"})
			if err == nil && (res.GetTarget().GetThread() != "7" || res.GetTarget().GetChat() != "-5" || res.GetName() != "A · x") {
				err = fmt.Errorf("response %v", res)
			}
			return err
		}, prov, child.Occupancy{Inflight: 1}},
		{"outbound: Call", func() error {
			_, err := h.Client.Call(ctx, &providerv1.CallRequest{Method: "sendMessage", ParamsJson: []byte(`{}`), Target: testTarget})
			return err
		}, call, child.Occupancy{Outbound: 1}},
		{"outbound: UploadFile", func() error { return uploadFile(ctx, h, []byte("hello")) }, upload, child.Occupancy{Outbound: 1}},
		{"cleanup: CloseTarget", func() error {
			_, err := h.Client.CloseTarget(ctx, &providerv1.CloseTargetRequest{Target: &providerv1.Target{Chat: "-5", Thread: "7"}})
			return err
		}, closeT, child.Occupancy{Cleanup: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errc := make(chan error, 1)
			go func() { errc <- c.rpc() }()
			c.b.waitEntered(t)
			w.waitFor(t, c.want)
			c.b.release <- struct{}{}
			if err := testkit.Recv(t, errc, "errc"); err != nil {
				t.Fatal(err)
			}
			w.waitFor(t, child.Occupancy{})
		})
	}

	t.Run("inbound", func(t *testing.T) {
		s := openUpdates(t, ctx, h, 0)
		run := p.next(t)
		res := deliverAsync(ctx, run.sink, updates(1, 2))
		w.waitFor(t, child.Occupancy{Inbound: 2})
		recvN(t, s, 2)
		ack(t, s, 1)
		w.waitFor(t, child.Occupancy{Inbound: 1})
		ack(t, s, 2)
		w.waitFor(t, child.Occupancy{})
		wantAcked(t, res, "Deliver", 2)
	})

	t.Run("all at once", func(t *testing.T) {
		if err := attach(ctx, h, "x"); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 2)
		go func() {
			_, err := h.Client.Call(ctx, &providerv1.CallRequest{Method: "sendMessage", Target: testTarget})
			errc <- err
		}()
		go func() {
			_, err := h.Client.CloseTarget(ctx, &providerv1.CloseTargetRequest{Target: &providerv1.Target{Chat: "1", Thread: "2"}})
			errc <- err
		}()
		call.waitEntered(t)
		closeT.waitEntered(t)
		w.waitFor(t, child.Occupancy{Attached: 1, Outbound: 1, Cleanup: 1})
		st, err := h.Client.Status(ctx, &providerv1.StatusRequest{})
		if err != nil || child.OccupancyFromProto(st.GetOccupancy()) != (child.Occupancy{Attached: 1, Outbound: 1, Cleanup: 1}) {
			t.Fatalf("Status = %v, %v", st, err)
		}
		call.release <- struct{}{}
		closeT.release <- struct{}{}
		for range 2 {
			if err := testkit.Recv(t, errc, "errc"); err != nil {
				t.Fatal(err)
			}
		}
		if err := detach(ctx, h, "x"); err != nil {
			t.Fatal(err)
		}
		w.waitFor(t, child.Occupancy{})
	})
}

func TestFence(t *testing.T) {
	t.Run("prepare closes admission synchronously; cancel reopens", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run := p.open(t, ctx, h, 0)
		res := deliverAsync(ctx, run.sink, updates(5))
		if _, err := s.Recv(); err != nil {
			t.Fatal(err)
		}
		ack(t, s, 5)
		testkit.Recv(t, res, "res")
		if err := attach(ctx, h, "a"); err != nil {
			t.Fatal(err)
		}

		before := time.Now()
		pr, err := h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "r1"), Lease: durationOf(30 * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		if child.OccupancyFromProto(pr.GetOccupancy()) != (child.Occupancy{Attached: 1}) {
			t.Fatalf("Prepare occupancy %v", pr.GetOccupancy())
		}
		if exp := pr.GetLeaseExpiresAt().AsTime(); exp.Before(before.Add(29*time.Second)) || exp.After(time.Now().Add(31*time.Second)) {
			t.Fatalf("lease expires at %v", exp)
		}

		// The very next calls are refused.
		const closed = "admission closed: doctor r1 prepared"
		wantCode(t, attach(ctx, h, "b"), codes.FailedPrecondition, closed)
		_, err = h.Client.Call(ctx, &providerv1.CallRequest{Method: "sendMessage", Target: testTarget})
		wantCode(t, err, codes.FailedPrecondition, closed)
		_, err = h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "t"})
		wantCode(t, err, codes.FailedPrecondition, closed)
		wantCode(t, uploadFile(ctx, h, []byte("x")), codes.FailedPrecondition, closed)
		dl, err := h.Client.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: "f"})
		if err == nil {
			_, err = dl.Recv()
		}
		wantCode(t, err, codes.FailedPrecondition, closed)
		a, err := run.sink.Deliver(ctx, updates(6))
		var ace *provider.AdmissionClosedError
		if a != 5 || !errors.Is(err, provider.ErrNotAdmitting) || !errors.As(err, &ace) || ace.RequestID != "r1" {
			t.Fatalf("Deliver while prepared = %d, %v; want 5, ErrNotAdmitting", a, err)
		}
		// Settling work is still allowed.
		if _, err := h.Client.CloseTarget(ctx, &providerv1.CloseTargetRequest{Target: &providerv1.Target{Chat: "1", Thread: "2"}}); err != nil {
			t.Fatal(err)
		}
		if err := detach(ctx, h, "a"); err != nil {
			t.Fatal(err)
		}

		st := status1(t, ctx, h)
		if st.GetPhase() != providerv1.Phase_PHASE_PREPARED || st.GetAdmitting() || st.GetRequestId() != "r1" || st.GetLeaseExpiresAt() == nil {
			t.Fatalf("Status %v", st)
		}

		// Other request ids are refused; the same one renews.
		_, err = h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "r2")})
		wantCode(t, err, codes.Aborted, "r1")
		_, err = h.Client.Cancel(ctx, &providerv1.CancelRequest{Fence: fence(t, "r2")})
		wantCode(t, err, codes.FailedPrecondition, "")
		_, err = h.Client.Commit(ctx, &providerv1.CommitRequest{Fence: fence(t, "r2")})
		wantCode(t, err, codes.FailedPrecondition, "")
		pr2, err := h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "r1"), Lease: durationOf(time.Minute)})
		if err != nil || !pr2.GetLeaseExpiresAt().AsTime().After(pr.GetLeaseExpiresAt().AsTime()) {
			t.Fatalf("renewing Prepare = %v, %v", pr2, err)
		}

		if _, err := h.Client.Cancel(ctx, &providerv1.CancelRequest{Fence: fence(t, "r1")}); err != nil {
			t.Fatal(err)
		}
		st = status1(t, ctx, h)
		if st.GetPhase() != providerv1.Phase_PHASE_IDLE || !st.GetAdmitting() || st.GetRequestId() != "" || st.GetLeaseExpiresAt() != nil {
			t.Fatalf("Status after Cancel %v", st)
		}
		if err := attach(ctx, h, "b"); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Client.Cancel(ctx, &providerv1.CancelRequest{Fence: fence(t, "r1")}); err != nil {
			t.Fatalf("Cancel with nothing prepared: %v", err)
		}
		// Deliveries resume.
		res = deliverAsync(ctx, run.sink, updates(6))
		if _, err := s.Recv(); err != nil {
			t.Fatal(err)
		}
		ack(t, s, 6)
		wantAcked(t, res, "Deliver after Cancel", 6)
	})

	t.Run("fence must name this owner", func(t *testing.T) {
		ctx := providertest.Context(t)
		h := start(t, &providertest.Fake{})
		inc := self(t)
		cases := []struct {
			name string
			f    *providerv1.Fence
			code codes.Code
		}{
			{"no fence", nil, codes.InvalidArgument},
			{"no request id", &providerv1.Fence{Incarnation: inc}, codes.InvalidArgument},
			{"no incarnation", &providerv1.Fence{RequestId: "r"}, codes.FailedPrecondition},
			{"other pid", &providerv1.Fence{RequestId: "r", Incarnation: &providerv1.Incarnation{Pid: inc.Pid + 1, StartTime: inc.StartTime}}, codes.FailedPrecondition},
			{"other start time", &providerv1.Fence{RequestId: "r", Incarnation: &providerv1.Incarnation{Pid: inc.Pid, StartTime: inc.StartTime + 1}}, codes.FailedPrecondition},
			{"other owner id", &providerv1.Fence{RequestId: "r", OwnerId: "someone", Incarnation: inc}, codes.FailedPrecondition},
			{"the numeric ids' generation", &providerv1.Fence{RequestId: "r", Generation: 1, Incarnation: inc}, codes.FailedPrecondition},
			{"the single updates' generation", &providerv1.Fence{RequestId: "r", Generation: 2, Incarnation: inc}, codes.FailedPrecondition},
			{"a later generation", &providerv1.Fence{RequestId: "r", Generation: child.Generation + 1, Incarnation: inc}, codes.FailedPrecondition},
			{"everything matches", &providerv1.Fence{RequestId: "r", OwnerId: "fake-owner", Generation: child.Generation, Incarnation: inc}, codes.OK},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: c.f})
				wantCode(t, err, c.code, "")
				if c.code == codes.OK {
					if _, err := h.Client.Cancel(ctx, &providerv1.CancelRequest{Fence: c.f}); err != nil {
						t.Fatal(err)
					}
				}
				if !h.Server.Status().Admitting {
					t.Fatal("admission left closed")
				}
			})
		}
		_, err := h.Client.Commit(ctx, &providerv1.CommitRequest{Fence: fence(t, "never-prepared")})
		wantCode(t, err, codes.FailedPrecondition, "not prepared")
		_, err = h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "r"), Lease: durationOf(-time.Second)})
		wantCode(t, err, codes.InvalidArgument, "lease")
	})

	t.Run("an expired lease reopens admission by itself", func(t *testing.T) {
		ctx := providertest.Context(t)
		var logs testkit.SyncBuffer
		h := start(t, &providertest.Fake{}, func(c *child.Config) { c.Logger = zerologTo(&logs) })
		if _, err := h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "dead-doctor"), Lease: durationOf(200 * time.Millisecond)}); err != nil {
			t.Fatal(err)
		}
		wantCode(t, attach(ctx, h, "a"), codes.FailedPrecondition, "admission closed")
		// Nobody calls in: the timer alone must reopen it.
		testkit.Eventually(t, "the lease-expiry event", func() bool {
			return strings.Contains(logs.String(), "lease expired; admission reopened")
		})
		st := status1(t, ctx, h)
		if st.GetPhase() != providerv1.Phase_PHASE_IDLE || !st.GetAdmitting() {
			t.Fatalf("Status %v", st)
		}
		if err := attach(ctx, h, "a"); err != nil {
			t.Fatal(err)
		}
		_, err := h.Client.Commit(ctx, &providerv1.CommitRequest{Fence: fence(t, "dead-doctor")})
		wantCode(t, err, codes.FailedPrecondition, "lease expired")
	})

	t.Run("lease on an injected clock, capped at MaxLease", func(t *testing.T) {
		ctx := providertest.Context(t)
		clock := newFakeClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
		h := start(t, &providertest.Fake{}, func(c *child.Config) { c.Now = clock.Now })
		pr, err := h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "r"), Lease: durationOf(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := pr.GetLeaseExpiresAt().AsTime(), clock.Now().Add(child.MaxLease); !got.Equal(want) {
			t.Fatalf("lease expires %v, want %v", got, want)
		}
		clock.Add(child.MaxLease - time.Second)
		if st := status1(t, ctx, h); st.GetAdmitting() {
			t.Fatal("admitting before the lease expired")
		}
		clock.Add(time.Second)
		if st := status1(t, ctx, h); !st.GetAdmitting() || st.GetPhase() != providerv1.Phase_PHASE_IDLE {
			t.Fatalf("Status after expiry %v", st)
		}
	})

	t.Run("commit while occupied waits for the in-flight call", func(t *testing.T) {
		ctx := providertest.Context(t)
		call := newBlocker()
		f := &providertest.Fake{CallFunc: func(ctx context.Context, _ provider.Target, _ string, _ json.RawMessage, _ string) (provider.Result, error) {
			return provider.Result{JSON: []byte(`{"ok":true}`)}, call.block(ctx)
		}}
		h := start(t, f)
		callRes := make(chan error, 1)
		go func() {
			_, err := h.Client.Call(ctx, &providerv1.CallRequest{Method: "sendMessage", Target: testTarget})
			callRes <- err
		}()
		call.waitEntered(t)

		if _, err := h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "r1")}); err != nil {
			t.Fatal(err)
		}
		cr, err := h.Client.Commit(ctx, &providerv1.CommitRequest{Fence: fence(t, "r1")})
		if err != nil {
			t.Fatal(err)
		}
		if child.OccupancyFromProto(cr.GetOccupancy()) != (child.Occupancy{Outbound: 1}) {
			t.Fatalf("Commit occupancy %v", cr.GetOccupancy())
		}
		if _, err := h.Client.Commit(ctx, &providerv1.CommitRequest{Fence: fence(t, "r1")}); err != nil {
			t.Fatalf("repeated Commit: %v", err)
		}
		st := status1(t, ctx, h)
		if st.GetPhase() != providerv1.Phase_PHASE_COMMITTED || st.GetAdmitting() || st.GetLeaseExpiresAt() != nil {
			t.Fatalf("Status %v", st)
		}
		notYet(t, h.Done(), "Serve while a call is in flight")
		_, err = h.Client.Call(ctx, &providerv1.CallRequest{Method: "sendMessage", Target: testTarget})
		wantCode(t, err, codes.FailedPrecondition, "admission closed: doctor r1 committed")
		_, err = h.Client.Cancel(ctx, &providerv1.CancelRequest{Fence: fence(t, "r1")})
		wantCode(t, err, codes.FailedPrecondition, "committed")
		_, err = h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "r2")})
		wantCode(t, err, codes.Aborted, "")

		call.release <- struct{}{}
		if err := testkit.Recv(t, callRes, "callRes"); err != nil {
			t.Fatalf("the in-flight call failed: %v", err)
		}
		select {
		case <-h.Done():
		case <-time.After(wait):
			t.Fatal("Serve did not return after the commit settled")
		}
		if err := h.Err(); err != nil {
			t.Fatalf("Serve = %v, want nil", err)
		}
	})

	t.Run("commit when idle returns promptly and ends streams", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run := p.open(t, ctx, h, 0)
		w := watchOccupancy(t, h)
		w.waitFor(t, child.Occupancy{})
		if _, err := h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "r1")}); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Client.Commit(ctx, &providerv1.CommitRequest{Fence: fence(t, "r1")}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-h.Done():
		case <-time.After(wait):
			t.Fatal("Serve did not return after an idle commit")
		}
		if err := h.Err(); err != nil {
			t.Fatalf("Serve = %v", err)
		}
		if run.ctx.Err() == nil {
			t.Fatal("Run still running after Serve returned")
		}
		_, err := s.Recv()
		wantCode(t, err, codes.Unavailable, "")
		if _, err := os.Lstat(h.Socket); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("socket left behind: %v", err)
		}
	})
}

func TestErrorCodes(t *testing.T) {
	ctx := providertest.Context(t)
	var next error
	h := start(t, &providertest.Fake{
		CallFunc: func(context.Context, provider.Target, string, json.RawMessage, string) (provider.Result, error) {
			return provider.Result{}, next
		},
	})
	cases := []struct {
		name  string
		err   error
		code  codes.Code
		retry time.Duration
	}{
		{"not found", fmt.Errorf("message 5: %w", provider.ErrNotFound), codes.NotFound, 0},
		{"invalid", fmt.Errorf("bad params: %w", provider.ErrInvalid), codes.InvalidArgument, 0},
		{"rate limited", provider.RateLimited(3*time.Second, errBoom), codes.ResourceExhausted, 3 * time.Second},
		{"ambiguous", fmt.Errorf("createForumTopic: %w", provider.ErrAmbiguous), codes.Unknown, 0},
		{"ambiguous wins over ctx", fmt.Errorf("%w: %w", provider.ErrAmbiguous, context.DeadlineExceeded), codes.Unknown, 0},
		{"unavailable", provider.ErrUnavailable, codes.Unavailable, 0},
		{"forbidden", provider.ErrPermissionDenied, codes.PermissionDenied, 0},
		{"explicit code", &provider.Error{Code: codes.FailedPrecondition, Message: "bot token revoked"}, codes.FailedPrecondition, 0},
		{"status passes through", status.Error(codes.AlreadyExists, "dup"), codes.AlreadyExists, 0},
		{"deadline", context.DeadlineExceeded, codes.DeadlineExceeded, 0},
		{"unclassified is unknown", errBoom, codes.Unknown, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next = c.err
			_, err := h.Client.Call(ctx, &providerv1.CallRequest{Method: "m", Target: testTarget})
			wantCode(t, err, c.code, "")
			got, ok := provider.RetryAfter(err)
			if got != c.retry || ok != (c.retry > 0) {
				t.Fatalf("RetryAfter = %v, %v; want %v", got, ok, c.retry)
			}
		})
	}
	if !errors.Is(&provider.Error{Code: codes.NotFound}, provider.ErrNotFound) ||
		errors.Is(&provider.Error{Code: codes.NotFound}, provider.ErrInvalid) ||
		!errors.Is(provider.RateLimited(time.Second, nil), provider.ErrRateLimited) {
		t.Fatal("*Error does not match its sentinel")
	}
	if d, ok := provider.RetryAfter(fmt.Errorf("wrapped: %w", provider.RateLimited(2*time.Second, nil))); !ok || d != 2*time.Second {
		t.Fatalf("RetryAfter on a wrapped *Error = %v, %v", d, ok)
	}
	_, err := h.Client.Call(ctx, &providerv1.CallRequest{})
	wantCode(t, err, codes.InvalidArgument, "method") // protovalidate
}

func TestFiles(t *testing.T) {
	ctx := providertest.Context(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 10000) // 160 KB: several chunks
	var got []byte
	f := &providertest.Fake{
		Files: map[string][]byte{"doc1": big, "empty": {}},
		UploadFunc: func(_ context.Context, h provider.UploadHeader, r io.Reader) (provider.Result, error) {
			b, err := io.ReadAll(r)
			got = b
			return provider.Result{JSON: fmt.Appendf(nil, `{"name":%q,"kind":%q,"chat":%q,"thread":%q,"caption":%q}`, h.Filename, h.Kind, h.Target.Chat, h.Target.Thread, h.Caption)}, err
		},
	}
	h := start(t, f)

	up, err := h.Client.UploadFile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	send := func(m *providerv1.UploadFileRequest) {
		if err := up.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Header_{Header: &providerv1.UploadFileRequest_Header{
		Target: &providerv1.Target{Chat: "-5", Thread: "7"}, Filename: "a.bin", Caption: "cap", Kind: "document"}}})
	for off := 0; off < len(big); off += 50000 {
		send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Chunk{Chunk: big[off:min(off+50000, len(big))]}})
	}
	res, err := up.CloseAndRecv()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, big) || string(res.GetResultJson()) != `{"name":"a.bin","kind":"document","chat":"-5","thread":"7","caption":"cap"}` {
		t.Fatalf("upload: %d bytes, result %s", len(got), res.GetResultJson())
	}

	up, err = h.Client.UploadFile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Chunk{Chunk: []byte("x")}})
	_, err = up.CloseAndRecv()
	wantCode(t, err, codes.InvalidArgument, "Header")

	for _, c := range []struct {
		id   string
		want []byte
	}{{"doc1", big}, {"empty", nil}} {
		dl, err := h.Client.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: c.id})
		if err != nil {
			t.Fatal(err)
		}
		var buf []byte
		for i := 0; ; i++ {
			m, err := dl.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 && (m.GetSize() != int64(len(c.want)) || m.GetFilePath() != "files/"+c.id) {
				t.Fatalf("first message size %d path %q", m.GetSize(), m.GetFilePath())
			}
			buf = append(buf, m.GetChunk()...)
		}
		if !bytes.Equal(buf, c.want) {
			t.Fatalf("download %s: %d bytes, want %d", c.id, len(buf), len(c.want))
		}
	}
	dl, err := h.Client.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: "missing"})
	if err == nil {
		_, err = dl.Recv()
	}
	wantCode(t, err, codes.NotFound, "missing")
	if o := h.Server.Occupancy(); !o.Zero() {
		t.Fatalf("occupancy after file transfers {%v}", o)
	}
}

func TestListen(t *testing.T) {
	dir, err := os.MkdirTemp("", "pv")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)

	t.Run("stale socket is replaced", func(t *testing.T) {
		sock := filepath.Join(dir, "stale.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		ln.Close() // leaves the file; nobody answers
		h := providertest.Start(t, child.Config{Name: "fake", Socket: sock, Platform: &providertest.Fake{}})
		if _, err := h.Client.Status(providertest.Context(t), &providerv1.StatusRequest{}); err != nil {
			t.Fatal(err)
		}

		_, err = runServe(child.Config{Name: "fake", Socket: sock, Platform: &providertest.Fake{}})
		if !errors.Is(err, provider.ErrAlreadyRunning) {
			t.Fatalf("second Serve on a live socket = %v, want ErrAlreadyRunning", err)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		regular := filepath.Join(dir, "file")
		if err := os.WriteFile(regular, []byte("keep"), 0o600); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name string
			cfg  child.Config
			want string
		}{
			{"not a socket", child.Config{Name: "x", Socket: regular, Platform: &providertest.Fake{}}, "not a socket"},
			{"path too long", child.Config{Name: "x", Socket: "/tmp/" + strings.Repeat("a", 120), Platform: &providertest.Fake{}}, "107"},
			{"no name", child.Config{Socket: filepath.Join(dir, "n.sock"), Platform: &providertest.Fake{}}, "Name"},
			{"no platform", child.Config{Name: "x", Socket: filepath.Join(dir, "n.sock")}, "Platform"},
			{"short secret", child.Config{Name: "x", Socket: filepath.Join(dir, "n.sock"), Platform: &providertest.Fake{}, Secret: "short"}, "Secret"},
			{"bad description", child.Config{Name: "x", Socket: filepath.Join(dir, "n.sock"),
				Platform: &providertest.Fake{Description: provider.Description{Platform: "x", Methods: []provider.Method{{Name: "m"}, {Name: "m"}}}}}, "declared twice"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				out, err := runServe(c.cfg)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("Serve = %v, want an error mentioning %q", err, c.want)
				}
				if out != "" {
					t.Fatalf("handshake written on failure: %q", out)
				}
			})
		}
		if b, _ := os.ReadFile(regular); string(b) != "keep" {
			t.Fatal("a regular file at the socket path was touched")
		}
	})
}

// runServe runs Serve expecting it to fail at once.
func runServe(cfg child.Config) (handshake string, err error) {
	var out testkit.SyncBuffer
	cfg.Handshake = &out
	if cfg.Secret == "" {
		cfg.Secret = testSecret
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	err = child.Serve(ctx, cfg)
	return out.String(), err
}

func TestParseHandshake(t *testing.T) {
	cases := []struct {
		name, line, want string
		ok               bool
	}{
		{"ok", "1|unix|/run/x/telegram.sock|grpc\n", "/run/x/telegram.sock", true},
		{"no newline", "1|unix|/s|grpc", "/s", true},
		{"version 2", "2|unix|/s|grpc\n", "", false},
		{"tcp", "1|tcp|127.0.0.1:1|grpc\n", "", false},
		{"netrpc", "1|unix|/s|netrpc\n", "", false},
		{"short", "1|unix|/s\n", "", false},
		{"empty path", "1|unix||grpc\n", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := child.ParseHandshake(c.line)
			if (err == nil) != c.ok || got != c.want {
				t.Fatalf("ParseHandshake(%q) = %q, %v", c.line, got, err)
			}
		})
	}
}

func attach(ctx context.Context, h *providertest.Harness, id string) error {
	_, err := h.Client.Attach(ctx, &providerv1.AttachRequest{InstanceId: id, Target: &providerv1.Target{Chat: "-5", Thread: "7"}})
	return err
}

func detach(ctx context.Context, h *providertest.Harness, id string) error {
	_, err := h.Client.Detach(ctx, &providerv1.DetachRequest{InstanceId: id})
	return err
}

func uploadFile(ctx context.Context, h *providertest.Harness, data []byte) error {
	up, err := h.Client.UploadFile(ctx)
	if err != nil {
		return err
	}
	if err := up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Header_{Header: &providerv1.UploadFileRequest_Header{Target: &providerv1.Target{Chat: "1"}, Filename: "f"}}}); err != nil {
		return err
	}
	if err := up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Chunk{Chunk: data}}); err != nil && err != io.EOF {
		return err
	}
	_, err = up.CloseAndRecv()
	return err
}

func status1(t *testing.T, ctx context.Context, h *providertest.Harness) *providerv1.StatusResponse {
	t.Helper()
	st, err := h.Client.Status(ctx, &providerv1.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// testTarget is the thread the tests' calls are scoped to.
var testTarget = &providerv1.Target{Chat: "-5", Thread: "7"}

// testSecret is the bearer secret runServe serves with.
const testSecret = "test-secret-0123456789abcdef"

// TestAuth: only a caller with the supervisor's secret reaches the
// platform; health stays open (it tells only whether the child serves).
func TestAuth(t *testing.T) {
	ctx := providertest.Context(t)
	f := &providertest.Fake{}
	h := providertest.Start(t, child.Config{Platform: f})
	dial := func(t *testing.T, opts ...grpc.DialOption) providerv1.ProviderServiceClient {
		conn, err := grpc.NewClient("unix://"+h.Socket, append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return providerv1.NewProviderServiceClient(conn)
	}
	call := &providerv1.CallRequest{Method: "sendMessage", ParamsJson: []byte(`{"text":"hi"}`), Target: testTarget}
	for _, tc := range []struct {
		name string
		opts []grpc.DialOption
	}{
		{"no secret", nil},
		{"wrong secret", []grpc.DialOption{grpc.WithPerRPCCredentials(providertest.Bearer(h.Secret + "x"))}},
		{"secret without Bearer", []grpc.DialOption{grpc.WithPerRPCCredentials(rawAuth(h.Secret))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := dial(t, tc.opts...)
			if _, err := cl.Call(ctx, call); status.Code(err) != codes.Unauthenticated {
				t.Fatalf("Call = %v, want Unauthenticated", err)
			}
			fence := &providerv1.Fence{RequestId: "r", Incarnation: &providerv1.Incarnation{Pid: 1}}
			if _, err := cl.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence}); status.Code(err) != codes.Unauthenticated {
				t.Fatalf("Prepare = %v, want Unauthenticated", err)
			}
			st, err := cl.Updates(ctx)
			if err == nil {
				_, err = st.Recv()
			}
			if status.Code(err) != codes.Unauthenticated {
				t.Fatalf("Updates = %v, want Unauthenticated", err)
			}
			conn, _ := grpc.NewClient("unix://"+h.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
			defer conn.Close()
			if r, err := grpc_health_v1.NewHealthClient(conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: "fake"}); err != nil || r.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
				t.Fatalf("health without the secret = %v, %v; want SERVING", r, err)
			}
		})
	}
	if n := len(f.Calls()); n != 0 {
		t.Fatalf("the platform saw %d call(s) from callers without the secret", n)
	}
	if _, err := h.Client.Call(ctx, call); err != nil {
		t.Fatalf("Call with the secret: %v", err)
	}
	if n := len(f.Calls()); n != 1 {
		t.Fatalf("platform calls = %d, want 1", n)
	}
}

// rawAuth sends the secret as the authorization value without "Bearer ".
type rawAuth string

func (a rawAuth) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": string(a)}, nil
}
func (rawAuth) RequireTransportSecurity() bool { return false }

func TestSplitSettings(t *testing.T) {
	for _, tc := range []struct {
		name, in, secret, rest string
		ok                     bool
	}{
		{"split", `{"name":"telegram","secret":"0123456789abcdef-x","token":"t"}`, "0123456789abcdef-x", `{"name":"telegram","token":"t"}`, true},
		{"no secret", `{"name":"telegram"}`, "", "", false},
		{"short", `{"secret":"abc"}`, "", "", false},
		{"not a string", `{"secret":12345678901234567890}`, "", "", false},
		{"not an object", `[1,2]`, "", "", false},
		{"empty", ``, "", "", false},
		{"state dir is the supervisor's key", `{"secret":"0123456789abcdef-x","state_dir":"/s/providers/telegram","token":"t"}`, "0123456789abcdef-x", `{"token":"t"}`, true},
		{"relative state dir", `{"secret":"0123456789abcdef-x","state_dir":"s"}`, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret, rest, err := child.SplitSettings([]byte(tc.in))
			if (err == nil) != tc.ok || secret != tc.secret || (tc.ok && string(rest) != tc.rest) {
				t.Fatalf("SplitSettings = %q, %s, %v", secret, rest, err)
			}
		})
	}
}

// watchingFake is a Fake that implements provider.AttachWatcher.
type watchingFake struct {
	*providertest.Fake
	mu     sync.Mutex
	events []string
}

func (w *watchingFake) Attached(id string, t provider.Target) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, "attach "+id+" "+t.Chat+"/"+t.Thread)
}

func (w *watchingFake) Detached(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, "detach "+id)
}

func (w *watchingFake) seen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.events...)
}

// TestAttachWatcher: a Platform implementing AttachWatcher is told of
// every admitted Attach and of each Detach of an attached id; refused
// Attaches and detaches of unknown ids are not passed on.
func TestAttachWatcher(t *testing.T) {
	ctx := providertest.Context(t)
	w := &watchingFake{Fake: &providertest.Fake{}}
	h := providertest.Start(t, child.Config{Name: "fake", Platform: w})
	if _, err := h.Client.Attach(ctx, &providerv1.AttachRequest{InstanceId: "a", Target: &providerv1.Target{Chat: "C1", Thread: "T1"}}); err != nil {
		t.Fatal(err)
	}
	if err := attach(ctx, h, "b"); err != nil {
		t.Fatal(err)
	}
	if err := detach(ctx, h, "nobody"); err != nil {
		t.Fatal(err)
	}
	if err := detach(ctx, h, "a"); err != nil {
		t.Fatal(err)
	}
	if err := detach(ctx, h, "a"); err != nil { // again: no longer attached
		t.Fatal(err)
	}
	if _, err := h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "doc-1")}); err != nil {
		t.Fatal(err)
	}
	if err := attach(ctx, h, "c"); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("attach while prepared: %v", err)
	}
	want := []string{"attach a C1/T1", "attach b -5/7", "detach a"}
	if got := w.seen(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("watcher saw %q, want %q", got, want)
	}
}

func TestParseChildSettings(t *testing.T) {
	cs, rest, err := child.ParseChildSettings([]byte(`{"name":"playground","secret":"0123456789abcdef-x","state_dir":"/st/providers/playground","port":0}`))
	if err != nil || cs.Secret != "0123456789abcdef-x" || cs.StateDir != "/st/providers/playground" || string(rest) != `{"name":"playground","port":0}` {
		t.Fatalf("ParseChildSettings = %+v, %s, %v", cs, rest, err)
	}
	cs, _, err = child.ParseChildSettings([]byte(`{"secret":"0123456789abcdef-x"}`))
	if err != nil || cs.StateDir != "" {
		t.Fatalf("without a state dir: %+v, %v", cs, err)
	}
}

// TestPhasesTable: every Phase crosses to the contract's Phase and back.
func TestPhasesTable(t *testing.T) {
	phases := []child.Phase{child.PhaseIdle, child.PhasePrepared, child.PhaseCommitted}
	if err := enumtab.Check(child.PhasesTable, providerv1.Phase(0).Descriptor(), phases); err != nil {
		t.Error(err)
	}
	if got := child.Phase(9).Proto(); got != providerv1.Phase_PHASE_UNSPECIFIED {
		t.Errorf("a value that is no Phase went out as %v", got)
	}
}
