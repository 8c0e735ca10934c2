// Package testkit holds the small helpers several packages' tests share: a
// clock the test sets, a recorder of a store's drop reports, a log sink
// for several goroutines, the two waits on an event (Eventually for a
// condition, Recv for a channel), a look at a signal channel (Closed),
// a file copy, and a child process stopped when the test ends (Start).
// Tests only; nothing of the product imports it.
package testkit

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Wait bounds a wait on an event: far beyond what any event takes on a
// loaded machine, so that reaching it means the event is not coming. A
// test waits on the event; Wait only keeps a broken test from hanging.
const Wait = 30 * time.Second

// pollEvery is how often Eventually looks again.
const pollEvery = 5 * time.Millisecond

// Eventually waits until cond holds, looking again every few
// milliseconds; if it does not within Wait the test fails, saying it was
// waiting for what. For a condition no event signals (a counter, a file,
// a log line); where a channel signals it, use Recv.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	eventually(t, what, cond, Wait)
}

func eventually(t testing.TB, what string, cond func() bool, bound time.Duration) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", bound, what)
		}
		time.Sleep(pollEvery)
	}
}

// Recv receives from ch; if nothing comes within Wait the test fails,
// saying it was waiting for what. A closed channel yields its zero value,
// as a receive does.
func Recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return recv(t, ch, what, Wait)
}

func recv[T any](t testing.TB, ch <-chan T, what string, bound time.Duration) T {
	t.Helper()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("timed out after %s waiting for %s", bound, what)
		panic("unreachable")
	}
}

// Closed says whether c is closed now, without waiting (a signal
// channel that is closed, never sent on).
func Closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// SyncBuffer is a bytes.Buffer that writer goroutines and a reader may
// use at once (a logger's sink, a child's output). The zero value is
// empty and ready.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Bytes returns a copy of what was written so far.
func (s *SyncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

// Contains reports whether what was written so far contains sub.
func (s *SyncBuffer) Contains(sub string) bool { return strings.Contains(s.String(), sub) }

// CopyFile copies the file from to the file to (created or truncated,
// with mode), failing the test on any error: a binary copied where
// another user may run it, a fixture into a test's directory.
func CopyFile(t testing.TB, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// Process is a child process a test started with [Start].
type Process struct {
	done chan struct{}
	err  error
}

// Done is closed once the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is what cmd.Wait returned; valid once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// Start starts cmd and stops it when the test ends: SIGTERM, then SIGKILL
// if it has not exited within 10 s. If the test failed, output (what the
// process wrote, e.g. a SyncBuffer given as its stderr) is logged under
// name.
func Start(t testing.TB, cmd *exec.Cmd, name string, output fmt.Stringer) *Process {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	p := &Process{done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() && output != nil {
			t.Logf("%s:\n%s", name, output.String())
		}
	})
	return p
}

// Clock is a clock a test moves by hand; its Now is a func() time.Time for
// the options that take one.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Drop is one OnDrop report: n updates of key dropped for reason.
type Drop struct {
	Key    string
	N      int
	Reason string
}

// DropLog records OnDrop reports; its OnDrop is the callback.
type DropLog struct {
	mu    sync.Mutex
	drops []Drop
}

// OnDrop records a report.
func (d *DropLog) OnDrop(key string, n int, reason string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.drops = append(d.drops, Drop{key, n, reason})
}

// Take returns the reports recorded since the last Take.
func (d *DropLog) Take() []Drop {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.drops
	d.drops = nil
	return out
}
