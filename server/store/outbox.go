package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// outboxRecord is an OutboxEntry as stored under outbox/entries/<key>.
// Order is its pending/ index number (put order); the index entry exists
// only while the entry is not done.
type outboxRecord struct {
	Key       string    `json:"key"`
	Provider  string    `json:"provider"`
	Chat      string    `json:"chat,omitempty"`
	Thread    string    `json:"thread,omitempty"`
	Method    string    `json:"method,omitempty"`
	Params    []byte    `json:"params,omitempty"`
	Created   time.Time `json:"created"`
	Order     uint64    `json:"order"`
	Done      bool      `json:"done,omitempty"`
	Completed time.Time `json:"completed,omitzero"`
	Result    []byte    `json:"result,omitempty"`
}

func (r outboxRecord) entry() OutboxEntry {
	return OutboxEntry{
		Key: r.Key, Provider: r.Provider, Chat: r.Chat, Thread: r.Thread, Method: r.Method, Params: r.Params, Created: r.Created,
		Done: r.Done, Completed: r.Completed, Result: r.Result,
	}
}

func pendingKey(provider string, order uint64) []byte {
	return putU64(append([]byte(provider), 0), order)
}

func getOutbox(tx *bbolt.Tx, key string) (*outboxRecord, error) {
	v := tx.Bucket(bOutbox).Bucket(bEntries).Get([]byte(key))
	if v == nil {
		return nil, nil
	}
	var r outboxRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, fmt.Errorf("outbox entry %q: %w: %v", key, ErrCorrupt, err)
	}
	return &r, nil
}

func putOutbox(tx *bbolt.Tx, r *outboxRecord) error {
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return tx.Bucket(bOutbox).Bucket(bEntries).Put([]byte(r.Key), v)
}

// PutOutbox implements Store.PutOutbox.
func (s *Bolt) PutOutbox(e OutboxEntry) (OutboxEntry, error) {
	if err := checkKey("outbox key", e.Key); err != nil {
		return OutboxEntry{}, err
	}
	if err := checkProvider(e.Provider); err != nil {
		return OutboxEntry{}, fmt.Errorf("outbox entry %q: %w", e.Key, err)
	}
	if e.Created.IsZero() {
		e.Created = s.opts.Now()
	}
	var stored OutboxEntry
	err := s.write(context.Background(), func(tx *bbolt.Tx) error {
		old, err := getOutbox(tx, e.Key)
		if err != nil {
			return err
		}
		if old != nil {
			stored = old.entry()
			return nil
		}
		pending := tx.Bucket(bOutbox).Bucket(bPending)
		order, err := pending.NextSequence()
		if err != nil {
			return err
		}
		r := outboxRecord{Key: e.Key, Provider: e.Provider, Chat: e.Chat, Thread: e.Thread, Method: e.Method, Params: e.Params, Created: e.Created, Order: order}
		if err := pending.Put(pendingKey(e.Provider, order), []byte(e.Key)); err != nil {
			return err
		}
		stored = r.entry()
		return putOutbox(tx, &r)
	}, nil)
	if err != nil {
		return OutboxEntry{}, err
	}
	return stored, nil
}

// GetOutbox implements Store.GetOutbox.
func (s *Bolt) GetOutbox(key string) (OutboxEntry, error) {
	var e OutboxEntry
	err := s.view(func(tx *bbolt.Tx) error {
		r, err := getOutbox(tx, key)
		if err != nil {
			return err
		}
		if r == nil {
			return fmt.Errorf("outbox entry %q: %w", key, ErrNotFound)
		}
		e = r.entry()
		return nil
	})
	return e, err
}

// ListOutbox implements Store.ListOutbox.
func (s *Bolt) ListOutbox(provider string) ([]OutboxEntry, error) {
	var out []OutboxEntry
	err := s.view(func(tx *bbolt.Tx) error {
		prefix := append([]byte(provider), 0)
		c := tx.Bucket(bOutbox).Bucket(bPending).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			r, err := getOutbox(tx, string(v))
			if err != nil {
				return err
			}
			if r == nil {
				return fmt.Errorf("outbox index names entry %q: %w: entry missing", v, ErrCorrupt)
			}
			out = append(out, r.entry())
		}
		return nil
	})
	return out, err
}

// CompleteOutbox implements Store.CompleteOutbox.
func (s *Bolt) CompleteOutbox(key string, result []byte) error {
	now := s.opts.Now()
	return s.write(context.Background(), func(tx *bbolt.Tx) error {
		r, err := getOutbox(tx, key)
		if err != nil {
			return err
		}
		if r == nil {
			return fmt.Errorf("outbox entry %q: %w", key, ErrNotFound)
		}
		if r.Done {
			return nil
		}
		if err := tx.Bucket(bOutbox).Bucket(bPending).Delete(pendingKey(r.Provider, r.Order)); err != nil {
			return err
		}
		r.Done, r.Completed, r.Result = true, now, result
		return putOutbox(tx, r)
	}, nil)
}

// PruneOutbox implements Store.PruneOutbox.
func (s *Bolt) PruneOutbox(olderThan time.Time) (int, error) {
	var n int
	err := s.write(context.Background(), func(tx *bbolt.Tx) error {
		n = 0
		entries := tx.Bucket(bOutbox).Bucket(bEntries)
		var gone [][]byte
		err := entries.ForEach(func(k, v []byte) error {
			var r outboxRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("outbox entry %q: %w: %v", k, ErrCorrupt, err)
			}
			if r.Done && r.Completed.Before(olderThan) {
				gone = append(gone, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range gone {
			if err := entries.Delete(k); err != nil {
				return err
			}
		}
		n = len(gone)
		return nil
	}, nil)
	return n, err
}
