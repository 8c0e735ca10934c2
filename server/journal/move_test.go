package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// moveOut splits key's pending records into those whose data starts with
// prefix, which go to dst, and the others, which stay, and moves them.
func moveOut(t testing.TB, j *Journal, key, prefix, dst string) ([]uint64, error) {
	t.Helper()
	recs := readRecs(t, j, key)
	if len(recs) == 0 {
		t.Fatalf("nothing in %q to move", key)
	}
	var stay, goes []MoveEntry
	for _, r := range recs {
		e := MoveEntry{Key: key, Provider: r.Provider, ReceivedAt: r.ReceivedAt, Data: r.Data}
		if strings.HasPrefix(string(r.Data), prefix) {
			e.Key = dst
			goes = append(goes, e)
			continue
		}
		stay = append(stay, e)
	}
	return j.Move(context.Background(), key, recs[0].Seq, recs[len(recs)-1].Seq, append(stay, goes...))
}

// TestMove: the records of one thread leave the unrouted set for a key, in
// one commit: the key gets them after its own, in order, with their data
// and times; the others stay, in order, under new seqs; nothing counts as
// dropped; it all survives a reopen; de-duplication still knows the moved
// records' ids; appends go on after the new seqs.
func TestMove(t *testing.T) {
	clk := newClock()
	var drops dropLog
	opts := Options{Now: clk.Now, OnDrop: drops.OnDrop}
	j, _ := newJournal(t, opts)
	mustAppend(t, j, "telegram", nil, ent("x", "x1", "x-own"))
	for i, th := range []string{"a", "b", "a", "c", "b", "a"} {
		clk.Add(1)
		mustAppend(t, j, "telegram", []byte(fmt.Sprint(i)), ent("", fmt.Sprint("u", i), fmt.Sprintf("%s:%d", th, i)))
	}
	before := readRecs(t, j, "")
	seqs, err := moveOut(t, j, "", "a:", "x")
	if err != nil {
		t.Fatal(err)
	}
	checkSeqs(t, "Move's seqs", seqs, []uint64{7, 8, 9, 2, 3, 4})

	check := func(t *testing.T, j *Journal) {
		t.Helper()
		x := readRecs(t, j, "x")
		if got := dataOf(x); !slices.Equal(got, []string{"x-own", "a:0", "a:2", "a:5"}) {
			t.Errorf("x holds %q", got)
		}
		checkSeqs(t, "x", seqsOf(x), []uint64{1, 2, 3, 4})
		un := readRecs(t, j, "")
		if got := dataOf(un); !slices.Equal(got, []string{"b:1", "c:3", "b:4"}) {
			t.Errorf("unrouted holds %q", got)
		}
		checkSeqs(t, "unrouted", seqsOf(un), []uint64{7, 8, 9})
		for _, r := range append(x[1:], un...) {
			i := slices.IndexFunc(before, func(b Record) bool { return bytes.Equal(b.Data, r.Data) })
			if i < 0 || !r.ReceivedAt.Equal(before[i].ReceivedAt) || r.Provider != "telegram" {
				t.Errorf("record %q: %v from %q, want the original's time %v", r.Data, r.ReceivedAt, r.Provider, before[i].ReceivedAt)
			}
		}
		if st := mustStats(t, j, ""); st.Pending != 3 || st.Dropped != 0 || st.AckedThrough != 6 || st.LastSeq != 9 {
			t.Errorf("unrouted stats %+v", st)
		}
		if st := mustStats(t, j, "x"); st.Pending != 4 || st.Dropped != 0 || st.LastSeq != 4 {
			t.Errorf("x stats %+v", st)
		}
		if sp := j.Space(); sp.Pending != 7 {
			t.Errorf("space %+v, want 7 pending", sp)
		}
		if c, _ := j.Cursor("telegram"); string(c) != "5" {
			t.Errorf("cursor %q, want 5 (Move leaves it)", c)
		}
	}
	check(t, j)
	if got := drops.Take(); len(got) != 0 {
		t.Errorf("OnDrop told of %v", got)
	}
	j = reopen(t, j, opts)
	check(t, j)

	out := mustAppend(t, j, "telegram", nil, ent("", "u0", "a:0 again"), ent("", "u9", "d:9"), ent("x", "", "x-next"))
	if !out[0].Duplicate || out[1].Seq != 10 || out[2].Seq != 5 {
		t.Errorf("appends after the move: %+v, want the redelivered one skipped and seqs 10 and 5", out)
	}
}

