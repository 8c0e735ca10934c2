package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Voice notes end to end: espeak-ng speaks a sentence, ffmpeg makes it
// what the platform sends, the platform's stand-in carries it, and the
// supervisor's transcriber is Debian's pocketsphinx (a digits grammar: its
// general model hears espeak's voice poorly, and digits it gets right),
// converted to the 16 kHz WAV it reads. CHATBUS_REQUIRE_VOICE_TESTS=1
// (.ci/run) turns a missing tool into a failure.

// spokenWords is what the voice notes say; the transcript must hold
// heard (pocketsphinx hears an extra word or two around them).
const (
	spokenWords = "one two three four five"
	heard       = "three four five"
)

// digitsGrammar restricts pocketsphinx to digits.
const digitsGrammar = `#JSGF V1.0;
grammar digits;
public <digits> = ( zero | one | two | three | four | five | six | seven | eight | nine )+ ;
`

// needVoiceTools fails or skips (see above) when a tool is missing.
func needVoiceTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"espeak-ng", "ffmpeg", "pocketsphinx_continuous"} {
		if _, err := exec.LookPath(tool); err != nil {
			unavailable(t, "CHATBUS_REQUIRE_VOICE_TESTS", "voice tests cannot run: no "+tool+" on PATH (apt-get install -y espeak-ng ffmpeg pocketsphinx pocketsphinx-en-us)")
		}
	}
	if _, err := os.Stat("/usr/share/pocketsphinx/model/en-us/en-us"); err != nil {
		unavailable(t, "CHATBUS_REQUIRE_VOICE_TESTS", "voice tests cannot run: no pocketsphinx model (apt-get install -y pocketsphinx-en-us)")
	}
}

// speak returns words spoken by espeak-ng, encoded by ffmpeg with args
// (the platform's format) into a file named name.
func speak(t *testing.T, words, name string, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	wav := filepath.Join(dir, "spoken.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-s", "130", "-w", wav, words).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v\n%s", err, out)
	}
	out := filepath.Join(dir, name)
	cmd := append([]string{"-nostdin", "-loglevel", "error", "-y", "-i", wav}, args...)
	if b, err := exec.Command("ffmpeg", append(cmd, out)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// opusArgs make what Telegram's and Discord's apps record: OGG/Opus, mono,
// 48 kHz.
var opusArgs = []string{"-c:a", "libopus", "-b:a", "24k", "-ar", "48000", "-ac", "1", "-f", "ogg"}

// pocketsphinxTranscriber is the config file's transcriber section with
// pocketsphinx as its command.
func pocketsphinxTranscriber(t *testing.T) string {
	t.Helper()
	gram := filepath.Join(t.TempDir(), "digits.gram")
	if err := os.WriteFile(gram, []byte(digitsGrammar), 0o600); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`transcriber:
  command: [pocketsphinx_continuous, -infile, "{file}", -jsgf, %q, -logfn, /dev/null]
  format: wav
`, gram)
}

// scriptTranscriber is a transcriber section whose command is a shell
// script (a transcriber that fails, hangs, or waits for the test).
func scriptTranscriber(t *testing.T, script string, more string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "transcribe.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("transcriber:\n  command: [%q, \"{file}\"]\n%s", path, more)
}

// waitUpdate waits for fl's update number n (from 1) and returns it.
func (fl *follower) waitUpdate(t *testing.T, n int) *chatbusv1.Update {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		fl.mu.Lock()
		if len(fl.got) >= n {
			u := fl.got[n-1]
			fl.mu.Unlock()
			return u
		}
		got := len(fl.got)
		fl.mu.Unlock()
		select {
		case <-fl.arrived:
		case <-deadline:
			t.Fatalf("%d updates, waiting for number %d", got, n)
		}
	}
}

// count is how many updates fl has received.
func (fl *follower) count() int {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return len(fl.got)
}

// checkVoice checks a voice note's update: its status, its text (holding
// each of texts), its audio still downloadable as sent.
func checkVoice(t *testing.T, fl *follower, u *chatbusv1.Update, status chatbusv1.TranscriptStatus, sent []byte, texts ...string) {
	t.Helper()
	a := u.GetAudio()
	if a.GetTranscriptStatus() != status {
		t.Fatalf("transcript status %v (note %q), want %v; text %q", a.GetTranscriptStatus(), a.GetNote(), status, u.GetText())
	}
	for _, want := range texts {
		if !strings.Contains(u.GetText(), want) {
			t.Errorf("text %q does not hold %q", u.GetText(), want)
		}
	}
	if status == chatbusv1.TranscriptStatus_TRANSCRIPT_STATUS_DONE && !strings.Contains(u.GetText(), a.GetTranscript()) {
		t.Errorf("text %q does not hold the transcript %q", u.GetText(), a.GetTranscript())
	}
	listed := false
	for _, r := range u.GetReferences() {
		listed = listed || (r.GetKind() == chatbusv1.ReferenceKind_REFERENCE_KIND_FILE && r.GetId() == a.GetFileId())
	}
	if !listed {
		t.Errorf("the audio %q is not among the update's references %v", a.GetFileId(), u.GetReferences())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got bytes.Buffer
	if _, err := fl.f.DownloadFile(ctx, a.GetFileId(), &got); err != nil {
		t.Fatalf("download the audio: %v", err)
	}
	if !bytes.Equal(got.Bytes(), sent) {
		t.Errorf("downloaded %d bytes, sent %d", got.Len(), len(sent))
	}
}
