package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/store"
)

func bindings(t *testing.T, bk Backend) {
	clk := newClock()
	drops := &dropLog{}
	s, reopen := bk.Open(t, Options{Now: clk.Now, OnDrop: drops.OnDrop})
	tA := store.Target{Provider: "alpha", Chat: "-100", Thread: "7"}
	tB := store.Target{Provider: "alpha", Chat: "-100", Thread: "8"}

	b := store.Binding{
		Key: "manual:1", OwnerKind: store.OwnerManualFollower, InstanceID: "1:1000", Target: tA,
		Slot: "A", ThreadName: "chatbus", Status: store.StatusActive, LastAction: store.ActionFresh,
	}
	if err := s.PutBinding(b); err != nil {
		t.Fatal(err)
	}
	created := clk.Now()
	clk.Add(time.Minute)

	steps := []struct {
		name    string
		put     *store.Binding // nil: no put in this step
		wantErr error
		check   func(t *testing.T)
	}{
		{
			name: "get returns what was put, times filled in",
			check: func(t *testing.T) {
				got, err := s.GetBinding("manual:1")
				if err != nil {
					t.Fatal(err)
				}
				want := b
				want.Created, want.Updated = created, created
				if !got.Created.Equal(want.Created) || !got.Updated.Equal(want.Updated) {
					t.Errorf("times %v %v, want %v", got.Created, got.Updated, created)
				}
				got.Created, got.Updated, want.Created, want.Updated = time.Time{}, time.Time{}, time.Time{}, time.Time{}
				if got != want {
					t.Errorf("GetBinding = %+v, want %+v", got, want)
				}
			},
		},
		{
			name:  "by target",
			check: func(t *testing.T) { wantKeyByTarget(t, s, tA, "manual:1") },
		},
		{
			name:    "another binding cannot take the target",
			put:     &store.Binding{Key: "manual:2", Status: store.StatusStarting, Target: tA},
			wantErr: store.ErrTargetInUse,
			check: func(t *testing.T) {
				if _, err := s.GetBinding("manual:2"); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("GetBinding(manual:2) = %v, want ErrNotFound", err)
				}
			},
		},
		{
			name: "moving to another target re-indexes; Created is kept",
			put:  &store.Binding{Key: "manual:1", Status: store.StatusActive, Target: tB, LastAction: store.ActionRegisterReuse},
			check: func(t *testing.T) {
				wantKeyByTarget(t, s, tB, "manual:1")
				wantKeyByTarget(t, s, tA, "")
				got, _ := s.GetBinding("manual:1")
				if !got.Created.Equal(created) || !got.Updated.Equal(clk.Now()) {
					t.Errorf("Created %v Updated %v, want %v %v", got.Created, got.Updated, created, clk.Now())
				}
			},
		},
		{
			name:  "the freed target can be taken",
			put:   &store.Binding{Key: "manual:2", Status: store.StatusPending, Target: tA},
			check: func(t *testing.T) { wantKeyByTarget(t, s, tA, "manual:2") },
		},
		{
			name:  "a binding without a target is not indexed",
			put:   &store.Binding{Key: "operator", OwnerKind: store.OwnerOperator, Status: store.StatusOffline},
			check: func(t *testing.T) { wantKeyByTarget(t, s, store.Target{}, "") },
		},
		{name: "empty key", put: &store.Binding{Status: store.StatusActive}, wantErr: store.ErrInvalid},
		{name: "unknown status", put: &store.Binding{Key: "x", Status: "zombie"}, wantErr: store.ErrInvalid},
		{name: "target without provider", put: &store.Binding{Key: "x", Status: store.StatusActive, Target: store.Target{Chat: "1"}}, wantErr: store.ErrInvalid},
		{name: "provider with NUL", put: &store.Binding{Key: "x", Status: store.StatusActive, Target: store.Target{Provider: "a\x00b"}}, wantErr: store.ErrInvalid},
		{name: "key too long", put: &store.Binding{Key: strings.Repeat("k", 2000), Status: store.StatusActive}, wantErr: store.ErrInvalid},
		{
			name: "list is ordered by key",
			check: func(t *testing.T) {
				list, err := s.ListBindings()
				if err != nil {
					t.Fatal(err)
				}
				var keys []string
				for _, b := range list {
					keys = append(keys, b.Key)
				}
				if !slices.Equal(keys, []string{"manual:1", "manual:2", "operator"}) {
					t.Errorf("ListBindings keys = %v", keys)
				}
			},
		},
	}
	for _, tc := range steps {
		t.Run(tc.name, func(t *testing.T) {
			if tc.put != nil {
				if err := s.PutBinding(*tc.put); !errors.Is(err, tc.wantErr) {
					t.Fatalf("PutBinding = %v, want %v", err, tc.wantErr)
				}
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}

	t.Run("delete drops the journal and reports it", func(t *testing.T) {
		inB := func(id int64, text string) store.Update {
			u := upd("manual:1", id, text)
			u.Thread = tB.Thread
			return u
		}
		mustAppend(t, s, "alpha", 0, inB(1, "a"), inB(2, "b"), inB(3, "c"))
		if _, err := s.Ack("manual:1", 1); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteBinding("manual:1"); err != nil {
			t.Fatal(err)
		}
		if got := drops.Take(); !slices.Equal(got, []dropCall{{Key: "manual:1", N: 2, Reason: store.DropBindingDeleted}}) {
			t.Errorf("OnDrop calls = %v", got)
		}
		if _, err := s.GetBinding("manual:1"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("GetBinding after delete = %v", err)
		}
		wantKeyByTarget(t, s, tB, "")
		// Nothing is held. (Whether its seqs may be handed out again is
		// the backend's: Bolt's never are.)
		if st, _ := s.Stats("manual:1"); st.Pending != 0 || st.Bytes != 0 {
			t.Errorf("Stats after delete = %+v", st)
		}
		// Updates for the deleted binding (in the thread it had) are held
		// as unrouted.
		out := mustAppend(t, s, "alpha", 0, inB(4, "d"))
		if out[0].BindingKey != "" {
			t.Errorf("update for a deleted binding went to %q", out[0].BindingKey)
		}
		if err := s.DeleteBinding("manual:1"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second DeleteBinding = %v, want ErrNotFound", err)
		}
	})

	t.Run("survives reopen", func(t *testing.T) {
		s = reopen()
		wantKeyByTarget(t, s, tA, "manual:2")
		if list, _ := s.ListBindings(); len(list) != 2 {
			t.Errorf("%d bindings after reopen, want 2", len(list))
		}
	})
}

func allocateSlot(t *testing.T, bk Backend) {
	s, reopen := bk.Open(t, Options{MaxSlots: 5}) // A B C D E
	inUse := map[string]bool{}
	isInUse := func(slot string) bool { return inUse[slot] }
	steps := []struct {
		name    string
		chat    int64
		setUse  map[string]bool // replaces inUse when non-nil
		realign *string         // realign the cursor to this before allocating
		want    string
		wantErr error
	}{
		{name: "first is A", chat: 1, want: "A"},
		{name: "then B", chat: 1, want: "B"},
		{name: "another chat has its own cursor", chat: 2, want: "A"},
		{name: "skips slots in use", chat: 1, setUse: map[string]bool{"C": true, "D": true}, want: "E"},
		{name: "wraps to A after the maximum", chat: 1, setUse: map[string]bool{}, want: "A"},
		{name: "wrap skips in-use too", chat: 1, setUse: map[string]bool{"B": true}, want: "C"},
		{name: "realign back to A gives B again", chat: 1, setUse: map[string]bool{}, realign: ptr("A"), want: "B"},
		{name: "realign to empty restarts at A", chat: 1, realign: ptr(""), want: "A"},
		{name: "realign outside the sequence", chat: 1, realign: ptr("F"), wantErr: store.ErrInvalid},
		{name: "realign to garbage", chat: 1, realign: ptr("b"), wantErr: store.ErrInvalid},
		{name: "all in use", chat: 1, setUse: map[string]bool{"A": true, "B": true, "C": true, "D": true, "E": true}, wantErr: store.ErrNoFreeSlot},
		{name: "cursor unchanged by the failure", chat: 1, setUse: map[string]bool{}, want: "B"},
	}
	for _, tc := range steps {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setUse != nil {
				inUse = tc.setUse
			}
			if tc.realign != nil {
				if err := s.RealignCursor("alpha", fmt.Sprint(tc.chat), *tc.realign); err != nil {
					if !errors.Is(err, tc.wantErr) {
						t.Fatalf("RealignCursor = %v, want %v", err, tc.wantErr)
					}
					return
				}
			}
			got, err := s.AllocateSlot("alpha", fmt.Sprint(tc.chat), isInUse)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Fatalf("AllocateSlot = %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
	s = reopen()
	if c, _ := s.SlotCursor("alpha", "1"); c != "B" {
		t.Errorf("cursor after reopen = %q, want B", c)
	}
	if got, _ := s.AllocateSlot("alpha", "1", nil); got != "C" {
		t.Errorf("AllocateSlot after reopen = %q, want C", got)
	}
}

func wantKeyByTarget(t *testing.T, s store.Store, target store.Target, want string) {
	t.Helper()
	got, err := s.BindingByTarget(target)
	switch {
	case want == "" && !errors.Is(err, store.ErrNotFound):
		t.Errorf("BindingByTarget(%+v) = %q, %v; want ErrNotFound", target, got.Key, err)
	case want != "" && (err != nil || got.Key != want):
		t.Errorf("BindingByTarget(%+v) = %q, %v; want %q", target, got.Key, err, want)
	}
}

func ptr[T any](v T) *T { return &v }
