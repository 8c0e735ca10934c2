package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/chatbus/chatbus/server/journal/vfs/faultfs"
)

// reader reads a key's records the way the supervisor's streams do: after
// the last seq it got, waiting on Changed, until stop. It keeps what it
// read, in order.
type reader struct {
	j    *Journal
	key  string
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	got     []Record
	errs    []error
	arrived chan struct{} // closed and replaced when records arrive
}

func startReader(j *Journal, key string) *reader {
	f := &reader{j: j, key: key, stop: make(chan struct{}), done: make(chan struct{}), arrived: make(chan struct{})}
	go func() {
		defer close(f.done)
		var pos uint64
		for {
			recs, err := j.Read(key, pos, 0)
			f.mu.Lock()
			if err != nil {
				f.errs = append(f.errs, err)
			}
			f.got = append(f.got, recs...)
			if len(recs) > 0 {
				close(f.arrived)
				f.arrived = make(chan struct{})
			}
			f.mu.Unlock()
			if n := len(recs); n > 0 {
				pos = recs[n-1].Seq
			}
			select {
			case <-j.Changed(key, pos):
			case <-f.stop:
				return
			}
		}
	}()
	return f
}

func (f *reader) ids() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.got {
		out = append(out, r.DedupID)
	}
	return out
}

// waitRecords waits until the reader has read at least n records: on its
// reads, not on a clock (the test's own timeout bounds it).
func (f *reader) waitRecords(n int) {
	for {
		f.mu.Lock()
		got, arrived := len(f.got), f.arrived
		f.mu.Unlock()
		if got >= n {
			return
		}
		<-arrived
	}
}

func (f *reader) end(t *testing.T) []Record {
	t.Helper()
	close(f.stop)
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, err := range f.errs {
		t.Errorf("follower read: %v", err)
	}
	return f.got
}

// TestReopenAfterFailedWrite: a write that fails inside a segment (a full
// disk under segments that grow as written) fails the journal, which then
// reopens itself from disk, with backoff, while it keeps serving reads:
// once space is back, appends succeed again without a Close and Open by the
// caller. The entries of the failed batches (their Append failed: the
// platform still has them) are taken when sent again, not skipped as
// duplicates; every Append that returned success is there once; a reader
// waiting on Changed across the reopen gets every record once, in order;
// acks hold. Every wait is on an event (a record read, a change of
// Health), so that the reopen's backoff and a loaded machine only make it
// slower.
func TestReopenAfterFailedWrite(t *testing.T) {
	dir := smallDisk(t, 2<<20)
	opts := Options{SegmentSize: 256 << 10, Limits: Limits{MaxCount: -1, MaxBytes: -1}, FS: growingFS(nil)}
	j := openAt(t, dir, opts)

	send := func(id string) error {
		_, err := j.Append(context.Background(), "telegram", []Entry{{Key: "a", DedupID: id, Data: payload(len(id), 4096)}}, []byte(id))
		return err
	}
	var durable []string
	for i := range 20 {
		id := fmt.Sprintf("pre-%03d", i)
		if err := send(id); err != nil {
			t.Fatal(err)
		}
		durable = append(durable, id)
	}
	if _, err := j.Ack("a", 5); err != nil { // in memory only: no batch carries it before the failure
		t.Fatal(err)
	}
	f := startReader(j, "a")

	filler := filepath.Join(filepath.Dir(dir), "filler")
	fill(t, filler, filepath.Dir(dir), 48<<10)
	var failed []string // what the "platform" still holds: sent again later
	for i := 0; ; i++ {
		id := fmt.Sprintf("mid-%04d", i)
		err := send(id)
		if err == nil {
			durable = append(durable, id)
			continue
		}
		if !errors.Is(err, ErrFailed) || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("append on a full disk = %v, want ErrFailed and ENOSPC", err)
		}
		failed = append(failed, id)
		break
	}
	t.Logf("%d appends durable, then the disk was full", len(durable))
	// The follower reads what is durable while the journal is failed: all
	// of it before the ack below (which would take records it has not
	// read yet away from it), and no more.
	f.waitRecords(len(durable) - 5)
	if n := len(f.ids()); n != len(durable)-5 {
		t.Fatalf("the follower read %d records, want the %d durable ones not acked", n, len(durable)-5)
	}
	// An ack while the journal is failed (or reopened already) holds.
	if _, err := j.Ack("a", 10); err != nil {
		t.Fatal(err)
	}

	// Space again: the journal reopens by itself; the platform sends what
	// was not acknowledged again, and more.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	var again []string
	again = append(again, failed...)
	for i := range 10 {
		again = append(again, fmt.Sprintf("post-%03d", i))
	}
	for _, id := range again {
		for {
			// Refused while the journal is failed: sent again once it has
			// reopened (Health.Changed: the failure it was refused for, or
			// this send's own, is over).
			h := j.Health()
			err := send(id)
			if err == nil {
				break
			}
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("append %s after space was freed: %v", id, err)
			}
			<-h.Changed
		}
		durable = append(durable, id)
	}

	want := durable[5:]
	f.waitRecords(len(want))
	got := f.end(t)
	if ids := idsOf(got); !slices.Equal(ids, want) {
		t.Fatalf("the follower read %d records, want %d, once each, in order:\n got %v\nwant %v", len(ids), len(want), ids, want)
	}
	checkSeqs(t, "follower", seqsOf(got), seqRange(6, uint64(len(durable))))
	if st := mustStats(t, j, "a"); st.AckedThrough != 10 || st.LastSeq != uint64(len(durable)) {
		t.Errorf("stats after the reopen: %+v, want acked through 10, last seq %d", st, len(durable))
	}
	if c, _ := j.Cursor("telegram"); string(c) != durable[len(durable)-1] {
		t.Errorf("cursor %q, want %q", c, durable[len(durable)-1])
	}
	if err := j.Close(); err != nil {
		t.Errorf("Close after the journal recovered: %v", err)
	}

	j = openAt(t, dir, opts)
	if ids := idsOf(readRecs(t, j, "a")); !slices.Equal(ids, durable[10:]) {
		t.Errorf("after Open: %d records, want %d (those not acked)", len(ids), len(durable)-10)
	}
}

