package journal

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/testkit"
)

func TestAppend(t *testing.T) {
	tests := []struct {
		name     string
		entries  []Entry
		cursor   []byte
		wantSeqs []uint64 // per entry; 0 = duplicate
		// reads per key after the append
		wantKeys map[string][]string
	}{
		{
			name:     "seqs are per key, the unrouted set has its own",
			entries:  []Entry{ent("a", "1", "a1"), ent("b", "2", "b1"), ent("a", "3", "a2"), ent("", "4", "u1")},
			wantSeqs: []uint64{1, 1, 2, 1},
			wantKeys: map[string][]string{"a": {"a1", "a2"}, "b": {"b1"}, "": {"u1"}},
		},
		{
			name:     "a repeated dedup id in one append is stored once",
			entries:  []Entry{ent("a", "7", "first"), ent("a", "7", "again"), ent("b", "7", "other key")},
			wantSeqs: []uint64{1, 0, 0},
			wantKeys: map[string][]string{"a": {"first"}},
		},
		{
			name:     "entries without a dedup id are never de-duplicated",
			entries:  []Entry{ent("a", "", "x"), ent("a", "", "x")},
			wantSeqs: []uint64{1, 2},
			wantKeys: map[string][]string{"a": {"x", "x"}},
		},
		{
			name:     "no entries, only a cursor",
			cursor:   []byte("offset=5"),
			wantSeqs: []uint64{},
			wantKeys: map[string][]string{"a": {}},
		},
		{
			name:     "empty data",
			entries:  []Entry{{Key: "a"}},
			wantSeqs: []uint64{1},
			wantKeys: map[string][]string{"a": {""}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j, _ := newJournal(t, Options{})
			out := mustAppend(t, j, "telegram", tc.cursor, tc.entries...)
			for i, a := range out {
				if a.Seq != tc.wantSeqs[i] || a.Duplicate != (tc.wantSeqs[i] == 0) {
					t.Errorf("entry %d: %+v, want seq %d", i, a, tc.wantSeqs[i])
				}
			}
			for key, want := range tc.wantKeys {
				if got := dataOf(readRecs(t, j, key)); !slices.Equal(got, want) {
					t.Errorf("Read(%q) = %q, want %q", key, got, want)
				}
			}
			c, err := j.Cursor("telegram")
			if err != nil || !bytes.Equal(c, tc.cursor) {
				t.Errorf("Cursor = %q, %v; want %q", c, err, tc.cursor)
			}
		})
	}
}

func TestAppendRecordFields(t *testing.T) {
	clk := newClock()
	j, _ := newJournal(t, Options{Now: clk.Now})
	given := clk.Now().Add(-time.Minute)
	data := []byte("payload")
	in := []Entry{{Key: "a", DedupID: "42", Data: data}, {Key: "a", ReceivedAt: given, Data: []byte("second")}}
	mustAppend(t, j, "telegram", nil, in...)
	data[0] = 'X' // Append copied it
	got := readRecs(t, j, "a")
	if len(got) != 2 {
		t.Fatalf("read %d records", len(got))
	}
	if r := got[0]; r.Seq != 1 || r.Provider != "telegram" || r.DedupID != "42" || string(r.Data) != "payload" ||
		!r.ReceivedAt.Equal(clk.Now()) {
		t.Errorf("first record %+v", r)
	}
	if !got[1].ReceivedAt.Equal(given) {
		t.Errorf("ReceivedAt given %v, read %v", given, got[1].ReceivedAt)
	}
	if got, _ := j.Read("a", 1, 1); !slices.Equal(seqsOf(got), []uint64{2}) {
		t.Errorf("Read(after 1, limit 1) = %v", seqsOf(got))
	}
	if got, _ := j.Read("a", 5, 0); len(got) != 0 {
		t.Errorf("Read after the last = %v", seqsOf(got))
	}
	if got, _ := j.Read("nobody", 0, 0); len(got) != 0 {
		t.Errorf("Read of an unknown key = %v", seqsOf(got))
	}
}

func TestCursor(t *testing.T) {
	j, _ := newJournal(t, Options{})
	mustAppend(t, j, "telegram", []byte("1"), ent("a", "", "x"))
	mustAppend(t, j, "telegram", nil, ent("a", "", "y")) // nil keeps it
	mustAppend(t, j, "slack", []byte("s"))
	if c, _ := j.Cursor("telegram"); string(c) != "1" {
		t.Errorf("telegram cursor %q after a nil one, want 1", c)
	}
	mustAppend(t, j, "telegram", []byte{})
	if c, _ := j.Cursor("telegram"); c == nil || len(c) != 0 {
		t.Errorf("telegram cursor %q, want empty (not nil)", c)
	}
	if c, _ := j.Cursor("discord"); c != nil {
		t.Errorf("unknown provider's cursor %q, want nil", c)
	}
	j = reopen(t, j, Options{})
	if c, _ := j.Cursor("telegram"); c == nil || len(c) != 0 {
		t.Errorf("after reopen: telegram cursor %q, want empty", c)
	}
	if c, _ := j.Cursor("slack"); string(c) != "s" {
		t.Errorf("after reopen: slack cursor %q", c)
	}
}

