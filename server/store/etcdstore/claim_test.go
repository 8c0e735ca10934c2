package etcdstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/chatbus/chatbus/internal/etcdtest"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/store/etcdstore"
)

// in is an update in thread th, routed as the caller saw it: to no binding.
func in(th string, id int64, text string) store.Update {
	return store.Update{PlatformUpdateID: id, Chat: "-1", Thread: th, Text: text}
}

// wantQueue checks key's pending updates: their texts, and seqs from
// first on.
func wantQueue(t *testing.T, s store.Store, key string, first uint64, want ...string) {
	t.Helper()
	ups, err := s.Read(key, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got, wantSeqs []string
	for i, u := range ups {
		got = append(got, u.Text)
		wantSeqs = append(wantSeqs, fmt.Sprint(first+uint64(i), "=", u.Seq))
		if u.Seq != first+uint64(i) {
			t.Errorf("journal %q: seqs (want=got) %v", key, wantSeqs)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("journal %q holds %q, want %q", key, got, want)
	}
}

// TestClaim: a binding written with a thread takes the updates written
// in that thread while no binding owned it, in one transaction: after its
// own, before those appended later, in their order; the others stay
// unrouted; an update the caller routed before the binding was written
// goes to it. It all survives a new leader's Open.
func TestClaim(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	f, _ := leader(t, cli, "tg", 5)
	const prefix = "/chatbus/test/claim/"
	s := open(t, cli, prefix, f, etcdstore.Options{})
	ctx := context.Background()
	put := func(key, thread string) {
		t.Helper()
		if err := s.PutBinding(store.Binding{Key: key, Status: store.StatusActive, Target: store.Target{Provider: "tg", Chat: "-1", Thread: thread}}); err != nil {
			t.Fatal(err)
		}
	}
	put("x", "7")
	x := in("7", 1, "x's")
	x.BindingKey = "x"
	if _, err := s.Append(ctx, "tg", []store.Update{x, in("8", 2, "a1"), in("9", 3, "b1"), in("8", 4, "a2")}, nil); err != nil {
		t.Fatal(err)
	}
	wantQueue(t, s, "", 1, "a1", "b1", "a2")

	put("x", "8") // its thread was deleted: it gets thread 8
	wantQueue(t, s, "x", 1, "x's", "a1", "a2")
	wantQueue(t, s, "", 2, "b1")
	out, err := s.Append(ctx, "tg", []store.Update{in("8", 5, "a3"), in("9", 6, "b2")}, nil)
	if err != nil || len(out) != 2 || out[0].BindingKey != "x" || out[0].Seq != 4 || out[1].BindingKey != "" || out[1].Seq != 4 {
		t.Fatalf("Append after the claim: %v %+v", err, out)
	}
	put("y", "9")
	put("y", "9") // nothing more to claim
	wantQueue(t, s, "y", 1, "b1", "b2")
	wantQueue(t, s, "", 0)
	if out, err := s.Append(ctx, "tg", []store.Update{in("8", 2, "a1 again")}, nil); err != nil || len(out) != 0 {
		t.Errorf("a redelivered update stored again: %v %+v", err, out)
	}
	if _, err := s.Append(ctx, "tg", []store.Update{in("10", 7, "c1")}, nil); err != nil {
		t.Fatal(err)
	}

	check := func(s store.Store) {
		t.Helper()
		wantQueue(t, s, "x", 1, "x's", "a1", "a2", "a3")
		wantQueue(t, s, "y", 1, "b1", "b2")
		wantQueue(t, s, "", 5, "c1")
		if st, err := s.UnroutedStats(); err != nil || st.Pending != 1 || st.LastSeq != 5 || st.Dropped != 0 {
			t.Errorf("unrouted stats %+v %v", st, err)
		}
	}
	check(s)
	s.Close()
	s = open(t, cli, prefix, f, etcdstore.Options{})
	check(s)
	if _, err := s.Ack("", 5); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, cli, prefix, f, etcdstore.Options{})
	wantQueue(t, s, "", 0)
	wantQueue(t, s, "x", 1, "x's", "a1", "a2", "a3")
}
