package journal

import (
	"fmt"
)

// miss is a record Read has to fetch from its segment file.
type miss struct {
	i    int // in the result
	seq  uint64
	seg  *segment // acquired
	lsn  uint64
	size uint32
}

// read implements Read (ids: with each record's provider and dedup id)
// and ReadData. Under the read lock it takes the cached frames and
// notes the others with a reference on their segment; it decodes and reads
// from disk after releasing the lock, so a slow disk read holds up neither
// the writer nor Ack.
func (j *Journal) read(key string, afterSeq uint64, limit int, ids bool) ([]Record, error) {
	j.mu.RLock()
	if j.keys == nil {
		j.mu.RUnlock()
		return nil, j.errClosed()
	}
	ks := j.keys[key]
	if ks == nil || ks.ring.len() == 0 || afterSeq >= ks.lastSeq {
		j.mu.RUnlock()
		return nil, nil
	}
	first := max(afterSeq+1, ks.frontSeq())
	n := int(ks.lastSeq - first + 1)
	if limit > 0 && n > limit {
		n = limit
	}
	frames := make([][]byte, n)
	var misses []miss
	base := int(first - ks.frontSeq())
	for i := range n {
		e := ks.ring.at(base + i)
		if e.frame != nil {
			frames[i] = e.frame
			continue
		}
		e.seg.acquire()
		misses = append(misses, miss{i: i, seq: first + uint64(i), seg: e.seg, lsn: e.lsn, size: e.size})
	}
	j.mu.RUnlock()

	var err error
	for _, m := range misses {
		if err == nil {
			frames[m.i], err = readFrame(m.seg, m.lsn, m.size)
		}
		m.seg.release()
	}
	if err != nil {
		return nil, err
	}
	out := make([]Record, n)
	for i, f := range frames {
		seq := first + uint64(i)
		e, err := decodeEntry(f[headerSize:], f[4])
		if err != nil || string(e.key) != key || e.seq != seq {
			return nil, fmt.Errorf("journal %s: %s seq %d: %w: its frame holds another record", j.dir, keyName(key), seq, ErrCorrupt)
		}
		out[i] = Record{Seq: seq, ReceivedAt: fromUnixNano(e.at), Data: e.data}
		if ids {
			out[i].Provider, out[i].DedupID = string(e.provider), string(e.dedupID)
		}
	}
	return out, nil
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
