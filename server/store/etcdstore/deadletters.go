package etcdstore

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/server/store"
)

func deadKey(provider, id string) string { return hexKey(provider) + "/" + hexKey(id) }

// PutDeadLetters implements store.Store.
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
		ops := make([]clientv3.Op, 0, len(dls))
		recs := make([]store.DeadLetter, 0, len(dls))
		for _, d := range dls {
			if prev, ok := s.dead[deadKey(d.Provider, d.ID)]; ok {
				d.Retries = max(d.Retries, prev.Retries)
			}
			v, err := store.EncodeDeadLetter(d)
			if err != nil {
				return nil, nil, err
			}
			ops = append(ops, clientv3.OpPut(s.k(pDead, deadKey(d.Provider, d.ID)), string(v)))
			recs = append(recs, d)
		}
		return ops, func() {
			for _, d := range recs {
				s.dead[deadKey(d.Provider, d.ID)] = d
			}
		}, nil
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
