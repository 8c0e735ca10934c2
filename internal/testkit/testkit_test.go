package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fatalTB records a Fatalf and stops the waiting function as testing.T
// does (by leaving the goroutine; here by a panic the caller recovers).
type fatalTB struct {
	testing.TB
	msg string
}

type fatal struct{}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	panic(fatal{})
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(fatal{})
}

// failed runs fn with a fatalTB and returns its Fatalf message, "" if none.
func failed(fn func(t testing.TB)) (msg string) {
	f := &fatalTB{}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(fatal); !ok {
				panic(r)
			}
			msg = f.msg
		}
	}()
	fn(f)
	return ""
}

func TestEventually(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 3 {
			n.Add(1)
		}
	}()
	Eventually(t, "three", func() bool { return n.Load() == 3 })

	msg := failed(func(tb testing.TB) {
		eventually(tb, "the impossible", func() bool { return false }, 20*time.Millisecond)
	})
	if !strings.Contains(msg, "waiting for the impossible") {
		t.Errorf("a condition that never holds: %q", msg)
	}
}

func TestRecv(t *testing.T) {
	ch := make(chan int, 1)
	go func() { ch <- 7 }()
	if got := Recv(t, ch, "seven"); got != 7 {
		t.Errorf("Recv = %d", got)
	}
	msg := failed(func(tb testing.TB) { recv(tb, make(chan int), "nothing", 20*time.Millisecond) })
	if !strings.Contains(msg, "waiting for nothing") {
		t.Errorf("a channel that never sends: %q", msg)
	}
}

func TestClosed(t *testing.T) {
	c := make(chan struct{})
	if Closed(c) {
		t.Error("an open channel is Closed")
	}
	close(c)
	if !Closed(c) {
		t.Error("a closed channel is not Closed")
	}
}

func TestSyncBuffer(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				fmt.Fprintf(&b, "w%d\n", i)
			}
		})
	}
	// A reader beside the writers (go test -race).
	Eventually(t, "the last writer's lines", func() bool { return b.Contains("w7") })
	wg.Wait()
	if got := strings.Count(b.String(), "\n"); got != 800 {
		t.Errorf("%d lines, want 800", got)
	}
	c := b.Bytes()
	c[0] = 'X'
	if b.String()[0] == 'X' {
		t.Error("Bytes shares the buffer")
	}
}

func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(from, []byte("content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, []byte("longer old content"), 0o600); err != nil {
		t.Fatal(err)
	}
	CopyFile(t, from, to, 0o600)
	if b, err := os.ReadFile(to); err != nil || string(b) != "content" {
		t.Errorf("copy: %q, %v", b, err)
	}
	if msg := failed(func(tb testing.TB) { CopyFile(tb, filepath.Join(dir, "missing"), to, 0o600) }); msg == "" {
		t.Error("copying a missing file did not fail")
	}
}
