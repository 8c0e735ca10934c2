package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBindings(t *testing.T) {
	clk := newClock()
	drops := &dropLog{}
	s, path := newStore(t, Options{Now: clk.Now, OnDrop: drops.OnDrop})
	tA := Target{"telegram", "-100", "7"}
	tB := Target{"telegram", "-100", "8"}

	b := Binding{
		Key: "manual:1", OwnerKind: OwnerManualFollower, InstanceID: "1:1000", Target: tA,
		Slot: "A", ThreadName: "chatbus", Status: StatusActive, LastAction: ActionFresh,
	}
	if err := s.PutBinding(b); err != nil {
		t.Fatal(err)
	}
	created := clk.Now()
	clk.Add(time.Minute)

	steps := []struct {
		name    string
		put     *Binding // nil: no put in this step
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
			put:     &Binding{Key: "manual:2", Status: StatusStarting, Target: tA},
			wantErr: ErrTargetInUse,
			check: func(t *testing.T) {
				if _, err := s.GetBinding("manual:2"); !errors.Is(err, ErrNotFound) {
					t.Errorf("GetBinding(manual:2) = %v, want ErrNotFound", err)
				}
			},
		},
		{
			name: "moving to another target re-indexes; Created is kept",
			put:  &Binding{Key: "manual:1", Status: StatusActive, Target: tB, LastAction: ActionRegisterReuse},
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
			put:   &Binding{Key: "manual:2", Status: StatusPending, Target: tA},
			check: func(t *testing.T) { wantKeyByTarget(t, s, tA, "manual:2") },
		},
		{
			name:  "a binding without a target is not indexed",
			put:   &Binding{Key: "operator", OwnerKind: OwnerOperator, Status: StatusOffline},
			check: func(t *testing.T) { wantKeyByTarget(t, s, Target{}, "") },
		},
		{name: "empty key", put: &Binding{Status: StatusActive}, wantErr: ErrInvalid},
		{name: "unknown status", put: &Binding{Key: "x", Status: "zombie"}, wantErr: ErrInvalid},
		{name: "target without provider", put: &Binding{Key: "x", Status: StatusActive, Target: Target{Chat: "1"}}, wantErr: ErrInvalid},
		{name: "provider with NUL", put: &Binding{Key: "x", Status: StatusActive, Target: Target{Provider: "a\x00b"}}, wantErr: ErrInvalid},
		{name: "key too long", put: &Binding{Key: strings.Repeat("k", 2000), Status: StatusActive}, wantErr: ErrInvalid},
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
		inB := func(id int64, text string) Update { u := upd("manual:1", id, text); u.Thread = tB.Thread; return u }
		mustAppend(t, s, "telegram", 0, inB(1, "a"), inB(2, "b"), inB(3, "c"))
		if _, err := s.Ack("manual:1", 1); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteBinding("manual:1"); err != nil {
			t.Fatal(err)
		}
		if got := drops.Take(); !slices.Equal(got, []dropCall{{Key: "manual:1", N: 2, Reason: DropBindingDeleted}}) {
			t.Errorf("OnDrop calls = %v", got)
		}
		if _, err := s.GetBinding("manual:1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetBinding after delete = %v", err)
		}
		wantKeyByTarget(t, s, tB, "")
		// Nothing is held; the seqs are never handed out again.
		if st, _ := s.Stats("manual:1"); st.Pending != 0 || st.Bytes != 0 || st.LastSeq != 3 {
			t.Errorf("Stats after delete = %+v", st)
		}
		// Updates for the deleted binding (in the thread it had) are held
		// as unrouted.
		out := mustAppend(t, s, "telegram", 0, inB(4, "d"))
		if out[0].BindingKey != "" {
			t.Errorf("update for a deleted binding went to %q", out[0].BindingKey)
		}
		if err := s.DeleteBinding("manual:1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("second DeleteBinding = %v, want ErrNotFound", err)
		}
	})

	t.Run("survives reopen", func(t *testing.T) {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openAt(t, path, Options{})
		wantKeyByTarget(t, s, tA, "manual:2")
		if list, _ := s.ListBindings(); len(list) != 2 {
			t.Errorf("%d bindings after reopen, want 2", len(list))
		}
	})
}

func wantKeyByTarget(t *testing.T, s Store, target Target, want string) {
	t.Helper()
	got, err := s.BindingByTarget(target)
	switch {
	case want == "" && !errors.Is(err, ErrNotFound):
		t.Errorf("BindingByTarget(%+v) = %q, %v; want ErrNotFound", target, got.Key, err)
	case want != "" && (err != nil || got.Key != want):
		t.Errorf("BindingByTarget(%+v) = %q, %v; want %q", target, got.Key, err, want)
	}
}

func TestSlotNames(t *testing.T) {
	tests := []struct {
		name  string
		index int
		slot  string
	}{
		{name: "first", index: 0, slot: "A"},
		{name: "last single letter", index: 25, slot: "Z"},
		{name: "first double", index: 26, slot: "AA"},
		{name: "AZ", index: 51, slot: "AZ"},
		{name: "BA", index: 52, slot: "BA"},
		{name: "last of the default sequence", index: 26*27 - 1, slot: "ZZ"},
		{name: "first triple", index: 26 * 27, slot: "AAA"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := slotName(tc.index); got != tc.slot {
				t.Errorf("slotName(%d) = %q, want %q", tc.index, got, tc.slot)
			}
			if got, ok := slotIndex(tc.slot); !ok || got != tc.index {
				t.Errorf("slotIndex(%q) = %d, %v; want %d", tc.slot, got, ok, tc.index)
			}
		})
	}
	for _, bad := range []string{"", "a", "A1", "ÄA", "AAAAAAA"} {
		if _, ok := slotIndex(bad); ok {
			t.Errorf("slotIndex(%q) accepted", bad)
		}
	}
}

func TestAllocateSlot(t *testing.T) {
	s, path := newStore(t, Options{MaxSlots: 5}) // A B C D E
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
		{name: "realign outside the sequence", chat: 1, realign: ptr("F"), wantErr: ErrInvalid},
		{name: "realign to garbage", chat: 1, realign: ptr("b"), wantErr: ErrInvalid},
		{name: "all in use", chat: 1, setUse: map[string]bool{"A": true, "B": true, "C": true, "D": true, "E": true}, wantErr: ErrNoFreeSlot},
		{name: "cursor unchanged by the failure", chat: 1, setUse: map[string]bool{}, want: "B"},
	}
	for _, tc := range steps {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setUse != nil {
				inUse = tc.setUse
			}
			if tc.realign != nil {
				if err := s.RealignCursor("telegram", fmt.Sprint(tc.chat), *tc.realign); err != nil {
					if !errors.Is(err, tc.wantErr) {
						t.Fatalf("RealignCursor = %v, want %v", err, tc.wantErr)
					}
					return
				}
			}
			got, err := s.AllocateSlot("telegram", fmt.Sprint(tc.chat), isInUse)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Fatalf("AllocateSlot = %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path, Options{MaxSlots: 5})
	if c, _ := s.SlotCursor("telegram", "1"); c != "B" {
		t.Errorf("cursor after reopen = %q, want B", c)
	}
	if got, _ := s.AllocateSlot("telegram", "1", nil); got != "C" {
		t.Errorf("AllocateSlot after reopen = %q, want C", got)
	}
}

func ptr[T any](v T) *T { return &v }
