package hub

import (
	"context"
	"io"
	"time"

	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/transcribe"
)

// Voice notes (docs/voice.md). An update that carries audio is journalled
// as it arrived, at once, like any other (the platform's cursor moves on;
// nothing waits for a transcriber), and its transcription starts then,
// off the ingest path. Its binding's stream sends it with the transcript
// in its text when the transcription is done: a stream sends in seq
// order, so what came after it in the same thread waits for it (bounded
// by the transcriber's timeout), and nothing of other threads does. The
// transcript is not journalled: a stream that sends the update again
// takes the remembered result, and after a restart the transcription runs
// again.

// startTranscripts starts transcribing the routed updates of a journalled
// batch that carry audio.
func (h *Hub) startTranscripts(stored []store.Update) {
	if h.cfg.Transcriber == nil {
		return
	}
	for i := range stored {
		if u := &stored[i]; u.Audio != nil && u.BindingKey != "" {
			h.cfg.Transcriber.Start(voiceKey(u), voiceAudio(u.Audio), h.voiceFetch(u.Provider, u.Audio.FileID))
		}
	}
}

// transcribed returns e as a follower receives it: when it carries
// audio, with its transcript (or the note saying why there is none) in
// its text and audio fields; ok is false when it carries none. The error
// is ctx's, or a journal entry that does not decode.
func (h *Hub) transcribed(ctx context.Context, e store.Encoded) (out store.Encoded, ok bool, err error) {
	if e.Audio() == nil {
		return e, false, nil
	}
	u, err := e.Update()
	if err != nil {
		return e, false, err
	}
	// Its ids are the thread's (learnt at Ingest; again here for a note
	// journalled before a restart, whose audio the follower may fetch).
	h.learn(store.Target{Provider: u.Provider, Chat: u.Chat, Thread: u.Thread}, u.Refs)
	a := voiceAudio(u.Audio)
	res, err := h.cfg.Transcriber.Wait(ctx, voiceKey(&u), a, h.voiceFetch(u.Provider, u.Audio.FileID))
	if err != nil {
		return e, false, err
	}
	text := transcribe.Say(res, u.Audio.Voice, a, u.Text)
	return e.WithTranscript(text, int32(res.Status), res.Text, res.Note), true, nil
}

func voiceKey(u *store.Update) transcribe.Key {
	return transcribe.Key{Provider: u.Provider, FileID: u.Audio.FileID}
}

func voiceAudio(a *store.Audio) transcribe.Audio {
	return transcribe.Audio{MIME: a.MIME, FileName: a.FileName, Duration: time.Duration(a.Duration) * time.Second, Size: a.Size}
}

// voiceFetch downloads a file through its provider.
func (h *Hub) voiceFetch(provider, fileID string) transcribe.Fetch {
	return func(ctx context.Context, w io.Writer) error {
		return h.cfg.Providers.Download(ctx, provider, fileID, func(chunk []byte, _ int64, _ string) error {
			_, err := w.Write(chunk)
			return err
		})
	}
}