func TestInvalid(t *testing.T) {
	j, _ := newJournal(t, Options{})
	long := strings.Repeat("k", maxKeyLen+1)
	tests := []struct {
		name     string
		provider string
		entry    Entry
	}{
		{name: "empty provider", provider: ""},
		{name: "provider with NUL", provider: "tele\x00gram"},
		{name: "provider too long", provider: strings.Repeat("p", maxProviderLen+1)},
		{name: "key too long", provider: "telegram", entry: Entry{Key: long}},
		{name: "dedup id too long", provider: "telegram", entry: Entry{DedupID: long}},
		{name: "data too large", provider: "telegram", entry: Entry{Data: make([]byte, maxDataLen+1)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := j.Append(context.Background(), tc.provider, []Entry{tc.entry}, []byte("c"))
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Append = %v, want ErrInvalid", err)
			}
		})
	}
	if keys, _ := j.Keys(); len(keys) != 0 {
		t.Errorf("keys %q after invalid appends", keys)
	}
	if c, _ := j.Cursor("telegram"); c != nil {
		t.Errorf("cursor %q stored by an invalid append", c)
	}
}

func TestAck(t *testing.T) {
	tests := []struct {
		name      string
		key       string
		acks      []uint64
		wantAcked uint64
		wantErr   error
		wantSeqs  []uint64 // still pending
	}{
		{name: "cumulative", key: "a", acks: []uint64{3}, wantAcked: 3, wantSeqs: []uint64{4, 5}},
		{name: "idempotent, and lower acks change nothing", key: "a", acks: []uint64{4, 4, 2}, wantAcked: 4, wantSeqs: []uint64{5}},
		{name: "everything", key: "a", acks: []uint64{5}, wantAcked: 5},
		{name: "zero", key: "a", acks: []uint64{0}, wantAcked: 0, wantSeqs: []uint64{1, 2, 3, 4, 5}},
		{name: "beyond the last", key: "a", acks: []uint64{6}, wantErr: ErrAckBeyondLast, wantSeqs: []uint64{1, 2, 3, 4, 5}},
		{name: "unknown key", key: "nobody", acks: []uint64{1}, wantErr: ErrAckBeyondLast},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j, _ := newJournal(t, Options{})
			for i := range 5 {
				mustAppend(t, j, "telegram", nil, ent("a", "", string(payload(i, 10))))
			}
			var acked uint64
			var err error
			for _, s := range tc.acks {
				acked, err = j.Ack(tc.key, s)
			}
			if !errors.Is(err, tc.wantErr) || (err == nil && acked != tc.wantAcked) {
				t.Fatalf("Ack = %d, %v; want %d, %v", acked, err, tc.wantAcked, tc.wantErr)
			}
			checkSeqs(t, "pending", seqsOf(readRecs(t, j, tc.key)), tc.wantSeqs)
			st := mustStats(t, j, tc.key)
			if st.Pending != len(tc.wantSeqs) {
				t.Errorf("Stats.Pending = %d, want %d", st.Pending, len(tc.wantSeqs))
			}
			// Durable after Close (Close writes the acks waiting).
			j = reopen(t, j, Options{})
			checkSeqs(t, "pending after reopen", seqsOf(readRecs(t, j, tc.key)), tc.wantSeqs)
			if st := mustStats(t, j, tc.key); st.AckedThrough != tc.wantAcked && tc.wantErr == nil {
				t.Errorf("AckedThrough after reopen = %d, want %d", st.AckedThrough, tc.wantAcked)
			}
		})
	}
}

// TestAckCostsNoSync: acks ride on the next batch; one Append after many
// acks is one commit, and the acks are on disk after it.
func TestAckCostsNoSync(t *testing.T) {
	j, _ := newJournal(t, Options{AckFlushInterval: time.Hour})
	for i := range 50 {
		mustAppend(t, j, "telegram", nil, ent("a", "", "x"), ent(string(rune('b'+i%3)), "", "y"))
	}
	before := j.commits.Load()
	for s := uint64(1); s <= 50; s++ {
		if _, err := j.Ack("a", s); err != nil {
			t.Fatal(err)
		}
	}
	if got := j.commits.Load(); got != before {
		t.Errorf("acks made %d commits", got-before)
	}
	mustAppend(t, j, "telegram", nil, ent("c", "", "z"))
	if got := j.commits.Load(); got != before+1 {
		t.Errorf("one append after the acks made %d commits, want 1", got-before)
	}
	// What is on disk now is what a crash would leave.
	snap := openAt(t, snapshotDir(t, j.Dir()), Options{})
	if st := mustStats(t, snap, "a"); st.AckedThrough != 50 || st.Pending != 0 {
		t.Errorf("on disk after the append: %+v, want acked through 50", st)
	}
}

