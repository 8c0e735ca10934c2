package server_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/servertest"
)

// countHeartbeats is a client interceptor counting Heartbeat calls.
func countHeartbeats(n *atomic.Int64) client.Option {
	return client.WithDialOptions(grpc.WithChainUnaryInterceptor(
		func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			if method == "/chatbus.v1.BusService/Heartbeat" {
				n.Add(1)
			}
			return invoker(ctx, method, req, reply, cc, opts...)
		}))
}

// TestSubscribedFollowerHeartbeatsRarely: Register tells the follower the
// subscribed interval; while its Updates stream is open the Go client
// heartbeats at that interval and the supervisor keeps the session far
// past stale-after; when the stream ends it heartbeats at once and at the
// short interval again.
func TestSubscribedFollowerHeartbeatsRarely(t *testing.T) {
	sup := servertest.Start(t, server.Config{HeartbeatInterval: 50 * time.Millisecond, StaleAfter: 500 * time.Millisecond,
		SubscribedHeartbeatInterval: time.Minute})
	var beats atomic.Int64
	c := sup.Dial(t, countHeartbeats(&beats))
	ctx := ctxT(t)
	f, err := c.Register(ctx, client.Registration{ProfileKey: "manual:1", Cwd: "/x/y"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close(ctx)
	if got := f.Registered().GetSubscribedHeartbeatInterval().AsDuration(); got != time.Minute {
		t.Fatalf("subscribed_heartbeat_interval %s, want 1m", got)
	}
	testkit.Eventually(t, "short-interval heartbeats", func() bool { return beats.Load() >= 3 })

	sctx, stop := context.WithCancel(ctx)
	ended := make(chan error, 1)
	go func() { ended <- f.Updates(sctx, 0, func(*chatbusv1.Update) error { return nil }) }()
	testkit.Eventually(t, "the stream to be open", func() bool {
		fs, err := c.Followers(ctx)
		return err == nil && len(fs) == 1 && fs[0].GetSubscribed()
	})
	before := beats.Load()
	// Six times stale-after, 60 short intervals: at most the one heartbeat
	// that was due when the stream opened, and the session lives on.
	time.Sleep(3 * time.Second)
	if n := beats.Load() - before; n > 1 {
		t.Errorf("%d heartbeats in 3s with the stream open, want at most 1", n)
	}
	if fs, err := c.Followers(ctx); err != nil || len(fs) != 1 {
		t.Fatalf("with the stream open and no heartbeat for 3s: followers %v, %v", fs, err)
	}
	stop()
	<-ended
	after := beats.Load()
	testkit.Eventually(t, "heartbeats to resume once the stream ended", func() bool { return beats.Load() >= after+3 })
	if fs, err := c.Followers(ctx); err != nil || len(fs) != 1 {
		t.Errorf("after the stream ended: followers %v, %v", fs, err)
	}
}

const livenessHelperEnv = "CHATBUS_LIVENESS_HELPER"

// TestHelperLivenessFollower is the child of TestDeadFollowerPruned: it
// registers on the socket in the env, opens its update stream, prints
// "ready" and waits to be killed (or 60s).
func TestHelperLivenessFollower(t *testing.T) {
	sock := os.Getenv(livenessHelperEnv)
	if sock == "" {
		return
	}
	c, err := client.Dial(sock, client.WithSecret(os.Getenv(livenessHelperEnv+"_SECRET")))
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := c.Register(ctx, client.Registration{ProfileKey: "manual:child", Cwd: "/x/child"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	go func() { _ = f.Updates(ctx, 0, func(*chatbusv1.Update) error { return nil }) }()
	for {
		fs, err := c.Followers(ctx)
		if err == nil && len(fs) == 1 && fs[0].GetSubscribed() {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("ready")
	<-ctx.Done()
	os.Exit(0)
}

// TestDeadFollowerPruned: a follower process with an open stream (so it
// heartbeats once a minute) is pruned promptly once it dies (SIGKILL: its
// connection closes), and once it stops answering (SIGSTOP: the server's
// keepalive cuts the connection off), long before the subscribed bound.
func TestDeadFollowerPruned(t *testing.T) {
	tests := []struct {
		name   string
		signal syscall.Signal
	}{
		{name: "killed", signal: syscall.SIGKILL},
		{name: "stopped", signal: syscall.SIGSTOP},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sup := servertest.Start(t, server.Config{HeartbeatInterval: 100 * time.Millisecond, StaleAfter: time.Second,
				SubscribedHeartbeatInterval: time.Minute, Keepalive: time.Second, KeepaliveTimeout: time.Second})
			c := sup.Dial(t)
			ctx := ctxT(t)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLivenessFollower$", "-test.count=1")
			cmd.Env = append(os.Environ(), livenessHelperEnv+"="+sup.Config.Socket, livenessHelperEnv+"_SECRET="+sup.Secret)
			cmd.Stderr = os.Stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			sc := bufio.NewScanner(out)
			if !sc.Scan() || sc.Text() != "ready" {
				t.Fatalf("child said %q", sc.Text())
			}
			if err := cmd.Process.Signal(tc.signal); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			// The subscribed bound is 2m1s: only the stream's end can
			// prune it within the wait.
			testkit.Eventually(t, "the dead follower to be pruned", func() bool {
				fs, err := c.Followers(ctx)
				return err == nil && len(fs) == 0
			})
			t.Logf("pruned %s after %s", time.Since(killed).Round(time.Millisecond), tc.signal)
		})
	}
}