// TestMoveConflict: a Move is refused, changing nothing, if the key it
// takes records from changed since they were read.
func TestMoveConflict(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, j *Journal)
	}{
		{name: "appended to", change: func(t *testing.T, j *Journal) { mustAppend(t, j, "telegram", nil, ent("", "n", "a:new")) }},
		{name: "acked", change: func(t *testing.T, j *Journal) {
			if _, err := j.Ack("", 1); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "dropped by retention", change: func(t *testing.T, j *Journal) {
			if err := j.SetLimits(context.Background(), Limits{MaxCount: 2}, 0); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j, _ := newJournal(t, Options{})
			mustAppend(t, j, "telegram", nil, ent("", "1", "a:1"), ent("", "2", "b:2"), ent("", "3", "a:3"))
			recs := readRecs(t, j, "")
			tc.change(t, j)
			wantUn := dataOf(readRecs(t, j, ""))
			_, err := j.Move(context.Background(), "", recs[0].Seq, recs[len(recs)-1].Seq, []MoveEntry{
				{Key: "x", Provider: "telegram", Data: recs[0].Data},
				{Key: "", Provider: "telegram", Data: recs[1].Data},
				{Key: "x", Provider: "telegram", Data: recs[2].Data},
			})
			if !errors.Is(err, ErrConflict) {
				t.Fatalf("Move after the key changed: %v, want ErrConflict", err)
			}
			if got := dataOf(readRecs(t, j, "")); !slices.Equal(got, wantUn) {
				t.Errorf("unrouted %q, want %q as it was", got, wantUn)
			}
			if st := mustStats(t, j, "x"); st.LastSeq != 0 {
				t.Errorf("x got records: %+v", st)
			}
			if _, err := moveOut(t, j, "", "a:", "x"); err != nil {
				t.Errorf("Move after reading again: %v", err)
			}
		})
	}
	j, _ := newJournal(t, Options{})
	if _, err := j.Move(context.Background(), "", 3, 2, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Move of seqs 3 to 2: %v, want ErrInvalid", err)
	}
	if _, err := j.Move(context.Background(), "", 1, 1, nil); !errors.Is(err, ErrConflict) {
		t.Errorf("Move from a key never appended to: %v, want ErrConflict", err)
	}
}

// TestMoveRetention: the key records move to keeps its bounds: its oldest
// go, reported as dropped.
func TestMoveRetention(t *testing.T) {
	var drops dropLog
	j, _ := newJournal(t, Options{Limits: Limits{MaxCount: 3}, OnDrop: drops.OnDrop})
	mustAppend(t, j, "telegram", nil, ent("x", "x1", "x:1"), ent("x", "x2", "x:2"))
	mustAppend(t, j, "telegram", nil, ent("", "1", "a:1"), ent("", "2", "a:2"), ent("", "3", "b:3"))
	if _, err := moveOut(t, j, "", "a:", "x"); err != nil {
		t.Fatal(err)
	}
	if got := dataOf(readRecs(t, j, "x")); !slices.Equal(got, []string{"x:2", "a:1", "a:2"}) {
		t.Errorf("x holds %q, want its newest 3", got)
	}
	if got := drops.Take(); !slices.Equal(got, []dropCall{{Key: "x", N: 1, Reason: DropCount}}) {
		t.Errorf("drops %v", got)
	}
}

// TestMoveTorn cuts the segment inside a Move's batch at every offset, as
// a crash can: Open finds the move whole or not at all, every record in
// exactly one place.
func TestMoveTorn(t *testing.T) {
	j, dir := newJournal(t, Options{})
	mustAppend(t, j, "telegram", nil, ent("x", "x1", "x:own"))
	for i := range 8 {
		mustAppend(t, j, "telegram", nil, ent("", fmt.Sprint(i), fmt.Sprintf("%s:%d", []string{"a", "b"}[i%2], i)))
	}
	seg := j.segs[len(j.segs)-1]
	from := seg.used
	if _, err := moveOut(t, j, "", "a:", "x"); err != nil {
		t.Fatal(err)
	}
	to := seg.used
	if to <= from || j.segs[len(j.segs)-1] != seg {
		t.Fatalf("the move's batch is not at the end of the segment (%d…%d)", from, to)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	before := map[string][]string{"x": {"x:own"}, "": {"a:0", "b:1", "a:2", "b:3", "a:4", "b:5", "a:6", "b:7"}}
	after := map[string][]string{"x": {"x:own", "a:0", "a:2", "a:4", "a:6"}, "": {"b:1", "b:3", "b:5", "b:7"}}
	orig, err := os.ReadFile(seg.path)
	if err != nil {
		t.Fatal(err)
	}
	for off := from; off <= to; off++ {
		cut := snapshotDir(t, dir)
		b := slices.Clone(orig)
		clear(b[off:to])
		if err := os.WriteFile(filepath.Join(cut, filepath.Base(seg.path)), b, 0o600); err != nil {
			t.Fatal(err)
		}
		want := before
		if bytes.Equal(b[from:to], orig[from:to]) { // zeros over zeros
			want = after
		}
		jj, err := Open(cut, Options{SegmentSize: smallSegments})
		if err != nil {
			t.Fatalf("offset %d: Open: %v", off, err)
		}
		for k, w := range want {
			if got := dataOf(readRecs(t, jj, k)); !slices.Equal(got, w) {
				t.Errorf("cut at offset %d of %d…%d: %q holds %q, want %q", off, from, to, k, got, w)
			}
		}
		if err := jj.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
