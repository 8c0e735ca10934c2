package store

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// Journal entry encoding, version 3: the update in the wire form a
// follower's stream sends, so that a stream sends the stored bytes as they
// are (encode once, send many):
//
//	[0]     version (3)
//	[1:9]   received at, unix ns, i64 big-endian, as in version 2
//	then    dedup id (uvarint length + bytes)
//	then    the wire: chatbus.v1.Update's protobuf encoding without seq (1)
//	        and platform (11), the fields in number order: target (2:
//	        provider 1, the numeric chat and thread ids 2 and 3 where the
//	        ids are numbers, chat 4, thread 5), kind 3, platform_update_id 4,
//	        from_user_id 5, text 6, payload 7, received_at 8 (a
//	        google.protobuf.Timestamp: seconds 1, nanos 2), sender 9,
//	        references 10 (each: kind 1, id 2), sender_name 12; but
//	        audio 13 (file_id 1, mime_type 2, duration_seconds 3, size 4,
//	        file_name 5, voice 6; the transcript's fields are the
//	        stream's to add) first, when there is one. Zero values are
//	        left out, as protobuf does.
//
// A message that holds an update is its seq's field, the wire, and the
// platform's field (AppendWireUpdate): protobuf takes fields in any order.
// The field numbers are chatbus.v1's, which only ever grow (buf
// breaking); a test in package server holds the two equal.
const updateCodecV3 = 3

// The field numbers of chatbus.v1.Update and of the messages in it.
const (
	fUpdateSeq        protowire.Number = 1
	fUpdateTarget     protowire.Number = 2
	fUpdateKind       protowire.Number = 3
	fUpdatePlatformID protowire.Number = 4
	fUpdateFromUser   protowire.Number = 5
	fUpdateText       protowire.Number = 6
	fUpdatePayload    protowire.Number = 7
	fUpdateReceivedAt protowire.Number = 8
	fUpdateSender     protowire.Number = 9
	fUpdateRefs       protowire.Number = 10
	fUpdatePlatform   protowire.Number = 11
	fUpdateSenderName protowire.Number = 12
	fUpdateAudio      protowire.Number = 13

	fTargetProvider protowire.Number = 1
	fTargetChatID   protowire.Number = 2
	fTargetThreadID protowire.Number = 3
	fTargetChat     protowire.Number = 4
	fTargetThread   protowire.Number = 5

	fTimestampSeconds protowire.Number = 1
	fTimestampNanos   protowire.Number = 2

	fRefKind protowire.Number = 1
	fRefID   protowire.Number = 2

	fAudioFileID     protowire.Number = 1
	fAudioMIME       protowire.Number = 2
	fAudioDuration   protowire.Number = 3
	fAudioSize       protowire.Number = 4
	fAudioFileName   protowire.Number = 5
	fAudioVoice      protowire.Number = 6
	fAudioStatus     protowire.Number = 7
	fAudioTranscript protowire.Number = 8
	fAudioNote       protowire.Number = 9
)

// Encoded is a journalled update in the wire form a stream sends (see
// Store.ReadEncoded).
type Encoded struct {
	Seq        uint64
	ReceivedAt time.Time
	// Wire is chatbus.v1.Update's protobuf encoding without seq and
	// platform (AppendWireUpdate adds them). Read-only: it may be the
	// store's own memory.
	Wire []byte
}

// EncodedReader is a Store that reads updates in their wire form.
type EncodedReader interface {
	// ReadEncoded is Read, each update in its wire form.
	ReadEncoded(bindingKey string, afterSeq uint64, limit int) ([]Encoded, error)
}

// EncodedFollower is a Store that reads a follower's updates in their
// wire form and the channel to wait on for more in one step.
type EncodedFollower interface {
	// FollowEncoded appends to dst what ReadEncoded returns and, if that
	// reaches the binding's last update, also the channel Changed(the
	// last seq read, or afterSeq if none) returns, taken at the same
	// moment; nil when there is more to read at once, or may be (a Store
	// that cannot tell whether exactly limit updates were the last), and
	// on error: the caller reads again.
	FollowEncoded(dst []Encoded, bindingKey string, afterSeq uint64, limit int) ([]Encoded, <-chan struct{}, error)
}

