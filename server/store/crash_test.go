package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

const crashHelperEnv = "CHATBUS_STORE_CRASH_HELPER"

// Crash helper layout: binding "b" is appended to by one goroutine with
// provider "telegram" (so the cursor can be checked exactly), bindings
// "c1".."c3" by one goroutine each with provider "slack" (so group commit
// shares transactions while the process dies). Update ids are
// base(binding) + seq, so every entry can be checked.
var crashBindings = []struct {
	key      string
	provider string
	base     int64
}{
	{"b", "telegram", 0},
	{"c1", "slack", 1 << 40},
	{"c2", "slack", 2 << 40},
	{"c3", "slack", 3 << 40},
}

// TestHelperProcess is the child of TestCrashSafety: it appends in a loop
// and prints "<binding> <seq>" after each Append returned success, until
// it is killed (or after 30 s, or when its stdout is gone).
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(crashHelperEnv)
	if path == "" {
		return // not the child
	}
	if os.Getenv(holderCrashEnv) != "" {
		holderCrashChild(path)
	}
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	var mu sync.Mutex // one line per write
	deadline := time.Now().Add(30 * time.Second)
	var wg sync.WaitGroup
	for _, b := range crashBindings {
		wg.Go(func() {
			last, err := s.LastSeq(b.key)
			if err != nil {
				fmt.Fprintln(os.Stderr, "helper:", err)
				os.Exit(3)
			}
			for seq := last + 1; time.Now().Before(deadline); seq++ {
				id := b.base + int64(seq)
				u := upd(b.key, id, "crash")
				u.Payload = bytes.Repeat([]byte{'p'}, 200)
				out, err := s.Append(context.Background(), b.provider, []Update{u}, cur(id+1))
				if err != nil || len(out) != 1 || out[0].Seq != seq {
					fmt.Fprintf(os.Stderr, "helper: append %s %d: %v %+v\n", b.key, seq, err, out)
					os.Exit(4)
				}
				mu.Lock()
				_, err = fmt.Printf("%s %d\n", b.key, seq)
				mu.Unlock()
				if err != nil {
					os.Exit(0) // the parent is gone
				}
			}
		})
	}
	wg.Wait()
	os.Exit(0)
}

// TestCrashSafety SIGKILLs a child that appends in a loop, several times,
// and checks after each: every Append the child saw succeed is in the
// journal, seqs are contiguous, the cursor matches the journal (same
// transaction), and the file passes bbolt's consistency check.
func TestCrashSafety(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range crashBindings {
		putBinding(t, s, b.key, Target{b.provider, "-100", fmt.Sprint(b.base)})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	rounds := []struct {
		name      string
		killAfter int // lines read before SIGKILL
	}{
		{name: "early", killAfter: 10},
		{name: "later", killAfter: 100 + rand.IntN(100)},
		{name: "again", killAfter: 300 + rand.IntN(300)},
	}
	for _, rc := range rounds {
		t.Run(rc.name, func(t *testing.T) {
			acked := runAndKill(t, path, rc.killAfter)

			s, err := Open(path, Options{Verify: true})
			if err != nil {
				t.Fatalf("reopen after SIGKILL: %v", err)
			}
			defer s.Close()
			for _, b := range crashBindings {
				ups := readAll(t, s, b.key)
				last, _ := s.LastSeq(b.key)
				if last < acked[b.key] {
					t.Errorf("%s: last seq %d, but the child saw seq %d committed", b.key, last, acked[b.key])
				}
				if uint64(len(ups)) != last {
					t.Errorf("%s: %d entries for last seq %d", b.key, len(ups), last)
				}
				for i, u := range ups {
					if u.Seq != uint64(i+1) || u.PlatformUpdateID != b.base+int64(u.Seq) {
						t.Errorf("%s: entry %d is seq %d id %d", b.key, i, u.Seq, u.PlatformUpdateID)
						break
					}
				}
				if b.provider == "telegram" {
					if c, _ := s.Cursor("telegram"); string(c) != fmt.Sprint(last+1) {
						t.Errorf("cursor %s does not match the journal's last seq %d", c, last)
					}
				}
				t.Logf("%s: child saw %d, journal holds %d", b.key, acked[b.key], last)
			}
		})
	}
}

// runAndKill runs the helper child on path, SIGKILLs it after n lines,
// and returns the highest seq per binding it reported committed.
func runAndKill(t *testing.T, path string, n int, env ...string) map[string]uint64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), crashHelperEnv+"="+path), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[string]uint64{}
	lines := 0
	sc := bufio.NewScanner(stdout)
	for sc.Scan() { // reads on after the kill: lines written before it count
		var key string
		var seq uint64
		if _, err := fmt.Sscanf(sc.Text(), "%s %d", &key, &seq); err != nil {
			t.Errorf("child wrote %q", sc.Text())
			continue
		}
		acked[key] = max(acked[key], seq)
		if lines++; lines == n {
			_ = cmd.Process.Kill() // SIGKILL
		}
	}
	err = cmd.Wait()
	if lines < n {
		t.Fatalf("child stopped after %d lines (want %d): %v\n%s", lines, n, err, stderr.Bytes())
	}
	if err == nil {
		t.Fatalf("child exited normally; want it killed")
	}
	return acked
}

