package e2e

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

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

// upload sends a file from the page as its script does (multipart:
// client_id, caption, voice and seconds for a recording made with its
// microphone button, then the file), retried until the playground
// answers.
func (p *person) upload(room int64, clientID, name, mimeType string, data []byte, seconds float64) {
	p.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("client_id", clientID)
	mw.WriteField("caption", "")
	if seconds > 0 {
		mw.WriteField("voice", "1")
		mw.WriteField("seconds", strconv.FormatFloat(seconds, 'f', 3, 64))
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, name))
	h.Set("Content-Type", mimeType)
	w, _ := mw.CreatePart(h)
	w.Write(data)
	mw.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/rooms/%d/files", p.origin, room), bytes.NewReader(body.Bytes()))
		req.Header.Set("Origin", p.origin)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := p.c.Do(req)
		if err == nil {
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch {
			case resp.StatusCode < 300:
				return
			case resp.StatusCode < 500:
				p.t.Fatalf("upload: %d %s", resp.StatusCode, out)
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("upload: no answer within 60s (last: %v)", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestVoicePlayground: a recording made with the page's microphone button
// (WebM/Opus, as Chromium's MediaRecorder makes it) and an audio file
// uploaded on the page reach the room's session as their transcripts.
func TestVoicePlayground(t *testing.T) {
	needVoiceTools(t)
	webm := speak(t, spokenWords, "voice.webm", "-c:a", "libopus", "-b:a", "32k", "-ac", "1", "-f", "webm")
	mp3 := speak(t, spokenWords, "memo.mp3", "-c:a", "libmp3lame", "-b:a", "64k", "-f", "mp3")
	for _, tc := range voiceCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			b := startPlaygroundBus(t, tc.transcriber)
			p := openPage(t, b.loggedURL(t, "playground chat page: open "))
			alpha := follow(t, b.c, "manual:1", "/home/u/alpha")
			var room int64
			fmt.Sscan(alpha.f.Registered().GetBinding().GetTarget().GetThread(), &room)
			p.upload(room, "rec-1", "voice.webm", "audio/webm;codecs=opus", webm, 2.4)
			p.upload(room, "file-1", "memo.mp3", "audio/mpeg", mp3, 0)
			p.say(room, "c1", "after the audio")
			u := alpha.waitUpdate(t, 1)
			checkVoice(t, alpha, u, tc.status, webm, "[voice note 2s, ", tc.text)
			if a := u.GetAudio(); !a.GetVoice() || a.GetMimeType() != "audio/webm;codecs=opus" {
				t.Errorf("audio %+v", a)
			}
			u = alpha.waitUpdate(t, 2)
			checkVoice(t, alpha, u, tc.status, mp3, `[audio file "memo.mp3", `, tc.text)
			if a := u.GetAudio(); a.GetVoice() || a.GetMimeType() != "audio/mpeg" {
				t.Errorf("audio %+v", a)
			}
			if u := alpha.waitUpdate(t, 3); u.GetText() != "after the audio" {
				t.Errorf("then %q", u.GetText())
			}
		})
	}
}

// TestVoicePlaygroundBrowser: a person presses the page's microphone
// button in a real Chromium whose microphone plays a spoken sentence (its
// fake capture device), stops it when the sentence is over; the room's
// session reads the sentence's words.
func TestVoicePlaygroundBrowser(t *testing.T) {
	needVoiceTools(t)
	wav := filepath.Join(t.TempDir(), "spoken.wav")
	if err := os.WriteFile(wav, speak(t, spokenWords, "mic.wav", "-ar", "48000", "-ac", "1", "-c:a", "pcm_s16le", "-f", "wav"), 0o600); err != nil {
		t.Fatal(err)
	}
	tab := browserCtxWith(t, chromedp.Flag("use-fake-ui-for-media-stream", true), chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-audio-capture", wav+"%noloop"))
	b := startPlaygroundBus(t, pocketsphinxTranscriber(t))
	alpha := follow(t, b.c, "manual:1", "/home/u/alpha")
	room := fmt.Sprintf(`#room-list li[data-room="%s"]`, alpha.f.Registered().GetBinding().GetTarget().GetThread())
	within(t, tab, 20*time.Second, "open the chat page", chromedp.Navigate(b.loggedURL(t, "playground chat page: open ")))
	until(t, tab, "the follower's room", fmt.Sprintf(`!!document.querySelector(%q)`, room))
	within(t, tab, 10*time.Second, "pick the room", chromedp.Click(chromedp.CSS(room)), chromedp.WaitEnabled(chromedp.CSS("#record")))
	within(t, tab, 10*time.Second, "start recording", chromedp.Click(chromedp.CSS("#record")))
	until(t, tab, "the recording", `!!recorder && recorder.state === "recording"`)
	// The fake microphone plays the sentence in real time: let it finish.
	time.Sleep(4 * time.Second)
	within(t, tab, 10*time.Second, "stop recording", chromedp.Click(chromedp.CSS("#record")))
	u := alpha.waitUpdate(t, 1)
	a := u.GetAudio()
	if a.GetTranscriptStatus() != chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_DONE || !a.GetVoice() || !strings.Contains(u.GetText(), heard) {
		t.Fatalf("update %q, audio %+v", u.GetText(), a)
	}
	until(t, tab, "the voice note on the page", `!!document.querySelector(".msg .file audio")`)
}
