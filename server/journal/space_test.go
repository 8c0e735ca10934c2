package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"
)

// TestSpace: the segments hold at most twice the live records (the sealed
// ones; the active one is preallocated on top), whatever the mix of slow
// and fast keys, once Flush has let maintenance catch up; acked segments
// are deleted; compaction moves records without changing them.
func TestSpace(t *testing.T) {
	tests := []struct {
		name string
		// every slowEvery-th record goes to a key that is never acked
		// (0: none); the fast keys are acked keepBehind records behind.
		slowEvery  int
		keepBehind uint64
		wantCopies bool // compaction must have run
	}{
		{name: "a slow key among fast ones: compacted", slowEvery: 50, keepBehind: 0, wantCopies: true},
		{name: "followers that lag a little", slowEvery: 0, keepBehind: 40},
		{name: "nothing acked", slowEvery: 1},
		{name: "everything acked", slowEvery: 0, keepBehind: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{TailBytes: -1, Limits: Limits{MaxCount: -1, MaxBytes: -1}}
			j, _ := newJournal(t, opts)
			fast := []string{"f1", "f2", "f3"}
			var slow []string // data of the slow key's records
			var written int64
			for i := range 3000 {
				k := fast[i%len(fast)]
				if tc.slowEvery > 0 && i%tc.slowEvery == 0 {
					k = "slow"
				}
				d := fmt.Sprintf("%s:%d:%0400d", k, i, i)
				mustAppend(t, j, "telegram", nil, Entry{Key: k, Data: []byte(d)})
				written += int64(len(d))
				if k == "slow" {
					slow = append(slow, d)
				} else if st := mustStats(t, j, k); st.LastSeq > tc.keepBehind {
					if _, err := j.Ack(k, st.LastSeq-tc.keepBehind); err != nil {
						t.Fatal(err)
					}
				}
				if i%500 == 499 {
					mustFlush(t, j)
					checkSpace(t, j, opts, fmt.Sprint("after ", i+1, " appends"))
				}
			}
			mustFlush(t, j)
			sp := checkSpace(t, j, opts, "at the end")
			t.Logf("wrote %d bytes of data; %+v", written, sp)
			if copied := sp.UsedBytes > 0 && j.compacted(); copied != tc.wantCopies && tc.wantCopies {
				t.Errorf("compaction ran: %v, want %v", copied, tc.wantCopies)
			}

			j = reopen(t, j, opts)
			got := readRecs(t, j, "slow")
			if len(got) != len(slow) {
				t.Fatalf("slow key: %d records after reopen, want %d", len(got), len(slow))
			}
			for i, r := range got {
				if r.Seq != uint64(i+1) || !bytes.Equal(r.Data, []byte(slow[i])) {
					t.Fatalf("slow key record %d: seq %d %.20q", i, r.Seq, r.Data)
				}
			}
			checkSpace(t, j, opts, "after reopen")

			// Ack everything: one segment is left.
			for _, k := range append(fast, "slow") {
				if st := mustStats(t, j, k); st.LastSeq > 0 {
					if _, err := j.Ack(k, st.LastSeq); err != nil {
						t.Fatal(err)
					}
				}
			}
			mustFlush(t, j)
			if sp := j.Space(); sp.Segments != 1 || sp.LiveBytes != 0 || sp.DiskBytes > smallSegments {
				t.Errorf("everything acked: %+v, want one segment", sp)
			}
		})
	}
}

// checkSpace checks the bound and returns the Space it checked.
func checkSpace(t *testing.T, j *Journal, opts Options, when string) Space {
	t.Helper()
	sp := j.Space()
	if sp.SealedBytes > 2*sp.LiveBytes {
		t.Errorf("%s: sealed segments hold %d bytes for %d live (%+v), want at most twice", when, sp.SealedBytes, sp.LiveBytes, sp)
	}
	if sp.DiskBytes > 2*sp.LiveBytes+smallSegments+smallSegments/4 {
		t.Errorf("%s: %d bytes on disk for %d live (%+v)", when, sp.DiskBytes, sp.LiveBytes, sp)
	}
	return sp
}

// compacted reports whether any live record was moved by compaction (its
// order, the LSN it was first written at, differs from where it is).
func (j *Journal) compacted() bool {
	j.mu.RLock()
	defer j.mu.RUnlock()
	for _, ks := range j.keys {
		for i := range ks.ring.len() {
			if e := ks.ring.at(i); e.order != e.lsn {
				return true
			}
		}
	}
	return false
}

// TestCompactionMeetsDamage: a record damaged on disk after it was written
// is never dropped silently: compaction leaves its segment alone, the
// journal goes on, and reading the record fails with ErrCorrupt.
func TestCompactionMeetsDamage(t *testing.T) {
	j, _ := newJournal(t, Options{TailBytes: -1, Limits: Limits{MaxCount: -1, MaxBytes: -1}})
	mustAppend(t, j, "telegram", nil, Entry{Key: "slow", Data: payload(0, 400)})
	for i := range 300 {
		mustAppend(t, j, "telegram", nil, Entry{Key: "fast", Data: payload(i, 400)})
	}
	j.mu.RLock()
	e := *j.keys["slow"].ring.at(0)
	j.mu.RUnlock()
	if e.seg == j.w.active {
		t.Fatal("the slow record is in the active segment; want a sealed one")
	}
	f, err := os.OpenFile(e.seg.path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("damage"), int64(e.lsn-e.seg.base)+headerSize+4); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()

	if _, err := j.Ack("fast", 300); err != nil {
		t.Fatal(err)
	}
	mustFlush(t, j)       // compaction tries the slow record's segment
	if !e.seg.noCompact { // set before Flush returned
		t.Fatal("compaction did not meet the damaged record")
	}
	if _, err := j.Read("slow", 0, 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Read of the damaged record = %v, want ErrCorrupt", err)
	}
	if st := mustStats(t, j, "slow"); st.Pending != 1 {
		t.Errorf("slow: %+v, want its record still pending", st)
	}
	if out := mustAppend(t, j, "telegram", nil, Entry{Key: "fast", Data: []byte("on")}); out[0].Seq != 301 {
		t.Errorf("append after the damage: %+v", out[0])
	}
}
