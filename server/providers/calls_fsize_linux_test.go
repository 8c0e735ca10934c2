package providers

import (
	"syscall"
	"testing"
)

// TestCallKeyFreeAfterTheStoreFailedToRecordIt: a keyed call whose record
// the store could not write (every file write of this process fails
// meanwhile: its RLIMIT_FSIZE at 1 byte, as on a disk that takes no more)
// fails and was never made; once the store writes again, the same key is
// made, once. (It used to wait on the failed attempt for good, answering
// its error to every repeat.)
func TestCallKeyFreeAfterTheStoreFailedToRecordIt(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	ctx := ctxT(t)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 1, Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	_, err := e.call(ctx, "k1", callParams{})
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); rerr != nil {
		t.Fatal(rerr)
	}
	if err == nil {
		t.Fatal("the call succeeded while the store could not write its record")
	}
	res, err := e.call(ctx, "k1", callParams{})
	if err != nil {
		t.Fatalf("the key again once the store writes: %v", err)
	}
	if n := answered(t, res); n != 1 {
		t.Errorf("the child answered %d calls, want 1 (the first attempt was never made)", n)
	}
	if _, open := e.m.provs["fake"].calls.counts(); open != 0 {
		t.Errorf("%d calls still open", open)
	}
}
