package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// The calls bucket holds the at-most-once records of followers' platform
// calls (created on first use, so files made before it stay valid):
//
//	calls/
//	  entries/ <binding key> 0x00 <idempotency key> → JSON callRecord
//	  open/    <provider> 0x00 <order u64>          → entry key, while queued or sending
//
// The open index is the queue of calls not yet settled, in the order they
// were made: queued ones are sent from it once their provider admits, and
// sending ones left over by a crash are found there and marked unknown.
var (
	bCalls     = []byte("calls")
	bCallsOpen = []byte("open")
)

// callRecord is a CallRecord as stored.
type callRecord struct {
	BindingKey string    `json:"binding"`
	Key        string    `json:"key"`
	Provider   string    `json:"provider"`
	Chat       string    `json:"chat,omitempty"`
	Thread     string    `json:"thread,omitempty"`
	Method     string    `json:"method"`
	Params     []byte    `json:"params,omitempty"`
	State      CallState `json:"state"`
	Result     []byte    `json:"result,omitempty"`
	Refs       []Ref     `json:"refs,omitempty"`
	Failure    []byte    `json:"failure,omitempty"`
	Order      uint64    `json:"order"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
}

func (r callRecord) call() CallRecord {
	return CallRecord(r)
}

func callEntryKey(bindingKey, key string) []byte {
	return append(append([]byte(bindingKey), 0), key...)
}

func openKey(provider string, order uint64) []byte {
	return putU64(append([]byte(provider), 0), order)
}

// callBuckets returns calls/entries and calls/open, creating them in a
// write transaction; in a read transaction of a file that has none they
// are nil.
func callBuckets(tx *bbolt.Tx) (entries, open *bbolt.Bucket, err error) {
	top := tx.Bucket(bCalls)
	if top == nil {
		if !tx.Writable() {
			return nil, nil, nil
		}
		if top, err = tx.CreateBucket(bCalls); err != nil {
			return nil, nil, err
		}
	}
	for _, b := range []struct {
		name []byte
		out  **bbolt.Bucket
	}{{bEntries, &entries}, {bCallsOpen, &open}} {
		if *b.out = top.Bucket(b.name); *b.out == nil && tx.Writable() {
			if *b.out, err = top.CreateBucket(b.name); err != nil {
				return nil, nil, err
			}
		}
	}
	return entries, open, nil
}

func getCall(entries *bbolt.Bucket, k []byte) (*callRecord, error) {
	if entries == nil {
		return nil, nil
	}
	v := entries.Get(k)
	if v == nil {
		return nil, nil
	}
	var r callRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, fmt.Errorf("call record %q: %w: %v", k, ErrCorrupt, err)
	}
	return &r, nil
}

func putCall(entries *bbolt.Bucket, r *callRecord) error {
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return entries.Put(callEntryKey(r.BindingKey, r.Key), v)
}

func checkCall(c CallRecord) error {
	if err := checkKey("call binding key", c.BindingKey); err != nil {
		return err
	}
	if err := checkKey("idempotency key", c.Key); err != nil {
		return err
	}
	if err := checkProvider(c.Provider); err != nil {
		return fmt.Errorf("call %q: %w", c.Key, err)
	}
	if !c.State.Valid() {
		return fmt.Errorf("call %q: state %q: %w", c.Key, c.State, ErrInvalid)
	}
	return nil
}

// BeginCall implements Store.BeginCall.
func (s *Bolt) BeginCall(c CallRecord) (CallRecord, bool, error) {
	if err := checkCall(c); err != nil {
		return CallRecord{}, false, err
	}
	if c.State != CallQueued && c.State != CallSending {
		return CallRecord{}, false, fmt.Errorf("call %q begins %s, not queued or sending: %w", c.Key, c.State, ErrInvalid)
	}
	now := s.opts.Now()
	var (
		stored  CallRecord
		created bool
	)
	err := s.write(context.Background(), func(tx *bbolt.Tx) error {
		entries, open, err := callBuckets(tx)
		if err != nil {
			return err
		}
		old, err := getCall(entries, callEntryKey(c.BindingKey, c.Key))
		if err != nil {
			return err
		}
		if old != nil {
			stored, created = old.call(), false
			return nil
		}
		order, err := open.NextSequence()
		if err != nil {
			return err
		}
		r := callRecord{
			BindingKey: c.BindingKey, Key: c.Key, Provider: c.Provider, Chat: c.Chat, Thread: c.Thread,
			Method: c.Method, Params: c.Params, State: c.State, Order: order, Created: now, Updated: now,
		}
		if err := open.Put(openKey(r.Provider, order), callEntryKey(r.BindingKey, r.Key)); err != nil {
			return err
		}
		stored, created = r.call(), true
		return putCall(entries, &r)
	}, nil)
	if err != nil {
		return CallRecord{}, false, err
	}
	return stored, created, nil
}

// SetCall implements Store.SetCall.
func (s *Bolt) SetCall(c CallRecord) error {
	if err := checkCall(c); err != nil {
		return err
	}
	now := s.opts.Now()
	return s.write(context.Background(), func(tx *bbolt.Tx) error {
		entries, open, err := callBuckets(tx)
		if err != nil {
			return err
		}
		r, err := getCall(entries, callEntryKey(c.BindingKey, c.Key))
		if err != nil {
			return err
		}
		if r == nil {
			return fmt.Errorf("call %q of binding %q: %w", c.Key, c.BindingKey, ErrNotFound)
		}
		if r.State.Final() {
			return fmt.Errorf("call %q of binding %q is %s already: %w", c.Key, c.BindingKey, r.State, ErrInvalid)
		}
		r.State, r.Result, r.Refs, r.Failure, r.Updated = c.State, c.Result, c.Refs, c.Failure, now
		if r.State.Final() {
			if err := open.Delete(openKey(r.Provider, r.Order)); err != nil {
				return err
			}
		}
		return putCall(entries, r)
	}, nil)
}

// DeleteCall implements Store.DeleteCall.
func (s *Bolt) DeleteCall(bindingKey, key string) error {
	return s.write(context.Background(), func(tx *bbolt.Tx) error {
		entries, open, err := callBuckets(tx)
		if err != nil {
			return err
		}
		k := callEntryKey(bindingKey, key)
		r, err := getCall(entries, k)
		if err != nil || r == nil {
			return err
		}
		if r.State.Final() {
			return fmt.Errorf("call %q of binding %q is %s: %w", key, bindingKey, r.State, ErrInvalid)
		}
		if err := open.Delete(openKey(r.Provider, r.Order)); err != nil {
			return err
		}
		return entries.Delete(k)
	}, nil)
}

// GetCall implements Store.GetCall.
func (s *Bolt) GetCall(bindingKey, key string) (CallRecord, error) {
	var out CallRecord
	err := s.view(func(tx *bbolt.Tx) error {
		entries, _, err := callBuckets(tx)
		if err != nil {
			return err
		}
		r, err := getCall(entries, callEntryKey(bindingKey, key))
		if err != nil {
			return err
		}
		if r == nil {
			return fmt.Errorf("call %q of binding %q: %w", key, bindingKey, ErrNotFound)
		}
		out = r.call()
		return nil
	})
	return out, err
}

// OpenCalls implements Store.OpenCalls.
func (s *Bolt) OpenCalls(provider string) ([]CallRecord, error) {
	var out []CallRecord
	err := s.view(func(tx *bbolt.Tx) error {
		entries, open, err := callBuckets(tx)
		if err != nil || open == nil {
			return err
		}
		prefix := append([]byte(provider), 0)
		c := open.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			r, err := getCall(entries, v)
			if err != nil {
				return err
			}
			if r == nil {
				return fmt.Errorf("open calls index names %q: %w: record missing", v, ErrCorrupt)
			}
			out = append(out, r.call())
		}
		return nil
	})
	return out, err
}

// PruneCalls implements Store.PruneCalls.
func (s *Bolt) PruneCalls(now time.Time, keep time.Duration, maxPerBinding int) (int, error) {
	var n int
	err := s.write(context.Background(), func(tx *bbolt.Tx) error {
		n = 0
		if tx.Bucket(bCalls) == nil {
			return nil
		}
		entries, _, err := callBuckets(tx)
		if err != nil {
			return err
		}
		type final struct {
			k       []byte
			updated time.Time
		}
		byBinding := map[string][]final{}
		var gone [][]byte
		err = entries.ForEach(func(k, v []byte) error {
			var r callRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("call record %q: %w: %v", k, ErrCorrupt, err)
			}
			if !r.State.Final() {
				return nil // still to be sent or settled: never pruned
			}
			k = bytes.Clone(k)
			if keep > 0 && now.Sub(r.Updated) > keep {
				gone = append(gone, k)
				return nil
			}
			byBinding[r.BindingKey] = append(byBinding[r.BindingKey], final{k, r.Updated})
			return nil
		})
		if err != nil {
			return err
		}
		if maxPerBinding > 0 {
			for _, fs := range byBinding {
				if len(fs) <= maxPerBinding {
					continue
				}
				sort.Slice(fs, func(i, j int) bool { return fs[i].updated.Before(fs[j].updated) })
				for _, f := range fs[:len(fs)-maxPerBinding] {
					gone = append(gone, f.k)
				}
			}
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

// migrateOutbox moves the entries an older version left pending in its
// outbox (calls held for a restarting provider) into the call records, as
// queued calls of a binding named for the provider, and removes the
// outbox. It runs once, at open, when there is an outbox.
func migrateOutbox(tx *bbolt.Tx) error {
	ob := tx.Bucket(bOutbox)
	if ob == nil {
		return nil
	}
	if pending := ob.Bucket(bPending); pending != nil {
		entries, open, err := callBuckets(tx)
		if err != nil {
			return err
		}
		err = pending.ForEach(func(_, key []byte) error {
			v := ob.Bucket(bEntries).Get(key)
			if v == nil {
				return nil
			}
			var e struct {
				Key, Provider, Chat, Thread, Method string
				Params                              []byte
				Created                             time.Time
			}
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("outbox entry %q: %w: %v", key, ErrCorrupt, err)
			}
			order, err := open.NextSequence()
			if err != nil {
				return err
			}
			r := callRecord{BindingKey: "outbox:" + e.Provider, Key: e.Key, Provider: e.Provider, Chat: e.Chat, Thread: e.Thread,
				Method: e.Method, Params: e.Params, State: CallQueued, Order: order, Created: e.Created, Updated: e.Created}
			if err := open.Put(openKey(r.Provider, order), callEntryKey(r.BindingKey, r.Key)); err != nil {
				return err
			}
			return putCall(entries, &r)
		})
		if err != nil {
			return err
		}
	}
	return tx.DeleteBucket(bOutbox)
}
