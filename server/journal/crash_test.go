package journal

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

const crashHelperEnv = "CHATBUS_JOURNAL_CRASH_HELPER"

// Crash helper layout: key "b" is appended to by one goroutine with
// provider "telegram", one entry and the cursor (its seq) per Append, so
// the cursor can be checked exactly; keys "c1".."c3" by one goroutine each
// with provider "slack", one to three entries per Append, so that group
// commit shares batches while the process dies; "slow" gets a record now
// and then and is never acked, so that compaction has work. An acker acks
// b and the c keys behind their heads, so segments are deleted and
// compacted while the process dies. Every record's data is "<key>:<seq>"
// padded, its DedupID "<key>-<seq>".
var crashKeys = []struct {
	key      string
	provider string
	batch    int
}{
	{"b", "telegram", 1},
	{"c1", "slack", 3},
	{"c2", "slack", 2},
	{"c3", "slack", 1},
}

var crashOpts = Options{SegmentSize: 64 << 10, AckFlushInterval: 5 * time.Millisecond}

func crashData(key string, seq uint64) []byte {
	return append([]byte(fmt.Sprintf("%s:%d:", key, seq)), bytes.Repeat([]byte{'p'}, 300)...)
}

// TestHelperProcess is the child of TestCrashSafety: it appends in a loop
// and prints "<key> <seq>" after each Append returned, and "ack <key>
// <seq>" after each Ack, until it is killed (or after 30 s, or when its
// stdout is gone).
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(crashHelperEnv)
	if dir == "" {
		return // not the child
	}
	j, err := Open(dir, crashOpts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	var mu sync.Mutex // one line per write
	say := func(format string, args ...any) {
		mu.Lock()
		_, err := fmt.Printf(format+"\n", args...)
		mu.Unlock()
		if err != nil {
			os.Exit(0) // the parent is gone
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	var wg sync.WaitGroup
	for _, k := range append(crashKeys, struct {
		key      string
		provider string
		batch    int
	}{"slow", "slack", 1}) {
		wg.Go(func() {
			st, err := j.Stats(k.key)
			if err != nil {
				fmt.Fprintln(os.Stderr, "helper:", err)
				os.Exit(3)
			}
			for seq := st.LastSeq + 1; time.Now().Before(deadline); {
				if k.key == "slow" {
					time.Sleep(20 * time.Millisecond)
				}
				var es []Entry
				for i := range uint64(k.batch) {
					es = append(es, Entry{Key: k.key, DedupID: fmt.Sprintf("%s-%d", k.key, seq+i), Data: crashData(k.key, seq+i)})
				}
				var cursor []byte
				if k.provider == "telegram" {
					cursor = []byte(strconv.FormatUint(seq, 10))
				}
				out, err := j.Append(context.Background(), k.provider, es, cursor)
				if err != nil || len(out) != len(es) || out[0].Seq != seq {
					fmt.Fprintf(os.Stderr, "helper: append %s %d: %v %+v\n", k.key, seq, err, out)
					os.Exit(4)
				}
				seq += uint64(len(es))
				say("%s %d", k.key, seq-1)
			}
		})
	}
	wg.Go(func() {
		for time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
			for _, k := range crashKeys {
				st, _ := j.Stats(k.key)
				if st.LastSeq > 30 {
					if _, err := j.Ack(k.key, st.LastSeq-30); err != nil {
						fmt.Fprintln(os.Stderr, "helper: ack:", err)
						os.Exit(5)
					}
					say("ack %s %d", k.key, st.LastSeq-30)
				}
			}
		}
	})
	wg.Wait()
	os.Exit(0)
}

// TestCrashSafety SIGKILLs a child that appends and acks in a loop, several
// times on the same directory, and checks after each: Open succeeds, every
// Append the child saw return is there exactly once (each key's pending
// records are its seqs after the ack point, each holding its own data), the
// telegram cursor is the seq of the last record of b (same commit), the
// DedupIDs of what the child wrote are still known, and no ack appears
// that the child did not make.
func TestCrashSafety(t *testing.T) {
	dir := t.TempDir()
	rounds := []struct {
		name      string
		killAfter int // lines read before SIGKILL
	}{
		{name: "early", killAfter: 10},
		{name: "later", killAfter: 400 + rand.IntN(400)},
		{name: "again", killAfter: 2000 + rand.IntN(2000)},
		{name: "once more", killAfter: 100 + rand.IntN(3000)},
	}
	for _, rc := range rounds {
		t.Run(rc.name, func(t *testing.T) {
			written, acked := runAndKill(t, dir, rc.killAfter)
			j, err := Open(dir, crashOpts)
			if err != nil {
				t.Fatalf("reopen after SIGKILL: %v", err)
			}
			defer j.Close()
			for _, k := range append(crashKeys, struct {
				key      string
				provider string
				batch    int
			}{"slow", "", 0}) {
				st := mustStats(t, j, k.key)
				if st.LastSeq < written[k.key] {
					t.Errorf("%s: last seq %d, but the child saw seq %d written", k.key, st.LastSeq, written[k.key])
				}
				if st.AckedThrough > acked[k.key] {
					t.Errorf("%s: acked through %d, the child acked only %d", k.key, st.AckedThrough, acked[k.key])
				}
				recs := readRecs(t, j, k.key)
				if uint64(len(recs)) != st.LastSeq-st.AckedThrough-st.Dropped {
					t.Errorf("%s: %d records for last seq %d, acked %d, dropped %d", k.key, len(recs), st.LastSeq, st.AckedThrough, st.Dropped)
				}
				for i, r := range recs {
					if r.Seq != st.AckedThrough+uint64(i)+1 || !bytes.Equal(r.Data, crashData(k.key, r.Seq)) {
						t.Errorf("%s: record %d is seq %d with %.20q", k.key, i, r.Seq, r.Data)
						break
					}
				}
				if k.key == "b" {
					if c, _ := j.Cursor("telegram"); string(c) != strconv.FormatUint(st.LastSeq, 10) {
						t.Errorf("telegram cursor %q does not match b's last seq %d", c, st.LastSeq)
					}
				}
				t.Logf("%s: child saw %d written and acked %d; journal holds %d, acked %d", k.key, written[k.key], acked[k.key], st.LastSeq, st.AckedThrough)
			}
			// What the child wrote is known: a redelivery is stored once.
			for _, k := range crashKeys {
				if written[k.key] == 0 {
					continue
				}
				provider := "slack"
				if k.key == "b" {
					provider = "telegram"
				}
				out, err := j.Append(context.Background(), provider, []Entry{{Key: k.key, DedupID: fmt.Sprintf("%s-%d", k.key, written[k.key])}}, nil)
				if err != nil || !out[0].Duplicate {
					t.Errorf("%s: redelivery of seq %d: %+v, %v; want a duplicate", k.key, written[k.key], out, err)
				}
			}
			t.Logf("space: %+v", j.Space())
		})
	}
}

// runAndKill runs the helper child on dir, SIGKILLs it after n lines, and
// returns the highest seq per key it reported written and acked.
func runAndKill(t *testing.T, dir string, n int) (written, acked map[string]uint64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	written, acked = map[string]uint64{}, map[string]uint64{}
	lines := 0
	sc := bufio.NewScanner(stdout)
	for sc.Scan() { // reads on after the kill: lines written before it count
		var key string
		var seq uint64
		if _, err := fmt.Sscanf(sc.Text(), "ack %s %d", &key, &seq); err == nil {
			acked[key] = max(acked[key], seq)
		} else if _, err := fmt.Sscanf(sc.Text(), "%s %d", &key, &seq); err == nil {
			written[key] = max(written[key], seq)
		} else {
			t.Errorf("child wrote %q", sc.Text())
		}
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
	return written, acked
}
