package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// resumer is a follower that survives supervisor restarts: it
// re-registers with its profile key (REUSE) and resubscribes after the
// last seq it handled.
type resumer struct {
	key    string
	mu     sync.Mutex
	texts  []string
	seen   map[string]int
	last   uint64
	thread int64
}

func (r *resumer) run(ctx context.Context, t *testing.T, p *profile, ready chan<- struct{}) {
	var once sync.Once
	for ctx.Err() == nil {
		c, err := client.Dial(p.socket, client.WithSecretFile(filepath.Join(p.state, "secret")))
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		f, err := c.Register(ctx, client.Registration{ProfileKey: r.key, InstanceID: r.key + "-i", Cwd: "/w/" + r.key})
		if err != nil {
			c.Close()
			time.Sleep(50 * time.Millisecond)
			continue
		}
		r.mu.Lock()
		th := f.Registered().GetBinding().GetTarget().GetThreadId()
		if r.thread != 0 && th != r.thread {
			t.Errorf("%s came back to thread %d, had %d", r.key, th, r.thread)
		}
		r.thread = th
		after := r.last
		r.mu.Unlock()
		once.Do(func() { ready <- struct{}{} })
		err = f.Updates(ctx, after, func(u *chatbusv1.Update) error {
			r.mu.Lock()
			if u.GetSeq() <= r.last {
				r.mu.Unlock()
				return fmt.Errorf("seq %d after %d: delivered twice", u.GetSeq(), r.last)
			}
			r.last = u.GetSeq()
			r.texts = append(r.texts, u.GetText())
			r.seen[u.GetText()]++
			r.mu.Unlock()
			return f.Ack(ctx, u.GetSeq())
		})
		if err != nil && strings.Contains(err.Error(), "delivered twice") {
			t.Error(err)
		}
		f.Close(context.Background())
		c.Close()
	}
}

// threadID is the thread the resumer's follower is bound to (written
// again by each registration).
func (r *resumer) threadID() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.thread
}

func (r *resumer) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.texts)
}

// TestSupervisorSIGKILLLosesNothing: 10,000 updates across four threads;
// supervisord is SIGKILLed mid-stream and restarted; the followers come
// back and resume. Every update is delivered to its thread's follower,
// exactly once, in order.
func TestSupervisorSIGKILLLosesNothing(t *testing.T) {
	const threads, total = 4, 10000
	b := startTelegramBus(t, "")
	sigkillSupervisor(t, b.profile, b.d, b.configPath, threads, total, func(thread int64, _ int, text string) {
		b.tg.PushMessage(forumChat, int(thread), allowedUser, text)
	})
	out, _, _ := b.busctl("bindings")
	if strings.Count(out, "register-reuse") != threads {
		t.Errorf("bindings after the restart:\n%s", out)
	}
}

// sigkillSupervisor registers one resumer per thread, writes total
// updates round robin into the threads with post (from a goroutine),
// SIGKILLs supervisord d once a fifth were delivered, starts it again
// from configPath, and checks that every update reached its thread's
// follower exactly once, in order.
func sigkillSupervisor(t *testing.T, p *profile, d *daemon, configPath string, threads, total int, post func(thread int64, n int, text string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rs := make([]*resumer, threads)
	ready := make(chan struct{}, threads)
	var wg sync.WaitGroup
	for i := range rs {
		rs[i] = &resumer{key: fmt.Sprintf("manual:%d", i), seen: map[string]int{}}
		wg.Go(func() { rs[i].run(ctx, t, p, ready) })
	}
	for range threads {
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			t.Fatal("followers did not register")
		}
	}
	want := make([][]string, threads)
	for n := range total {
		want[n%threads] = append(want[n%threads], fmt.Sprintf("u%05d", n))
	}
	var writer sync.WaitGroup
	writer.Go(func() {
		for n := range total {
			post(rs[n%threads].threadID(), n, want[n%threads][n/threads])
		}
	})
	delivered := func() int {
		n := 0
		for _, r := range rs {
			n += r.count()
		}
		return n
	}
	waitFor := func(n int, what string) {
		deadline := time.Now().Add(120 * time.Second)
		for delivered() < n {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d of %d delivered", what, delivered(), n)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor(total/5, "before the kill")
	if err := d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-d.exited
	t.Logf("SIGKILLed supervisord after %d deliveries", delivered())

	d2 := p.start("--config", configPath)
	p.waitServing(d2)
	writer.Wait()
	waitFor(total, "after the restart")
	cancel()
	wg.Wait()

	for i, r := range rs {
		if len(r.texts) != len(want[i]) {
			t.Errorf("thread %d: %d updates, want %d", i, len(r.texts), len(want[i]))
		}
		for j := range min(len(r.texts), len(want[i])) {
			if r.texts[j] != want[i][j] {
				t.Fatalf("thread %d update %d: %q, want %q", i, j, r.texts[j], want[i][j])
			}
		}
		for text, n := range r.seen {
			if n != 1 {
				t.Errorf("%s delivered %d times", text, n)
			}
		}
	}
}

func TestCorruptStoreRefused(t *testing.T) {
	tests := []struct {
		name    string
		content []byte
		mode    os.FileMode
		want    string
	}{
		{name: "garbage", content: []byte(strings.Repeat("not a bbolt file ", 1000)), mode: 0o600, want: "not a valid store file"},
		{name: "unreadable", content: nil, mode: 0o000, want: "state.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProfile(t)
			if err := os.MkdirAll(p.state, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(p.state, "state.db")
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, tt.mode)
			d := p.start()
			err := d.wait(t, 15*time.Second)
			var ee interface{ ExitCode() int }
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("exit: %v", err)
			}
			contains(t, "stderr", d.stderr.String(), path)
			contains(t, "stderr", d.stderr.String(), tt.want)
			after, _ := os.ReadFile(path)
			if string(after) != string(tt.content) {
				t.Error("the store file was changed")
			}
		})
	}
}
