package store

import (
	"bytes"
	"testing"

	"github.com/chatbus/chatbus/internal/testkit"
)

// hidden is a Store without its optional interfaces: FollowEncoded's
// path for any Store.
type hidden struct{ Store }

// TestFollowEncoded: FollowEncoded appends what ReadEncoded returns and,
// once it reaches the binding's last update, the channel to wait on for
// the next, for the Bolt store (Journal.Follow) and any other.
func TestFollowEncoded(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap func(*Bolt) Store
	}{
		{name: "bolt", wrap: func(s *Bolt) Store { return s }},
		{name: "any store", wrap: func(s *Bolt) Store { return hidden{s} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newStore(t, Options{})
			s := tc.wrap(b)
			putBinding(t, s, "b1", Target{"telegram", "-100", "7"})
			mustAppend(t, s, "telegram", 3, upd("b1", 1, "one"), upd("b1", 2, "two"), upd("b1", 3, "three"))
			want, err := ReadEncoded(s, "b1", 0, 0)
			if err != nil || len(want) != 3 {
				t.Fatalf("ReadEncoded: %d, %v", len(want), err)
			}
			tests := []struct {
				after    uint64
				limit    int
				want     []Encoded
				waitable bool
			}{
				{after: 0, limit: 2, want: want[:2]},
				{after: 0, limit: 0, want: want, waitable: true},
				{after: 1, limit: 2, want: want[1:], waitable: true},
				{after: 3, limit: 2, want: nil, waitable: true},
			}
			for _, tt := range tests {
				prefix := []Encoded{{Seq: 99}}
				got, changed, err := FollowEncoded(s, prefix, "b1", tt.after, tt.limit)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(tt.want)+1 || got[0].Seq != 99 {
					t.Fatalf("after %d limit %d: %d updates, want %d after dst's", tt.after, tt.limit, len(got), len(tt.want))
				}
				for i, e := range got[1:] {
					if w := tt.want[i]; e.Seq != w.Seq || !bytes.Equal(e.Wire, w.Wire) || !e.ReceivedAt.Equal(w.ReceivedAt) {
						t.Errorf("after %d: %+v, want %+v", tt.after, e, w)
					}
				}
				switch {
				case !tt.waitable && changed != nil:
					t.Errorf("after %d limit %d: a channel with more to read", tt.after, tt.limit)
				case tt.waitable && changed == nil && len(tt.want) < tt.limit:
					t.Errorf("after %d limit %d: no channel at the last update", tt.after, tt.limit)
				case changed != nil && testkit.Closed(changed):
					t.Errorf("after %d limit %d: the channel is closed", tt.after, tt.limit)
				}
			}
			_, changed, _ := FollowEncoded(s, nil, "b1", 3, 0)
			mustAppend(t, s, "telegram", 4, upd("b1", 4, "four"))
			if !testkit.Closed(changed) {
				t.Error("an append did not close the channel")
			}
		})
	}
}

// TestFollowEncodedAllocs: a stream that keeps up reads its updates with
// no allocation, its buffer reused.
func TestFollowEncodedAllocs(t *testing.T) {
	s, _ := newStore(t, Options{})
	putBinding(t, s, "b1", Target{"telegram", "-100", "7"})
	mustAppend(t, s, "telegram", 4, upd("b1", 1, "one"), upd("b1", 2, "two"), upd("b1", 3, "three"), upd("b1", 4, "four"))
	buf := make([]Encoded, 0, 8)
	allocs := testing.AllocsPerRun(100, func() {
		got, changed, err := s.FollowEncoded(buf[:0], "b1", 0, 256)
		if err != nil || len(got) != 4 || changed == nil {
			t.Fatalf("FollowEncoded: %d updates, %v, %v", len(got), changed, err)
		}
	})
	if allocs != 0 {
		t.Errorf("FollowEncoded allocates %v times per read", allocs)
	}
}