// TestAckFlushInterval: with nothing else to write, a waiting ack is
// written within the interval by itself.
func TestAckFlushInterval(t *testing.T) {
	j, _ := newJournal(t, Options{AckFlushInterval: 20 * time.Millisecond})
	mustAppend(t, j, "telegram", nil, ent("a", "", "x"), ent("a", "", "y"))
	before := j.commits.Load()
	if _, err := j.Ack("a", 1); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the ack's commit", func() bool { return j.commits.Load() > before })
	snap := openAt(t, snapshotDir(t, j.Dir()), Options{})
	if st := mustStats(t, snap, "a"); st.AckedThrough != 1 {
		t.Errorf("on disk: acked through %d, want 1", st.AckedThrough)
	}
}

func TestDedup(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		// between the two appends of the same id
		between func(t *testing.T, j *Journal, clk *clock) *Journal
		second  string // provider of the second append
		wantDup bool
	}{
		{name: "redelivery within the window", between: nothing, second: "telegram", wantDup: true},
		{name: "another provider's id", between: nothing, second: "slack", wantDup: false},
		{name: "acked and gone: still remembered", second: "telegram", wantDup: true,
			between: func(t *testing.T, j *Journal, _ *clock) *Journal {
				if _, err := j.Ack("a", 1); err != nil {
					t.Fatal(err)
				}
				mustFlush(t, j)
				return j
			}},
		{name: "across a reopen", between: reopenWith(Options{}), second: "telegram", wantDup: true},
		{name: "forgotten by count (ids reused after a platform reset)", opts: Options{DedupMaxCount: 3}, second: "telegram", wantDup: false,
			between: func(t *testing.T, j *Journal, _ *clock) *Journal {
				mustAppend(t, j, "telegram", nil, ent("a", "n1", ""), ent("a", "n2", ""), ent("a", "n3", ""))
				return j
			}},
		{name: "count bound across a reopen", opts: Options{DedupMaxCount: 3}, second: "telegram", wantDup: false,
			between: func(t *testing.T, j *Journal, clk *clock) *Journal {
				mustAppend(t, j, "telegram", nil, ent("a", "n1", ""), ent("a", "n2", ""), ent("a", "n3", ""))
				return reopenWith(Options{DedupMaxCount: 3})(t, j, clk)
			}},
		{name: "forgotten by age", opts: Options{DedupMaxAge: time.Hour}, second: "telegram", wantDup: false,
			between: func(t *testing.T, j *Journal, clk *clock) *Journal {
				clk.Add(2 * time.Hour)
				return j
			}},
		{name: "remembered within the age", opts: Options{DedupMaxAge: time.Hour}, second: "telegram", wantDup: true,
			between: func(t *testing.T, j *Journal, clk *clock) *Journal {
				clk.Add(30 * time.Minute)
				return j
			}},
		{name: "age bound across a reopen", opts: Options{DedupMaxAge: time.Hour}, second: "telegram", wantDup: false,
			between: func(t *testing.T, j *Journal, clk *clock) *Journal {
				clk.Add(2 * time.Hour)
				return reopenWith(Options{DedupMaxAge: time.Hour})(t, j, clk)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			tc.opts.Now = clk.Now
			j, _ := newJournal(t, tc.opts)
			mustAppend(t, j, "telegram", nil, ent("a", "id-1", "first"))
			j = tc.between(t, j, clk)
			out := mustAppend(t, j, tc.second, nil, ent("a", "id-1", "second"))
			if out[0].Duplicate != tc.wantDup {
				t.Errorf("second append: %+v, want duplicate %v", out[0], tc.wantDup)
			}
		})
	}
}

func nothing(_ *testing.T, j *Journal, _ *clock) *Journal { return j }

func reopenWith(opts Options) func(*testing.T, *Journal, *clock) *Journal {
	return func(t *testing.T, j *Journal, clk *clock) *Journal {
		opts.Now = clk.Now
		return reopen(t, j, opts)
	}
}

// TestDedupWindowSurvivesSegmentDeletion: the window lives in checkpoints,
// not in the records that put ids into it, so it survives the deletion of
// every segment those records were in.
func TestDedupWindowSurvivesSegmentDeletion(t *testing.T) {
	j, _ := newJournal(t, Options{})
	var ids []Entry
	for i := range 40 {
		ids = append(ids, Entry{Key: "a", DedupID: string(payload(i, 12)), Data: payload(i, 2000)})
	}
	mustAppend(t, j, "telegram", nil, ids...)
	first := j.Space()
	for i := range 100 { // roll several segments
		mustAppend(t, j, "telegram", nil, Entry{Key: "b", Data: payload(i, 4000)})
	}
	if _, err := j.Ack("a", 40); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Ack("b", 100); err != nil {
		t.Fatal(err)
	}
	mustFlush(t, j)
	if sp := j.Space(); sp.Segments != 1 || sp.LiveBytes != 0 {
		t.Fatalf("after acking everything: %+v (first: %+v), want one segment", sp, first)
	}
	j = reopen(t, j, Options{})
	out := mustAppend(t, j, "telegram", nil, ids...)
	for i, a := range out {
		if !a.Duplicate {
			t.Errorf("id %d stored again after its segment was deleted", i)
		}
	}
}

