package store

import (
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// Input bounds, checked before anything is written (ErrInvalid).
const (
	maxKeyLen      = 1024 // binding keys, outbox keys
	maxProviderLen = 256
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

// targetKey is <provider> 0x00 <chat i64> <thread i64>.
func targetKey(t Target) []byte {
	b := append([]byte(t.Provider), 0)
	b = putI64(b, t.ChatID)
	return putI64(b, t.ThreadID)
}

// chatKey is <provider> 0x00 <chat i64>.
func chatKey(provider string, chatID int64) []byte {
	return putI64(append([]byte(provider), 0), chatID)
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

// Journal entry encoding, version 1:
//
//	[0]     version (1)
//	[1:9]   received at, unix ns, i64 big-endian (0 = zero time); fixed so
//	        that age retention reads it without decoding the rest
//	then    provider (uvarint length + bytes), platform update id, kind,
//	        chat id, thread id, from user id (varints), text and payload
//	        (uvarint length + bytes)
//
// Seq and BindingKey are where the entry is stored, not in it.
const updateCodecV1 = 1

func encodeUpdate(u *Update) []byte {
	b := make([]byte, 0, 9+len(u.Provider)+len(u.Text)+len(u.Payload)+6*binary.MaxVarintLen64)
	b = append(b, updateCodecV1)
	b = binary.BigEndian.AppendUint64(b, uint64(unixNano(u.ReceivedAt)))
	b = binary.AppendUvarint(b, uint64(len(u.Provider)))
	b = append(b, u.Provider...)
	b = binary.AppendVarint(b, u.PlatformUpdateID)
	b = binary.AppendVarint(b, int64(u.Kind))
	b = binary.AppendVarint(b, u.ChatID)
	b = binary.AppendVarint(b, u.ThreadID)
	b = binary.AppendVarint(b, u.FromUserID)
	b = binary.AppendUvarint(b, uint64(len(u.Text)))
	b = append(b, u.Text...)
	b = binary.AppendUvarint(b, uint64(len(u.Payload)))
	return append(b, u.Payload...)
}

// entryReceivedAt reads only the receive time of an encoded entry.
func entryReceivedAt(v []byte) (time.Time, bool) {
	if len(v) < 9 || v[0] != updateCodecV1 {
		return time.Time{}, false
	}
	return fromUnixNano(int64(binary.BigEndian.Uint64(v[1:9]))), true
}

// decodeUpdate decodes an entry; it copies, so the result outlives the
// transaction.
func decodeUpdate(v []byte) (Update, error) {
	if len(v) < 9 || v[0] != updateCodecV1 {
		return Update{}, fmt.Errorf("%w: journal entry of %d bytes with version %d", ErrCorrupt, len(v), firstByte(v))
	}
	d := decoder{b: v[9:]}
	u := Update{ReceivedAt: fromUnixNano(int64(binary.BigEndian.Uint64(v[1:9])))}
	u.Provider = string(d.bytes())
	u.PlatformUpdateID = d.varint()
	u.Kind = int32(d.varint())
	u.ChatID = d.varint()
	u.ThreadID = d.varint()
	u.FromUserID = d.varint()
	u.Text = string(d.bytes())
	if p := d.bytes(); len(p) > 0 {
		u.Payload = append([]byte(nil), p...)
	}
	if d.bad || len(d.b) != 0 {
		return Update{}, fmt.Errorf("%w: malformed journal entry of %d bytes", ErrCorrupt, len(v))
	}
	return u, nil
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

func (st queueState) encode() []byte {
	b := make([]byte, 0, 40)
	for _, v := range []uint64{st.lastSeq, st.ackedThrough, st.count, st.bytes, st.dropped} {
		b = putU64(b, v)
	}
	return b
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
