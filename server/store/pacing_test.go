package store_test

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/store"
)

// TestPacingSaved: the windows saved last are what a store opened again
// (after a crash, say) returns, per provider; nothing saved is nil.
func TestPacingSaved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	first := []store.PaceWindow{{Limit: "group", Key: "-100", Times: []time.Time{at}}}
	last := []store.PaceWindow{{Limit: "bot", Times: []time.Time{at, at.Add(time.Second)}}, {Limit: "group", Key: "-100", Times: []time.Time{at, at.Add(time.Second)}}}
	for _, ws := range [][]store.PaceWindow{first, last} {
		if err := <-s.SavePacing("telegram", ws); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-s.SavePacing("", first); err == nil {
		t.Fatal("saved windows of no provider")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Pacing("telegram")
	if err != nil || !reflect.DeepEqual(got, last) {
		t.Fatalf("Pacing = %+v, %v; want %+v", got, err, last)
	}
	if got, err := s.Pacing("slack"); err != nil || got != nil {
		t.Fatalf("Pacing of a provider that saved none = %+v, %v", got, err)
	}
}
