package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// TestVoiceTelegram: a voice note a person records in a topic (OGG/Opus,
// fetched with getFile and the file endpoint) reaches the topic's session
// as text, the transcript, with the audio still there to download.
func TestVoiceTelegram(t *testing.T) {
	needVoiceTools(t)
	ogg := speak(t, spokenWords, "voice.oga", opusArgs...)
	b := startTelegramBus(t, pocketsphinxTranscriber(t))
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	b.tg.PushVoice(forumChat, int(alpha.thread()), allowedUser, ogg, 2)
	b.tg.PushMessage(forumChat, int(alpha.thread()), allowedUser, "after the voice note")
	u := alpha.waitUpdate(t, 1)
	checkVoice(t, alpha, u, chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_DONE, ogg, "[voice note 2s, transcript]", heard)
	if !u.GetAudio().GetVoice() || u.GetAudio().GetMimeType() != "audio/ogg" || u.GetAudio().GetDurationSeconds() != 2 {
		t.Errorf("audio %+v", u.GetAudio())
	}
	// What came after it in the thread comes after it, in order.
	if u := alpha.waitUpdate(t, 2); u.GetText() != "after the voice note" {
		t.Errorf("then %q", u.GetText())
	}
	out, _, _ := b.busctl("events")
	contains(t, "busctl events", out, "voice_transcribed")
}

// TestVoiceTelegramFailures: without a transcriber, or with one that
// crashes, hangs or cannot take the file, the session still gets the voice
// note: the file, and a note saying why there is no text.
func TestVoiceTelegramFailures(t *testing.T) {
	needVoiceTools(t)
	ogg := speak(t, spokenWords, "voice.oga", opusArgs...)
	tests := []struct {
		name        string
		transcriber string
		status      chatbusv1.TranscriptStatus
		texts       []string
	}{
		{name: "none configured", status: chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_NOT_CONFIGURED,
			texts: []string{"[voice note 2s, no transcript: no transcriber is configured; the audio is attached]"}},
		{name: "crashes", transcriber: scriptTranscriber(t, "echo 'model file not found' >&2; exit 3", ""),
			status: chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_FAILED, texts: []string{"no transcript", "exit status 3", "model file not found"}},
		{name: "hangs", transcriber: scriptTranscriber(t, "exec sleep 600", "  timeout: 1s\n"),
			status: chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_TIMED_OUT, texts: []string{"no transcript: the transcriber took more than 1s"}},
		{name: "prints nothing", transcriber: scriptTranscriber(t, "printf '\\n \\t\\n'", ""),
			status: chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_EMPTY, texts: []string{"no transcript: the transcriber found no words"}},
		{name: "prints garbage", transcriber: scriptTranscriber(t, "printf 'ok\\000\\001\\377\\033[31m words\\n\\n'", ""),
			status: chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_DONE, texts: []string{"[voice note 2s, transcript] ok [31m words"}},
		{name: "too large", transcriber: pocketsphinxTranscriber(t) + "  max_bytes: 1000\n",
			status: chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_TOO_LONG, texts: []string{"no transcript: the audio is"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := startTelegramBus(t, tc.transcriber)
			alpha := b.follow(t, "manual:1", "/home/u/alpha")
			b.tg.PushVoice(forumChat, int(alpha.thread()), allowedUser, ogg, 2)
			b.tg.PushMessage(forumChat, int(alpha.thread()), allowedUser, "after")
			checkVoice(t, alpha, alpha.waitUpdate(t, 1), tc.status, ogg, tc.texts...)
			if u := alpha.waitUpdate(t, 2); u.GetText() != "after" {
				t.Errorf("then %q", u.GetText())
			}
			if tc.transcriber != "" {
				// The operator sees it too.
				out, _, _ := b.busctl("events", "-o", "json")
				contains(t, "busctl events", out, strings.ToLower(strings.TrimPrefix(tc.status.String(), "TRANSCRIPT_STATUS_")))
			}
		})
	}
}

// startHeldVoice is a voice note to send and a bus whose transcriber waits
// until the file release exists, then says "late words".
func startHeldVoice(t *testing.T) (ogg []byte, b *tgBus, release string) {
	t.Helper()
	needVoiceTools(t)
	ogg = speak(t, spokenWords, "voice.oga", opusArgs...)
	release = filepath.Join(t.TempDir(), "release")
	b = startTelegramBus(t, scriptTranscriber(t, `while [ ! -e '`+release+`' ]; do sleep 0.05; done; echo late words`, ""))
	return ogg, b, release
}

// TestVoiceTelegramHoldsNothingElse: while a transcription is under way
// (a transcriber that waits for the test's word), other threads' updates
// reach their sessions; the voice note's own thread gets it first once
// its transcript is there.
func TestVoiceTelegramHoldsNothingElse(t *testing.T) {
	ogg, b, release := startHeldVoice(t)
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	beta := b.follow(t, "manual:2", "/home/u/beta")
	b.tg.PushVoice(forumChat, int(alpha.thread()), allowedUser, ogg, 2)
	b.tg.PushMessage(forumChat, int(alpha.thread()), allowedUser, "alpha after")
	b.tg.PushMessage(forumChat, int(beta.thread()), allowedUser, "to beta")
	b.tg.PushMessage(forumChat, int(beta.thread()), allowedUser, "to beta again")
	beta.waitTexts(t, "to beta", "to beta again")
	// Both updates are journalled (the cursor moved past them), and alpha
	// has nothing yet: its voice note waits for its transcript.
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetIngested() == 4 }, "ingested 4")
	if n := alpha.count(); n != 0 {
		t.Fatalf("alpha got %d updates before its transcript", n)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	checkVoice(t, alpha, alpha.waitUpdate(t, 1), chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_DONE, ogg, "[voice note 2s, transcript] late words")
	if u := alpha.waitUpdate(t, 2); u.GetText() != "alpha after" {
		t.Errorf("then %q", u.GetText())
	}
}

// TestVoiceTelegramSupervisorKilled: the supervisor is SIGKILLed while a
// voice note waits for its transcript. The note was journalled when it
// arrived (the platform's cursor moved past it), so nothing is lost: the
// next supervisor transcribes it again and the session gets it, with its
// transcript, before what followed it.
func TestVoiceTelegramSupervisorKilled(t *testing.T) {
	ogg, b, release := startHeldVoice(t)
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	thread := int(alpha.thread())
	b.tg.PushVoice(forumChat, thread, allowedUser, ogg, 2)
	b.tg.PushMessage(forumChat, thread, allowedUser, "after")
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetIngested() == 2 }, "ingested 2")
	if n := alpha.count(); n != 0 {
		t.Fatalf("alpha got %d updates before its transcript", n)
	}
	// The session ends (its thread stays its profile's), then the
	// supervisor is killed.
	alpha.cancel()
	if err := alpha.f.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := b.d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-b.d.exited
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d2 := b.start("--config", b.configPath)
	b.waitServing(d2)
	again := follow(t, b.dial(), "manual:1", "/home/u/alpha")
	if again.thread() != int64(thread) {
		t.Fatalf("thread %d after the restart, was %d", again.thread(), thread)
	}
	checkVoice(t, again, again.waitUpdate(t, 1), chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_DONE, ogg, "[voice note 2s, transcript] late words")
	if u := again.waitUpdate(t, 2); u.GetText() != "after" {
		t.Errorf("then %q", u.GetText())
	}
}
