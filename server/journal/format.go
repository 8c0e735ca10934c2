package journal

// On-disk format.
//
// A journal directory holds
//
//	LOCK                   flock(2)ed by the Journal that has it open
//	<16 hex digits>.seg    segments, named by the LSN of their first byte
//
// An LSN is a journal-wide byte position. The segment with base B and
// capacity C holds the LSNs [B, B+C); the next segment's base is B+C. The
// frame at file offset o of segment B has LSN B+o. LSNs are never reused.
//
// A segment is a sequence of frames:
//
//	[0:4]  body length, uint32 little-endian
//	[4]    record type (rec* below; 0 is never a type, so zeros end the data)
//	[5:9]  CRC-32C (Castagnoli), little-endian, of bytes [0:5], the body, and
//	       the frame's LSN as 8 little-endian bytes. The LSN is not stored: a
//	       frame read at any other position does not verify.
//	[9:]   body
//
// Frames are written in batches, one batch per group commit (one write, one
// fdatasync). A batch ends with a commit frame naming the LSN it started at
// and how many frames it holds; recovery applies a batch only once it has
// read its commit frame, so every commit (an Append with its cursor, acks,
// drops) is all or nothing. The first frame of every segment is a
// checkpoint: the whole state as of that position (per-key counters, the
// de-duplication windows, the platform cursors), so a segment can be
// deleted once no live record is left in it, whatever state its other
// records carried.
//
// Bodies (str = uvarint length + bytes, u64 = 8 bytes little-endian):
//
//	checkpoint  "CBJ" 0x01, u64 base LSN, uvarint #keys, per key:
//	            str key, uvarint last seq, acked through, dropped through,
//	            dropped count; uvarint #providers, per provider: str name,
//	            byte has-cursor, str cursor, uvarint #ids, per id: str id,
//	            varint remembered-at (unix ns; each after the first as a
//	            delta from the previous)
//	entry       str provider, str key, str dedup id, u64 received at (unix
//	            ns, 0 = zero time), str data, u64 seq. The seq comes last so
//	            that the writer can assign it after the caller encoded (and
//	            checksummed) the rest.
//	copy        an entry body followed by u64 order: an entry rewritten at
//	            the head by compaction; order is the LSN of the original.
//	cursor      str provider, then the cursor bytes (the rest of the body)
//	ack         str key, u64 acked through
//	drop        str key, u64 dropped through, uvarint count, byte reason
//	commit      u64 LSN of the batch's first frame, u64 commit time (unix
//	            ns), u32 number of frames before this one in the batch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// Record types.
const (
	recCheckpoint byte = 1
	recEntry      byte = 2
	recCopy       byte = 3
	recCursor     byte = 4
	recAck        byte = 5
	recDrop       byte = 6
	recCommit     byte = 7
)

const (
	headerSize     = 9
	commitBodySize = 20
	commitSize     = headerSize + commitBodySize

	// maxBody bounds a frame body on read, so a damaged length cannot make
	// recovery allocate without limit. It is far above anything written:
	// entry data is at most maxDataLen, and a checkpoint of 100k ids per
	// provider is a few MiB.
	maxBody = 1 << 30
)

var (
	castagnoli      = crc32.MakeTable(crc32.Castagnoli)
	checkpointMagic = [4]byte{'C', 'B', 'J', 1}
	// errMalformed: a frame whose checksum verified holds a body that does
	// not decode. Callers wrap it in ErrCorrupt with the file and offset.
	errMalformed = errors.New("malformed record body")
)

// frameCRC returns the checksum of a complete frame (header and body) at lsn.
func frameCRC(frame []byte, lsn uint64) uint32 {
	c := crc32.Update(0, castagnoli, frame[:5])
	c = crc32.Update(c, castagnoli, frame[headerSize:])
	return crcLSN(c, lsn)
}

// crcLSN adds lsn (8 bytes, little-endian) to the CRC-32C c: the same as
// crc32.Update with those bytes, byte by byte from the table, so that
// nothing escapes to the heap for 8 bytes.
func crcLSN(c uint32, lsn uint64) uint32 {
	c = ^c
	for range 8 {
		c = castagnoli[byte(c)^byte(lsn)] ^ (c >> 8)
		lsn >>= 8
	}
	return ^c
}

// beginFrame appends a frame header for a body of bodyLen bytes; the CRC is
// set by finishFrame once the body is in place.
func beginFrame(b []byte, typ byte, bodyLen int) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(bodyLen))
	b = append(b, typ)
	return append(b, 0, 0, 0, 0)
}

// finishFrame sets the CRC of the frame occupying all of frame, at lsn.
func finishFrame(frame []byte, lsn uint64) {
	binary.LittleEndian.PutUint32(frame[5:9], frameCRC(frame, lsn))
}

