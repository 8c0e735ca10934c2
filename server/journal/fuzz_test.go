package journal

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// seedRecords are one frame body of each record type, for the fuzz corpus.
func seedRecords() [][]byte {
	var frames [][]byte
	add := func(frame []byte) { frames = append(frames, frame) }
	e, partial := appendEntryFrame(nil, "telegram", "manual:1", "123456", 1767225600000000000, []byte(`{"update_id":123456}`))
	sealEntryFrame(e, partial, 7, 4096)
	add(e)
	e, _ = appendEntryFrame(nil, "slack", "", "", 0, nil)
	add(e)
	add(appendCursorFrame(nil, "telegram", []byte("123457")))
	add(appendAckFrame(nil, "manual:1", 7))
	add(appendDropFrame(nil, "manual:1", 9, 2, 3))
	add(appendCommitFrame(nil, commitRec{start: 4096, at: 1767225600000000000, frames: 3}))
	add(appendCheckpointFrame(nil, &checkpoint{base: 65536,
		keys: []ckptKey{{key: "manual:1", lastSeq: 9, acked: 7, dropThrough: 9, dropped: 2}, {key: "", lastSeq: 1}},
		providers: []ckptProvider{
			{name: "telegram", hasCursor: true, cursor: []byte("123457"), ids: []seenID{{"123455", 1767225600000000000}, {"123456", 1767225600000001000}}},
			{name: "slack"},
		}}))
	// A copy: an entry body with its order.
	c := append(beginFrame(nil, recCopy, len(e)-headerSize+8), e[headerSize:]...)
	add(appendU64(c, 4096))
	return frames
}

