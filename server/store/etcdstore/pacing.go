package etcdstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/server/store"
)

// pacingSaves are the SavePacing writes waiting for etcd: the latest
// windows of each provider (an older save not written yet is replaced by
// a newer one, which says all it said) and who waits for each outcome.
// One goroutine writes them while there are any.
type pacingSaves struct {
	mu      sync.Mutex
	pending map[string][]byte // by provider
	waiters map[string][]chan error
	writing bool
}

// SavePacing replaces the provider's saved pacing windows (as the Bolt
// store does: a supervisor that takes over after a failover or a crash
// paces as if the calls made before had been its own). It queues the
// write, fenced as every write, and returns at once; the channel receives
// its outcome. A later save of the provider's replaces one not written
// yet: the windows saved are always the latest.
func (s *Store) SavePacing(provider string, ws []store.PaceWindow) <-chan error {
	out := make(chan error, 1)
	v, err := json.Marshal(ws)
	if err == nil && provider == "" {
		err = fmt.Errorf("save pacing: no provider: %w", store.ErrInvalid)
	}
	if err != nil {
		out <- err
		return out
	}
	q := &s.saves
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.pending == nil {
		q.pending, q.waiters = map[string][]byte{}, map[string][]chan error{}
	}
	q.pending[provider] = v
	q.waiters[provider] = append(q.waiters[provider], out)
	if !q.writing {
		q.writing = true
		go s.writePacing()
	}
	return out
}

// writePacing writes the queued saves until none is left.
func (s *Store) writePacing() {
	q := &s.saves
	for {
		q.mu.Lock()
		if len(q.pending) == 0 {
			q.writing = false
			q.mu.Unlock()
			return
		}
		var provider string
		for provider = range q.pending {
			break
		}
		v, waiters := q.pending[provider], q.waiters[provider]
		delete(q.pending, provider)
		delete(q.waiters, provider)
		q.mu.Unlock()
		err := s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
			return []clientv3.Op{clientv3.OpPut(s.k(pPacing, hexKey(provider)), string(v))}, func() { s.pacing[provider] = v }, nil
		})
		for _, w := range waiters {
			w <- err
		}
	}
}

// Pacing returns what SavePacing stored last for the provider (nil if
// nothing).
func (s *Store) Pacing(provider string) ([]store.PaceWindow, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return nil, err
	}
	v := s.pacing[provider]
	if v == nil {
		return nil, nil
	}
	var ws []store.PaceWindow
	if err := json.Unmarshal(v, &ws); err != nil {
		return nil, fmt.Errorf("etcdstore: %w: pacing of %s: %v", store.ErrCorrupt, provider, err)
	}
	return ws, nil
}

// The pacing a supervisor's providers keep across a restart
// (server/providers' pacingStore), as store.Bolt keeps it.
var _ interface {
	SavePacing(string, []store.PaceWindow) <-chan error
	Pacing(string) ([]store.PaceWindow, error)
} = (*Store)(nil)
