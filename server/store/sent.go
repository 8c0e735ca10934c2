package store

import (
	"fmt"
	"strconv"

	"go.etcd.io/bbolt"
)

// The sent bucket holds, per thread (targetKey), what its follower sent:
// key = u64 sequence, value = the ref's kind byte + its id. (Schema 1
// wrote 'm' + i64 message id or 'f' + file id; those still read.) The
// oldest go first once a thread holds MaxSent.
const (
	sentMessageV1 = 'm'
	sentFileV1    = 'f'
)

// RememberSent implements Store.RememberSent.
func (s *Bolt) RememberSent(t Target, refs []Ref) <-chan error {
	if err := checkTarget(t); err != nil || t.IsZero() {
		if err == nil {
			err = fmt.Errorf("remember sent ids: no target: %w", ErrInvalid)
		}
		out := make(chan error, 1)
		out <- err
		return out
	}
	values := make([][]byte, 0, len(refs))
	for _, r := range refs {
		if r.ID != "" && r.Kind >= RefMessage && r.Kind <= RefInteraction {
			values = append(values, append([]byte{byte(r.Kind)}, r.ID...))
		}
	}
	maxSent := uint64(s.opts.MaxSent)
	return s.writeAsync(func(tx *bbolt.Tx) error {
		top, err := tx.CreateBucketIfNotExists(bSent)
		if err != nil {
			return err
		}
		b, err := top.CreateBucketIfNotExists(targetKey(t))
		if err != nil {
			return err
		}
		var last uint64
		for _, v := range values {
			if last, err = b.NextSequence(); err != nil {
				return err
			}
			if err := b.Put(putU64(nil, last), v); err != nil {
				return err
			}
		}
		// Sequences are consecutive and the oldest go first: the count is
		// last - first + 1.
		c := b.Cursor()
		for k, _ := c.First(); k != nil && last-getU64(k)+1 > maxSent; k, _ = c.First() {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
}

// Sent implements Store.Sent.
func (s *Bolt) Sent(t Target) (refs []Ref, err error) {
	err = s.view(func(tx *bbolt.Tx) error {
		top := tx.Bucket(bSent)
		if top == nil {
			return nil
		}
		b := top.Bucket(targetKey(t))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			switch {
			case len(v) > 1 && v[0] >= byte(RefMessage) && v[0] <= byte(RefInteraction):
				refs = append(refs, Ref{Kind: RefKind(v[0]), ID: string(v[1:])})
			case len(v) == 9 && v[0] == sentMessageV1:
				refs = append(refs, Ref{Kind: RefMessage, ID: strconv.FormatInt(getI64(v[1:]), 10)})
			case len(v) > 1 && v[0] == sentFileV1:
				refs = append(refs, Ref{Kind: RefFile, ID: string(v[1:])})
			default:
				return fmt.Errorf("store %s: %w: sent entry %x of %s/%s/%s", s.path, ErrCorrupt, k, t.Provider, t.Chat, t.Thread)
			}
			return nil
		})
	})
	return refs, err
}

// forgetSent drops what was remembered for thread t (its binding moved to
// another thread, or was deleted).
func forgetSent(tx *bbolt.Tx, t Target) error {
	top := tx.Bucket(bSent)
	if top == nil || top.Bucket(targetKey(t)) == nil {
		return nil
	}
	return top.DeleteBucket(targetKey(t))
}
