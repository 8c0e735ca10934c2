package journal

import (
	"fmt"
	"slices"
)

// miss is a record Read has to fetch from its segment file.
type miss struct {
	i    int // in the result
	seq  uint64
	seg  *segment // acquired
	lsn  uint64
	size uint32
}

// read implements Read (ids: with each record's provider and dedup id),
// ReadData and Follow (wait: also the Changed channel once the records
// read reach the key's last), appending to dst. Under the read lock it
// decodes the cached frames into dst and notes the others with a
// reference on their segment; it reads those from disk after releasing
// the lock, so a slow disk read holds up neither the writer nor Ack. A
// read of cached records allocates nothing but what dst lacks.
func (j *Journal) read(dst []Record, key string, afterSeq uint64, limit int, ids, wait bool) ([]Record, <-chan struct{}, error) {
	j.mu.RLock()
	if j.keys == nil {
		j.mu.RUnlock()
		return dst, nil, j.errClosed()
	}
	ks := j.keys[key]
	if ks == nil || ks.ring.len() == 0 || afterSeq >= ks.lastSeq {
		var changed <-chan struct{}
		if wait && ks != nil {
			_, changed = j.changedLocked(key, afterSeq)
		}
		j.mu.RUnlock()
		if wait && ks == nil {
			changed = j.Changed(key, afterSeq) // makes the key's state
		}
		return dst, changed, nil
	}
	first := max(afterSeq+1, ks.frontSeq())
	n := int(ks.lastSeq - first + 1)
	var changed <-chan struct{}
	if limit > 0 && n > limit {
		n = limit
	} else if wait {
		_, changed = j.changedLocked(key, ks.lastSeq)
	}
	from := len(dst)
	dst = slices.Grow(dst, n)[:from+n]
	out := dst[from:] // each is set below (or cleared)
	var misses []miss
	base := int(first - ks.frontSeq())
	var err error
	for i := range n {
		e := ks.ring.at(base + i)
		if e.frame == nil {
			e.seg.acquire()
			misses = append(misses, miss{i: i, seq: first + uint64(i), seg: e.seg, lsn: e.lsn, size: e.size})
			continue
		}
		if err == nil {
			err = j.decodeRecord(&out[i], e.frame, key, first+uint64(i), ids)
		}
	}
	j.mu.RUnlock()

	for _, m := range misses {
		if err == nil {
			var f []byte
			if f, err = readFrame(m.seg, m.lsn, m.size); err == nil {
				err = j.decodeRecord(&out[m.i], f, key, m.seq, ids)
			}
		}
		m.seg.release()
	}
	if err != nil {
		clear(out)
		return dst[:from], nil, err
	}
	return dst, changed, nil
}

// decodeRecord decodes the entry frame f of key's record seq into r.
func (j *Journal) decodeRecord(r *Record, f []byte, key string, seq uint64, ids bool) error {
	e, err := decodeEntry(f[headerSize:], f[4])
	if err != nil || string(e.key) != key || e.seq != seq {
		return fmt.Errorf("journal %s: %s seq %d: %w: its frame holds another record", j.dir, keyName(key), seq, ErrCorrupt)
	}
	*r = Record{Seq: seq, ReceivedAt: fromUnixNano(e.at), Data: e.data}
	if ids {
		r.Provider, r.DedupID = string(e.provider), string(e.dedupID)
	}
	return nil
}

// readFrame reads and verifies the frame at lsn in s.
func readFrame(s *segment, lsn uint64, size uint32) ([]byte, error) {
	buf := make([]byte, size)
	off := int64(lsn - s.base)
	if _, err := s.f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("journal: segment %s offset %d: read: %w", s.path, off, err)
	}
	typ, _, n, ok := checkFrame(buf, lsn)
	if !ok || n != int(size) || (typ != recEntry && typ != recCopy) {
		return nil, fmt.Errorf("journal: segment %s offset %d: %w: the record there does not verify", s.path, off, ErrCorrupt)
	}
	return buf, nil
}
