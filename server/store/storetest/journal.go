package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/server/store"
)

func appendReadAck(t *testing.T, bk Backend) {
	clk := newClock()
	s, _ := bk.Open(t, Options{Now: clk.Now})
	putBinding(t, s, "b1", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	putBinding(t, s, "b2", store.Target{Provider: "alpha", Chat: "-100", Thread: "8"})

	in := []store.Update{
		upd("b1", 10, "one"),
		upd("b2", 11, "two"),
		upd("b1", 12, "three"),
		upd("", 13, "unrouted"),
		upd("nobody", 14, "for a binding that does not exist"),
		upd("b1", 15, "four"),
	}
	in[1].Thread = "8" // b2's
	in[3].Thread = "9" // no binding's
	in[4].Thread = "9" // no binding's

	in[0].Payload = []byte(`{"n":10}`)
	in[2].ReceivedAt = clk.Now().Add(-time.Minute)
	out := mustAppend(t, s, "alpha", 16, in...)

	wantKeys := []string{"b1", "b2", "b1", "", "", "b1"}
	wantSeqs := []uint64{1, 1, 2, 1, 2, 3}
	for i, u := range out {
		if u.BindingKey != wantKeys[i] || u.Seq != wantSeqs[i] {
			t.Errorf("out[%d] = (%q, seq %d), want (%q, seq %d)", i, u.BindingKey, u.Seq, wantKeys[i], wantSeqs[i])
		}
		if u.Provider != "alpha" {
			t.Errorf("out[%d].Provider = %q", i, u.Provider)
		}
	}
	if len(out) != len(in) {
		t.Fatalf("Append stored %d updates, want %d", len(out), len(in))
	}

	got := readAll(t, s, "b1")
	if !slices.Equal(seqs(got), []uint64{1, 2, 3}) || !slices.Equal(ids(got), []int64{10, 12, 15}) {
		t.Fatalf("Read(b1) seqs %v ids %v", seqs(got), ids(got))
	}
	first := got[0]
	if first.Text != "one" || !bytes.Equal(first.Payload, in[0].Payload) || first.Kind != 1 ||
		first.Chat != "-100" || first.Thread != "7" || first.FromUserID != 42 || first.BindingKey != "b1" ||
		!first.ReceivedAt.Equal(clk.Now()) {
		t.Errorf("Read(b1)[0] = %+v", first)
	}
	if !got[1].ReceivedAt.Equal(in[2].ReceivedAt) {
		t.Errorf("ReceivedAt given on Append = %v, read back %v", in[2].ReceivedAt, got[1].ReceivedAt)
	}
	if got, _ := s.Read("b1", 1, 1); !slices.Equal(seqs(got), []uint64{2}) {
		t.Errorf("Read(b1, after 1, limit 1) = seqs %v, want [2]", seqs(got))
	}
	if got, _ := s.ListUnrouted(0); !slices.Equal(ids(got), []int64{13, 14}) {
		t.Errorf("ListUnrouted = ids %v, want [13 14]", ids(got))
	}
	if c, _ := s.Cursor("alpha"); string(c) != "16" {
		t.Errorf("Cursor = %s, want 16", c)
	}

	steps := []struct {
		name        string
		key         string
		seq         uint64
		wantAcked   uint64
		wantErr     error
		wantPending []uint64
	}{
		{name: "ack 2 removes 1 and 2", key: "b1", seq: 2, wantAcked: 2, wantPending: []uint64{3}},
		{name: "ack below the ack point is a no-op", key: "b1", seq: 1, wantAcked: 2, wantPending: []uint64{3}},
		{name: "ack the same seq again is a no-op", key: "b1", seq: 2, wantAcked: 2, wantPending: []uint64{3}},
		{name: "ack beyond the last seq fails", key: "b1", seq: 4, wantErr: store.ErrAckBeyondLast, wantPending: []uint64{3}},
		{name: "ack the last seq empties the journal", key: "b1", seq: 3, wantAcked: 3, wantPending: []uint64{}},
		{name: "other binding untouched", key: "b2", seq: 0, wantAcked: 0, wantPending: []uint64{1}},
		{name: "unrouted set acks like a binding", key: "", seq: 1, wantAcked: 1, wantPending: []uint64{2}},
		{name: "unknown binding: ack 0 is a no-op", key: "ghost", seq: 0, wantAcked: 0, wantPending: []uint64{}},
		{name: "unknown binding: ack 1 fails", key: "ghost", seq: 1, wantErr: store.ErrAckBeyondLast, wantPending: []uint64{}},
	}
	for _, tc := range steps {
		t.Run(tc.name, func(t *testing.T) {
			acked, err := s.Ack(tc.key, tc.seq)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Ack(%q, %d) error = %v, want %v", tc.key, tc.seq, err, tc.wantErr)
			}
			if err == nil && acked != tc.wantAcked {
				t.Errorf("Ack(%q, %d) = %d, want %d", tc.key, tc.seq, acked, tc.wantAcked)
			}
			if got := seqs(readAll(t, s, tc.key)); !slices.Equal(got, tc.wantPending) {
				t.Errorf("pending after ack = %v, want %v", got, tc.wantPending)
			}
		})
	}

	st, err := s.Stats("b1")
	if err != nil {
		t.Fatal(err)
	}
	if st != (store.Stats{AckedThrough: 3, LastSeq: 3}) {
		t.Errorf("Stats(b1) = %+v", st)
	}
	// Seqs continue after the acked ones.
	if out := mustAppend(t, s, "alpha", 17, upd("b1", 16, "five")); out[0].Seq != 4 {
		t.Errorf("seq after ack = %d, want 4", out[0].Seq)
	}
	st, _ = s.Stats("b1")
	if st.Pending != 1 || st.LastSeq != 4 || st.AckedThrough != 3 || st.Bytes <= 0 || !st.OldestAt.Equal(clk.Now()) {
		t.Errorf("Stats(b1) = %+v", st)
	}
}

