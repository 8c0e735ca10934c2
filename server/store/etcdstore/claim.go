package etcdstore

// Claims (store.Store.PutBinding): the unrouted updates of a thread go to
// the binding that gets the thread. A thread exists on its platform (and
// people write in it) a moment before the binding that owns it is stored;
// what is written then is unrouted. The binding write claims those
// updates in its own transaction: they join the binding's queue as a new
// chunk, after its pending updates, and leave the unrouted queue (its
// state lists their seqs as Moved; their old chunk stays until the queue's
// floor passes it). One transaction: nothing to finish after a crash, and
// nothing is appended in between (writes hold mu). From then on Append
// routes the thread's updates to the binding (route), also those the
// caller routed before the binding was written.

import (
	"fmt"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/server/store"
)

// route is the binding u goes to: the owner of u's thread, if it has one;
// else the binding u.BindingKey names, if it exists; else "" (unrouted).
// Caller holds mu.
func (s *Store) route(u *store.Update) string {
	if u.Thread != "" {
		if key, ok := s.targets[store.Target{Provider: u.Provider, Chat: u.Chat, Thread: u.Thread}]; ok {
			return key
		}
	}
	if _, ok := s.bindings[u.BindingKey]; ok {
		return u.BindingKey
	}
	return ""
}

// claimOps returns the operations that move the unrouted updates of
// thread t into the queue of binding key, whose queue is base as it will
// be without them (nil: none yet), and the apply that makes memory follow
// once they committed; no operations if there is nothing to claim.
// Caller holds mu.
func (s *Store) claimOps(key string, t store.Target, base *queue, now time.Time) ([]clientv3.Op, func()) {
	un := s.queues[""]
	if un == nil {
		return nil, nil
	}
	of := func(e entry) bool {
		return e.u.Thread != "" && (store.Target{Provider: e.u.Provider, Chat: e.u.Chat, Thread: e.u.Thread}) == t
	}
	if !slices.ContainsFunc(un.pending, of) {
		return nil, nil
	}
	var claimed []entry
	nu := *un
	nu.pending = nil
	nu.chunks = slices.Clone(un.chunks)
	nu.Moved = slices.Clone(un.Moved)
	for _, e := range un.pending {
		if of(e) {
			claimed = append(claimed, e)
			nu.bytes -= e.size
			nu.Moved = append(nu.Moved, e.u.Seq)
			continue
		}
		nu.pending = append(nu.pending, e)
	}
	slices.Sort(nu.Moved) // an earlier claim may have taken later seqs
	// Every seq below the first pending one is gone now (acked, dropped or
	// moved): the floor rises to it, and the chunks and Moved below it go.
	if len(nu.pending) == 0 {
		nu.Floor = nu.Last
	} else {
		nu.Floor = max(nu.Floor, nu.pending[0].u.Seq-1)
	}

	nq := queue{}
	if base != nil {
		nq = *base
		nq.pending = slices.Clone(base.pending)
		nq.chunks = slices.Clone(base.chunks)
	}
	first := nq.Last + 1
	data := make([][]byte, len(claimed))
	for i, e := range claimed {
		e.u.Seq, e.u.BindingKey = first+uint64(i), key
		data[i] = store.EncodeUpdate(&e.u)
		e.size = int64(len(data[i]))
		nq.pending = append(nq.pending, e)
		nq.bytes += e.size
	}
	nq.Last = first + uint64(len(claimed)) - 1
	ck := s.k(pJournal, hexKey(key), "/", fmt.Sprintf("%020d", first))
	nq.chunks = append(nq.chunks, chunk{key: ck, first: first, last: nq.Last})
	drops := s.retain(key, &nq, now)
	ops := append([]clientv3.Op{clientv3.OpPut(ck, string(encodeChunk(data)))}, s.queueOps(key, &nq)...)
	ops = append(ops, s.queueOps("", &nu)...)
	return ops, func() {
		s.queues[""], s.queues[key] = &nu, &nq
		s.dropped = append(s.dropped, drops...)
		s.wake(key, false)
	}
}
