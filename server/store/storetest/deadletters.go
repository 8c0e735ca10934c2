// Package storetest is the store contract as tests: Run runs them
// against a store.Store backend (the embedded Bolt store and etcdstore
// both run it), so that every backend keeps the same promises. What is
// one backend's own (Bolt's files and crashes, etcd's transactions and
// fences) is tested beside that backend.
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/store"
)

// DeadLetters checks the dead-letter records of s: put (a repeat replaces
// the record, its retries never go down), list (by provider, by when
// received), get, delete, refusals; and that reopen (the store closed and
// opened again) keeps them. reopen closes s itself.
func DeadLetters(t *testing.T, s store.Store, reopen func() store.Store) {
	t.Helper()
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a := store.DeadLetter{Provider: "tg", ID: "101", PlatformUpdateID: 101, Kind: store.UpdateMessage,
		Error: "json: cannot unmarshal string into Go struct field", Payload: []byte(`{"id":101}`), ReceivedAt: t0.Add(time.Second)}
	b := store.DeadLetter{Provider: "tg", ID: "99", PlatformUpdateID: 99, Error: "panic: boom", Payload: []byte("x"), ReceivedAt: t0}
	c := store.DeadLetter{Provider: "dc", ID: "1234567890", PlatformUpdateID: 3, Error: "the journal refused it", Payload: []byte("y"), ReceivedAt: t0,
		Cause: store.DeadLetterJournal, Converted: []byte{0x0a, 0x01, 'z'}}
	if err := s.PutDeadLetters(ctx, []store.DeadLetter{a, b, c}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []store.DeadLetter{{ID: "1"}, {Provider: "tg"}, {Provider: "t\x00g", ID: "1"}} {
		if err := s.PutDeadLetters(ctx, []store.DeadLetter{bad}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("PutDeadLetters(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
	check := func(s store.Store, provider string, want ...store.DeadLetter) {
		t.Helper()
		got, err := s.DeadLetters(provider)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("DeadLetters(%q) = %+v, want %+v", provider, got, want)
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.Provider != w.Provider || g.ID != w.ID || g.PlatformUpdateID != w.PlatformUpdateID || g.Kind != w.Kind ||
				g.Error != w.Error || string(g.Payload) != string(w.Payload) || !g.ReceivedAt.Equal(w.ReceivedAt) || g.Retries != w.Retries ||
				g.Cause != w.Cause || string(g.Converted) != string(w.Converted) {
				t.Errorf("DeadLetters(%q)[%d] = %+v, want %+v", provider, i, g, w)
			}
		}
	}
	check(s, "", c, b, a)
	check(s, "tg", b, a)

	// A retry that failed again: the new error, one more retry. The
	// provider delivering it again (a redelivery) does not undo that.
	a2 := a
	a2.Error, a2.Retries = "still bad", 1
	if err := s.PutDeadLetters(ctx, []store.DeadLetter{a2}); err != nil {
		t.Fatal(err)
	}
	again := a
	again.Error = "still bad"
	if err := s.PutDeadLetters(ctx, []store.DeadLetter{again}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetDeadLetter("tg", "101"); err != nil || got.Retries != 1 || got.Error != "still bad" {
		t.Errorf("GetDeadLetter after a failed retry = %+v, %v; want 1 retry", got, err)
	}
	if _, err := s.GetDeadLetter("tg", "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetDeadLetter of an unknown id: %v", err)
	}
	if err := s.DeleteDeadLetter("tg", "99"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDeadLetter("tg", "99"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second DeleteDeadLetter: %v", err)
	}
	r := reopen()
	check(r, "", c, a2)
}
