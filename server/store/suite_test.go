package store_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/chatbus/chatbus/server/journal/vfs"
	"github.com/chatbus/chatbus/server/journal/vfs/faultfs"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/store/storetest"
)

// TestStoreSuite: the Bolt store keeps the store contract (storetest).
// Options.FailWrites fails the journal's writes, as a disk that refuses
// them.
func TestStoreSuite(t *testing.T) {
	storetest.Run(t, storetest.Backend{Open: func(t *testing.T, o storetest.Options) (store.Store, func() store.Store) {
		opts := store.Options{Limits: o.Limits, SeenMaxCount: o.SeenMaxCount, SeenMaxAge: o.SeenMaxAge,
			MaxSent: o.MaxSent, MaxSlots: o.MaxSlots, Now: o.Now, OnDrop: o.OnDrop}
		if fail := o.FailWrites; fail != nil {
			opts.JournalFS = faultfs.New(vfs.Default, func(op faultfs.Op, run func() error) error {
				if fail.Load() && op.Kind == faultfs.WritevAt {
					return errors.New("injected: the disk refuses the write")
				}
				return run()
			})
		}
		path := filepath.Join(t.TempDir(), "state.db")
		return storetest.Reopens(t, func() store.Store {
			s, err := store.Open(path, opts)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		})
	}})
}
