package journal

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSeed: a seeded journal continues each key's seqs after Through, keeps
// its acked point and drop count, stores the cursors, remembers the
// DedupIDs, and holds all of it after a reopen; a journal with state
// refuses a seed.
func TestSeed(t *testing.T) {
	clk := newClock()
	opts := Options{Now: clk.Now}
	j, _ := newJournal(t, opts)
	seed := Seed{
		Keys: []SeedKey{{Key: "a", Through: 41, Acked: 40, Dropped: 3}, {Key: "", Through: 7, Acked: 7}},
		Providers: []SeedProvider{
			{Name: "telegram", Cursor: []byte("1001"), Seen: []SeenID{{ID: "1000", At: clk.Now().Add(-time.Hour)}, {ID: "1001", At: clk.Now()}}},
			{Name: "slack", Seen: []SeenID{{ID: "x", At: clk.Now()}}},
		},
	}
	if err := j.Seed(context.Background(), seed); err != nil {
		t.Fatal(err)
	}
	check := func(j *Journal) {
		t.Helper()
		st := mustStats(t, j, "a")
		if st.LastSeq != 41 || st.AckedThrough != 40 || st.Dropped != 3 || st.Pending != 0 {
			t.Errorf("stats of a: %+v", st)
		}
		if c, _ := j.Cursor("telegram"); string(c) != "1001" {
			t.Errorf("cursor %q", c)
		}
		if c, _ := j.Cursor("slack"); c != nil {
			t.Errorf("slack cursor %q, want none", c)
		}
	}
	check(j)
	out := mustAppend(t, j, "telegram", []byte("1002"), ent("a", "1001", "dup"), ent("a", "1002", "new"), ent("", "", "u"))
	if !out[0].Duplicate || out[1].Seq != 42 || out[2].Seq != 8 {
		t.Fatalf("appends after the seed: %+v", out)
	}
	if out := mustAppend(t, j, "slack", nil, ent("a", "x", "dup")); !out[0].Duplicate {
		t.Errorf("slack's seeded id not remembered: %+v", out)
	}
	j = reopen(t, j, opts)
	st := mustStats(t, j, "a")
	if st.LastSeq != 42 || st.Pending != 1 || st.Dropped != 3 {
		t.Errorf("after reopen: %+v", st)
	}
	if c, _ := j.Cursor("telegram"); string(c) != "1002" {
		t.Errorf("cursor after reopen %q", c)
	}
	if out := mustAppend(t, j, "telegram", nil, ent("a", "1000", "dup")); !out[0].Duplicate {
		t.Errorf("seeded id forgotten after reopen: %+v", out)
	}
	if err := j.Seed(context.Background(), Seed{Keys: []SeedKey{{Key: "b", Through: 1}}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("seed of a journal with state = %v, want ErrInvalid", err)
	}
	if err := j.Seed(context.Background(), Seed{Keys: []SeedKey{{Key: "b", Through: 1, Acked: 2}}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("seed acked beyond through = %v, want ErrInvalid", err)
	}
}