func TestRetention(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		appends  [][]Entry
		age      time.Duration // clock moved after the appends
		apply    bool          // ApplyRetention after that
		key      string
		wantSeqs []uint64
		wantDrop []dropCall
	}{
		{
			name:     "count: the oldest go",
			opts:     Options{Limits: Limits{MaxCount: 3}},
			appends:  [][]Entry{entries("a", 2, 10), entries("a", 3, 10)},
			key:      "a",
			wantSeqs: []uint64{3, 4, 5},
			wantDrop: []dropCall{{Key: "a", N: 2, Reason: DropCount}},
		},
		{
			name: "count, within one append",
			opts: Options{Limits: Limits{MaxCount: 2}},
			appends: [][]Entry{
				entries("a", 5, 10),
			},
			key:      "a",
			wantSeqs: []uint64{4, 5},
			wantDrop: []dropCall{{Key: "a", N: 3, Reason: DropCount}},
		},
		{
			name:     "bytes",
			opts:     Options{Limits: Limits{MaxBytes: 3 * 150}},
			appends:  [][]Entry{entries("a", 5, 100)},
			key:      "a",
			wantSeqs: []uint64{3, 4, 5},
			wantDrop: []dropCall{{Key: "a", N: 2, Reason: DropBytes}},
		},
		{
			name:     "age, on ApplyRetention",
			opts:     Options{Limits: Limits{MaxAge: time.Hour}},
			appends:  [][]Entry{entries("a", 3, 10)},
			age:      2 * time.Hour,
			apply:    true,
			key:      "a",
			wantSeqs: nil,
			wantDrop: []dropCall{{Key: "a", N: 3, Reason: DropAge}},
		},
		{
			name:     "age: not yet",
			opts:     Options{Limits: Limits{MaxAge: time.Hour}},
			appends:  [][]Entry{entries("a", 3, 10)},
			age:      30 * time.Minute,
			apply:    true,
			key:      "a",
			wantSeqs: []uint64{1, 2, 3},
		},
		{
			name:     "appended already too old: stored and dropped in the same commit",
			opts:     Options{Limits: Limits{MaxAge: time.Hour}},
			appends:  [][]Entry{{{Key: "a", ReceivedAt: newClock().Now().Add(-2 * time.Hour)}, {Key: "a"}}},
			key:      "a",
			wantSeqs: []uint64{2},
			wantDrop: []dropCall{{Key: "a", N: 1, Reason: DropAge}},
		},
		{
			name: "total bytes: the oldest of all keys go first",
			opts: Options{TotalBytes: 4 * 150},
			appends: [][]Entry{
				entries("a", 2, 100), entries("b", 2, 100), entries("a", 2, 100),
			},
			key:      "a",
			wantSeqs: []uint64{3, 4},
			wantDrop: []dropCall{{Key: "a", N: 2, Reason: DropTotalBytes}},
		},
		{
			name:     "negative bounds: none",
			opts:     Options{Limits: Limits{MaxCount: -1, MaxBytes: -1, MaxAge: -1}, TotalBytes: -1},
			appends:  [][]Entry{entries("a", 20, 10)},
			age:      365 * 24 * time.Hour,
			apply:    true,
			key:      "a",
			wantSeqs: seqRange(1, 20),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			var drops dropLog
			tc.opts.Now, tc.opts.OnDrop = clk.Now, drops.OnDrop
			j, _ := newJournal(t, tc.opts)
			for _, a := range tc.appends {
				mustAppend(t, j, "telegram", nil, a...)
			}
			clk.Add(tc.age)
			if tc.apply {
				if err := j.ApplyRetention(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			checkSeqs(t, "pending", seqsOf(readRecs(t, j, tc.key)), tc.wantSeqs)
			got := drops.Take()
			if !slices.Equal(got, tc.wantDrop) {
				t.Errorf("OnDrop calls %+v, want %+v", got, tc.wantDrop)
			}
			var dropped uint64
			for _, d := range tc.wantDrop {
				if d.Key == tc.key {
					dropped += uint64(d.N)
				}
			}
			if st := mustStats(t, j, tc.key); st.Dropped != dropped || st.Pending != len(tc.wantSeqs) {
				t.Errorf("Stats %+v, want %d dropped, %d pending", st, dropped, len(tc.wantSeqs))
			}
			// Drops are durable, and so is the counter.
			j = reopen(t, j, tc.opts)
			checkSeqs(t, "pending after reopen", seqsOf(readRecs(t, j, tc.key)), tc.wantSeqs)
			if st := mustStats(t, j, tc.key); st.Dropped != dropped {
				t.Errorf("Stats.Dropped after reopen %d, want %d", st.Dropped, dropped)
			}
		})
	}
}

// entries makes n entries of key with data of size bytes; the frames are
// size+50 bytes or so (so 100 bytes of data make a frame of under 150).
func entries(key string, n, size int) []Entry {
	out := make([]Entry, n)
	for i := range out {
		out[i] = Entry{Key: key, Data: payload(i, size)}
	}
	return out
}

