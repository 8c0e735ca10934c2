package journal

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tornFixture is a closed journal whose last segment ends with one batch
// (the "in-flight" one, two keys, three entries) after many acknowledged
// ones; from, to are that batch's bytes in the segment file.
type tornFixture struct {
	dir      string
	seg      string // path of the last segment
	from, to int64
	acked    map[string][]string // what the acknowledged appends hold, per key
	inFlight map[string]int      // records the last batch adds, per key
}

func newTornFixture(t *testing.T) *tornFixture {
	t.Helper()
	j, dir := newJournal(t, Options{})
	f := &tornFixture{dir: dir, acked: map[string][]string{}}
	for i := range 120 { // several segments
		k := []string{"a", "b", ""}[i%3]
		d := fmt.Sprintf("%s-%d-%s", k, i, strings.Repeat("x", 1200))
		mustAppend(t, j, "telegram", []byte(fmt.Sprint(i)), Entry{Key: k, DedupID: fmt.Sprint(i), Data: []byte(d)})
		f.acked[k] = append(f.acked[k], d)
	}
	last := j.segs[len(j.segs)-1]
	f.seg = last.path
	f.from = last.used
	mustAppend(t, j, "telegram", []byte("in-flight"),
		ent("a", "f1", "in flight 1"), ent("b", "f2", "in flight 2"), ent("a", "f3", "in flight 3"))
	f.to = last.used
	f.inFlight = map[string]int{"a": 2, "b": 1}
	if n := j.Space().Segments; n < 3 {
		t.Fatalf("fixture has %d segments, want several", n)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}

// damage copies the fixture's segments and applies change to the copy of
// the last one, returning the directory and whether the in-flight batch's
// bytes still are what was written.
func (f *tornFixture) damage(t *testing.T, change func(seg []byte) []byte) (string, bool) {
	t.Helper()
	dir := snapshotDir(t, f.dir)
	path := filepath.Join(dir, filepath.Base(f.seg))
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := change(slices.Clone(orig))
	if err := os.WriteFile(path, changed, 0o600); err != nil {
		t.Fatal(err)
	}
	intact := int64(len(changed)) >= f.to && bytes.Equal(changed[f.from:f.to], orig[f.from:f.to])
	return dir, intact
}

// check opens dir and verifies: every acknowledged record is there once,
// the in-flight batch is there whole if intact and not at all otherwise
// (its cursor likewise), nothing but zeros follows the data in the last
// segment, and appending and reopening work on.
func (f *tornFixture) check(t *testing.T, dir string, intact bool) {
	t.Helper()
	j, err := Open(dir, Options{SegmentSize: smallSegments})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer func() { _ = j.Close() }()
	for k, want := range f.acked {
		got := dataOf(readRecs(t, j, k))
		extra := 0
		if intact {
			extra = f.inFlight[k]
		}
		if len(got) != len(want)+extra || !slices.Equal(got[:min(len(got), len(want))], want) {
			t.Fatalf("key %q: %d records (first %.12q), want the %d acknowledged ones plus %d", k, len(got), got[:min(len(got), 1)], len(want), extra)
		}
	}
	wantCursor := fmt.Sprint(119)
	if intact {
		wantCursor = "in-flight"
	}
	if c, _ := j.Cursor("telegram"); string(c) != wantCursor {
		t.Errorf("cursor %q, want %q", c, wantCursor)
	}
	if !intact {
		// The torn tail is gone: zeros from where it began.
		b, err := os.ReadFile(filepath.Join(dir, filepath.Base(f.seg)))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(b)) < f.from || !allZero(b[f.from:]) {
			t.Errorf("the last segment (%d bytes) still holds data after offset %d", len(b), f.from)
		}
		// The in-flight ids were never stored: a retry stores them.
		out := mustAppend(t, j, "telegram", nil, ent("a", "f1", "retry"))
		if out[0].Duplicate || out[0].Seq != uint64(len(f.acked["a"])+1) {
			t.Errorf("retry of the in-flight entry: %+v", out[0])
		}
	}
	j = reopen(t, j, Options{SegmentSize: smallSegments})
	if st := mustStats(t, j, "b"); st.LastSeq != uint64(len(f.acked["b"])+map[bool]int{true: 1}[intact]) {
		t.Errorf("after another reopen: b %+v", st)
	}
}

