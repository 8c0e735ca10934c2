package etcdstore

import (
	"context"
	"fmt"
	"sort"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/server/store"
)

// PutHandoff implements store.Store. Only the token's SHA-256 is stored.
func (s *Store) PutHandoff(token, bindingKey string, expires time.Time) error {
	if token == "" {
		return fmt.Errorf("handoff token: empty: %w", store.ErrInvalid)
	}
	if err := store.CheckKey("binding key", bindingKey); err != nil {
		return err
	}
	if expires.IsZero() {
		return fmt.Errorf("handoff of binding %q: no deadline: %w", bindingKey, store.ErrInvalid)
	}
	h, rec := tokenHash(token), handoff{Key: bindingKey, Expires: expires}
	return s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		op, err := jsonOp(s.k(pHandoff, h), rec)
		if err != nil {
			return nil, nil, err
		}
		return []clientv3.Op{op}, func() { s.handoffs[h] = rec }, nil
	})
}

// TakeHandoff implements store.Store.
func (s *Store) TakeHandoff(token string, now time.Time) (string, error) {
	var key string
	err := s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		h := tokenHash(token)
		rec, ok := s.handoffs[h]
		if !ok || token == "" {
			return nil, nil, fmt.Errorf("handoff: %w", store.ErrHandoffUnknown)
		}
		key = rec.Key
		if !now.Before(rec.Expires) {
			return nil, nil, fmt.Errorf("handoff of binding %q: deadline %s passed: %w", rec.Key, rec.Expires.Format(time.RFC3339Nano), store.ErrHandoffExpired)
		}
		return []clientv3.Op{clientv3.OpDelete(s.k(pHandoff, h))}, func() { delete(s.handoffs, h) }, nil
	})
	return key, err
}

// ExpireHandoffs implements store.Store.
func (s *Store) ExpireHandoffs(now time.Time) ([]string, error) {
	var keys []string
	err := s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		keys = nil
		var ops []clientv3.Op
		var gone []string
		for h, rec := range s.handoffs {
			if !now.Before(rec.Expires) {
				ops = append(ops, clientv3.OpDelete(s.k(pHandoff, h)))
				gone = append(gone, h)
				keys = append(keys, rec.Key)
			}
		}
		if err := s.commitSplit(context.Background(), ops); err != nil {
			return nil, nil, err
		}
		return nil, func() {
			for _, h := range gone {
				delete(s.handoffs, h)
			}
		}, nil
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}

func (s *Store) callKey(bindingKey, key string) string {
	return s.k(pCall, hexKey(bindingKey), "/", hexKey(key))
}

// BeginCall implements store.Store.
func (s *Store) BeginCall(c store.CallRecord) (store.CallRecord, bool, error) {
	if err := store.CheckCall(c); err != nil {
		return store.CallRecord{}, false, err
	}
	if c.State != store.CallQueued && c.State != store.CallSending {
		return store.CallRecord{}, false, fmt.Errorf("call %q begins %s, not queued or sending: %w", c.Key, c.State, store.ErrInvalid)
	}
	now := s.opts.Now()
	var (
		stored  store.CallRecord
		created bool
	)
	err := s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		id := callID(c.BindingKey, c.Key)
		if old, ok := s.calls[id]; ok {
			stored, created = *old, false
			return nil, nil, nil
		}
		r := store.CallRecord{
			BindingKey: c.BindingKey, Key: c.Key, Provider: c.Provider, Chat: c.Chat, Thread: c.Thread,
			Method: c.Method, Params: c.Params, State: c.State, Order: s.order + 1, Created: now, Updated: now,
		}
		op, err := jsonOp(s.callKey(r.BindingKey, r.Key), r)
		if err != nil {
			return nil, nil, err
		}
		stored, created = r, true
		return []clientv3.Op{op}, func() { s.calls[id] = &r; s.order = r.Order }, nil
	})
	if err != nil {
		return store.CallRecord{}, false, err
	}
	return stored, created, nil
}

// SetCall implements store.Store.
func (s *Store) SetCall(c store.CallRecord) error {
	if err := store.CheckCall(c); err != nil {
		return err
	}
	now := s.opts.Now()
	return s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		old, ok := s.calls[callID(c.BindingKey, c.Key)]
		if !ok {
			return nil, nil, fmt.Errorf("call %q of binding %q: %w", c.Key, c.BindingKey, store.ErrNotFound)
		}
		if old.State.Final() {
			return nil, nil, fmt.Errorf("call %q of binding %q is %s already: %w", c.Key, c.BindingKey, old.State, store.ErrInvalid)
		}
		r := *old
		r.State, r.Result, r.Refs, r.Failure, r.Updated = c.State, c.Result, c.Refs, c.Failure, now
		op, err := jsonOp(s.callKey(r.BindingKey, r.Key), r)
		if err != nil {
			return nil, nil, err
		}
		return []clientv3.Op{op}, func() { s.calls[callID(c.BindingKey, c.Key)] = &r }, nil
	})
}

// DeleteCall implements store.Store.
func (s *Store) DeleteCall(bindingKey, key string) error {
	return s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		id := callID(bindingKey, key)
		r, ok := s.calls[id]
		if !ok {
			return nil, nil, nil
		}
		if r.State.Final() {
			return nil, nil, fmt.Errorf("call %q of binding %q is %s: %w", key, bindingKey, r.State, store.ErrInvalid)
		}
		return []clientv3.Op{clientv3.OpDelete(s.callKey(bindingKey, key))}, func() { delete(s.calls, id) }, nil
	})
}

// GetCall implements store.Store.
func (s *Store) GetCall(bindingKey, key string) (store.CallRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return store.CallRecord{}, err
	}
	r, ok := s.calls[callID(bindingKey, key)]
	if !ok {
		return store.CallRecord{}, fmt.Errorf("call %q of binding %q: %w", key, bindingKey, store.ErrNotFound)
	}
	return *r, nil
}

// OpenCalls implements store.Store.
func (s *Store) OpenCalls(provider string) ([]store.CallRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return nil, err
	}
	var out []store.CallRecord
	for _, r := range s.calls {
		if r.Provider == provider && !r.State.Final() {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Order < out[j].Order })
	return out, nil
}

// PruneCalls implements store.Store. The removals are split into as many
// transactions as they need.
func (s *Store) PruneCalls(now time.Time, keep time.Duration, maxPerBinding int) (int, error) {
	var n int
	err := s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		n = 0
		byBinding := map[string][]*store.CallRecord{}
		var gone []*store.CallRecord
		for _, r := range s.calls {
			if !r.State.Final() {
				continue
			}
			if keep > 0 && now.Sub(r.Updated) > keep {
				gone = append(gone, r)
				continue
			}
			byBinding[r.BindingKey] = append(byBinding[r.BindingKey], r)
		}
		if maxPerBinding > 0 {
			for _, rs := range byBinding {
				if len(rs) <= maxPerBinding {
					continue
				}
				sort.Slice(rs, func(i, j int) bool { return rs[i].Updated.Before(rs[j].Updated) })
				gone = append(gone, rs[:len(rs)-maxPerBinding]...)
			}
		}
		ops := make([]clientv3.Op, 0, len(gone))
		for _, r := range gone {
			ops = append(ops, clientv3.OpDelete(s.callKey(r.BindingKey, r.Key)))
		}
		if err := s.commitSplit(context.Background(), ops); err != nil {
			return nil, nil, err
		}
		n = len(gone)
		return nil, func() {
			for _, r := range gone {
				delete(s.calls, callID(r.BindingKey, r.Key))
			}
		}, nil
	})
	return n, err
}