func TestDeleteKey(t *testing.T) {
	var drops dropLog
	j, _ := newJournal(t, Options{OnDrop: drops.OnDrop})
	mustAppend(t, j, "telegram", nil, entries("a", 3, 10)...)
	mustAppend(t, j, "telegram", nil, entries("b", 2, 10)...)
	if _, err := j.Ack("a", 1); err != nil {
		t.Fatal(err)
	}
	woken := j.Changed("a", 3)
	n, err := j.DeleteKey(context.Background(), "a")
	if err != nil || n != 2 {
		t.Fatalf("DeleteKey = %d, %v; want 2", n, err)
	}
	select {
	case <-woken:
	default:
		t.Error("Changed not woken by DeleteKey")
	}
	if got := drops.Take(); !slices.Equal(got, []dropCall{{Key: "a", N: 2, Reason: DropKeyDeleted}}) {
		t.Errorf("OnDrop %+v", got)
	}
	if n, err := j.DeleteKey(context.Background(), "nobody"); n != 0 || err != nil {
		t.Errorf("DeleteKey of an unknown key = %d, %v", n, err)
	}
	// The seq counter stays.
	if out := mustAppend(t, j, "telegram", nil, ent("a", "", "later")); out[0].Seq != 4 {
		t.Errorf("append after DeleteKey got seq %d, want 4", out[0].Seq)
	}
	j = reopen(t, j, Options{})
	checkSeqs(t, "a after reopen", seqsOf(readRecs(t, j, "a")), []uint64{4})
	checkSeqs(t, "b after reopen", seqsOf(readRecs(t, j, "b")), []uint64{1, 2})
	if st := mustStats(t, j, "a"); st.Dropped != 2 || st.AckedThrough != 1 || st.LastSeq != 4 {
		t.Errorf("Stats(a) %+v", st)
	}
	if keys, _ := j.Keys(); !slices.Equal(keys, []string{"a", "b"}) {
		t.Errorf("Keys = %q", keys)
	}
}

func TestChanged(t *testing.T) {
	j, _ := newJournal(t, Options{})
	mustAppend(t, j, "telegram", nil, ent("a", "", "x"))
	if !testkit.Closed(j.Changed("a", 0)) {
		t.Error("Changed(a, 0) with seq 1 present is not closed")
	}
	ca, cb := j.Changed("a", 1), j.Changed("b", 0)
	if testkit.Closed(ca) || testkit.Closed(cb) {
		t.Fatal("closed before anything was appended")
	}
	mustAppend(t, j, "telegram", nil, ent("b", "", "y"))
	if testkit.Closed(ca) {
		t.Error("an append to b woke a")
	}
	if !testkit.Closed(cb) {
		t.Error("an append to b did not wake b")
	}
	mustAppend(t, j, "telegram", nil, ent("a", "", "z"))
	if !testkit.Closed(ca) {
		t.Error("an append to a did not wake a")
	}
	cc := j.Changed("c", 0)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if !testkit.Closed(cc) {
		t.Error("Close did not wake a waiter")
	}
	if !testkit.Closed(j.Changed("c", 0)) {
		t.Error("Changed after Close is not closed")
	}
}

// TestChangedShared: Changed does not need the journal's lock
// exclusively, so the followers woken by one commit neither wait for one
// another's Changed nor for a Read in progress. Here a reader holds the
// lock shared while Changed is called, for a key with records and for
// one never named before (whose state Changed has to make, after the
// reader is done); concurrent calls for one key get one channel, which
// the next append to it closes.
func TestChangedShared(t *testing.T) {
	j, _ := newJournal(t, Options{})
	mustAppend(t, j, "telegram", nil, ent("a", "", "x"))

	j.mu.RLock() // a Read in progress
	unlock := sync.OnceFunc(j.mu.RUnlock)
	t.Cleanup(unlock) // before the journal's Close, if the test fails
	const callers = 8
	got := make(chan (<-chan struct{}), callers)
	for range callers {
		go func() { got <- j.Changed("a", 1) }()
	}
	var cs []<-chan struct{}
	for range callers {
		cs = append(cs, testkit.Recv(t, got, "Changed while the lock is held shared"))
	}
	if closed := testkit.Closed(j.Changed("a", 0)); !closed {
		t.Error("Changed(a, 0) with seq 1 present is not closed")
	}
	fresh := make(chan (<-chan struct{}), 1)
	go func() { fresh <- j.Changed("new", 0) }()
	unlock()
	cn := testkit.Recv(t, fresh, "Changed of a key never named")

	for i, c := range cs {
		if c != cs[0] {
			t.Fatalf("caller %d got another channel than caller 0", i)
		}
		if testkit.Closed(c) {
			t.Fatal("closed before anything was appended")
		}
	}
	mustAppend(t, j, "telegram", nil, ent("a", "", "y"))
	if !testkit.Closed(cs[0]) {
		t.Error("an append to a did not close the channel its callers got")
	}
	if testkit.Closed(cn) {
		t.Error("an append to a woke a key never appended to")
	}
	mustAppend(t, j, "telegram", nil, ent("new", "", "z"))
	if !testkit.Closed(cn) {
		t.Error("an append to new did not wake it")
	}
}