func idsOf(recs []Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.DedupID
	}
	return out
}

// fill writes file until the file system under dir has at most leave bytes
// free.
func fill(t *testing.T, file, dir string, leave int64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if free := int64(st.Bavail) * int64(st.Bsize); free > leave {
		if err := os.WriteFile(file, make([]byte, free-leave), 0o600); err != nil {
			t.Fatalf("filling the disk: %v", err)
		}
	}
}

// TestReopenAfterFailedSync: an fdatasync that fails after its batch was
// written leaves the batch in the page cache, where a scan would find it
// whole, commit frame and all. The reopen does not trust it: the batch is
// cut away, so its entries are not there, their DedupIDs are not taken for
// duplicates when the platform sends them again, and the cursor is the one
// before it. While the journal is failed (its reopen held here) it serves
// reads, refuses writes at once, says so in Health, and takes acks, which
// survive the reopen and are made durable by it.
func TestReopenAfterFailedSync(t *testing.T) {
	var failSync, holdReopen atomic.Bool
	release := make(chan struct{})
	opts := Options{FS: faultFS(func(op faultfs.Op, run func() error) error {
		switch {
		case op.Kind == faultfs.SyncData && op.Unsynced.Has(faultfs.WritevAt) && failSync.CompareAndSwap(true, false):
			// A batch's fdatasync: it fails after the batch was written.
			return syscall.EIO
		case op.Kind == faultfs.Truncate && holdReopen.Load():
			<-release // the reopen's first step: cutting the failed batch away
		}
		return run()
	})}
	j, dir := newJournal(t, opts)
	send := func(id string) ([]Appended, error) {
		return j.Append(context.Background(), "telegram", []Entry{{Key: "a", DedupID: id, Data: []byte("data of " + id)}}, []byte(id))
	}
	for _, id := range []string{"u1", "u2", "u3"} {
		if _, err := send(id); err != nil {
			t.Fatal(err)
		}
	}
	h0 := j.Health()
	if h0.Failed != nil || h0.Reopens != 0 {
		t.Fatalf("health before any failure: %+v", h0)
	}

	failSync.Store(true)
	holdReopen.Store(true)
	if _, err := send("u4"); !errors.Is(err, ErrFailed) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("append whose fdatasync failed = %v, want ErrFailed and EIO", err)
	}
	select {
	case <-h0.Changed:
	default:
		t.Fatal("Health.Changed not closed by the failure")
	}
	h1 := j.Health()
	if !errors.Is(h1.Failed, ErrFailed) || !errors.Is(h1.Failed, syscall.EIO) {
		t.Fatalf("health after the failure: %+v", h1)
	}
	if _, err := send("u5"); !errors.Is(err, ErrFailed) {
		t.Errorf("append while failed = %v, want ErrFailed", err)
	}
	if ids := idsOf(readRecs(t, j, "a")); !slices.Equal(ids, []string{"u1", "u2", "u3"}) {
		t.Errorf("reads while failed: %v", ids)
	}
	if _, err := j.Ack("a", 2); err != nil {
		t.Fatalf("ack while failed: %v", err)
	}
	changed := j.Changed("a", 3)

	holdReopen.Store(false)
	close(release)
	<-h1.Changed // the journal reopened
	<-changed    // and woke the waiters on the failed state
	if h := j.Health(); h.Failed != nil || h.Reopens != 1 {
		t.Fatalf("health after the reopen: %+v", h)
	}
	if c, _ := j.Cursor("telegram"); string(c) != "u3" {
		t.Errorf("cursor after the reopen %q, want u3 (the failed batch's is not durable)", c)
	}
	if st := mustStats(t, j, "a"); st.AckedThrough != 2 || st.LastSeq != 3 || st.Pending != 1 {
		t.Errorf("stats after the reopen: %+v, want acked through 2 (carried over), last seq 3", st)
	}
	out, err := send("u4")
	if err != nil || out[0].Duplicate || out[0].Seq != 4 {
		t.Fatalf("u4 sent again after the reopen: %+v, %v; want it taken as seq 4", out, err)
	}
	if ids := idsOf(readRecs(t, j, "a")); !slices.Equal(ids, []string{"u3", "u4"}) {
		t.Errorf("reads after the reopen: %v", ids)
	}

	// Nothing of the failed batch is on disk; the carried ack is.
	if err := j.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	j = openAt(t, dir, Options{})
	if ids := idsOf(readRecs(t, j, "a")); !slices.Equal(ids, []string{"u3", "u4"}) {
		t.Errorf("after Open: %v", ids)
	}
	if st := mustStats(t, j, "a"); st.AckedThrough != 2 || st.LastSeq != 4 {
		t.Errorf("stats after Open: %+v", st)
	}
}