// appendFrame appends a complete frame whose body is produced by body
// (appending to its argument). The CRC is set later, by finishFrame, once
// the frame's LSN is known.
func appendFrame(b []byte, typ byte, body func([]byte) []byte) []byte {
	start := len(b)
	b = beginFrame(b, typ, 0)
	b = body(b)
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-headerSize))
	return b
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// entryFrameSize is the size of the entry frame appendEntryFrame writes.
func entryFrameSize(provider, key, dedupID string, dataLen int) int {
	return headerSize + strSize(len(provider)) + strSize(len(key)) + strSize(len(dedupID)) + 8 + strSize(dataLen) + 8
}

func strSize(n int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(n)) + n
}

// appendEntryFrame appends an entry frame whose seq and CRC are still
// unset, and returns the CRC of everything before the seq (see
// sealEntryFrame). at is unix ns, 0 for the zero time.
func appendEntryFrame(b []byte, provider, key, dedupID string, at int64, data []byte) ([]byte, uint32) {
	start := len(b)
	size := entryFrameSize(provider, key, dedupID, len(data))
	b = beginFrame(b, recEntry, size-headerSize)
	b = appendStr(b, provider)
	b = appendStr(b, key)
	b = appendStr(b, dedupID)
	b = appendU64(b, uint64(at))
	b = appendBytes(b, data)
	c := crc32.Update(0, castagnoli, b[start:start+5])
	c = crc32.Update(c, castagnoli, b[start+headerSize:])
	return appendU64(b, 0), c
}

// sealEntryFrame sets the seq of an entry frame built by appendEntryFrame
// and its CRC at lsn, from partial (the CRC appendEntryFrame returned).
// It costs 16 bytes of checksumming, whatever the size of the data.
func sealEntryFrame(frame []byte, partial uint32, seq, lsn uint64) {
	tail := frame[len(frame)-8:]
	binary.LittleEndian.PutUint64(tail, seq)
	c := crc32.Update(partial, castagnoli, tail)
	binary.LittleEndian.PutUint32(frame[5:9], crcLSN(c, lsn))
}

// checkFrame verifies the frame at the start of b, at lsn. It returns the
// record type, the body and the frame's total size. ok is false if b holds
// no complete, verifying frame there.
func checkFrame(b []byte, lsn uint64) (typ byte, body []byte, size int, ok bool) {
	if len(b) < headerSize {
		return 0, nil, 0, false
	}
	n := binary.LittleEndian.Uint32(b)
	if n > maxBody || uint64(n) > uint64(len(b)-headerSize) {
		return 0, nil, 0, false
	}
	size = headerSize + int(n)
	if binary.LittleEndian.Uint32(b[5:9]) != frameCRC(b[:size], lsn) {
		return 0, nil, 0, false
	}
	return b[4], b[headerSize:size], size, true
}