// holderCrashEnv makes TestHelperProcess the child of
// TestHolderCrashSafety.
const holderCrashEnv = "CHATBUS_STORE_HOLDER_CRASH"

// holderCrashChild puts binding "h" in a loop until it is killed: n = 1,
// 2, 3… each changes its holder to "i<n>" only (held, written within the
// 1 ms HolderDelay), and every fifth also its LastError to "e<n>"
// (written before PutBinding returns), after which it prints "h <n>".
func holderCrashChild(path string) {
	s, err := Open(path, Options{HolderDelay: time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	b, err := s.GetBinding("h")
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	deadline := time.Now().Add(30 * time.Second)
	for n := 1; time.Now().Before(deadline); n++ {
		b.InstanceID, b.Updated = fmt.Sprint("i", n), time.Time{}
		durable := n%5 == 0
		if durable {
			b.LastError = fmt.Sprint("e", n)
		}
		if err := s.PutBinding(b); err != nil {
			fmt.Fprintf(os.Stderr, "helper: put %d: %v\n", n, err)
			os.Exit(4)
		}
		if durable {
			if _, err := fmt.Printf("h %d\n", n); err != nil {
				os.Exit(0) // the parent is gone
			}
		}
	}
	os.Exit(0)
}

// TestHolderCrashSafety SIGKILLs a child that changes a binding's holder
// (held in memory, written within HolderDelay) between writes that are
// durable when they return, and checks after each kill: the file passes
// bbolt's consistency check, the binding keeps its thread and status,
// every write the child saw return is there, and the holder is one the
// child put at or after it (never an older one over a newer write).
func TestHolderCrashSafety(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tg := Target{"telegram", "-100", "7"}
	if err := s.PutBinding(Binding{Key: "h", OwnerKind: OwnerManualFollower, InstanceID: "i0", LastError: "e0",
		Target: tg, Slot: "A", Status: StatusActive, LastAction: ActionRegisterReuse}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, killAfter := range []int{5, 50 + rand.IntN(50), 200 + rand.IntN(200)} {
		t.Run(fmt.Sprint("after ", killAfter), func(t *testing.T) {
			acked := runAndKill(t, path, killAfter, holderCrashEnv+"=1")["h"]
			s, err := Open(path, Options{Verify: true})
			if err != nil {
				t.Fatalf("reopen after SIGKILL: %v", err)
			}
			defer s.Close()
			b, err := s.GetBinding("h")
			if err != nil {
				t.Fatal(err)
			}
			var written, holder uint64
			if _, err := fmt.Sscanf(b.LastError, "e%d", &written); err != nil {
				t.Fatalf("last error %q: %v", b.LastError, err)
			}
			if _, err := fmt.Sscanf(b.InstanceID, "i%d", &holder); err != nil {
				t.Fatalf("instance %q: %v", b.InstanceID, err)
			}
			if b.Target != tg || b.Status != StatusActive || b.Slot != "A" {
				t.Errorf("binding %+v lost its thread, slot or status", b)
			}
			if written < acked {
				t.Errorf("the file holds write e%d; the child saw e%d return", written, acked)
			}
			if holder < written {
				t.Errorf("holder i%d is older than the write e%d it sits on", holder, written)
			}
			t.Logf("child saw e%d; the file holds e%d, holder i%d", acked, written, holder)
		})
	}
}
