package journal

// Retention: which records a batch drops. The bounds of each key (count,
// bytes, age: Limits) are enforced on the keys a batch appends to, and on
// every key by ApplyRetention and SetLimits; the bound of all keys
// together (TotalBytes) on every batch. The oldest records go first. A
// drop takes effect in memory as the batch is built (under mu, on the
// writer goroutine: retention has no state or lock of its own) and is
// written in that batch as a drop frame; OnDrop hears of it once the
// batch is on disk (commit.go, settle).

import "encoding/binary"

type dropReport struct {
	key    string
	n      int
	reason string
}

// Upper bounds of the frames the writer encodes.
func dropFrameMax(key string) int64 {
	return headerSize + binary.MaxVarintLen64 + int64(len(key)) + 8 + binary.MaxVarintLen64 + 1
}

// dropFront drops the oldest pending record of ks (published or fresh).
// Caller holds mu and builds b.
func (j *Journal) dropFront(b *batch, ks *keyState) {
	if ks.ring.len() > 0 {
		seq := ks.frontSeq()
		ks.dropThrough = max(ks.dropThrough, seq)
		j.removeThrough(ks, seq)
		return
	}
	f := &ks.fresh[ks.freshDropped]
	ks.freshDropped++
	ks.freshBytes -= int64(f.size)
	b.freshLive -= int64(f.size)
	ks.dropThrough = max(ks.dropThrough, f.seq)
}

// addDrop records that n records of ks were dropped for dropReasons[reason].
func (j *Journal) addDrop(b *batch, ks *keyState, n int, reason int) {
	ks.dropped += uint64(n)
	through := ks.dropThrough
	j.addOwn(b, func(buf []byte) []byte { return appendDropFrame(buf, ks.key, through, uint64(n), byte(reason)) })
	b.drops = append(b.drops, dropReport{key: ks.key, n: n, reason: dropReasons[reason]})
}

// enforceLimits drops the oldest records of ks beyond its Limits: count
// first, then bytes, then age, as the store does.
func (j *Journal) enforceLimits(b *batch, ks *keyState) {
	l := j.opts.Limits
	cutoff := b.now - int64(l.MaxAge)
	var n [reasonAge + 1]int
	for ks.pendingCount() > 0 {
		reason := -1
		switch {
		case l.MaxCount > 0 && ks.pendingCount() > l.MaxCount:
			reason = reasonCount
		case l.MaxBytes > 0 && ks.pendingBytes() > l.MaxBytes:
			reason = reasonBytes
		case l.MaxAge > 0:
			if at, _ := ks.oldestAt(); at < cutoff {
				reason = reasonAge
			}
		}
		if reason < 0 {
			break
		}
		j.dropFront(b, ks)
		n[reason]++
	}
	for reason, c := range n {
		if c > 0 {
			j.addDrop(b, ks, c, reason)
		}
	}
}

// enforceTotal drops the oldest records of all keys beyond TotalBytes: the
// published ones by age (j.fronts), then the batch's own in order.
func (j *Journal) enforceTotal(b *batch) {
	t := j.opts.TotalBytes
	if t <= 0 || j.liveBytes+b.freshLive <= t {
		return
	}
	var order []*keyState
	n := map[*keyState]int{}
	g := 0
	for j.liveBytes+b.freshLive > t {
		var ks *keyState
		if len(j.fronts) > 0 {
			ks = j.fronts[0]
		} else {
			for g < len(b.freshOrder) && b.freshOrder[g].idx < b.freshOrder[g].ks.freshDropped {
				g++
			}
			if g == len(b.freshOrder) {
				break
			}
			ks = b.freshOrder[g].ks
		}
		j.dropFront(b, ks)
		if n[ks] == 0 {
			order = append(order, ks)
		}
		n[ks]++
	}
	for _, ks := range order {
		j.addDrop(b, ks, n[ks], reasonTotalBytes)
	}
}