// decoder reads a body; the first failure sticks and every later read
// returns zero values.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// take returns the next n bytes (nil once the body has failed).
func (d *decoder) take(n int) []byte {
	if len(d.b) < n {
		d.fail()
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) byte1() byte {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

// bytes returns a length-prefixed field, aliasing the body.
func (d *decoder) bytes() []byte {
	l := d.uvarint()
	if d.bad || l > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:l:l]
	d.b = d.b[l:]
	return v
}

// count reads a uvarint element count and refuses one that cannot fit in
// what is left (each element takes at least min bytes), so a damaged count
// cannot make the caller allocate without limit.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)/min) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) fail() { d.bad, d.b = true, nil }

// done reports whether the whole body decoded, with nothing left over.
func (d *decoder) done() bool { return !d.bad && len(d.b) == 0 }

// entryRec is a decoded entry or copy body. Its byte fields alias the
// frame.
type entryRec struct {
	provider, key, dedupID []byte
	at                     int64
	data                   []byte
	seq                    uint64
	order                  uint64 // copies only
}

func decodeEntry(body []byte, typ byte) (entryRec, error) {
	d := decoder{b: body}
	var e entryRec
	e.provider = d.bytes()
	e.key = d.bytes()
	e.dedupID = d.bytes()
	e.at = int64(d.u64())
	e.data = d.bytes()
	e.seq = d.u64()
	if typ == recCopy {
		e.order = d.u64()
	}
	if !d.done() || e.seq == 0 || len(e.provider) == 0 {
		return entryRec{}, errMalformed
	}
	return e, nil
}

func appendCursorFrame(b []byte, provider string, cursor []byte) []byte {
	return appendFrame(b, recCursor, func(b []byte) []byte {
		return append(appendStr(b, provider), cursor...)
	})
}

func decodeCursor(body []byte) (provider, cursor []byte, err error) {
	d := decoder{b: body}
	provider = d.bytes()
	if d.bad || len(provider) == 0 {
		return nil, nil, errMalformed
	}
	return provider, d.b, nil
}

func appendAckFrame(b []byte, key string, seq uint64) []byte {
	return appendFrame(b, recAck, func(b []byte) []byte {
		return appendU64(appendStr(b, key), seq)
	})
}

func decodeAck(body []byte) (key []byte, seq uint64, err error) {
	d := decoder{b: body}
	key = d.bytes()
	seq = d.u64()
	if !d.done() {
		return nil, 0, errMalformed
	}
	return key, seq, nil
}

// dropRec is a decoded drop body.
type dropRec struct {
	key     []byte
	through uint64
	n       uint64
	reason  byte
}

func appendDropFrame(b []byte, key string, through, n uint64, reason byte) []byte {
	return appendFrame(b, recDrop, func(b []byte) []byte {
		b = appendU64(appendStr(b, key), through)
		b = binary.AppendUvarint(b, n)
		return append(b, reason)
	})
}

func decodeDrop(body []byte) (dropRec, error) {
	d := decoder{b: body}
	r := dropRec{key: d.bytes(), through: d.u64(), n: d.uvarint(), reason: d.byte1()}
	if !d.done() || int(r.reason) >= len(dropReasons) || r.n == 0 {
		return dropRec{}, errMalformed
	}
	return r, nil
}

// commitRec is a decoded commit body.
type commitRec struct {
	start  uint64 // LSN of the batch's first frame
	at     int64  // commit time, unix ns
	frames uint32 // frames before the commit frame
}

func appendCommitFrame(b []byte, c commitRec) []byte {
	b = beginFrame(b, recCommit, commitBodySize)
	b = appendU64(b, c.start)
	b = appendU64(b, uint64(c.at))
	return binary.LittleEndian.AppendUint32(b, c.frames)
}

func decodeCommit(body []byte) (commitRec, error) {
	d := decoder{b: body}
	c := commitRec{start: d.u64(), at: int64(d.u64()), frames: d.u32()}
	if !d.done() {
		return commitRec{}, errMalformed
	}
	return c, nil
}

// checkpoint is the state a checkpoint frame holds.
type checkpoint struct {
	base      uint64
	keys      []ckptKey
	providers []ckptProvider
}

type ckptKey struct {
	key                                  string
	lastSeq, acked, dropThrough, dropped uint64
}

type ckptProvider struct {
	name      string
	hasCursor bool
	cursor    []byte
	ids       []seenID // oldest first
}

func appendCheckpointFrame(b []byte, c *checkpoint) []byte {
	return appendFrame(b, recCheckpoint, func(b []byte) []byte {
		b = append(b, checkpointMagic[:]...)
		b = appendU64(b, c.base)
		b = binary.AppendUvarint(b, uint64(len(c.keys)))
		for _, k := range c.keys {
			b = appendStr(b, k.key)
			for _, v := range [...]uint64{k.lastSeq, k.acked, k.dropThrough, k.dropped} {
				b = binary.AppendUvarint(b, v)
			}
		}
		b = binary.AppendUvarint(b, uint64(len(c.providers)))
		for _, p := range c.providers {
			b = appendStr(b, p.name)
			if p.hasCursor {
				b = appendBytes(append(b, 1), p.cursor)
			} else {
				b = append(b, 0, 0)
			}
			b = binary.AppendUvarint(b, uint64(len(p.ids)))
			var prev int64
			for _, s := range p.ids {
				b = appendStr(b, s.id)
				b = binary.AppendVarint(b, s.at-prev)
				prev = s.at
			}
		}
		return b
	})
}

// decodeCheckpoint decodes a checkpoint body; its strings and cursors are
// copies, so they outlive the frame.
func decodeCheckpoint(body []byte) (*checkpoint, error) {
	if len(body) < 12 || [4]byte(body[:4]) != checkpointMagic {
		return nil, fmt.Errorf("%w: not a checkpoint of this format", errMalformed)
	}
	d := decoder{b: body[4:]}
	c := &checkpoint{base: d.u64()}
	c.keys = make([]ckptKey, d.count(5))
	for i := range c.keys {
		c.keys[i] = ckptKey{key: string(d.bytes()), lastSeq: d.uvarint(), acked: d.uvarint(),
			dropThrough: d.uvarint(), dropped: d.uvarint()}
	}
	c.providers = make([]ckptProvider, d.count(4))
	for i := range c.providers {
		p := &c.providers[i]
		p.name = string(d.bytes())
		p.hasCursor = d.byte1() == 1
		p.cursor = append([]byte(nil), d.bytes()...)
		if !p.hasCursor {
			p.cursor = nil
		}
		p.ids = make([]seenID, d.count(2))
		var prev int64
		for j := range p.ids {
			p.ids[j].id = string(d.bytes())
			delta := d.varint()
			if (delta > 0 && prev > math.MaxInt64-delta) || (delta < 0 && prev < math.MinInt64-delta) {
				d.fail()
			}
			prev += delta
			p.ids[j].at = prev
		}
	}
	if !d.done() {
		return nil, errMalformed
	}
	return c, nil
}
