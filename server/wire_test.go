package server

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/google/go-cmp/cmp"

	"github.com/chatbus/chatbus/bench"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/transcribe"
)

// TestSubscribeWireIsTheProto: a Subscribe response built from the
// journal's bytes (store.ReadEncoded, subscribeResponse) decodes to what
// updateToProto and the proto codec would have sent, for the updates a
// journal holds, in both forms (batched, single).
func TestSubscribeWireIsTheProto(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)
	tests := []struct {
		name     string
		u        store.Update
		platform string
	}{
		{name: "telegram message", platform: "telegram", u: store.Update{
			Provider: "telegram", PlatformUpdateID: 900001, DedupID: "900001", Kind: 1,
			Chat: "-1001234567890", Thread: "42", FromUserID: 777, Sender: "777", SenderName: "Ada",
			Refs: []store.Ref{{Kind: store.RefMessage, ID: "55"}, {Kind: store.RefFile, ID: "AgAD-x"}},
			Text: "héllo 👋", Payload: []byte(`{"update_id":900001}`), ReceivedAt: at}},
		{name: "slack ids are text", platform: "slack", u: store.Update{
			Provider: "slack", DedupID: "Ev01", Kind: 2, Chat: "C024BE91L", Thread: "1700000000.000100",
			Sender: "U0G9QF9C6", Text: "edited", ReceivedAt: at}},
		{name: "negative and empty", u: store.Update{
			Provider: "p", PlatformUpdateID: -5, FromUserID: -7, Chat: "-3", ReceivedAt: time.Now().Add(-time.Minute)}},
		{name: "no time", u: store.Update{Provider: "p", Chat: "1", Thread: "2"}},
		{name: "nothing but a provider", u: store.Update{Provider: "p", ReceivedAt: at}},
		{name: "voice note", platform: "telegram", u: store.Update{
			Provider: "telegram", PlatformUpdateID: 900002, Kind: 1, Chat: "-100", Thread: "7",
			Refs: []store.Ref{{Kind: store.RefFile, ID: "AwAD-v"}}, ReceivedAt: at,
			Audio: &store.Audio{FileID: "AwAD-v", MIME: "audio/ogg", Duration: 7, Size: 12345, FileName: "voice.ogg", Voice: true}}},
		{name: "audio file, nothing known", u: store.Update{Provider: "p", ReceivedAt: at, Audio: &store.Audio{FileID: "f"}}},
		{name: "a ref without an id", u: store.Update{Provider: "p", ReceivedAt: at, Refs: []store.Ref{{Kind: store.RefMessage}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := store.Open(t.TempDir()+"/state.db", store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			u := tc.u
			u.BindingKey = "" // unrouted: no binding needed
			stored, err := st.Append(t.Context(), u.Provider, []store.Update{u, u}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) == 0 {
				t.Fatal("nothing stored")
			}
			enc, err := store.ReadEncoded(st, "", 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(enc) == 0 {
				sts, _ := st.UnroutedStats()
				t.Fatalf("stored %d, read none: %+v", len(stored), sts)
			}
			read, err := st.Read("", 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			var want chatbusv1.SubscribeResponse
			for _, r := range read {
				want.Updates = append(want.Updates, updateToProto(r, tc.platform))
			}
			for _, batched := range []bool{true, false} {
				msg := subscribeResponse(enc, tc.platform, batched)
				var got chatbusv1.SubscribeResponse
				if err := proto.Unmarshal(msg.buf.Materialize(), &got); err != nil {
					t.Fatalf("batched %v: %v", batched, err)
				}
				msg.buf.Free()
				w := &want
				if !batched {
					w = &chatbusv1.SubscribeResponse{Update: want.Updates[0]}
				}
				if diff := cmp.Diff(w, &got, protocmp.Transform()); diff != "" {
					t.Errorf("batched %v: (-updateToProto +wire)\n%s", batched, diff)
				}
			}
			// The wire decodes back to the update (Encoded.Update).
			back, err := enc[0].Update()
			if err != nil {
				t.Fatal(err)
			}
			back.BindingKey, back.DedupID = read[0].BindingKey, read[0].DedupID
			if diff := cmp.Diff(read[0], back); diff != "" {
				t.Errorf("Encoded.Update: (-Read +decoded)\n%s", diff)
			}
		})
	}
}

// TestTranscriptWire: the transcript a stream adds to a journalled voice
// note (Encoded.WithTranscript) decodes as the proto says: the text
// replaced, the audio's journalled fields kept and its transcript fields
// set; and transcribe's statuses are the proto's.
func TestTranscriptWire(t *testing.T) {
	st, err := store.Open(t.TempDir()+"/state.db", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u := store.Update{Provider: "telegram", Kind: 1, Chat: "-100", Thread: "7", Text: "caption", ReceivedAt: time.Now(),
		Refs:  []store.Ref{{Kind: store.RefFile, ID: "AwAD"}},
		Audio: &store.Audio{FileID: "AwAD", MIME: "audio/ogg", Duration: 7, Size: 99, Voice: true}}
	if _, err := st.Append(t.Context(), "telegram", []store.Update{u}, nil); err != nil {
		t.Fatal(err)
	}
	enc, err := store.ReadEncoded(st, "", 0, 0)
	if err != nil || len(enc) != 1 {
		t.Fatalf("read %d: %v", len(enc), err)
	}
	if a := enc[0].Audio(); a == nil || *a != *u.Audio {
		t.Fatalf("Encoded.Audio = %+v, want %+v", a, u.Audio)
	}
	e := enc[0].WithTranscript("[voice note 7s, transcript] hello", int32(transcribe.StatusDone), "hello", "")
	msg := subscribeResponse([]store.Encoded{e}, "telegram", false)
	var got chatbusv1.SubscribeResponse
	if err := proto.Unmarshal(msg.buf.Materialize(), &got); err != nil {
		t.Fatal(err)
	}
	msg.buf.Free()
	want := &chatbusv1.Audio{FileId: "AwAD", MimeType: "audio/ogg", DurationSeconds: 7, Size: 99, Voice: true,
		TranscriptStatus: chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_DONE, Transcript: "hello"}
	if diff := cmp.Diff(want, got.GetUpdate().GetAudio(), protocmp.Transform()); diff != "" {
		t.Errorf("audio (-want +got)\n%s", diff)
	}
	if got.GetUpdate().GetText() != "[voice note 7s, transcript] hello" || got.GetUpdate().GetSeq() != enc[0].Seq {
		t.Errorf("update %v", got.GetUpdate())
	}
	if enc[0].Audio() == nil || enc[0].Text() != "caption" {
		t.Error("WithTranscript changed the journal's bytes")
	}
	for s := transcribe.StatusUnspecified; s <= transcribe.StatusEmpty; s++ {
		name := chatbusv1.TranscriptStatus(s).String()
		if _, ok := chatbusv1.TranscriptStatus_name[int32(s)]; !ok || strings.HasSuffix(name, ")") {
			t.Errorf("transcribe.Status %d is no chatbus.v1.TranscriptStatus", s)
		}
	}
	if n := len(chatbusv1.TranscriptStatus_name); n != int(transcribe.StatusEmpty)+1 {
		t.Errorf("chatbus.v1.TranscriptStatus has %d values, transcribe %d", n, transcribe.StatusEmpty+1)
	}
}

// BenchmarkSubscribeEncode is the forward path of a stream message of 256
// Telegram-shaped updates from the journal's memory to the bytes handed to
// the transport: decoded and re-encoded (Read, updateToProto, the proto
// codec), against the journal's bytes sent as they are (ReadEncoded,
// subscribeResponse). Per op: one message; allocs/op over 256 is the
// per-update allocation.
//
//	go test -run '^$' -bench SubscribeEncode -benchmem ./server/
func BenchmarkSubscribeEncode(b *testing.B) {
	st, err := store.Open(b.TempDir()+"/state.db", store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const n = 256
	ups := make([]store.Update, n)
	for i := range ups {
		id := int64(900000 + i)
		text, payload := bench.TelegramUpdate(nil, id, -1001234567890, 42, time.Now())
		ups[i] = store.Update{Provider: "telegram", PlatformUpdateID: id, DedupID: strconv.FormatInt(id, 10), Kind: 1,
			Chat: "-1001234567890", Thread: "42", FromUserID: 777, Sender: "777",
			Refs: []store.Ref{{Kind: store.RefMessage, ID: strconv.FormatInt(id, 10)}}, Text: text, Payload: payload}
	}
	if _, err := st.Append(b.Context(), "telegram", ups, nil); err != nil {
		b.Fatal(err)
	}
	codec := newLenientCodec()
	b.Run("decode+encode", func(b *testing.B) {
		for b.Loop() {
			read, err := st.Read("", 0, n)
			if err != nil || len(read) != n {
				b.Fatal(err, len(read))
			}
			msg := &chatbusv1.SubscribeResponse{Updates: make([]*chatbusv1.Update, len(read))}
			for i, u := range read {
				msg.Updates[i] = updateToProto(u, "telegram")
			}
			buf, err := codec.Marshal(msg)
			if err != nil {
				b.Fatal(err)
			}
			buf.Free()
		}
	})
	b.Run("stored bytes", func(b *testing.B) {
		for b.Loop() {
			enc, err := store.ReadEncoded(st, "", 0, n)
			if err != nil || len(enc) != n {
				b.Fatal(err, len(enc))
			}
			buf, err := codec.Marshal(subscribeResponse(enc, "telegram", true))
			if err != nil {
				b.Fatal(err)
			}
			buf.Free()
		}
	})
}

// BenchmarkStreamAudioCheck is what a stream adds per update it sends to
// find voice notes (Encoded.Audio on a Telegram-shaped text message: a
// scan of its top-level fields).
//
//	go test -run '^$' -bench StreamAudioCheck -benchmem ./server/
func BenchmarkStreamAudioCheck(b *testing.B) {
	st, err := store.Open(b.TempDir()+"/state.db", store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	u := store.Update{Provider: "telegram", PlatformUpdateID: 900001, DedupID: "900001", Kind: 1,
		Chat: "-1001234567890", Thread: "42", FromUserID: 777, Sender: "777", SenderName: "Ada",
		Refs: []store.Ref{{Kind: store.RefMessage, ID: "55"}}, Text: "please run the tests again",
		Payload: []byte(`{"update_id":900001,"message":{"message_id":55,"text":"please run the tests again"}}`), ReceivedAt: time.Now()}
	if _, err := st.Append(b.Context(), "telegram", []store.Update{u}, nil); err != nil {
		b.Fatal(err)
	}
	enc, err := store.ReadEncoded(st, "", 0, 0)
	if err != nil || len(enc) != 1 {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if enc[0].Audio() != nil {
			b.Fatal("audio in a text message")
		}
	}
}
