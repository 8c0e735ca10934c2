package etcdstore

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/server/store"
)

func deadKey(provider, id string) string { return hexKey(provider) + "/" + hexKey(id) }

// PutDeadLetters implements store.Store. A dead letter larger than one
// etcd request may carry is kept without its payload, and if need be
// without its converted update (its Error says so): one that cannot be
// written would hold every update after it at the platform. Many are
// written in as many transactions as they need (each stands on its own).
func (s *Store) PutDeadLetters(ctx context.Context, dls []store.DeadLetter) error {
	for _, d := range dls {
		if err := store.CheckDeadLetter(d); err != nil {
			return err
		}
	}
	if len(dls) == 0 {
		return nil
	}
	return s.write(ctx, func() ([]clientv3.Op, func(), error) {
		var ops []clientv3.Op
		var recs []store.DeadLetter
		bytes := 0
		flush := func() error {
			if err := s.commit(ctx, ops); err != nil {
				return err
			}
			for _, d := range recs {
				s.dead[deadKey(d.Provider, d.ID)] = d
			}
			ops, recs, bytes = nil, nil, 0
			return nil
		}
		for _, d := range dls {
			if prev, ok := s.dead[deadKey(d.Provider, d.ID)]; ok {
				d.Retries = max(d.Retries, prev.Retries)
			}
			k := s.k(pDead, deadKey(d.Provider, d.ID))
			v, err := store.EncodeDeadLetter(d)
			if err != nil {
				return nil, nil, err
			}
			// Too large for one request: the payload goes first (the
			// converted update, if kept, is what a retry journals),
			// then the converted update.
			for _, drop := range []func() (string, int){
				func() (string, int) { n := len(d.Payload); d.Payload = nil; return "payload", n },
				func() (string, int) { n := len(d.Converted); d.Converted = nil; return "converted update", n },
			} {
				if len(k)+len(v)+16 <= s.txnBudget() {
					break
				}
				what, n := drop()
				if n == 0 {
					continue
				}
				d.Error += fmt.Sprintf(" (its %s of %d bytes is not kept: larger than the store can write in one request)", what, n)
				if v, err = store.EncodeDeadLetter(d); err != nil {
					return nil, nil, err
				}
			}
			op := clientv3.OpPut(k, string(v))
			if n := opsBytes([]clientv3.Op{op}); len(ops) > 0 && (len(ops)+1 > s.opts.MaxTxnOps || bytes+n > s.txnBudget()) {
				if err := flush(); err != nil {
					return nil, nil, err
				}
			}
			ops = append(ops, op)
			recs = append(recs, d)
			bytes += opsBytes([]clientv3.Op{op})
		}
		if err := flush(); err != nil {
			return nil, nil, err
		}
		return nil, nil, nil
	})
}

// DeadLetters implements store.Store.
func (s *Store) DeadLetters(provider string) ([]store.DeadLetter, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return nil, err
	}
	var out []store.DeadLetter
	for _, d := range s.dead {
		if provider == "" || d.Provider == provider {
			out = append(out, d)
		}
	}
	store.SortDeadLetters(out)
	return out, nil
}

// GetDeadLetter implements store.Store.
func (s *Store) GetDeadLetter(provider, id string) (store.DeadLetter, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return store.DeadLetter{}, err
	}
	d, ok := s.dead[deadKey(provider, id)]
	if !ok {
		return store.DeadLetter{}, fmt.Errorf("dead letter %s/%s: %w", provider, id, store.ErrNotFound)
	}
	return d, nil
}

// DeleteDeadLetter implements store.Store.
func (s *Store) DeleteDeadLetter(provider, id string) error {
	return s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		k := deadKey(provider, id)
		if _, ok := s.dead[k]; !ok {
			return nil, nil, fmt.Errorf("dead letter %s/%s: %w", provider, id, store.ErrNotFound)
		}
		return []clientv3.Op{clientv3.OpDelete(s.k(pDead, k))}, func() { delete(s.dead, k) }, nil
	})
}