// TestFollow: Follow appends what ReadData returns to dst, and the
// channel Changed returns once the records reach the key's last, from
// memory and from disk alike.
func TestFollow(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{name: "from memory", opts: Options{}},
		{name: "from disk", opts: Options{TailBytes: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, _ := newJournal(t, tc.opts)
			mustAppend(t, j, "telegram", nil, ent("a", "1", "x"), ent("a", "2", "y"), ent("a", "3", "z"))
			prefix := []Record{{Seq: 99}}
			tests := []struct {
				after    uint64
				limit    int
				want     []string
				waitFrom bool // changed is Changed(a, last read)
			}{
				{after: 0, limit: 0, want: []string{"x", "y", "z"}, waitFrom: true},
				{after: 0, limit: 2, want: []string{"x", "y"}},
				{after: 1, limit: 2, want: []string{"y", "z"}, waitFrom: true},
				{after: 3, limit: 0, want: nil, waitFrom: true},
			}
			for _, tt := range tests {
				recs, changed, err := j.Follow(slices.Clone(prefix), "a", tt.after, tt.limit)
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) == 0 || recs[0].Seq != 99 {
					t.Fatalf("after %d limit %d: dst's records not kept: %+v", tt.after, tt.limit, recs)
				}
				var got []string
				for i, r := range recs[1:] {
					got = append(got, string(r.Data))
					if r.Seq != tt.after+uint64(i)+1 || r.Provider != "" || r.DedupID != "" {
						t.Errorf("after %d: record %+v", tt.after, r)
					}
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("after %d limit %d: read %q, want %q", tt.after, tt.limit, got, tt.want)
				}
				switch {
				case !tt.waitFrom && changed != nil:
					t.Errorf("after %d limit %d: a channel with more to read", tt.after, tt.limit)
				case tt.waitFrom && (changed == nil || testkit.Closed(changed)):
					t.Errorf("after %d limit %d: no open channel at the last record", tt.after, tt.limit)
				}
			}
			_, changed, _ := j.Follow(nil, "a", 3, 0)
			_, fresh, _ := j.Follow(nil, "never", 0, 0)
			if changed == nil || fresh == nil || testkit.Closed(fresh) {
				t.Fatal("no channel to wait on")
			}
			mustAppend(t, j, "telegram", nil, ent("a", "4", "w"))
			if !testkit.Closed(changed) {
				t.Error("an append to a did not close Follow's channel")
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			if !testkit.Closed(fresh) {
				t.Error("Close did not close Follow's channel")
			}
			if _, changed, err := j.Follow(nil, "a", 0, 0); !errors.Is(err, ErrClosed) || changed != nil {
				t.Errorf("Follow after Close: %v, %v", changed, err)
			}
		})
	}
}

// TestFollowAllocs: a follower that keeps up (its records in memory, its
// buffer reused) reads and gets its channel without allocating.
func TestFollowAllocs(t *testing.T) {
	j, _ := newJournal(t, Options{})
	mustAppend(t, j, "telegram", nil, entries("a", 4, 100)...)
	buf := make([]Record, 0, 8)
	allocs := testing.AllocsPerRun(100, func() {
		recs, changed, err := j.Follow(buf[:0], "a", 0, 256)
		if err != nil || len(recs) != 4 || changed == nil {
			t.Fatalf("Follow: %d records, %v, %v", len(recs), changed, err)
		}
	})
	if allocs != 0 {
		t.Errorf("Follow allocates %v times per read", allocs)
	}
}

// TestReopenKeepsState: everything a journal knows survives a reopen, over
// many segments (rolls, checkpoints, deletions), from disk or from memory.
func TestReopenKeepsState(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{name: "reads from memory", opts: Options{}},
		{name: "reads from disk", opts: Options{TailBytes: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			tc.opts.Now = clk.Now
			j, _ := newJournal(t, tc.opts)
			keys := []string{"", "a", "b", "c"}
			for i := range 300 {
				k := keys[i%len(keys)]
				mustAppend(t, j, "telegram", payload(i, 8), Entry{Key: k, DedupID: string(payload(i, 10)), Data: payload(i, 700)})
				clk.Add(time.Second)
				if i%7 == 0 {
					st := mustStats(t, j, k)
					if _, err := j.Ack(k, st.LastSeq-min(st.LastSeq, 3)); err != nil {
						t.Fatal(err)
					}
				}
			}
			want := map[string][]Record{}
			wantStats := map[string]Stats{}
			for _, k := range keys {
				want[k] = readRecs(t, j, k)
				wantStats[k] = mustStats(t, j, k)
			}
			wantSpace := j.Space()
			j = reopen(t, j, tc.opts)
			for _, k := range keys {
				got := readRecs(t, j, k)
				if len(got) != len(want[k]) {
					t.Fatalf("%q: %d records after reopen, want %d", k, len(got), len(want[k]))
				}
				for i := range got {
					g, w := got[i], want[k][i]
					if g.Seq != w.Seq || g.DedupID != w.DedupID || !bytes.Equal(g.Data, w.Data) || !g.ReceivedAt.Equal(w.ReceivedAt) || g.Provider != w.Provider {
						t.Errorf("%q record %d: %+v, want %+v", k, i, g, w)
					}
				}
				if st := mustStats(t, j, k); st != wantStats[k] {
					t.Errorf("%q: Stats %+v after reopen, want %+v", k, st, wantStats[k])
				}
			}
			if sp := j.Space(); sp.LiveBytes != wantSpace.LiveBytes || sp.Pending != wantSpace.Pending {
				t.Errorf("Space %+v after reopen, want live %d pending %d", sp, wantSpace.LiveBytes, wantSpace.Pending)
			}
			if c, _ := j.Cursor("telegram"); !bytes.Equal(c, payload(299, 8)) {
				t.Errorf("cursor %q", c)
			}
			// Appends go on from where they were, ids are still known.
			out := mustAppend(t, j, "telegram", nil, Entry{Key: "a", DedupID: string(payload(299, 10))}, Entry{Key: "a", DedupID: "new"})
			if !out[0].Duplicate || out[1].Seq != wantStats["a"].LastSeq+1 {
				t.Errorf("after reopen: %+v", out)
			}
		})
	}
}