// FollowEncoded is EncodedFollower.FollowEncoded for any Store: where s
// is not one, ReadEncoded, then Changed.
func FollowEncoded(s Store, dst []Encoded, bindingKey string, afterSeq uint64, limit int) ([]Encoded, <-chan struct{}, error) {
	if f, ok := s.(EncodedFollower); ok {
		return f.FollowEncoded(dst, bindingKey, afterSeq, limit)
	}
	ups, err := ReadEncoded(s, bindingKey, afterSeq, limit)
	if err != nil {
		return dst, nil, err
	}
	if limit > 0 && len(ups) >= limit {
		return append(dst, ups...), nil, nil
	}
	if len(ups) > 0 {
		afterSeq = ups[len(ups)-1].Seq
	}
	return append(dst, ups...), s.Changed(bindingKey, afterSeq), nil
}

// ReadEncoded is s.Read with each update in its wire form: the stored
// bytes where s keeps them so (EncodedReader), else encoded from Read's.
func ReadEncoded(s Store, bindingKey string, afterSeq uint64, limit int) ([]Encoded, error) {
	if r, ok := s.(EncodedReader); ok {
		return r.ReadEncoded(bindingKey, afterSeq, limit)
	}
	ups, err := s.Read(bindingKey, afterSeq, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Encoded, len(ups))
	for i := range ups {
		out[i] = Encoded{Seq: ups[i].Seq, ReceivedAt: ups[i].ReceivedAt}
		out[i].Wire, _ = appendWire(nil, &ups[i])
	}
	return out, nil
}

// Text is the update's text, read from the wire (for tracing; the stream
// never decodes it).
func (e Encoded) Text() string {
	v, _ := e.field(fUpdateText)
	return string(v)
}

// field is the value of the wire's first length-delimited field num;
// false if it has none (or is malformed).
func (e Encoded) field(num protowire.Number) ([]byte, bool) {
	b := e.Wire
	for len(b) > 0 {
		n0, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false
		}
		b = b[n:]
		if n0 == num && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(b)
			return v, n >= 0
		}
		if n = protowire.ConsumeFieldValue(n0, typ, b); n < 0 {
			return nil, false
		}
		b = b[n:]
	}
	return nil, false
}

