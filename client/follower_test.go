package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/servertest"
)

func registerFollower(t *testing.T, c *client.Client) *client.Follower {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := c.Register(ctx, client.Registration{InstanceID: "a", ProfileKey: "p"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return f
}

func waitDone(t *testing.T, f *client.Follower) error {
	t.Helper()
	select {
	case <-f.Done():
		return f.Err()
	case <-time.After(20 * time.Second):
		t.Fatal("heartbeat still running 20s after the session ended")
		return nil
	}
}

// TestHeartbeatEndsWhenSessionUnknown: the supervisor's word that it no
// longer knows the session ends the heartbeat at once.
func TestHeartbeatEndsWhenSessionUnknown(t *testing.T) {
	sup := servertest.Start(t, server.Config{HeartbeatInterval: 50 * time.Millisecond, StaleAfter: time.Minute})
	c := sup.Dial(t)
	f := registerFollower(t, c)
	if _, err := c.Bus.Unregister(context.Background(), &chatbusv1.UnregisterRequest{Session: f.Session()}); err != nil {
		t.Fatal(err)
	}
	if err := waitDone(t, f); !errors.Is(err, client.ErrSessionUnknown) {
		t.Errorf("heartbeat ended with %v, want ErrSessionUnknown", err)
	}
}

// TestHeartbeatOutlastsUnreachableSupervisor: an unreachable supervisor is
// retried until stale-after has passed without an answer, then the session
// is over (a supervisor that comes back does not know it).
func TestHeartbeatOutlastsUnreachableSupervisor(t *testing.T) {
	const staleAfter = 500 * time.Millisecond
	sup := servertest.Start(t, server.Config{HeartbeatInterval: 20 * time.Millisecond, StaleAfter: staleAfter})
	c := sup.Dial(t)
	f := registerFollower(t, c)
	stopped := time.Now()
	if err := sup.Stop(t); err != nil {
		t.Fatal(err)
	}
	err := waitDone(t, f)
	if !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("heartbeat ended with %v, want ErrUnavailable", err)
	}
	// The client must not give up on a session the supervisor would still
	// hold: its last heartbeat got through at most one interval (and a
	// call) before the stop, so half of stale-after is a safe floor; five
	// failed heartbeats (what clients used to allow) take 100 ms.
	if silent := time.Since(stopped); silent < staleAfter/2 {
		t.Errorf("gave up after %s of silence; stale-after is %s", silent, staleAfter)
	}
}
