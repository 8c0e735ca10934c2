package store_test

import (
	"path/filepath"
	"testing"

	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/store/storetest"
)

func TestDeadLetters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	open := func() store.Store {
		s, err := store.Open(path, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := open()
	storetest.DeadLetters(t, s, func() store.Store { s.Close(); return open() })
}
