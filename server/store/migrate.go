package store

import (
	"bytes"
	"fmt"
	"strconv"

	bbolt "go.etcd.io/bbolt"
)

// migrateV1 rewrites a schema 1 file, where chat and thread ids were
// numbers, into schema 2's text ids, in one transaction: the
// target index is rebuilt from the bindings (whose records read either
// way), slot cursors become one per provider (its own chat, ""), platform
// cursors become decimal text, the de-duplication window is keyed by the
// update id in decimal (what providers now report as the dedup id), and
// the sent sets move to their threads' new keys. Journal entries and sent
// entries of schema 1 are decoded as they are, so they stay.
func migrateV1(tx *bbolt.Tx) error {
	targets := tx.Bucket(bTargets)
	if err := clearBucket(targets); err != nil {
		return err
	}
	err := tx.Bucket(bBindings).ForEach(func(k, v []byte) error {
		b, err := decodeBinding(v)
		if err != nil {
			return fmt.Errorf("binding %q: %w", k, err)
		}
		if b.Target.IsZero() {
			return nil
		}
		// Rewritten too: schema 2 records carry the ids as text.
		nv, err := encodeBinding(b)
		if err != nil {
			return err
		}
		if err := tx.Bucket(bBindings).Put(k, nv); err != nil {
			return err
		}
		return targets.Put(targetKey(b.Target), k)
	})
	if err != nil {
		return err
	}

	if err := rekey(tx.Bucket(bSlots), func(k, v []byte) ([]byte, []byte, error) {
		provider, _, ok := bytes.Cut(k, []byte{0})
		if !ok {
			return nil, nil, fmt.Errorf("%w: slot cursor key %x", ErrCorrupt, k)
		}
		return chatKey(string(provider), ""), v, nil
	}); err != nil {
		return err
	}
	if err := rekey(tx.Bucket(bCursors), func(k, v []byte) ([]byte, []byte, error) {
		if len(v) != 8 {
			return nil, nil, fmt.Errorf("%w: cursor of %q: %d bytes", ErrCorrupt, k, len(v))
		}
		return k, strconv.AppendInt(nil, getI64(v), 10), nil
	}); err != nil {
		return err
	}

	err = tx.Bucket(bSeen).ForEachBucket(func(provider []byte) error {
		b := tx.Bucket(bSeen).Bucket(provider)
		ids, order := b.Bucket(bSeenIDs), b.Bucket(bSeenOrd)
		if ids == nil || order == nil {
			return nil
		}
		if err := clearBucket(ids); err != nil {
			return err
		}
		return rekey(order, func(k, v []byte) ([]byte, []byte, error) {
			if len(v) != 16 {
				return nil, nil, fmt.Errorf("%w: seen entry of %q: %d bytes", ErrCorrupt, provider, len(v))
			}
			id := strconv.AppendInt(nil, getI64(v[:8]), 10)
			if err := ids.Put(id, k); err != nil {
				return nil, nil, err
			}
			return k, append(bytes.Clone(v[8:16]), id...), nil
		})
	})
	if err != nil {
		return err
	}

	if top := tx.Bucket(bSent); top != nil {
		var names [][]byte
		if err := top.ForEachBucket(func(k []byte) error { names = append(names, bytes.Clone(k)); return nil }); err != nil {
			return err
		}
		for _, old := range names {
			provider, rest, ok := bytes.Cut(old, []byte{0})
			if !ok || len(rest) != 16 {
				return fmt.Errorf("%w: sent bucket %x", ErrCorrupt, old)
			}
			t := Target{Provider: string(provider), Chat: idText(getI64(rest[:8])), Thread: idText(getI64(rest[8:]))}
			from := top.Bucket(old)
			to, err := top.CreateBucketIfNotExists(targetKey(t))
			if err != nil {
				return err
			}
			if err := from.ForEach(func(k, v []byte) error { return to.Put(k, v) }); err != nil {
				return err
			}
			if err := to.SetSequence(from.Sequence()); err != nil {
				return err
			}
			if err := top.DeleteBucket(old); err != nil {
				return err
			}
		}
	}
	return tx.Bucket(bMeta).Put(kSchema, putU64(nil, 2))
}

// clearBucket deletes every key of b (not its sub-buckets).
func clearBucket(b *bbolt.Bucket) error {
	var keys [][]byte
	err := b.ForEach(func(k, v []byte) error {
		if v != nil {
			keys = append(keys, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// rekey replaces every key/value of b (not its sub-buckets) by what fn
// makes of it.
func rekey(b *bbolt.Bucket, fn func(k, v []byte) ([]byte, []byte, error)) error {
	type kv struct{ k, v []byte }
	var out []kv
	err := b.ForEach(func(k, v []byte) error {
		if v == nil {
			return nil
		}
		nk, nv, err := fn(k, v)
		out = append(out, kv{bytes.Clone(nk), bytes.Clone(nv)})
		return err
	})
	if err != nil {
		return err
	}
	if err := clearBucket(b); err != nil {
		return err
	}
	for _, e := range out {
		if err := b.Put(e.k, e.v); err != nil {
			return err
		}
	}
	return nil
}