func TestGroupCommit(t *testing.T) {
	tests := []struct {
		name       string
		goroutines int
		per        int
		holdFirst  bool
	}{
		{name: "sequential: one commit per append", goroutines: 1, per: 30},
		{name: "concurrent: appends share commits", goroutines: 16, per: 20, holdFirst: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hold chan struct{}
			opts := Options{}
			var jp *Journal
			if tc.holdFirst {
				hold = make(chan struct{})
				opts.FS = beforeWrite(func() {
					select {
					case <-hold:
					default:
						// Each goroutine has one append outstanding: wait
						// until all are in this batch or queued behind it.
						n := int(jp.writing.Load())
						waitUntil(func() bool { return n+len(jp.reqs) >= tc.goroutines })
						close(hold)
					}
				})
			}
			j, _ := newJournal(t, opts)
			jp = j
			commits0, reqs0 := j.commits.Load(), j.batched.Load()
			errs := make(chan error, tc.goroutines)
			done := make(chan struct{})
			for g := range tc.goroutines {
				go func() {
					defer func() { done <- struct{}{} }()
					key := string(rune('a' + g))
					for i := range tc.per {
						out, err := j.Append(context.Background(), "telegram", []Entry{{Key: key, DedupID: key + string(payload(i, 9))}}, nil)
						if err != nil {
							errs <- err
							return
						}
						if out[0].Seq != uint64(i+1) {
							errs <- errors.New("seq out of order")
							return
						}
					}
				}()
			}
			for range tc.goroutines {
				<-done
			}
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			commits, reqs := j.commits.Load()-commits0, j.batched.Load()-reqs0
			if want := uint64(tc.goroutines * tc.per); reqs != want {
				t.Errorf("%d requests committed, want %d", reqs, want)
			}
			if tc.goroutines == 1 && commits != reqs {
				t.Errorf("sequential: %d commits for %d appends", commits, reqs)
			}
			if tc.goroutines > 1 && commits >= reqs {
				t.Errorf("concurrent: %d commits for %d appends, want fewer", commits, reqs)
			}
			t.Logf("%d appends in %d commits", reqs, commits)
		})
	}
}