func appendRejectsBadInput(t *testing.T, bk Backend) {
	s, _ := bk.Open(t, Options{})
	tests := []struct {
		name     string
		provider string
		updates  []store.Update
	}{
		{name: "empty provider", provider: "", updates: []store.Update{upd("", 1, "x")}},
		{name: "provider with NUL", provider: "tele\x00gram", updates: []store.Update{upd("", 1, "x")}},
		{name: "update of another provider", provider: "alpha", updates: []store.Update{{Provider: "beta", PlatformUpdateID: 1}}},
		{name: "oversized binding key", provider: "alpha", updates: []store.Update{upd(string(make([]byte, 2000)), 1, "x")}},
		{name: "oversized dedup id", provider: "alpha", updates: []store.Update{{DedupID: strings.Repeat("d", 2000), Chat: "-100"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Append(context.Background(), tc.provider, tc.updates, cur(5)); !errors.Is(err, store.ErrInvalid) {
				t.Errorf("Append error = %v, want ErrInvalid", err)
			}
		})
	}
}

func dedup(t *testing.T, bk Backend) {
	s, _ := bk.Open(t, Options{})
	putBinding(t, s, "b", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	steps := []struct {
		name     string
		provider string
		ids      []int64
		ackAfter bool // ack everything stored so far after this step
		wantIDs  []int64
		wantSeqs []uint64
	}{
		{name: "same id twice in one batch", provider: "alpha", ids: []int64{1, 2, 1, 2, 3}, wantIDs: []int64{1, 2, 3}, wantSeqs: []uint64{1, 2, 3}, ackAfter: true},
		{name: "redelivered after ack and removal", provider: "alpha", ids: []int64{1, 2, 3}, wantIDs: []int64{}, wantSeqs: []uint64{}},
		{name: "across batches, partly new", provider: "alpha", ids: []int64{3, 4, 5}, wantIDs: []int64{4, 5}, wantSeqs: []uint64{4, 5}},
		{name: "again across batches", provider: "alpha", ids: []int64{4, 5}, wantIDs: []int64{}, wantSeqs: []uint64{}},
		{name: "id 0 means no id: never de-duplicated", provider: "alpha", ids: []int64{0, 0}, wantIDs: []int64{0, 0}, wantSeqs: []uint64{6, 7}},
		{name: "same id from another provider is another update", provider: "beta", ids: []int64{4}, wantIDs: []int64{4}, wantSeqs: []uint64{8}},
		{name: "negative ids work", provider: "alpha", ids: []int64{-9, -9}, wantIDs: []int64{-9}, wantSeqs: []uint64{9}},
	}
	for _, tc := range steps {
		t.Run(tc.name, func(t *testing.T) {
			var in []store.Update
			for _, id := range tc.ids {
				in = append(in, upd("b", id, "x"))
			}
			out := mustAppend(t, s, tc.provider, 0, in...)
			if !slices.Equal(ids(out), tc.wantIDs) || !slices.Equal(seqs(out), tc.wantSeqs) {
				t.Errorf("stored ids %v seqs %v, want ids %v seqs %v", ids(out), seqs(out), tc.wantIDs, tc.wantSeqs)
			}
			if tc.ackAfter {
				last, _ := s.LastSeq("b")
				if _, err := s.Ack("b", last); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// dedupWindowIsBounded: the de-duplication window holds at least the
// newest SeenMaxCount ids (however they were batched) and forgets older
// ones, and ids older than SeenMaxAge.
func dedupWindowIsBounded(t *testing.T, bk Backend) {
	clk := newClock()
	s, _ := bk.Open(t, Options{Now: clk.Now, SeenMaxCount: 3, SeenMaxAge: time.Hour})
	mustAppend(t, s, "alpha", 0, upd("", 1, ""), upd("", 2, ""), upd("", 3, ""), upd("", 4, ""))
	if out := mustAppend(t, s, "alpha", 0, upd("", 2, ""), upd("", 3, ""), upd("", 4, "")); len(out) != 0 {
		t.Errorf("the newest 3 ids delivered again: stored %v again", ids(out))
	}
	for id := int64(5); id <= 8; id++ {
		mustAppend(t, s, "alpha", 0, upd("", id, ""))
	}
	if out := mustAppend(t, s, "alpha", 0, upd("", 1, ""), upd("", 8, "")); !slices.Equal(ids(out), []int64{1}) {
		t.Errorf("after 7 more ids, stored %v of [1 8], want [1]: the window is bounded by count", ids(out))
	}
	clk.Add(2 * time.Hour)
	mustAppend(t, s, "alpha", 0) // prunes by age
	if out := mustAppend(t, s, "alpha", 0, upd("", 8, "")); !slices.Equal(ids(out), []int64{8}) {
		t.Errorf("after age pruning stored %v, want [8]", ids(out))
	}
}

// sameStats compares Stats, their times as instants.
func sameStats(a, b store.Stats) bool {
	at, bt := a.OldestAt, b.OldestAt
	a.OldestAt, b.OldestAt = time.Time{}, time.Time{}
	return a == b && at.Equal(bt)
}

func cursorCommittedWithJournal(t *testing.T, bk Backend) {
	s, reopen := bk.Open(t, Options{})
	putBinding(t, s, "b", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	mustAppend(t, s, "alpha", 101, upd("b", 100, "a"))
	mustAppend(t, s, "alpha", 103, upd("b", 101, "b"), upd("b", 102, "c"))
	mustAppend(t, s, "beta", -5) // a cursor alone, no updates
	s = reopen()
	for _, tc := range []struct {
		name     string
		provider string
		want     string
	}{
		{name: "alpha", provider: "alpha", want: "103"},
		{name: "cursor without updates", provider: "beta", want: "-5"},
		{name: "never stored", provider: "gamma", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c, err := s.Cursor(tc.provider); err != nil || string(c) != tc.want {
				t.Errorf("Cursor(%q) = %q, %v; want %q", tc.provider, c, err, tc.want)
			}
		})
	}
	if got := readAll(t, s, "b"); !slices.Equal(ids(got), []int64{100, 101, 102}) || !slices.Equal(seqs(got), []uint64{1, 2, 3}) {
		t.Errorf("after reopen: ids %v seqs %v", ids(got), seqs(got))
	}
	// The de-duplication window survives the reopen too.
	if out := mustAppend(t, s, "alpha", 103, upd("b", 102, "c")); len(out) != 0 {
		t.Errorf("redelivery after reopen stored %v", ids(out))
	}
	// A nil cursor keeps the stored one.
	if _, err := s.Append(context.Background(), "alpha", []store.Update{upd("b", 104, "d")}, nil); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Cursor("alpha"); err != nil || string(c) != "103" {
		t.Errorf("Cursor after an Append without one = %q, %v; want 103 kept", c, err)
	}
	// A cursor is the caller's bytes as they were: reusing the buffer
	// changes nothing stored.
	buf := []byte("200")
	if _, err := s.Append(context.Background(), "alpha", nil, buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, "999")
	if c, _ := s.Cursor("alpha"); string(c) != "200" {
		t.Errorf("Cursor after the caller reused its buffer = %q, want 200", c)
	}
}

func retention(t *testing.T, bk Backend) {
	// The size of one update as stored (Stats.Bytes).
	probe, _ := bk.Open(t, Options{})
	putBinding(t, probe, "b", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	mustAppend(t, probe, "alpha", 0, upd("b", 1, "x"))
	st, _ := probe.Stats("b")
	size := st.Bytes
	tests := []struct {
		name      string
		limits    store.Limits
		batches   [][]int64     // ids per Append, all for binding "b"
		preAged   time.Duration // the first batch was received this long ago
		advance   time.Duration // the clock moves this much after the first batch
		wantIDs   []int64       // left in the journal
		wantDrops []dropCall
	}{
		{
			name:      "count bound, one batch",
			limits:    store.Limits{MaxCount: 3},
			batches:   [][]int64{{1, 2, 3, 4, 5}},
			wantIDs:   []int64{3, 4, 5},
			wantDrops: []dropCall{{Key: "b", N: 2, Reason: store.DropCount}},
		},
		{
			name:      "count bound, one update per append",
			limits:    store.Limits{MaxCount: 2},
			batches:   [][]int64{{1}, {2}, {3}, {4}},
			wantIDs:   []int64{3, 4},
			wantDrops: []dropCall{{Key: "b", N: 1, Reason: store.DropCount}, {Key: "b", N: 1, Reason: store.DropCount}},
		},
		{
			name:      "bytes bound",
			limits:    store.Limits{MaxBytes: 3*size + size/2},
			batches:   [][]int64{{1, 2}, {3, 4, 5}},
			wantIDs:   []int64{3, 4, 5},
			wantDrops: []dropCall{{Key: "b", N: 2, Reason: store.DropBytes}},
		},
		{
			name:      "age bound drops the old ones only",
			limits:    store.Limits{MaxAge: time.Hour},
			batches:   [][]int64{{1, 2}, {3}},
			advance:   2 * time.Hour,
			wantIDs:   []int64{3},
			wantDrops: []dropCall{{Key: "b", N: 2, Reason: store.DropAge}},
		},
		{
			name:      "update received before the age bound is dropped at once",
			limits:    store.Limits{MaxAge: time.Hour},
			batches:   [][]int64{{1, 2}, {3}},
			preAged:   2 * time.Hour,
			wantIDs:   []int64{3},
			wantDrops: []dropCall{{Key: "b", N: 2, Reason: store.DropAge}},
		},
		{
			name:      "count and age in one append report each reason",
			limits:    store.Limits{MaxCount: 4, MaxAge: time.Hour},
			batches:   [][]int64{{1, 2}, {3, 4, 5}},
			advance:   2 * time.Hour,
			wantIDs:   []int64{3, 4, 5},
			wantDrops: []dropCall{{Key: "b", N: 1, Reason: store.DropCount}, {Key: "b", N: 1, Reason: store.DropAge}},
		},
		{
			name:      "negative bounds are off",
			limits:    store.Limits{MaxCount: -1, MaxBytes: -1, MaxAge: -1},
			batches:   [][]int64{{1, 2, 3}},
			preAged:   365 * 24 * time.Hour,
			wantIDs:   []int64{1, 2, 3},
			wantDrops: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			drops := &dropLog{}
			opts := Options{Limits: tc.limits, Now: clk.Now, OnDrop: drops.OnDrop}
			s, reopen := bk.Open(t, opts)
			putBinding(t, s, "b", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
			var all []dropCall
			for i, batch := range tc.batches {
				var in []store.Update
				for _, id := range batch {
					u := upd("b", id, "x")
					if i == 0 && tc.preAged > 0 {
						u.ReceivedAt = clk.Now().Add(-tc.preAged)
					}
					in = append(in, u)
				}
				mustAppend(t, s, "alpha", 0, in...)
				all = append(all, drops.Take()...)
				if i == 0 {
					clk.Add(tc.advance)
				}
			}
			if !slices.Equal(all, tc.wantDrops) {
				t.Errorf("OnDrop calls = %v, want %v", all, tc.wantDrops)
			}
			if got := ids(readAll(t, s, "b")); !slices.Equal(got, tc.wantIDs) {
				t.Errorf("left %v, want %v", got, tc.wantIDs)
			}
			var wantDropped uint64
			for _, d := range tc.wantDrops {
				wantDropped += uint64(d.N)
			}
			st, _ := s.Stats("b")
			if st.Dropped != wantDropped || st.Pending != len(tc.wantIDs) {
				t.Errorf("Stats = %+v, want Dropped %d Pending %d", st, wantDropped, len(tc.wantIDs))
			}

			// Dropped is persistent.
			s = reopen()
			st2, _ := s.Stats("b")
			if !sameStats(st2, st) {
				t.Errorf("Stats after reopen = %+v, want %+v", st2, st)
			}
		})
	}
}

func retentionOfUnroutedAndQuietBindings(t *testing.T, bk Backend) {
	clk := newClock()
	drops := &dropLog{}
	s, _ := bk.Open(t, Options{Limits: store.Limits{MaxCount: 2, MaxAge: time.Hour}, Now: clk.Now, OnDrop: drops.OnDrop})
	putBinding(t, s, "quiet", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	un := func(id int64) store.Update { u := upd("", id, ""); u.Thread = "9"; return u } // no binding's thread
	mustAppend(t, s, "alpha", 0, un(1), un(2), un(3), upd("quiet", 4, ""))
	if got := drops.Take(); !slices.Equal(got, []dropCall{{Key: "", N: 1, Reason: store.DropCount}}) {
		t.Errorf("unrouted drops = %v", got)
	}
	if st, _ := s.UnroutedStats(); st.Pending != 2 || st.Dropped != 1 || st.LastSeq != 3 {
		t.Errorf("UnroutedStats = %+v", st)
	}

	clk.Add(2 * time.Hour)
	if err := s.ApplyRetention(); err != nil {
		t.Fatal(err)
	}
	// One drop per key, in no particular order.
	got := drops.Take()
	slices.SortFunc(got, func(a, b dropCall) int { return strings.Compare(a.Key, b.Key) })
	if !slices.Equal(got, []dropCall{{Key: "", N: 2, Reason: store.DropAge}, {Key: "quiet", N: 1, Reason: store.DropAge}}) {
		t.Errorf("ApplyRetention drops = %v", got)
	}
	if st, _ := s.Stats("quiet"); st.Pending != 0 || st.Dropped != 1 || st.LastSeq != 1 || !st.OldestAt.IsZero() {
		t.Errorf("Stats(quiet) = %+v", st)
	}
}

// appendCopiesPayload: the caller may reuse its payload buffers as soon
// as Append returns; what was journalled and what Append returned keep the
// bytes of the call.
func appendCopiesPayload(t *testing.T, bk Backend) {
	s, _ := bk.Open(t, Options{})
	putBinding(t, s, "b", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	buf := []byte(`{"n":1}`)
	u := upd("b", 1, "x")
	u.Payload = buf
	out := mustAppend(t, s, "alpha", 2, u)
	copy(buf, `XXXXXXXXXXXXXXX`)
	if got := string(out[0].Payload); got != `{"n":1}` {
		t.Errorf("returned payload %q changed with the caller's buffer", got)
	}
	ups, err := s.Read("b", 0, 0)
	if err != nil || len(ups) != 1 || string(ups[0].Payload) != `{"n":1}` {
		t.Errorf("journalled %v (%v), want the payload as appended", ups, err)
	}
}

// changed: Changed is closed at once when the journal holds a later
// update, else by the Append that journals one, and when the store
// closes.
func changed(t *testing.T, bk Backend) {
	s, _ := bk.Open(t, Options{})
	putBinding(t, s, "b", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	ch := s.Changed("b", 0)
	select {
	case <-ch:
		t.Fatal("woken before anything was appended")
	default:
	}
	mustAppend(t, s, "alpha", 0, upd("b", 1, "x"))
	testkit.Recv(t, ch, "Changed(b, 0) after an Append")
	if !testkit.Closed(s.Changed("b", 0)) {
		t.Error("Changed(b, 0) with seq 1 journalled: not closed at once")
	}
	later := s.Changed("b", 1)
	if testkit.Closed(later) {
		t.Fatal("Changed(b, 1) closed with nothing after seq 1")
	}
	s.Close()
	testkit.Recv(t, later, "Changed(b, 1) after Close")
}

// retentionOfAllJournals: beyond Limits.TotalBytes the oldest updates of
// all journals go first, whichever journal was appended to.
func retentionOfAllJournals(t *testing.T, bk Backend) {
	probe, _ := bk.Open(t, Options{})
	putBinding(t, probe, "a", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	mustAppend(t, probe, "alpha", 0, upd("a", 10, "x"))
	st, _ := probe.Stats("a")
	size := st.Bytes

	clk := newClock()
	drops := &dropLog{}
	s, reopen := bk.Open(t, Options{Limits: store.Limits{TotalBytes: 4*size + size/2}, Now: clk.Now, OnDrop: drops.OnDrop})
	putBinding(t, s, "a", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	putBinding(t, s, "b", store.Target{Provider: "alpha", Chat: "-100", Thread: "8"})
	inB := func(id int64) store.Update { u := upd("b", id, "x"); u.Thread = "8"; return u }
	mustAppend(t, s, "alpha", 0, upd("a", 11, "x"), upd("a", 12, "x"))
	clk.Add(time.Minute)
	mustAppend(t, s, "alpha", 0, inB(21), inB(22))
	clk.Add(time.Minute)
	mustAppend(t, s, "alpha", 0, inB(23))
	if got := drops.Take(); !slices.Equal(got, []dropCall{{Key: "a", N: 1, Reason: store.DropTotalBytes}}) {
		t.Errorf("OnDrop calls = %v, want a's oldest for total-bytes", got)
	}
	if got := ids(readAll(t, s, "a")); !slices.Equal(got, []int64{12}) {
		t.Errorf("a holds %v, want [12]", got)
	}
	if got := ids(readAll(t, s, "b")); !slices.Equal(got, []int64{21, 22, 23}) {
		t.Errorf("b holds %v, want [21 22 23]", got)
	}
	s = reopen()
	if st, _ := s.Stats("a"); st.Dropped != 1 || st.Pending != 1 {
		t.Errorf("Stats(a) after reopen = %+v, want 1 dropped, 1 pending", st)
	}
}

// concurrentAppends: Appends from several goroutines (each its own
// binding, and all of them the same redelivered ids) store every update
// once, each binding's in its order with seqs 1, 2, 3…
func concurrentAppends(t *testing.T, bk Backend) {
	s, _ := bk.Open(t, Options{})
	const writers, batches = 4, 10
	for w := range writers {
		putBinding(t, s, fmt.Sprint("w", w), store.Target{Provider: "alpha", Chat: "-100", Thread: fmt.Sprint(w)})
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*batches)
	for w := range writers {
		wg.Go(func() {
			for i := range batches {
				own := store.Update{PlatformUpdateID: int64(1000*(w+1) + i), Chat: "-100", Thread: fmt.Sprint(w), Text: fmt.Sprint(i)}
				shared := in("shared", int64(i+1), "shared")
				if _, err := s.Append(context.Background(), "alpha", []store.Update{own, shared}, nil); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for w := range writers {
		got := readAll(t, s, fmt.Sprint("w", w))
		var want []string
		var wantSeqs []uint64
		for i := range batches {
			want, wantSeqs = append(want, fmt.Sprint(i)), append(wantSeqs, uint64(i+1))
		}
		if !slices.Equal(texts(got), want) || !slices.Equal(seqs(got), wantSeqs) {
			t.Errorf("w%d holds %q seqs %v, want %q seqs %v", w, texts(got), seqs(got), want, wantSeqs)
		}
	}
	if got := ids(readAll(t, s, "")); len(got) != batches {
		t.Errorf("the shared ids, delivered by every writer, were stored %d times for %d ids: %v", len(got), batches, got)
	}
}

// ackSurvivesClose: what was acknowledged before a clean Close is not
// delivered again by the store opened after it.
func ackSurvivesClose(t *testing.T, bk Backend) {
	s, reopen := bk.Open(t, Options{})
	putBinding(t, s, "b", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	mustAppend(t, s, "alpha", 0, upd("b", 1, "a"), upd("b", 2, "b"), upd("b", 3, "c"))
	if _, err := s.Ack("b", 2); err != nil {
		t.Fatal(err)
	}
	s = reopen()
	if got := seqs(readAll(t, s, "b")); !slices.Equal(got, []uint64{3}) {
		t.Errorf("pending after reopen = %v, want [3]", got)
	}
	if st, _ := s.Stats("b"); st.AckedThrough != 2 || st.LastSeq != 3 || st.Pending != 1 {
		t.Errorf("Stats after reopen = %+v, want acked through 2, last 3, 1 pending", st)
	}
}
