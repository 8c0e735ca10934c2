package transcribe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/server/transcribe"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// script writes a shell script and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "transcribe.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// bytesFetch serves data as the audio file.
func bytesFetch(data []byte) transcribe.Fetch {
	return func(_ context.Context, w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

func newT(t *testing.T, c transcribe.Config) *transcribe.Transcriber {
	t.Helper()
	c.TempDir = t.TempDir()
	tr, err := transcribe.New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.Close)
	return tr
}

func wait(t *testing.T, tr *transcribe.Transcriber, id string, a transcribe.Audio, f transcribe.Fetch) transcribe.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := tr.Wait(ctx, transcribe.Key{Provider: "p", FileID: id}, a, f)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCommand: a command transcriber's outcomes, each a Result, never an
// error: the words, a crash, a hang, silence, and the limits.
func TestCommand(t *testing.T) {
	audio := []byte("pretend audio: the words")
	tests := []struct {
		name   string
		cfg    transcribe.Config
		audio  transcribe.Audio
		data   []byte
		status transcribe.Status
		text   string // the transcript, or a part of the note
	}{
		{name: "reads the file it is given", cfg: transcribe.Config{Command: []string{"cat", "{file}"}},
			status: transcribe.StatusDone, text: "pretend audio: the words"},
		{name: "the path goes last without {file}", cfg: transcribe.Config{Command: []string{"cat"}},
			status: transcribe.StatusDone, text: "pretend audio: the words"},
		{name: "an argument holding {file}", cfg: transcribe.Config{Command: []string{"sh", "-c", "cat \"$0\"", "{file}"}},
			status: transcribe.StatusDone, text: "pretend audio: the words"},
		{name: "named as its kind", cfg: transcribe.Config{Command: []string{"basename", "{file}"}},
			audio: transcribe.Audio{MIME: "audio/ogg"}, status: transcribe.StatusDone, text: "audio.ogg"},
		{name: "exits with an error", cfg: transcribe.Config{Command: []string{script(t, "echo starting >&2; echo 'no model at /x' >&2; exit 2")}},
			status: transcribe.StatusFailed, text: "exit status 2: no model at /x"},
		{name: "no such program", cfg: transcribe.Config{Command: []string{"/nonexistent/whisper-cli"}},
			status: transcribe.StatusFailed, text: "no such file"},
		{name: "hangs", cfg: transcribe.Config{Command: []string{script(t, "exec sleep 600")}, Timeout: 200 * time.Millisecond},
			status: transcribe.StatusTimedOut, text: "the transcriber took more than 200ms"},
		{name: "a hung child holding its output", cfg: transcribe.Config{Command: []string{script(t, "sleep 600 & wait")}, Timeout: 200 * time.Millisecond},
			status: transcribe.StatusTimedOut, text: "took more than"},
		{name: "no words", cfg: transcribe.Config{Command: []string{script(t, "echo '  '")}},
			status: transcribe.StatusEmpty, text: "no words"},
		{name: "control characters and bad UTF-8", cfg: transcribe.Config{Command: []string{script(t, `printf 'a\000b\tc\377\n\nd  é'`)}},
			status: transcribe.StatusDone, text: "a b c d é"},
		{name: "cut at max_chars", cfg: transcribe.Config{Command: []string{script(t, "echo one two three four five")}, MaxChars: 12},
			status: transcribe.StatusDone, text: "one two …"},
		{name: "larger than said", cfg: transcribe.Config{Command: []string{"cat"}, MaxBytes: 1000},
			audio: transcribe.Audio{Size: 1001}, status: transcribe.StatusTooLong, text: "the audio is 1 KiB, more than the 1 KiB transcribed"},
		{name: "larger than it said", cfg: transcribe.Config{Command: []string{"cat"}, MaxBytes: 10},
			status: transcribe.StatusTooLong, text: "more than the 1 KiB transcribed"},
		{name: "longer than said", cfg: transcribe.Config{Command: []string{"cat"}, MaxDuration: time.Minute},
			audio: transcribe.Audio{Duration: 61 * time.Second}, status: transcribe.StatusTooLong, text: "1m1s long, more than the 1m0s"},
		{name: "ffmpeg missing", cfg: transcribe.Config{Command: []string{"cat"}, Format: "wav", FFmpeg: "/nonexistent/ffmpeg"},
			status: transcribe.StatusFailed, text: "ffmpeg is not installed, and the transcriber wants wav"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newT(t, tc.cfg)
			data := tc.data
			if data == nil {
				data = audio
			}
			res := wait(t, tr, "f1", tc.audio, bytesFetch(data))
			if res.Status != tc.status {
				t.Fatalf("status %d (%+v), want %d", res.Status, res, tc.status)
			}
			got := res.Note
			if res.Status == transcribe.StatusDone {
				got = res.Text
				if res.Note != "" {
					t.Errorf("note %q with a transcript", res.Note)
				}
				if got != tc.text {
					t.Errorf("transcript %q, want %q", got, tc.text)
				}
			}
			if !strings.Contains(got, tc.text) {
				t.Errorf("note %q does not say %q", got, tc.text)
			}
		})
	}
}