// TestAppendContext: an append whose ctx ended while it was queued is not
// written; one whose ctx ends while its batch is written is committed.
func TestAppendContext(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var armed = make(chan struct{}, 1)
	j, _ := newJournal(t, Options{FS: beforeWrite(func() {
		select {
		case <-armed:
			entered <- struct{}{}
			<-release
		default:
		}
	})})
	async := func(ctx context.Context, id string) <-chan error {
		ch := make(chan error, 1)
		go func() {
			_, err := j.Append(ctx, "telegram", []Entry{ent("a", id, id)}, nil)
			ch <- err
		}()
		return ch
	}
	if _, err := j.Append(canceled(), "telegram", []Entry{ent("a", "0", "0")}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("append with a cancelled ctx = %v", err)
	}

	armed <- struct{}{}
	errA := async(context.Background(), "A")
	<-entered // A is being written
	ctxB, cancelB := context.WithCancel(context.Background())
	errB := async(ctxB, "B")
	testkit.Eventually(t, "B queued", func() bool { return len(j.reqs) == 1 })
	cancelB()
	if err := <-errB; !errors.Is(err, context.Canceled) {
		t.Errorf("B (cancelled while queued) = %v", err)
	}
	release <- struct{}{}
	if err := <-errA; err != nil {
		t.Errorf("A = %v", err)
	}

	armed <- struct{}{}
	ctxC, cancelC := context.WithCancel(context.Background())
	errC := async(ctxC, "C")
	<-entered // C's batch is being written
	cancelC()
	if err := <-errC; !errors.Is(err, context.Canceled) {
		t.Errorf("C (cancelled while written) = %v", err)
	}
	release <- struct{}{}
	mustAppend(t, j, "telegram", nil, ent("a", "D", "D")) // after C's commit
	if got := dataOf(readRecs(t, j, "a")); !slices.Equal(got, []string{"A", "C", "D"}) {
		t.Errorf("journal holds %q, want A C D", got)
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestClose(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	armed := make(chan struct{}, 1)
	var held atomic.Int64 // appends in the held batch
	var jp *Journal
	j, _ := newJournal(t, Options{FS: beforeWrite(func() {
		select {
		case <-armed:
			held.Store(jp.writing.Load())
			close(entered)
			<-release
		default:
		}
	})})
	jp = j
	armed <- struct{}{}
	const n = 5
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := j.Append(context.Background(), "telegram", []Entry{ent("a", string(payload(i, 9)), "x")}, nil)
			errs <- err
		}()
	}
	<-entered
	testkit.Eventually(t, "every append accepted", func() bool { return int(held.Load())+len(j.reqs) == n })
	closed := make(chan error, 1)
	go func() { closed <- j.Close() }()
	release <- struct{}{}
	if err := <-closed; err != nil {
		t.Fatalf("Close = %v", err)
	}
	for range n {
		if err := <-errs; err != nil {
			t.Errorf("append accepted before Close: %v", err)
		}
	}
	tests := []struct {
		name string
		call func() error
	}{
		{name: "Append", call: func() error { _, err := j.Append(context.Background(), "telegram", nil, nil); return err }},
		{name: "Ack", call: func() error { _, err := j.Ack("a", 1); return err }},
		{name: "Read", call: func() error { _, err := j.Read("a", 0, 0); return err }},
		{name: "Stats", call: func() error { _, err := j.Stats("a"); return err }},
		{name: "Cursor", call: func() error { _, err := j.Cursor("telegram"); return err }},
		{name: "DeleteKey", call: func() error { _, err := j.DeleteKey(context.Background(), "a"); return err }},
		{name: "Flush", call: func() error { return j.Flush(context.Background()) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close = %v, want ErrClosed", tc.name, err)
			}
		})
	}
	if err := j.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	j = openAt(t, j.Dir(), Options{})
	if st := mustStats(t, j, "a"); st.Pending != n {
		t.Errorf("after reopen %d pending, want %d", st.Pending, n)
	}
}

func TestLocked(t *testing.T) {
	j, dir := newJournal(t, Options{})
	if _, err := Open(dir, Options{LockTimeout: 50 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	openAt(t, dir, Options{})
}

// waitUntil is testkit.Eventually for goroutines other than the test's:
// it gives up after testkit.Wait without failing (the test's own checks
// then fail).
func waitUntil(cond func() bool) {
	deadline := time.Now().Add(testkit.Wait)
	for !cond() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}

// TestSetLimits: new bounds apply at once to what is held, and to every
// later Append; zero fields are the defaults again.
func TestSetLimits(t *testing.T) {
	var drops dropLog
	j, _ := newJournal(t, Options{OnDrop: drops.OnDrop})
	mustAppend(t, j, "telegram", nil, entries("a", 5, 100)...)
	mustAppend(t, j, "telegram", nil, entries("b", 5, 100)...)
	// Frames of 100 bytes of data are 100 to 150 bytes: two fit in 300.
	if err := j.SetLimits(context.Background(), Limits{MaxCount: 2}, 2*150); err != nil {
		t.Fatal(err)
	}
	checkSeqs(t, "a after MaxCount 2 and 300 bytes in all", seqsOf(readRecs(t, j, "a")), nil)
	checkSeqs(t, "b after MaxCount 2 and 300 bytes in all", seqsOf(readRecs(t, j, "b")), []uint64{4, 5})
	got := drops.Take()
	slices.SortFunc(got, func(x, y dropCall) int { return strings.Compare(x.Key+x.Reason, y.Key+y.Reason) })
	if want := []dropCall{{Key: "a", N: 3, Reason: DropCount}, {Key: "a", N: 2, Reason: DropTotalBytes}, {Key: "b", N: 3, Reason: DropCount}}; !slices.Equal(got, want) {
		t.Errorf("OnDrop calls %+v, want %+v", got, want)
	}
	mustAppend(t, j, "telegram", nil, entries("c", 3, 10)...)
	checkSeqs(t, "c appended under MaxCount 2", seqsOf(readRecs(t, j, "c")), []uint64{2, 3})

	// Back to the defaults: nothing more is dropped.
	if err := j.SetLimits(context.Background(), Limits{}, 0); err != nil {
		t.Fatal(err)
	}
	drops.Take()
	mustAppend(t, j, "telegram", nil, entries("c", 5, 10)...)
	checkSeqs(t, "c under the defaults", seqsOf(readRecs(t, j, "c")), []uint64{2, 3, 4, 5, 6, 7, 8})
	if got := drops.Take(); len(got) != 0 {
		t.Errorf("drops under the default bounds: %+v", got)
	}
}
