package journal

import (
	"context"
	"runtime"
	"testing"
)

// TestOpenLeavesNoRecoveryHeap: recovery reads each segment whole (64
// MiB, preallocated); once Open returns, the heap's goal no longer
// carries that buffer, so a restarted supervisor does not climb toward
// twice it before its first collection.
func TestOpenLeavesNoRecoveryHeap(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(context.Background(), "p", []Entry{{Key: "k", DedupID: "1", Data: []byte("hello")}}, nil); err != nil {
		t.Fatal(err)
	}
	j.Close()
	runtime.GC()
	j, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.NextGC >= DefaultSegmentSize {
		t.Errorf("after Open the heap's goal is %d MiB: the %d MiB recovery buffer is still counted", ms.NextGC>>20, DefaultSegmentSize>>20)
	}
}