// TestConvert: with a format, ffmpeg converts what arrived first (here
// OGG/Opus into 16 kHz mono WAV), and audio longer than MaxDuration, its
// length unknown before, is found too long.
func TestConvert(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CHATBUS_REQUIRE_VOICE_TESTS") == "1" {
			t.Fatal("no ffmpeg on PATH, and CHATBUS_REQUIRE_VOICE_TESTS=1 forbids skipping (apt-get install -y ffmpeg)")
		}
		t.Skip("SKIPPED, not run: no ffmpeg on PATH (apt-get install -y ffmpeg; CI runs it: CHATBUS_REQUIRE_VOICE_TESTS=1)")
	}
	ogg := filepath.Join(t.TempDir(), "tone.ogg")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
		"-c:a", "libopus", "-ac", "1", "-ar", "48000", ogg).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
	data, err := os.ReadFile(ogg)
	if err != nil {
		t.Fatal(err)
	}
	// The command reports what it got: the file's magic and its size.
	probe := script(t, `head -c 4 "$1"; echo; wc -c < "$1"`)
	res := wait(t, newT(t, transcribe.Config{Command: []string{probe}, Format: "wav"}), "tone", transcribe.Audio{MIME: "audio/ogg"}, bytesFetch(data))
	// 3 s of 16 kHz 16-bit mono: 96000 bytes and the header.
	if res.Status != transcribe.StatusDone || !strings.HasPrefix(res.Text, "RIFF ") || res.Text < "RIFF 96" {
		t.Errorf("the command got %+v, want a 3 s WAV", res)
	}
	res = wait(t, newT(t, transcribe.Config{Command: []string{probe}, Format: "wav", MaxDuration: time.Second}), "tone", transcribe.Audio{MIME: "audio/ogg"}, bytesFetch(data))
	if res.Status != transcribe.StatusTooLong {
		t.Errorf("3 s with max_duration 1s: %+v", res)
	}
	res = wait(t, newT(t, transcribe.Config{Command: []string{probe}, Format: "wav"}), "junk", transcribe.Audio{}, bytesFetch([]byte("not audio")))
	if res.Status != transcribe.StatusFailed || !strings.Contains(res.Note, "ffmpeg could not convert the audio to wav") {
		t.Errorf("junk: %+v", res)
	}
}

// TestEndpoint: the OpenAI-compatible shape: a multipart POST with the
// file, the model and the language, the key as a bearer token; its
// answers, good and bad.
func TestEndpoint(t *testing.T) {
	type seen struct {
		auth, model, lang, format, filename string
		file                                []byte
	}
	got := make(chan seen, 1)
	answer := func(w http.ResponseWriter, r *http.Request) {
		var s seen
		s.auth = r.Header.Get("Authorization")
		if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
			http.Error(w, "wrong endpoint", http.StatusNotFound)
			return
		}
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.model, s.lang, s.format = r.FormValue("model"), r.FormValue("language"), r.FormValue("response_format")
		f, h, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.filename = h.Filename
		s.file, _ = io.ReadAll(f)
		got <- s
		switch s.model {
		case "bad":
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "model bad does not exist"}})
		case "html":
			w.Write([]byte("<html>"))
		default:
			json.NewEncoder(w).Encode(map[string]any{"text": " hello\nthere "})
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(answer))
	defer srv.Close()
	url := srv.URL + "/v1/audio/transcriptions"
	audio := transcribe.Audio{MIME: "audio/mpeg"}

	res := wait(t, newT(t, transcribe.Config{URL: url, APIKey: "sk-test", Language: "en"}), "a", audio, bytesFetch([]byte("ID3 audio")))
	if res.Status != transcribe.StatusDone || res.Text != "hello there" {
		t.Errorf("result %+v", res)
	}
	s := <-got
	want := seen{auth: "Bearer sk-test", model: "whisper-1", lang: "en", format: "json", filename: "audio.mp3", file: []byte("ID3 audio")}
	if s.auth != want.auth || s.model != want.model || s.lang != want.lang || s.format != want.format || s.filename != want.filename || !bytes.Equal(s.file, want.file) {
		t.Errorf("the endpoint saw %+v, want %+v", s, want)
	}

	res = wait(t, newT(t, transcribe.Config{URL: url, Model: "bad"}), "a", audio, bytesFetch([]byte("x")))
	<-got
	if res.Status != transcribe.StatusFailed || !strings.Contains(res.Note, "400 Bad Request: model bad does not exist") {
		t.Errorf("an error answer: %+v", res)
	}
	res = wait(t, newT(t, transcribe.Config{URL: url, Model: "html"}), "a", audio, bytesFetch([]byte("x")))
	<-got
	if res.Status != transcribe.StatusFailed || !strings.Contains(res.Note, "not JSON") {
		t.Errorf("an answer that is not JSON: %+v", res)
	}
	res = wait(t, newT(t, transcribe.Config{URL: srv.URL + "/nowhere"}), "a", audio, bytesFetch([]byte("x")))
	if res.Status != transcribe.StatusFailed || !strings.Contains(res.Note, "404") {
		t.Errorf("a wrong URL: %+v", res)
	}
}

