package store

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Input bounds, checked before anything is written (ErrInvalid).
const (
	maxKeyLen      = 1024 // binding keys, outbox keys
	maxProviderLen = 256
	maxIDLen       = 256 // a chat or thread id
)

func putU64(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }
func getU64(b []byte) uint64           { return binary.BigEndian.Uint64(b) }

// putI64 appends v so that byte order is numeric order.
func putI64(b []byte, v int64) []byte { return putU64(b, uint64(v)^(1<<63)) }
func getI64(b []byte) int64           { return int64(getU64(b) ^ (1 << 63)) }

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// targetKey is <provider> 0x00 <chat> 0x00 <thread> (checkTarget keeps
// NUL bytes out of all three).
func targetKey(t Target) []byte {
	b := make([]byte, 0, len(t.Provider)+len(t.Chat)+len(t.Thread)+2)
	b = append(append(b, t.Provider...), 0)
	b = append(append(b, t.Chat...), 0)
	return append(b, t.Thread...)
}

// chatKey is <provider> 0x00 <chat>.
func chatKey(provider, chat string) []byte {
	return append(append([]byte(provider), 0), chat...)
}

func checkKey(what, key string) error {
	if key == "" || len(key) > maxKeyLen {
		return fmt.Errorf("%s %q: must be 1 to %d bytes: %w", what, key, maxKeyLen, ErrInvalid)
	}
	return nil
}

func checkProvider(p string) error {
	if p == "" || len(p) > maxProviderLen || strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("provider %q: must be 1 to %d bytes without NUL: %w", p, maxProviderLen, ErrInvalid)
	}
	return nil
}

// Journal entry encoding, version 2 (still decoded; version 3, which
// encodeUpdate writes, is in wire.go):
//
//	[0]     version (2)
//	[1:9]   received at, unix ns, i64 big-endian (0 = zero time); fixed so
//	        that age retention reads it without decoding the rest
//	then    provider (uvarint length + bytes), platform update id, kind
//	        (varints), chat, thread (length + bytes), from user id (varint),
//	        sender, sender name, dedup id (length + bytes), the number of
//	        refs (uvarint) and each ref (kind byte, length + id), then text
//	        and payload (length + bytes); the payload ends the entry.
//
// Version 1 (schema 1 files) had chat and thread as varints and no
// sender, sender name, dedup id or refs; it is still decoded.
//
// Seq and BindingKey are where the entry is stored, not in it.
const (
	updateCodecV1 = 1
	updateCodecV2 = 2
	// updateCodecV3 (wire.go) is what encodeUpdate writes.
)

// encodeUpdate encodes u in the current version (3, wire.go).
func encodeUpdate(u *Update) []byte {
	v, _ := encodeUpdateAt(u)
	return v
}

// decodeUpdate decodes an entry; it copies, so the result outlives the
// transaction.
func decodeUpdate(v []byte) (Update, error) {
	if len(v) >= 9 && v[0] == updateCodecV3 {
		return decodeUpdateV3(v)
	}
	if len(v) < 9 || (v[0] != updateCodecV1 && v[0] != updateCodecV2) {
		return Update{}, fmt.Errorf("%w: journal entry of %d bytes with version %d", ErrCorrupt, len(v), firstByte(v))
	}
	d := decoder{b: v[9:]}
	u := Update{ReceivedAt: fromUnixNano(int64(binary.BigEndian.Uint64(v[1:9])))}
	u.Provider = string(d.bytes())
	u.PlatformUpdateID = d.varint()
	u.Kind = UpdateKind(d.varint())
	if v[0] == updateCodecV1 {
		u.Chat, u.Thread = idText(d.varint()), idText(d.varint())
		u.FromUserID = d.varint()
		u.Sender = idText(u.FromUserID)
	} else {
		u.Chat, u.Thread = string(d.bytes()), string(d.bytes())
		u.FromUserID = d.varint()
		u.Sender, u.SenderName, u.DedupID = string(d.bytes()), string(d.bytes()), string(d.bytes())
		n, ok := d.uvarint()
		if !ok || n > uint64(len(d.b)) {
			return Update{}, fmt.Errorf("%w: malformed journal entry of %d bytes", ErrCorrupt, len(v))
		}
		for range n {
			kind := d.byte()
			u.Refs = append(u.Refs, Ref{Kind: RefKind(kind), ID: string(d.bytes())})
		}
	}
	u.Text = string(d.bytes())
	if p := d.bytes(); len(p) > 0 {
		u.Payload = append([]byte(nil), p...)
	}
	if d.bad || len(d.b) != 0 {
		return Update{}, fmt.Errorf("%w: malformed journal entry of %d bytes", ErrCorrupt, len(v))
	}
	return u, nil
}

// idText writes a numeric platform id (schema 1) as text; 0 (none) is "".
func idText(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

func firstByte(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}

type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) uvarint() (uint64, bool) {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0, false
	}
	d.b = d.b[n:]
	return v, true
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) bytes() []byte {
	l, n := binary.Uvarint(d.b)
	if n <= 0 || l > uint64(len(d.b)-n) {
		d.bad, d.b = true, nil
		return nil
	}
	v := d.b[n : n+int(l)]
	d.b = d.b[n+int(l):]
	return v
}

// queueState is a journal's bookkeeping, stored under "state": five u64.
type queueState struct {
	lastSeq      uint64
	ackedThrough uint64
	count        uint64
	bytes        uint64
	dropped      uint64
}

func decodeQueueState(v []byte) (queueState, error) {
	if v == nil {
		return queueState{}, nil
	}
	if len(v) != 40 {
		return queueState{}, fmt.Errorf("%w: journal state of %d bytes", ErrCorrupt, len(v))
	}
	return queueState{getU64(v[0:]), getU64(v[8:]), getU64(v[16:]), getU64(v[24:]), getU64(v[32:])}, nil
}
