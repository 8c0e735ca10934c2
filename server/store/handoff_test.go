package store

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// TestHandoffTokenNotInClear: only a handoff token's hash is stored; the
// file never holds the token itself. (The handoff contract is
// storetest's Handoff.)
func TestHandoffTokenNotInClear(t *testing.T) {
	s, path := newStore(t, Options{})
	if err := s.PutHandoff("tok-long", "manual:4", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("tok-long")) {
		t.Errorf("the store file contains a handoff token in clear")
	}
	s = openAt(t, path, Options{})
	if key, err := s.TakeHandoff("tok-long", time.Now()); err != nil || key != "manual:4" {
		t.Errorf("TakeHandoff after reopen = %q, %v", key, err)
	}
}
