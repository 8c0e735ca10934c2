package store

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// handoffKey is the only form of a handoff token the store keeps: a leaked
// store file does not leak live tokens.
func handoffKey(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// handoff value: i64 deadline (unix ns), then the binding key.
func decodeHandoff(v []byte) (time.Time, string, error) {
	if len(v) < 8 {
		return time.Time{}, "", fmt.Errorf("%w: handoff record of %d bytes", ErrCorrupt, len(v))
	}
	return fromUnixNano(getI64(v)), string(v[8:]), nil
}

// PutHandoff implements Store.PutHandoff.
func (s *Bolt) PutHandoff(token, bindingKey string, expires time.Time) error {
	if token == "" {
		return fmt.Errorf("handoff token: empty: %w", ErrInvalid)
	}
	if err := checkKey("binding key", bindingKey); err != nil {
		return err
	}
	if expires.IsZero() {
		return fmt.Errorf("handoff of binding %q: no deadline: %w", bindingKey, ErrInvalid)
	}
	v := append(putI64(nil, expires.UnixNano()), bindingKey...)
	return s.write(context.Background(), func(tx *bbolt.Tx) error {
		return tx.Bucket(bHandoffs).Put(handoffKey(token), v)
	}, nil)
}

// TakeHandoff implements Store.TakeHandoff.
func (s *Bolt) TakeHandoff(token string, now time.Time) (string, error) {
	var key string
	err := s.write(context.Background(), func(tx *bbolt.Tx) error {
		key = ""
		h := tx.Bucket(bHandoffs)
		k := handoffKey(token)
		v := h.Get(k)
		if v == nil || token == "" {
			return fmt.Errorf("handoff: %w", ErrHandoffUnknown)
		}
		expires, bk, err := decodeHandoff(v)
		if err != nil {
			return err
		}
		key = bk
		if !now.Before(expires) {
			return fmt.Errorf("handoff of binding %q: deadline %s passed: %w", bk, expires.Format(time.RFC3339Nano), ErrHandoffExpired)
		}
		return h.Delete(k)
	}, nil)
	return key, err
}

// ExpireHandoffs implements Store.ExpireHandoffs.
func (s *Bolt) ExpireHandoffs(now time.Time) ([]string, error) {
	var keys []string
	err := s.write(context.Background(), func(tx *bbolt.Tx) error {
		keys = nil
		h := tx.Bucket(bHandoffs)
		var gone [][]byte
		err := h.ForEach(func(k, v []byte) error {
			expires, bk, err := decodeHandoff(v)
			if err != nil {
				return err
			}
			if !now.Before(expires) {
				gone = append(gone, append([]byte(nil), k...))
				keys = append(keys, bk)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range gone {
			if err := h.Delete(k); err != nil {
				return err
			}
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return keys, nil
}