// FuzzDecodeRecord feeds a record type (data[0]) and body (the rest) to the
// body decoders: they never panic, and what decodes encodes back to a frame
// that verifies and decodes to the same record.
func FuzzDecodeRecord(f *testing.F) {
	for _, fr := range seedRecords() {
		f.Add(append([]byte{fr[4]}, fr[headerSize:]...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		typ, body := data[0], data[1:]
		rec, ok := decodeAny(typ, body)
		if !ok {
			return
		}
		frame := encodeAny(t, typ, rec)
		finishFrame(frame, 12345)
		typ2, body2, size, ok := checkFrame(frame, 12345)
		if !ok || typ2 != typ || size != len(frame) {
			t.Fatalf("re-encoded %T does not verify", rec)
		}
		again, ok := decodeAny(typ2, body2)
		if !ok || !reflect.DeepEqual(normalize(again), normalize(rec)) {
			t.Fatalf("round trip of type %d: %+v, then %+v", typ, rec, again)
		}
	})
}

// FuzzCheckFrame: frame verification never panics on any bytes at any
// LSN, and a frame that verifies fits in what it was given.
func FuzzCheckFrame(f *testing.F) {
	for _, fr := range seedRecords() {
		finishFrame(fr, 4096)
		f.Add(fr, uint64(4096))
		f.Add(fr[:len(fr)-1], uint64(4096))
	}
	f.Fuzz(func(t *testing.T, data []byte, lsn uint64) {
		_, body, size, ok := checkFrame(data, lsn)
		if ok && (size > len(data) || len(body) != size-headerSize) {
			t.Fatalf("frame of %d bytes in %d", size, len(data))
		}
	})
}

// FuzzScanSegment replays arbitrary segment images (seeded with a real
// one): recovery never panics, and it fails only with damage (*corruptAt),
// whatever the bytes.
func FuzzScanSegment(f *testing.F) {
	dir := f.TempDir()
	j, err := Open(dir, Options{SegmentSize: smallSegments})
	if err != nil {
		f.Fatal(err)
	}
	for i := range 20 {
		k := []string{"a", "b", ""}[i%3]
		if _, err := j.Append(f.Context(), "telegram", []Entry{{Key: k, DedupID: string(payload(i, 9)), Data: payload(i, 40)}}, payload(i, 5)); err != nil {
			f.Fatal(err)
		}
		if i%4 == 3 {
			if _, err := j.Ack(k, 1); err != nil {
				f.Fatal(err)
			}
		}
	}
	used := j.w.active.used
	if err := j.Close(); err != nil {
		f.Fatal(err)
	}
	img, err := os.ReadFile(filepath.Join(dir, segmentName(0)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(img[:used], true)
	f.Add(img[:used], false)
	f.Add(img[:used/2], true)
	f.Fuzz(func(t *testing.T, data []byte, tail bool) {
		j := &Journal{keys: map[string]*keyState{}, cursors: map[string][]byte{}, windows: map[string]*window{},
			opts: Options{}.withDefaults()}
		seg := &segment{base: 0}
		r := replayer{j: j, seg: seg, scanned: map[*keyState][]scanEntry{}}
		end, err := scanSegment(data, 0, tail, r.apply)
		var c *corruptAt
		switch {
		case err != nil && !errors.As(err, &c):
			t.Fatalf("scan failed with %v, not damage", err)
		case err == nil && end > len(data):
			t.Fatalf("scan ended at %d of %d bytes", end, len(data))
		case err == nil:
			if ferr := r.finish(); ferr != nil && !errors.Is(ferr, ErrCorrupt) {
				t.Fatalf("finish failed with %v", ferr)
			}
		}
	})
}

func decodeAny(typ byte, body []byte) (any, bool) {
	var (
		v   any
		err error
	)
	switch typ {
	case recEntry, recCopy:
		v, err = decodeEntry(body, typ)
	case recCursor:
		var p, c []byte
		p, c, err = decodeCursor(body)
		v = [2][]byte{p, c}
	case recAck:
		var k []byte
		var s uint64
		k, s, err = decodeAck(body)
		v = struct {
			k []byte
			s uint64
		}{k, s}
	case recDrop:
		v, err = decodeDrop(body)
	case recCommit:
		v, err = decodeCommit(body)
	case recCheckpoint:
		v, err = decodeCheckpoint(body)
	default:
		return nil, false
	}
	return v, err == nil
}

func encodeAny(t *testing.T, typ byte, v any) []byte {
	switch r := v.(type) {
	case entryRec:
		e, partial := appendEntryFrame(nil, string(r.provider), string(r.key), string(r.dedupID), r.at, r.data)
		sealEntryFrame(e, partial, r.seq, 0)
		if typ == recCopy {
			c := append(beginFrame(nil, recCopy, len(e)-headerSize+8), e[headerSize:]...)
			return appendU64(c, r.order)
		}
		return e
	case [2][]byte:
		return appendCursorFrame(nil, string(r[0]), r[1])
	case struct {
		k []byte
		s uint64
	}:
		return appendAckFrame(nil, string(r.k), r.s)
	case dropRec:
		return appendDropFrame(nil, string(r.key), r.through, r.n, r.reason)
	case commitRec:
		return appendCommitFrame(nil, r)
	case *checkpoint:
		return appendCheckpointFrame(nil, r)
	}
	t.Fatalf("no encoder for %T", v)
	return nil
}

// normalize makes empty and nil byte slices compare equal.
func normalize(v any) any {
	switch r := v.(type) {
	case entryRec:
		for _, b := range []*[]byte{&r.provider, &r.key, &r.dedupID, &r.data} {
			if len(*b) == 0 {
				*b = nil
			}
		}
		return r
	case [2][]byte:
		for i := range r {
			if len(r[i]) == 0 {
				r[i] = nil
			}
		}
		return r
	case dropRec:
		if len(r.key) == 0 {
			r.key = nil
		}
		return r
	case struct {
		k []byte
		s uint64
	}:
		if len(r.k) == 0 {
			r.k = nil
		}
		return r
	case *checkpoint:
		c := *r
		c.providers = append([]ckptProvider(nil), r.providers...)
		for i := range c.providers {
			if len(c.providers[i].cursor) == 0 {
				c.providers[i].cursor = nil
			}
			if len(c.providers[i].ids) == 0 {
				c.providers[i].ids = nil
			}
		}
		if len(c.keys) == 0 {
			c.keys = nil
		}
		if len(c.providers) == 0 {
			c.providers = nil
		}
		return &c
	}
	return v
}

// TestCRCLSN: crcLSN adds the LSN's 8 little-endian bytes to a CRC-32C
// as crc32.Update does (frames written before it verify).
func TestCRCLSN(t *testing.T) {
	for _, c := range []uint32{0, 1, 0xdeadbeef, 0xffffffff} {
		for _, lsn := range []uint64{0, 1, 255, 256, 1 << 32, 0x0123456789abcdef, ^uint64(0)} {
			want := crc32.Update(c, castagnoli, binary.LittleEndian.AppendUint64(nil, lsn))
			if got := crcLSN(c, lsn); got != want {
				t.Errorf("crcLSN(%#x, %#x) = %#x, want %#x", c, lsn, got, want)
			}
		}
	}
}