// TestRemembers: a file is transcribed once, however often its result is
// asked for; a fetch that fails is a result too.
func TestRemembers(t *testing.T) {
	count := filepath.Join(t.TempDir(), "runs")
	tr := newT(t, transcribe.Config{Command: []string{script(t, `echo run >> '`+count+`'; echo words`)}})
	for range 3 {
		if res := wait(t, tr, "same", transcribe.Audio{}, bytesFetch([]byte("x"))); res.Text != "words" {
			t.Fatalf("result %+v", res)
		}
	}
	b, _ := os.ReadFile(count)
	if n := strings.Count(string(b), "run"); n != 1 {
		t.Errorf("the command ran %d times, want 1", n)
	}
	res := wait(t, tr, "gone", transcribe.Audio{}, func(context.Context, io.Writer) error { return io.ErrUnexpectedEOF })
	if res.Status != transcribe.StatusFailed || !strings.Contains(res.Note, "the audio could not be fetched: unexpected EOF") {
		t.Errorf("a failed fetch: %+v", res)
	}
}

// TestBounded: Concurrency run at once, MaxQueued wait, and beyond that a
// voice note is failed at once as busy; Close ends what runs.
func TestBounded(t *testing.T) {
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	prog := script(t, `touch "$(dirname "$0")/started.$$"; while [ ! -e '`+release+`' ]; do sleep 0.02; done; echo done`)
	tr, err := transcribe.New(transcribe.Config{
		Command:     []string{prog},
		Concurrency: 1, MaxQueued: 1, TempDir: dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	k := func(id string) transcribe.Key { return transcribe.Key{Provider: "p", FileID: id} }
	tr.Start(k("running"), transcribe.Audio{}, bytesFetch([]byte("1")))
	// The second waits its turn only once the first holds the one slot.
	deadline := time.Now().Add(20 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(filepath.Dir(prog), "started.*"))
		if len(m) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first transcription never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tr.Start(k("queued"), transcribe.Audio{}, bytesFetch([]byte("2")))
	res := wait(t, tr, "refused", transcribe.Audio{}, bytesFetch([]byte("3")))
	if res.Status != transcribe.StatusFailed || !strings.Contains(res.Note, "busy") {
		t.Errorf("a third with one running and one queued: %+v", res)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"running", "queued"} {
		if res := wait(t, tr, id, transcribe.Audio{}, nil); res.Text != "done" {
			t.Errorf("%s: %+v", id, res)
		}
	}
}

// TestNotConfigured: no transcriber is a result, not an error.
func TestNotConfigured(t *testing.T) {
	tr, err := transcribe.New(transcribe.Config{})
	if err != nil || tr != nil {
		t.Fatalf("New(zero) = %v, %v; want nil, nil", tr, err)
	}
	res, err := tr.Wait(context.Background(), transcribe.Key{}, transcribe.Audio{}, nil)
	if err != nil || res.Status != transcribe.StatusNotConfigured {
		t.Errorf("Wait on none: %+v, %v", res, err)
	}
	for _, c := range []transcribe.Config{
		{Command: []string{"x"}, URL: "http://x"},
		{Command: []string{"x"}, Format: "aiff"},
		{Command: []string{""}},
	} {
		if _, err := transcribe.New(c); err == nil {
			t.Errorf("New(%+v) took it", c)
		}
	}
}

// TestSay: what a session reads.
func TestSay(t *testing.T) {
	tests := []struct {
		name    string
		r       transcribe.Result
		voice   bool
		a       transcribe.Audio
		caption string
		want    string
	}{
		{"voice note", transcribe.Result{Status: transcribe.StatusDone, Text: "seven four two"}, true, transcribe.Audio{Duration: 7 * time.Second}, "",
			"[voice note 7s, transcript] seven four two"},
		{"audio file with a caption", transcribe.Result{Status: transcribe.StatusDone, Text: "hi"}, false, transcribe.Audio{FileName: "memo.mp3", Duration: 123 * time.Second}, " the memo ",
			"[audio file \"memo.mp3\" 2m3s, transcript] hi\nthe memo"},
		{"failed", transcribe.Result{Status: transcribe.StatusFailed, Note: "the transcriber whisper-cli failed: exit status 1"}, true, transcribe.Audio{}, "",
			"[voice note, no transcript: the transcriber whisper-cli failed: exit status 1; the audio is attached]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := transcribe.Say(tc.r, tc.voice, tc.a, tc.caption); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
