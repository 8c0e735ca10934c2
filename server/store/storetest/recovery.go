package storetest

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/chatbus/chatbus/server/store"
)

// failedWritesLoseAndRepeatNothing: a binding write (with its claim) and
// an Append that could not be made durable are either whole or absent
// after the store is opened again (a claim cut short is finished then,
// once), and the platform's redelivery of the failed Append fills what
// is missing: every update exactly once, in its thread's order.
func failedWritesLoseAndRepeatNothing(t *testing.T, bk Backend) {
	fail := &atomic.Bool{}
	opts := Options{FailWrites: fail}
	s, reopen := bk.Open(t, opts)
	mustAppend(t, s, "alpha", 3, in("8", 1, "a1"), in("9", 2, "b1"), in("8", 3, "a2"))

	fail.Store(true)
	x := store.Binding{Key: "x", Status: store.StatusActive, Target: store.Target{Provider: "alpha", Chat: "-100", Thread: "8"}, OwnerKind: store.OwnerManualFollower}
	if err := s.PutBinding(x); err == nil {
		t.Fatal("PutBinding with writes failing: no error")
	}
	redelivered := []store.Update{in("8", 4, "a3"), in("9", 5, "b2")}
	if _, err := s.Append(context.Background(), "alpha", redelivered, cur(5)); err == nil {
		t.Fatal("Append with writes failing: no error")
	}
	_ = s.Close() // a backend that failed may say so again: no news
	fail.Store(false)

	// written is whether the failed binding write is in the store: a
	// backend may have made it durable before the part that failed.
	s = reopen()
	_, err := s.GetBinding("x")
	written := err == nil
	if !written && !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetBinding(x) after the failed write: %v", err)
	}
	check := func(s store.Store, when string) {
		t.Helper()
		// Thread 8's updates are x's (if x was written) or unrouted.
		var x8, un []store.Update
		if written {
			x8 = readAll(t, s, "x")
		}
		un = readAll(t, s, "")
		var all []string
		for _, u := range append(slices.Clone(x8), un...) {
			all = append(all, u.Text)
		}
		if written && !slices.Equal(texts(x8), []string{"a1", "a2", "a3"}[:len(x8)]) {
			t.Errorf("%s: x holds %q, want thread 8's updates in order", when, texts(x8))
		}
		slices.Sort(all)
		if want := []string{"a1", "a2", "a3", "b1", "b2"}; !slices.Equal(all, want) {
			t.Errorf("%s: the journals hold %q (x: %q, unrouted: %q), want each of %q once", when, all, texts(x8), texts(un), want)
		}
		for _, u := range un {
			if written && u.Thread == "8" {
				t.Errorf("%s: %q of x's thread is still unrouted (the claim was not finished)", when, u.Text)
			}
		}
		if c, err := s.Cursor("alpha"); err != nil || string(c) != "5" {
			t.Errorf("%s: cursor %q, %v; want 5", when, c, err)
		}
	}
	// The platform delivers the failed batch again (its cursor may not
	// have moved): what was stored is skipped, the rest stored.
	if _, err := s.Append(context.Background(), "alpha", redelivered, cur(5)); err != nil {
		t.Fatal(err)
	}
	check(s, "after the redelivery")
	if out := mustAppend(t, s, "alpha", 5, append([]store.Update{in("8", 1, "a1"), in("9", 2, "b1"), in("8", 3, "a2")}, redelivered...)...); len(out) != 0 {
		t.Errorf("everything delivered again: stored %q again", texts(out))
	}
	s = reopen()
	check(s, "opened again")
}
