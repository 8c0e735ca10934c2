package hub

import (
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// TestReuseRegisterCommits counts the store's write transactions on the
// caller's path of each registration of one profile key: a reloaded
// session taking its live binding up again (REUSE) writes nothing before
// it returns once only the holder changes; one taking up an offline
// binding writes it (its status changes), as does a fresh one. What was
// held is written at the latest when the store closes.
func TestReuseRegisterCommits(t *testing.T) {
	path := t.TempDir() + "/state.db"
	e := newEnvOpts(t, path, store.Options{HolderDelay: time.Hour}, nil, nil)
	steps := []struct {
		name     string
		instance string
		before   func()
		origin   Origin
		txs      uint64 // write transactions of the Register
	}{
		// The slot, the binding starting, its thread, active.
		{name: "fresh", instance: "a", origin: OriginFresh, txs: 4},
		// Its last action becomes register-reuse.
		{name: "first reload", instance: "b", origin: OriginReuse, txs: 1},
		{name: "reload again", instance: "c", origin: OriginReuse, txs: 0},
		{name: "back after unregistering", instance: "d", origin: OriginReuse, txs: 1, before: func() {
			e.h.Unregister(e.reg.Holder("p"))
			if b, _ := e.st.GetBinding("p"); b.Status != store.StatusOffline || b.InstanceID != "c" {
				t.Fatalf("after Unregister: %+v, want offline, last held by c", b)
			}
		}},
		{name: "reload after that", instance: "e", origin: OriginReuse, txs: 0},
	}
	var prev *registry.Follower
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		e.clock.Add(time.Second)
		txs0, _ := e.st.CommitStats()
		r := e.register(st.instance, "p", "")
		txs, _ := e.st.CommitStats()
		if r.Origin != st.origin || txs-txs0 != st.txs {
			t.Errorf("%s: origin %v, %d write transactions; want %v, %d", st.name, r.Origin, txs-txs0, st.origin, st.txs)
		}
		b, err := e.st.GetBinding("p")
		if err != nil || b.InstanceID != st.instance || b.Status != store.StatusActive || !b.Updated.Equal(e.clock.Now()) {
			t.Errorf("%s: binding %+v, %v; want active, held by %s, updated now", st.name, b, err, st.instance)
		}
		if prev != nil && prev.Ended() == registry.Live {
			t.Errorf("%s: the predecessor %s is still live", st.name, prev.InstanceID)
		}
		prev = r.Follower
	}
	e.close()
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if b, err := st.GetBinding("p"); err != nil || b.InstanceID != "e" || b.Status != store.StatusActive {
		t.Errorf("after closing and opening the store: %+v, %v; want active, held by e", b, err)
	}
}
