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
func runAndKill(t *testing.T, path string, n int) map[string]uint64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashHelperEnv+"="+path)
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
