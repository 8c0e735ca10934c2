package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMigrateSchema1: a state file written by the previous schema (numeric
// chat and thread ids; testdata/schema1.db holds a binding on Telegram
// topic -1001234/42 with two journalled updates, one unrouted update,
// cursor 103, slot A and a sent message 555 with file BQ-file) opens, is
// migrated once, and everything in it is found under the ids as text.
func TestMigrateSchema1(t *testing.T) {
	src, err := os.ReadFile("testdata/schema1.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	for round := range 2 { // the second open finds schema 2 and changes nothing
		s := openAt(t, path, Options{})
		tg := Target{Provider: "telegram", Chat: "-1001234", Thread: "42"}
		b, err := s.BindingByTarget(tg)
		if err != nil || b.Key != "manual:1" || b.Target != tg || b.Slot != "A" {
			t.Fatalf("round %d: BindingByTarget = %+v, %v", round, b, err)
		}
		ups := readAll(t, s, "manual:1")
		if len(ups) != 2 || ups[0].Chat != "-1001234" || ups[0].Thread != "42" || ups[0].Sender != "7" || ups[0].Text != "one" || ups[1].Seq != 2 {
			t.Fatalf("round %d: journal = %+v", round, ups)
		}
		un, err := s.ListUnrouted(0)
		if err != nil || len(un) != 1 || un[0].Chat != "-1001234" || un[0].Thread != "" {
			t.Fatalf("round %d: unrouted = %+v, %v", round, un, err)
		}
		if c, err := s.Cursor("telegram"); err != nil || string(c) != "103" {
			t.Fatalf("round %d: cursor = %q, %v", round, c, err)
		}
		if c, err := s.SlotCursor("telegram", ""); err != nil || c != "A" {
			t.Fatalf("round %d: slot cursor = %q, %v", round, c, err)
		}
		refs, err := s.Sent(tg)
		want := []Ref{{RefMessage, "555"}, {RefFile, "BQ-file"}}
		if round == 1 {
			want = append(want, Ref{RefMessage, "556"})
		}
		if err != nil || !slices.Equal(refs, want) {
			t.Fatalf("round %d: sent = %v, %v; want %v", round, refs, err, want)
		}
		if round == 0 {
			// De-duplication still knows the ids journalled before: a
			// redelivery of update 101 is stored once.
			again := Update{BindingKey: "manual:1", PlatformUpdateID: 101, DedupID: "101", Chat: "-1001234", Thread: "42", Text: "two"}
			out, err := s.Append(context.Background(), "telegram", []Update{again}, cur(103))
			if err != nil || len(out) != 0 {
				t.Fatalf("redelivered update after migration: %+v, %v", out, err)
			}
			if err := <-s.RememberSent(tg, []Ref{{RefMessage, "556"}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