// TestTornTail truncates and corrupts the last batch of the last segment at
// every offset, as a crash can (a prefix of the write reached the disk,
// or pages of it in any order): Open succeeds, every acknowledged record is
// there, the torn batch is gone.
func TestTornTail(t *testing.T) {
	f := newTornFixture(t)
	rng := rand.New(rand.NewPCG(1, 2))
	variants := []struct {
		name   string
		change func(seg []byte, off int64) []byte
	}{
		{name: "prefix written, the rest zeros", change: func(seg []byte, off int64) []byte {
			clear(seg[off:f.to])
			return seg
		}},
		{name: "file truncated", change: func(seg []byte, off int64) []byte { return seg[:off] }},
		{name: "a byte flipped", change: func(seg []byte, off int64) []byte {
			seg[off] ^= 0xff
			return seg
		}},
		{name: "garbage from here", change: func(seg []byte, off int64) []byte {
			for i := off; i < min(off+64, f.to); i++ {
				seg[i] = byte(rng.Uint32())
			}
			return seg
		}},
		{name: "a hole: zeros here, the rest (its commit frame) written", change: func(seg []byte, off int64) []byte {
			end := min(off+16, f.to-commitSize)
			if end <= off {
				end = off + 1 // in the commit frame itself
			}
			clear(seg[off:end])
			return seg
		}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			for off := f.from; off < f.to; off++ {
				dir, intact := f.damage(t, func(seg []byte) []byte { return v.change(seg, off) })
				t.Run(fmt.Sprint("offset ", off), func(t *testing.T) { f.check(t, dir, intact) })
			}
		})
	}
}

// TestDamageRefused: damage that is not a torn tail fails Open with
// ErrCorrupt, naming the file (and the offset where there is one), and Open
// writes nothing.
func TestDamageRefused(t *testing.T) {
	f := newTornFixture(t)
	segs := segmentFiles(t, f.dir)
	first, last := segs[0], segs[len(segs)-1]
	tests := []struct {
		name     string
		change   func(t *testing.T, dir string)
		wantFile string
		wantText string
	}{
		{
			name:     "a byte flipped in a sealed segment",
			change:   flipAt(first, 5000),
			wantFile: first, wantText: "offset ",
		},
		{
			name:     "a sealed segment cut short",
			change:   truncateTo(first, 5000),
			wantFile: first, wantText: "offset ",
		},
		{
			name:     "a byte flipped in the last segment, in a batch before the last",
			change:   flipAt(last, f.from-2000),
			wantFile: last, wantText: "before a batch committed at offset",
		},
		{
			name:     "the last segment's checkpoint zeroed",
			change:   zeroRange(last, 0, headerSize),
			wantFile: last, wantText: "offset 0",
		},
		{
			name: "a segment with live records deleted",
			change: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, segs[1])); err != nil {
					t.Fatal(err)
				}
			},
			wantText: "pending but in no segment",
		},
		{
			name: "a file with a segment's suffix but not its name",
			change: func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, "notes.seg"), []byte("hello"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantFile: "notes.seg",
		},
		{
			name: "a foreign file under a segment's name",
			change: func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, segmentName(1)), bytes.Repeat([]byte("junk"), 100), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantFile: segmentName(1), wantText: "offset 0",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := snapshotDir(t, f.dir)
			tc.change(t, dir)
			before := dirHash(t, dir)
			j, err := Open(dir, Options{SegmentSize: smallSegments})
			if err == nil {
				_ = j.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("Open = %v, want ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), tc.wantFile) || !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("Open = %v, want it to name %q and say %q", err, tc.wantFile, tc.wantText)
			}
			if after := dirHash(t, dir); after != before {
				t.Error("Open changed the files of a journal it refused")
			}
		})
	}
}

func segmentFiles(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		if _, ok := parseSegmentName(de.Name()); ok {
			out = append(out, de.Name())
		}
	}
	slices.Sort(out)
	return out
}

func editFile(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, edit(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

func flipAt(name string, off int64) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		editFile(t, filepath.Join(dir, name), func(b []byte) []byte { b[off] ^= 0x40; return b })
	}
}

func truncateTo(name string, n int64) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		editFile(t, filepath.Join(dir, name), func(b []byte) []byte { return b[:n] })
	}
}

func zeroRange(name string, from, to int64) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		editFile(t, filepath.Join(dir, name), func(b []byte) []byte { clear(b[from:to]); return b })
	}
}

// dirHash hashes the names and contents of the segment files in dir.
func dirHash(t *testing.T, dir string) [32]byte {
	t.Helper()
	h := sha256.New()
	for _, name := range append(segmentFiles(t, dir), "notes.seg") {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	return [32]byte(h.Sum(nil))
}
