package providers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/store"
)

// TestDetachOrder: Detach never waits for the child; an Attach of the same
// instance id waits until its queued Detach was sent, and others do not.
// No child runs here (Current is false): the queue is what is tested.
func TestDetachOrder(t *testing.T) {
	m, err := New(Config{Specs: []Spec{{Name: "x", Binary: "/nonexistent/provider-x"}}, SocketDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := m.provs["x"]
	target := store.Target{Provider: "x", Chat: "-100", Thread: "7"}

	m.Detach("x", "a") // returns at once: nothing sends it yet
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := m.Attach(short, "x", "a", target); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("attach of a while its detach is queued: %v, want to wait (DeadlineExceeded)", err)
	}
	if err := m.Attach(context.Background(), "x", "b", target); err != nil {
		t.Fatalf("attach of another instance: %v", err)
	}

	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.detacher(ctx); close(done) }()
	defer func() { stop(); <-done }()
	wait, cancelWait := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelWait()
	if err := m.Attach(wait, "x", "a", target); err != nil {
		t.Fatalf("attach of a once its detach was sent: %v", err)
	}
	if got := m.Attached("x"); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("attached %v, want [a b]", got)
	}
	m.Detach("x", "b")
	m.Detach("x", "b")
	if err := p.waitDetached(wait, "b"); err != nil {
		t.Fatal(err)
	}
	if got := m.Attached("x"); len(got) != 1 || got[0] != "a" {
		t.Errorf("attached %v, want [a]", got)
	}
	p.mu.Lock()
	left := len(p.detachPending)
	p.mu.Unlock()
	if left != 0 {
		t.Errorf("%d instances still counted as pending", left)
	}
}