// AppendWireUpdate appends field num (of the message that holds it) with
// the update e: its seq, its wire, and platform ("" : none).
func AppendWireUpdate(b []byte, num protowire.Number, e *Encoded, platform string) []byte {
	n := len(e.Wire)
	if e.Seq != 0 {
		n += protowire.SizeTag(fUpdateSeq) + protowire.SizeVarint(e.Seq)
	}
	if platform != "" {
		n += protowire.SizeTag(fUpdatePlatform) + protowire.SizeBytes(len(platform))
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	if e.Seq != 0 {
		b = protowire.AppendTag(b, fUpdateSeq, protowire.VarintType)
		b = protowire.AppendVarint(b, e.Seq)
	}
	b = append(b, e.Wire...)
	if platform != "" {
		b = protowire.AppendTag(b, fUpdatePlatform, protowire.BytesType)
		b = protowire.AppendString(b, platform)
	}
	return b
}

// WireUpdateSize is how many bytes AppendWireUpdate appends.
func WireUpdateSize(num protowire.Number, e *Encoded, platform string) int {
	n := len(e.Wire)
	if e.Seq != 0 {
		n += protowire.SizeTag(fUpdateSeq) + protowire.SizeVarint(e.Seq)
	}
	if platform != "" {
		n += protowire.SizeTag(fUpdatePlatform) + protowire.SizeBytes(len(platform))
	}
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

// encodeUpdateAt encodes u as a version 3 entry; payloadAt is where u's
// payload starts in it.
func encodeUpdateAt(u *Update) (v []byte, payloadAt int) {
	return appendEntry(make([]byte, 0, encodedSizeMax(u)), u)
}

// appendEntry appends u's version 3 entry to b; payloadAt is where u's
// payload starts in b. It appends at most encodedSizeMax(u) bytes.
func appendEntry(b []byte, u *Update) (_ []byte, payloadAt int) {
	b = append(b, updateCodecV3)
	b = binary.BigEndian.AppendUint64(b, uint64(unixNano(u.ReceivedAt)))
	b = protowire.AppendString(b, u.DedupID)
	return appendWire(b, u)
}

// encodedSizeMax bounds the length of u's version 3 entry: every tag,
// length and number at its longest (a tag here is one byte, a varint at
// most 10).
func encodedSizeMax(u *Update) int {
	const field = 11                  // a tag and a varint
	n := 9 + field + len(u.DedupID) + // prefix
		field + 5*field + len(u.Provider) + len(u.Chat) + len(u.Thread) + // target
		3*field + // kind, ids
		2*field + len(u.Text) + len(u.Payload) + // text, payload
		field + 2*field + // received_at
		2*field + len(u.Sender) + len(u.SenderName)
	if a := u.Audio; a != nil {
		n += 7*field + len(a.FileID) + len(a.MIME) + len(a.FileName)
	}
	for _, r := range u.Refs {
		n += 3*field + len(r.ID)
	}
	return n
}

func appendWire(b []byte, u *Update) ([]byte, int) {
	appendStr := func(b []byte, num protowire.Number, s string) []byte {
		if s == "" {
			return b
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, s)
	}
	appendInt := func(b []byte, num protowire.Number, v int64) []byte {
		if v == 0 {
			return b
		}
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(v))
	}
	// Audio goes first, so that a stream tells a voice note by its first
	// byte (Encoded.Audio).
	if a := u.Audio; a != nil {
		var ab []byte
		ab = appendStr(ab, fAudioFileID, a.FileID)
		ab = appendStr(ab, fAudioMIME, a.MIME)
		ab = appendInt(ab, fAudioDuration, int64(a.Duration))
		ab = appendInt(ab, fAudioSize, a.Size)
		ab = appendStr(ab, fAudioFileName, a.FileName)
		if a.Voice {
			ab = appendInt(ab, fAudioVoice, 1)
		}
		b = protowire.AppendTag(b, fUpdateAudio, protowire.BytesType)
		b = protowire.AppendBytes(b, ab)
	}
	if u.Provider != "" || u.Chat != "" || u.Thread != "" {
		chatID, _ := strconv.ParseInt(u.Chat, 10, 64)
		threadID, _ := strconv.ParseInt(u.Thread, 10, 64)
		var t [64]byte
		tb := appendStr(t[:0], fTargetProvider, u.Provider)
		tb = appendInt(tb, fTargetChatID, chatID)
		tb = appendInt(tb, fTargetThreadID, threadID)
		tb = appendStr(tb, fTargetChat, u.Chat)
		tb = appendStr(tb, fTargetThread, u.Thread)
		b = protowire.AppendTag(b, fUpdateTarget, protowire.BytesType)
		b = protowire.AppendBytes(b, tb)
	}
	b = appendInt(b, fUpdateKind, int64(u.Kind))
	b = appendInt(b, fUpdatePlatformID, u.PlatformUpdateID)
	b = appendInt(b, fUpdateFromUser, u.FromUserID)
	b = appendStr(b, fUpdateText, u.Text)
	payloadAt := len(b)
	if len(u.Payload) > 0 {
		b = protowire.AppendTag(b, fUpdatePayload, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(len(u.Payload)))
		payloadAt = len(b)
		b = append(b, u.Payload...)
	}
	// As timestamppb.New: a zero time is its (negative) seconds.
	var t [24]byte
	tb := appendInt(t[:0], fTimestampSeconds, u.ReceivedAt.Unix())
	tb = appendInt(tb, fTimestampNanos, int64(int32(u.ReceivedAt.Nanosecond())))
	b = protowire.AppendTag(b, fUpdateReceivedAt, protowire.BytesType)
	b = protowire.AppendBytes(b, tb)
	b = appendStr(b, fUpdateSender, u.Sender)
	for _, r := range u.Refs {
		n := 0
		if r.Kind != 0 {
			n += protowire.SizeTag(fRefKind) + protowire.SizeVarint(uint64(r.Kind))
		}
		if r.ID != "" {
			n += protowire.SizeTag(fRefID) + protowire.SizeBytes(len(r.ID))
		}
		b = protowire.AppendTag(b, fUpdateRefs, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(n))
		b = appendInt(b, fRefKind, int64(r.Kind))
		b = appendStr(b, fRefID, r.ID)
	}
	b = appendStr(b, fUpdateSenderName, u.SenderName)
	return b, payloadAt
}

// wireOf returns the wire of a version 3 entry.
func wireOf(v []byte) ([]byte, bool) {
	if len(v) < 9 || v[0] != updateCodecV3 {
		return nil, false
	}
	_, n := protowire.ConsumeBytes(v[9:])
	if n < 0 {
		return nil, false
	}
	return v[9+n:], true
}

// decodeUpdateV3 decodes a version 3 entry (len(v) >= 9, v[0] == 3).
func decodeUpdateV3(v []byte) (Update, error) {
	bad := func() (Update, error) {
		return Update{}, fmt.Errorf("%w: malformed journal entry of %d bytes", ErrCorrupt, len(v))
	}
	u := Update{ReceivedAt: fromUnixNano(int64(binary.BigEndian.Uint64(v[1:9])))}
	dedup, n := protowire.ConsumeBytes(v[9:])
	if n < 0 {
		return bad()
	}
	u.DedupID = string(dedup)
	if !decodeWire(&u, v[9+n:]) {
		return bad()
	}
	return u, nil
}

// Update decodes e (BindingKey and DedupID are not in it).
func (e Encoded) Update() (Update, error) {
	u := Update{Seq: e.Seq, ReceivedAt: e.ReceivedAt}
	if !decodeWire(&u, e.Wire) {
		return Update{}, fmt.Errorf("%w: malformed update of %d bytes", ErrCorrupt, len(e.Wire))
	}
	return u, nil
}

// decodeWire sets u's fields from wire (received_at excepted: the
// caller has it to the nanosecond); false if wire is malformed.
func decodeWire(u *Update, wire []byte) bool {
	return eachField(wire, func(num protowire.Number, typ protowire.Type, val []byte, x uint64) bool {
		switch {
		case typ == protowire.VarintType && num == fUpdateKind:
			u.Kind = UpdateKind(int32(x))
		case typ == protowire.VarintType && num == fUpdatePlatformID:
			u.PlatformUpdateID = int64(x)
		case typ == protowire.VarintType && num == fUpdateFromUser:
			u.FromUserID = int64(x)
		case typ != protowire.BytesType:
			return false
		case num == fUpdateTarget:
			return eachField(val, func(num protowire.Number, typ protowire.Type, val []byte, _ uint64) bool {
				switch {
				case typ == protowire.VarintType && (num == fTargetChatID || num == fTargetThreadID):
				case typ != protowire.BytesType:
					return false
				case num == fTargetProvider:
					u.Provider = string(val)
				case num == fTargetChat:
					u.Chat = string(val)
				case num == fTargetThread:
					u.Thread = string(val)
				default:
					return false
				}
				return true
			})
		case num == fUpdateText:
			u.Text = string(val)
		case num == fUpdatePayload:
			u.Payload = append([]byte(nil), val...)
		case num == fUpdateReceivedAt:
			return true // the fixed prefix has it, to the nanosecond
		case num == fUpdateSender:
			u.Sender = string(val)
		case num == fUpdateRefs:
			var r Ref
			if !eachField(val, func(num protowire.Number, typ protowire.Type, val []byte, x uint64) bool {
				switch {
				case num == fRefKind && typ == protowire.VarintType:
					r.Kind = RefKind(x)
				case num == fRefID && typ == protowire.BytesType:
					r.ID = string(val)
				default:
					return false
				}
				return true
			}) {
				return false
			}
			u.Refs = append(u.Refs, r)
		case num == fUpdateSenderName:
			u.SenderName = string(val)
		case num == fUpdateAudio:
			a := new(Audio)
			if !eachField(val, func(num protowire.Number, typ protowire.Type, val []byte, x uint64) bool {
				switch {
				case num == fAudioFileID && typ == protowire.BytesType:
					a.FileID = string(val)
				case num == fAudioMIME && typ == protowire.BytesType:
					a.MIME = string(val)
				case num == fAudioDuration && typ == protowire.VarintType:
					a.Duration = uint32(x)
				case num == fAudioSize && typ == protowire.VarintType:
					a.Size = int64(x)
				case num == fAudioFileName && typ == protowire.BytesType:
					a.FileName = string(val)
				case num == fAudioVoice && typ == protowire.VarintType:
					a.Voice = x != 0
				default:
					return false
				}
				return true
			}) {
				return false
			}
			u.Audio = a
		default:
			return false
		}
		return true
	})
}

// Audio returns the voice note or audio file e carries, nil if none. A
// stream asks it of each update it sends: the audio is the wire's first
// field when there is one (appendWire), so the answer for any other
// update is its first byte.
func (e Encoded) Audio() *Audio {
	if len(e.Wire) == 0 || e.Wire[0] != audioTag {
		return nil
	}
	_, n := protowire.ConsumeBytes(e.Wire[1:])
	var u Update
	if n < 0 || !decodeWire(&u, e.Wire[:1+n]) {
		return nil
	}
	return u.Audio
}

// audioTag is the audio field's tag: one byte.
var audioTag = byte(protowire.EncodeTag(fUpdateAudio, protowire.BytesType))

// WithTranscript returns e with its text replaced by text and its audio's
// transcript fields set (status, the transcript, the note): the fields
// are appended to a copy of the wire, where protobuf takes the last
// text and merges the audio message into the first.
func (e Encoded) WithTranscript(text string, status int32, transcript, note string) Encoded {
	var ab []byte
	if status != 0 {
		ab = protowire.AppendTag(ab, fAudioStatus, protowire.VarintType)
		ab = protowire.AppendVarint(ab, uint64(status))
	}
	if transcript != "" {
		ab = protowire.AppendTag(ab, fAudioTranscript, protowire.BytesType)
		ab = protowire.AppendString(ab, transcript)
	}
	if note != "" {
		ab = protowire.AppendTag(ab, fAudioNote, protowire.BytesType)
		ab = protowire.AppendString(ab, note)
	}
	w := make([]byte, 0, len(e.Wire)+len(text)+len(ab)+16)
	w = append(w, e.Wire...)
	w = protowire.AppendTag(w, fUpdateText, protowire.BytesType)
	w = protowire.AppendString(w, text)
	w = protowire.AppendTag(w, fUpdateAudio, protowire.BytesType)
	w = protowire.AppendBytes(w, ab)
	e.Wire = w
	return e
}

// eachField calls fn with each field of the protobuf message b (val for
// length-delimited fields, x for varints); false if b is malformed, has a
// field of another wire type, or fn returns false.
func eachField(b []byte, fn func(num protowire.Number, typ protowire.Type, val []byte, x uint64) bool) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		var val []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			val, n = protowire.ConsumeBytes(b)
		default:
			return false
		}
		if n < 0 || !fn(num, typ, val, x) {
			return false
		}
		b = b[n:]
	}
	return true
}
