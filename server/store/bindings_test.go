package store

import (
	"testing"
)

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

// TestDeletedBindingSeqsNotReused: a binding deleted and written again
// continues its seqs (the store contract leaves this to the backend:
// storetest's Bindings).
func TestDeletedBindingSeqsNotReused(t *testing.T) {
	s, _ := newStore(t, Options{})
	putBinding(t, s, "b", Target{"telegram", "-100", "7"})
	mustAppend(t, s, "telegram", 0, upd("b", 1, "a"), upd("b", 2, "b"), upd("b", 3, "c"))
	if err := s.DeleteBinding("b"); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Stats("b"); st.Pending != 0 || st.LastSeq != 3 {
		t.Errorf("Stats after delete = %+v, want nothing pending, LastSeq 3", st)
	}
	putBinding(t, s, "b", Target{"telegram", "-100", "7"})
	if out := mustAppend(t, s, "telegram", 0, upd("b", 4, "d")); len(out) != 1 || out[0].Seq != 4 {
		t.Errorf("Append to the binding written again: %+v, want seq 4", out)
	}
}
