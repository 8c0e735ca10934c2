package e2e

import (
	"testing"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// voiceCases are what every platform's voice note test runs: the real
// transcriber, and one that fails (the session gets the file and the
// note).
func voiceCases(t *testing.T) []struct {
	name, transcriber string
	status            chatbusv1.TranscriptStatus
	text              string
} {
	return []struct {
		name, transcriber string
		status            chatbusv1.TranscriptStatus
		text              string
	}{
		{"pocketsphinx", pocketsphinxTranscriber(t), chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_DONE, heard},
		{"failing", scriptTranscriber(t, "echo 'out of memory' >&2; exit 1", ""), chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_FAILED,
			"no transcript: the transcriber transcribe.sh failed: exit status 1: out of memory; the audio is attached"},
	}
}

// TestVoiceSlack: an audio clip a person records in a Slack thread
// (WebM/Opus, file subtype slack_audio, fetched with files.info and its
// private URL) reaches the thread's session as its transcript.
func TestVoiceSlack(t *testing.T) {
	needVoiceTools(t)
	webm := speak(t, spokenWords, "clip.webm", "-c:a", "libopus", "-b:a", "32k", "-ac", "1", "-f", "webm")
	for _, tc := range voiceCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			b := startSlackBus(t, slackBusConfig{top: tc.transcriber})
			alpha := b.follow(t, "manual:1", "/home/u/alpha")
			b.st.PostAudioClip(slackChannel, slackPerson, slackThread(alpha), "audio/webm", webm, 2400*time.Millisecond)
			b.st.PostMessage(slackChannel, slackPerson, "after the clip", slackThread(alpha))
			u := alpha.waitUpdate(t, 1)
			checkVoice(t, alpha, u, tc.status, webm, "[voice note 2s, ", tc.text)
			if a := u.GetAudio(); !a.GetVoice() || a.GetMimeType() != "audio/webm" || a.GetFileName() != "audio_message.webm" {
				t.Errorf("audio %+v", a)
			}
			if u := alpha.waitUpdate(t, 2); u.GetText() != "after the clip" {
				t.Errorf("then %q", u.GetText())
			}
		})
	}
}

// TestVoiceDiscord: a voice message a person records in a Discord thread
// (flags IS_VOICE_MESSAGE, an OGG/Opus attachment with duration_secs and a
// waveform, fetched from the CDN) reaches the thread's session as its
// transcript.
func TestVoiceDiscord(t *testing.T) {
	needVoiceTools(t)
	ogg := speak(t, spokenWords, "voice-message.ogg", opusArgs...)
	for _, tc := range voiceCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			b := startDiscordBusTop(t, tc.transcriber)
			alpha := follow(t, b.c, "manual:1", "/home/u/alpha")
			b.dc.PostVoiceMessage(threadOf(alpha), b.alice, ogg, 2.4)
			b.dc.PostMessage(threadOf(alpha), b.alice, "after the voice message")
			u := alpha.waitUpdate(t, 1)
			checkVoice(t, alpha, u, tc.status, ogg, "[voice note 2s, ", tc.text)
			if a := u.GetAudio(); !a.GetVoice() || a.GetMimeType() != "audio/ogg" || a.GetFileName() != "voice-message.ogg" {
				t.Errorf("audio %+v", a)
			}
			if u := alpha.waitUpdate(t, 2); u.GetText() != "after the voice message" {
				t.Errorf("then %q", u.GetText())
			}
		})
	}
}
