package store

import (
	"context"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/chatbus/chatbus/server/journal"
)

// migrateJournal moves a schema 2 file's journal out of bbolt into the
// (empty) journal, once: every binding's and the unrouted set's counters
// (last seq, acked point, drop count) and pending updates with their seqs,
// the platform cursors and the de-duplication windows. Then, in one bbolt
// transaction, the old buckets are deleted and the schema becomes 3. A
// crash before that transaction leaves the file at schema 2, and the next
// Open starts the move over from an empty journal directory.
func (s *Bolt) migrateJournal() error {
	type oldQueue struct {
		key     string
		st      queueState
		entries []journal.Entry
		seqs    []uint64
		provs   []string
	}
	var (
		queues []oldQueue
		seed   journal.Seed
	)
	err := s.view(func(tx *bbolt.Tx) error {
		read := func(key string, b *bbolt.Bucket) error {
			if b == nil {
				return nil
			}
			st, err := decodeQueueState(b.Get(kState))
			if err != nil {
				return fmt.Errorf("%s: %w", journalName(key), err)
			}
			q := oldQueue{key: key, st: st}
			if qb := b.Bucket(bQueue); qb != nil {
				err := qb.ForEach(func(k, v []byte) error {
					u, err := decodeUpdate(v)
					if err != nil {
						return fmt.Errorf("%s seq %d: %w", journalName(key), getU64(k), err)
					}
					q.entries = append(q.entries, journal.Entry{Key: key, ReceivedAt: u.ReceivedAt, Data: encodeUpdate(&u)})
					q.seqs = append(q.seqs, getU64(k))
					q.provs = append(q.provs, u.Provider)
					return nil
				})
				if err != nil {
					return err
				}
			}
			queues = append(queues, q)
			return nil
		}
		if err := read("", tx.Bucket(bUnrouted)); err != nil {
			return err
		}
		if jb := tx.Bucket(bJournal); jb != nil {
			if err := jb.ForEachBucket(func(k []byte) error { return read(string(k), jb.Bucket(k)) }); err != nil {
				return err
			}
		}
		provs := map[string]*journal.SeedProvider{}
		prov := func(name string) *journal.SeedProvider {
			p := provs[name]
			if p == nil {
				p = &journal.SeedProvider{Name: name}
				provs[name] = p
			}
			return p
		}
		if cb := tx.Bucket(bCursors); cb != nil {
			_ = cb.ForEach(func(k, v []byte) error {
				prov(string(k)).Cursor = append([]byte{}, v...)
				return nil
			})
		}
		if sb := tx.Bucket(bSeen); sb != nil {
			_ = sb.ForEachBucket(func(name []byte) error {
				order := sb.Bucket(name).Bucket(bSeenOrd)
				if order == nil {
					return nil
				}
				p := prov(string(name))
				return order.ForEach(func(_, v []byte) error {
					if len(v) < 8 {
						return fmt.Errorf("%w: seen entry of %q: %d bytes", ErrCorrupt, name, len(v))
					}
					p.Seen = append(p.Seen, journal.SeenID{ID: string(v[8:]), At: time.Unix(0, getI64(v[:8]))})
					return nil
				})
			})
		}
		for _, p := range provs {
			seed.Providers = append(seed.Providers, *p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, q := range queues {
		through := q.st.lastSeq
		if len(q.seqs) > 0 {
			through = q.seqs[0] - 1
		}
		if q.st.ackedThrough > through {
			return fmt.Errorf("%s: %w: acked through %d, yet seq %d is held", journalName(q.key), ErrCorrupt, q.st.ackedThrough, through+1)
		}
		seed.Keys = append(seed.Keys, journal.SeedKey{Key: q.key, Through: through, Acked: q.st.ackedThrough, Dropped: q.st.dropped})
	}
	ctx := context.Background()
	if err := s.jr.Seed(ctx, seed); err != nil {
		return s.journalErr(err)
	}
	for _, q := range queues {
		// In seq order, one Append per run of one provider's updates (the
		// unrouted set holds several providers').
		for i := 0; i < len(q.entries); {
			j := i + 1
			for j < len(q.entries) && q.provs[j] == q.provs[i] && j-i < 512 {
				j++
			}
			res, err := s.jr.Append(ctx, q.provs[i], q.entries[i:j], nil)
			if err != nil {
				return s.journalErr(err)
			}
			for k, r := range res {
				if r.Seq != q.seqs[i+k] {
					return fmt.Errorf("%s: seq %d was journalled as %d", journalName(q.key), q.seqs[i+k], r.Seq)
				}
			}
			i = j
		}
	}
	if err := s.jr.Flush(ctx); err != nil {
		return s.journalErr(err)
	}
	return s.db.Update(func(tx *bbolt.Tx) error {
		for _, name := range [][]byte{bJournal, bUnrouted, bSeen, bCursors} {
			if tx.Bucket(name) != nil {
				if err := tx.DeleteBucket(name); err != nil {
					return err
				}
			}
		}
		return tx.Bucket(bMeta).Put(kSchema, putU64(nil, schemaVersion))
	})
}
