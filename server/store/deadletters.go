package store

import (
	"context"
	"fmt"

	"go.etcd.io/bbolt"
)

// bDeadLetters holds the dead letters: key = provider, NUL, id; value =
// EncodeDeadLetter. It is created by the first PutDeadLetters: files made
// before it existed stay valid, and older programs ignore it.
var bDeadLetters = []byte("deadletters")

func deadLetterKey(provider, id string) []byte {
	return append(append([]byte(provider), 0), id...)
}

// PutDeadLetters implements Store.PutDeadLetters.
func (s *Bolt) PutDeadLetters(ctx context.Context, dls []DeadLetter) error {
	for _, d := range dls {
		if err := CheckDeadLetter(d); err != nil {
			return err
		}
	}
	if len(dls) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bDeadLetters)
		if err != nil {
			return err
		}
		for _, d := range dls {
			k := deadLetterKey(d.Provider, d.ID)
			if old := b.Get(k); old != nil {
				if prev, err := DecodeDeadLetter(old); err == nil {
					d.Retries = max(d.Retries, prev.Retries)
				}
			}
			v, err := EncodeDeadLetter(d)
			if err != nil {
				return err
			}
			if err := b.Put(k, v); err != nil {
				return err
			}
		}
		return nil
	}, nil)
}

// DeadLetters implements Store.DeadLetters.
func (s *Bolt) DeadLetters(provider string) (dls []DeadLetter, err error) {
	err = s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bDeadLetters)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			d, err := DecodeDeadLetter(v)
			if err != nil {
				return fmt.Errorf("store %s: %w", s.path, err)
			}
			if provider == "" || d.Provider == provider {
				dls = append(dls, d)
			}
			return nil
		})
	})
	SortDeadLetters(dls)
	return dls, err
}

// GetDeadLetter implements Store.GetDeadLetter.
func (s *Bolt) GetDeadLetter(provider, id string) (d DeadLetter, err error) {
	err = s.view(func(tx *bbolt.Tx) error {
		var v []byte
		if b := tx.Bucket(bDeadLetters); b != nil {
			v = b.Get(deadLetterKey(provider, id))
		}
		if v == nil {
			return fmt.Errorf("dead letter %s/%s: %w", provider, id, ErrNotFound)
		}
		d, err = DecodeDeadLetter(v)
		return err
	})
	return d, err
}

// DeleteDeadLetter implements Store.DeleteDeadLetter.
func (s *Bolt) DeleteDeadLetter(provider, id string) error {
	return s.write(context.Background(), func(tx *bbolt.Tx) error {
		b := tx.Bucket(bDeadLetters)
		k := deadLetterKey(provider, id)
		if b == nil || b.Get(k) == nil {
			return fmt.Errorf("dead letter %s/%s: %w", provider, id, ErrNotFound)
		}
		return b.Delete(k)
	}, nil)
}
