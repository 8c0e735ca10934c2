// Package transcribe turns the voice notes and audio files people send
// into text, with the transcriber the person configured once for the
// supervisor: a command that reads an audio file and prints its words
// (whisper.cpp's CLI, pocketsphinx, any script), or an OpenAI-compatible
// /v1/audio/transcriptions endpoint (whisper.cpp's server, faster-whisper
// servers, OpenAI). Audio is converted with ffmpeg first when the
// transcriber names a format.
//
// Everything is bounded: the audio (bytes, seconds), the work at once
// (Concurrency running, MaxQueued waiting), each transcription (Timeout,
// from the fetch to the last word) and the transcript (MaxChars). A
// transcription never fails its update: every outcome is a Result, with a
// Status and a note a person can read.
//
// Goroutines: each started job runs on its own goroutine until it is done;
// Close cancels them all and waits for them.
package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"
)

// Status says whether a transcription gave words, and if not, why. The
// values are chatbus.v1.TranscriptStatus's.
type Status int32

const (
	StatusUnspecified   Status = 0
	StatusDone          Status = 1 // the words are in Result.Text
	StatusNotConfigured Status = 2 // no transcriber is configured
	StatusFailed        Status = 3 // the transcriber, the fetch or the conversion failed
	StatusTimedOut      Status = 4 // longer than Config.Timeout
	StatusTooLong       Status = 5 // beyond MaxBytes or MaxDuration
	StatusEmpty         Status = 6 // the transcriber found no words
)

var statusNames = map[Status]string{
	StatusDone: "done", StatusNotConfigured: "not_configured", StatusFailed: "failed",
	StatusTimedOut: "timed_out", StatusTooLong: "too_long", StatusEmpty: "empty",
}

// String is the status in a metric's or an event's words ("timed_out").
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return "unspecified"
}

// Config is the transcriber a person configured. Exactly one of Command
// and URL is set (New refuses both; neither is no transcriber).
type Config struct {
	// Command is the program and its arguments; an argument "{file}" is
	// replaced by the audio file's path (without one the path is added
	// last). It prints the words on stdout and exits 0.
	Command []string
	// URL is an OpenAI-compatible transcription endpoint, in full
	// ("http://127.0.0.1:8080/v1/audio/transcriptions"). The audio goes
	// as the multipart field "file", with "model" and, if set,
	// "language"; the answer is JSON {"text": …}.
	URL string
	// Model is the endpoint's "model" field. If empty, "whisper-1".
	Model string
	// APIKey, if set, goes as "Authorization: Bearer <key>".
	APIKey string
	// Language, if set, is passed to the endpoint ("en").
	Language string
	// Format is what the transcriber wants: "wav" (16 kHz mono 16-bit
	// PCM, what whisper.cpp's CLI and pocketsphinx read), "mp3", "flac"
	// or "ogg" (Opus), converted with ffmpeg; empty: the file as it
	// arrived.
	Format string
	// FFmpeg is the ffmpeg program. If empty, "ffmpeg" from PATH.
	FFmpeg string
	// Timeout bounds one transcription: fetching, converting and
	// transcribing. If zero, 2m.
	Timeout time.Duration
	// MaxBytes is the largest audio file transcribed. If zero, 25 MiB
	// (OpenAI's limit).
	MaxBytes int64
	// MaxDuration is the longest audio transcribed. If zero, 10m.
	MaxDuration time.Duration
	// MaxChars bounds a transcript, in characters; a longer one is cut
	// and marked so. If zero, 8000.
	MaxChars int
	// Concurrency is how many transcriptions run at once. If zero, 2.
	Concurrency int
	// MaxQueued is how many more may wait for their turn; beyond, a voice
	// note gets StatusFailed at once ("busy"). If zero, 64.
	MaxQueued int
	// TempDir holds the audio while it is transcribed. If empty, the
	// system's.
	TempDir string
	Logger  zerolog.Logger
	// OnResult, if set, is told each transcription's outcome and how long
	// it took (its turn included), on the goroutine that ran it.
	OnResult func(k Key, r Result, took time.Duration)
}

// Formats are the values Config.Format takes, with ffmpeg's arguments
// for each.
var Formats = map[string][]string{
	"wav":  {"-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", "-f", "wav"},
	"mp3":  {"-ar", "16000", "-ac", "1", "-f", "mp3"},
	"flac": {"-ar", "16000", "-ac", "1", "-f", "flac"},
	"ogg":  {"-ac", "1", "-c:a", "libopus", "-f", "ogg"},
}

// Audio is what the platform said about a file.
type Audio struct {
	MIME     string
	FileName string
	Duration time.Duration // 0: not known
	Size     int64         // 0: not known
}

// Fetch writes the audio file to w.
type Fetch func(ctx context.Context, w io.Writer) error

// Result is a transcription's outcome.
type Result struct {
	Status Status
	// Text is the transcript (StatusDone).
	Text string
	// Note says, for a person, why there is no transcript.
	Note string
}

// Key names one audio file: its provider and its file id.
type Key struct{ Provider, FileID string }

// Transcriber runs transcriptions and remembers their results, so that a
// stream that sends a voice note again (a reconnect, a successor) does
// not transcribe it again. A nil *Transcriber is no transcriber.
type Transcriber struct {
	cfg  Config
	log  zerolog.Logger
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
	run  chan struct{} // a slot per running transcription

	mu     sync.Mutex // guards jobs, order, queued
	jobs   map[Key]*job
	order  []Key // jobs in the order they started: the oldest done ones are forgotten first
	queued int   // jobs waiting for a slot
}

// maxJobs is how many results a Transcriber remembers.
const maxJobs = 1024

type job struct {
	done chan struct{}
	res  Result // set before done is closed
}

// Configured reports whether c names a transcriber.
func (c Config) Configured() bool { return len(c.Command) > 0 || c.URL != "" }

// Check says what is wrong with c, nil if nothing.
func (c Config) Check() error {
	switch {
	case len(c.Command) > 0 && c.URL != "":
		return errors.New("transcriber: command and url are exclusive: name one")
	case len(c.Command) > 0 && c.Command[0] == "":
		return errors.New("transcriber: command: the program is empty")
	case c.Format != "" && Formats[c.Format] == nil:
		return fmt.Errorf("transcriber: format %q: one of wav, mp3, flac, ogg (or leave it out: the file as it arrived)", c.Format)
	case c.Timeout < 0, c.MaxBytes < 0, c.MaxDuration < 0, c.MaxChars < 0, c.Concurrency < 0, c.MaxQueued < 0:
		return errors.New("transcriber: limits must not be negative")
	}
	return nil
}

// New returns the transcriber c names; nil (no transcriber: every voice
// note gets StatusNotConfigured) if it names none.
func New(c Config) (*Transcriber, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if !c.Configured() {
		return nil, nil
	}
	if c.Model == "" {
		c.Model = "whisper-1"
	}
	if c.FFmpeg == "" {
		c.FFmpeg = "ffmpeg"
	}
	if c.Timeout == 0 {
		c.Timeout = 2 * time.Minute
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = 25 << 20
	}
	if c.MaxDuration == 0 {
		c.MaxDuration = 10 * time.Minute
	}
	if c.MaxChars == 0 {
		c.MaxChars = 8000
	}
	if c.Concurrency == 0 {
		c.Concurrency = 2
	}
	if c.MaxQueued == 0 {
		c.MaxQueued = 64
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Transcriber{
		cfg: c, log: c.Logger.With().Str("component", "transcriber").Logger(),
		ctx: ctx, stop: stop, run: make(chan struct{}, c.Concurrency), jobs: make(map[Key]*job),
	}, nil
}

// Close cancels the transcriptions under way and waits for them.
func (t *Transcriber) Close() {
	if t == nil {
		return
	}
	t.stop()
	t.wg.Wait()
}

// Start begins transcribing k unless it is already begun or done; it
// never waits.
func (t *Transcriber) Start(k Key, a Audio, fetch Fetch) {
	if t == nil {
		return
	}
	t.start(k, a, fetch)
}

// Wait returns k's result, starting its transcription if it is not
// begun, and waiting for it (at most the transcriber's Timeout, plus its
// turn). The error is ctx's only.
func (t *Transcriber) Wait(ctx context.Context, k Key, a Audio, fetch Fetch) (Result, error) {
	if t == nil {
		return Result{Status: StatusNotConfigured, Note: "no transcriber is configured"}, nil
	}
	j := t.start(k, a, fetch)
	select {
	case <-j.done:
		return j.res, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

func (t *Transcriber) start(k Key, a Audio, fetch Fetch) *job {
	t.mu.Lock()
	defer t.mu.Unlock()
	if j, ok := t.jobs[k]; ok {
		return j
	}
	j := &job{done: make(chan struct{})}
	t.jobs[k] = j
	t.order = append(t.order, k)
	t.forget()
	if t.queued >= t.cfg.MaxQueued {
		j.res = Result{Status: StatusFailed, Note: fmt.Sprintf("the transcriber is busy (%d voice notes wait already)", t.queued)}
		close(j.done)
		return j
	}
	t.queued++
	t.wg.Add(1)
	began := time.Now()
	go func() {
		defer t.wg.Done()
		defer close(j.done)
		select {
		case t.run <- struct{}{}:
		case <-t.ctx.Done():
			t.mu.Lock()
			t.queued--
			t.mu.Unlock()
			j.res = Result{Status: StatusFailed, Note: "the supervisor stopped"}
			return
		}
		t.mu.Lock()
		t.queued--
		t.mu.Unlock()
		defer func() { <-t.run }()
		j.res = t.transcribe(a, fetch)
		if t.cfg.OnResult != nil {
			t.cfg.OnResult(k, j.res, time.Since(began))
		}
	}()
	return j
}

// forget drops the oldest finished jobs beyond maxJobs (t.mu held).
func (t *Transcriber) forget() {
	for i := 0; len(t.jobs) > maxJobs && i < len(t.order); {
		k := t.order[i]
		j := t.jobs[k]
		select {
		case <-j.done:
			delete(t.jobs, k)
			t.order = append(t.order[:i], t.order[i+1:]...)
		default:
			i++
		}
	}
}

// transcribe runs one transcription to its Result.
func (t *Transcriber) transcribe(a Audio, fetch Fetch) Result {
	c := t.cfg
	if a.Size > c.MaxBytes {
		return Result{Status: StatusTooLong, Note: fmt.Sprintf("the audio is %s, more than the %s transcribed", size(a.Size), size(c.MaxBytes))}
	}
	if a.Duration > c.MaxDuration {
		return Result{Status: StatusTooLong, Note: fmt.Sprintf("the audio is %s long, more than the %s transcribed", a.Duration, c.MaxDuration)}
	}
	ctx, cancel := context.WithTimeout(t.ctx, c.Timeout)
	defer cancel()
	res := t.steps(ctx, a, fetch)
	if res.Status == StatusFailed && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Result{Status: StatusTimedOut, Note: fmt.Sprintf("the transcriber took more than %s", c.Timeout)}
	}
	return res
}

func (t *Transcriber) steps(ctx context.Context, a Audio, fetch Fetch) Result {
	c := t.cfg
	dir, err := os.MkdirTemp(c.TempDir, "chatbus-voice-")
	if err != nil {
		return failed("no room for the audio: %v", err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "audio"+extension(a))
	f, err := os.OpenFile(in, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return failed("no room for the audio: %v", err)
	}
	lw := &limitWriter{w: f, left: c.MaxBytes}
	err = fetch(ctx, lw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(err, errTooLarge):
		return Result{Status: StatusTooLong, Note: fmt.Sprintf("the audio is more than the %s transcribed", size(c.MaxBytes))}
	case err != nil:
		return failed("the audio could not be fetched: %v", err)
	}
	file := in
	if c.Format != "" {
		file = filepath.Join(dir, "converted."+c.Format)
		if res, ok := t.convert(ctx, in, file); !ok {
			return res
		}
	}
	var text string
	if len(c.Command) > 0 {
		text, err = t.runCommand(ctx, file)
	} else {
		text, err = t.post(ctx, file)
	}
	if err != nil {
		return failed("%v", err)
	}
	text = clean(text, c.MaxChars)
	if text == "" {
		return Result{Status: StatusEmpty, Note: "the transcriber found no words"}
	}
	return Result{Status: StatusDone, Text: text}
}

// convert makes in the configured format at out with ffmpeg, reading at
// most MaxDuration (and a second): a wav that holds more is too long.
func (t *Transcriber) convert(ctx context.Context, in, out string) (Result, bool) {
	c := t.cfg
	limit := c.MaxDuration + time.Second
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", in, "-t", strconv.FormatFloat(limit.Seconds(), 'f', 3, 64), "-vn"}
	args = append(append(args, Formats[c.Format]...), out)
	cmd := exec.CommandContext(ctx, c.FFmpeg, args...)
	cmd.WaitDelay = time.Second
	var stderr tail
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return failed("ffmpeg is not installed, and the transcriber wants %s", c.Format), false
		}
		return failed("ffmpeg could not convert the audio to %s: %v%s", c.Format, err, stderr.say()), false
	}
	if c.Format == "wav" {
		// 16 kHz, mono, 2 bytes a sample, after a 44-byte header.
		if st, err := os.Stat(out); err == nil && time.Duration((st.Size()-44)/32)*time.Millisecond > c.MaxDuration {
			return Result{Status: StatusTooLong, Note: fmt.Sprintf("the audio is more than the %s transcribed", c.MaxDuration)}, false
		}
	}
	return Result{}, true
}

// runCommand runs the configured command on file and returns its stdout.
func (t *Transcriber) runCommand(ctx context.Context, file string) (string, error) {
	argv := make([]string, 0, len(t.cfg.Command)+1)
	named := false
	for _, a := range t.cfg.Command {
		if strings.Contains(a, "{file}") {
			a, named = strings.ReplaceAll(a, "{file}", file), true
		}
		argv = append(argv, a)
	}
	if !named {
		argv = append(argv, file)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = time.Second
	cmd.Dir = filepath.Dir(file)
	stdout := &limitBuffer{max: 4*t.cfg.MaxChars + 1024}
	var stderr tail
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("the transcriber %s failed: %v%s", filepath.Base(argv[0]), err, stderr.say())
	}
	return stdout.String(), nil
}

// post sends file to the configured endpoint.
func (t *Transcriber) post(ctx context.Context, file string) (string, error) {
	c := t.cfg
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", filepath.Base(file))
	if err != nil {
		return "", err
	}
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(fw, f)
	f.Close()
	if err != nil {
		return "", err
	}
	fields := [][2]string{{"model", c.Model}, {"response_format", "json"}}
	if c.Language != "" {
		fields = append(fields, [2]string{"language", c.Language})
	}
	for _, kv := range fields {
		if err := mw.WriteField(kv[0], kv[1]); err != nil {
			return "", err
		}
	}
	if err := mw.Close(); err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, &body)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("the transcription endpoint could not be reached: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("the transcription endpoint's answer: %v", err)
	}
	var out struct {
		Text  string `json:"text"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	jerr := json.Unmarshal(raw, &out)
	if resp.StatusCode != http.StatusOK {
		msg := out.Error.Message
		if msg == "" {
			msg = strings.TrimSpace(string(raw))
		}
		return "", fmt.Errorf("the transcription endpoint answered %s: %s", resp.Status, cut(msg, 200))
	}
	if jerr != nil {
		return "", fmt.Errorf("the transcription endpoint's answer is not JSON: %v", jerr)
	}
	return out.Text, nil
}

// failed is a StatusFailed result.
func failed(format string, args ...any) Result {
	return Result{Status: StatusFailed, Note: fmt.Sprintf(format, args...)}
}

// clean makes a transcriber's output a transcript: valid UTF-8, no
// control characters, spaces collapsed, at most max characters (cut at a
// word and marked with "…").
func clean(s string, max int) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max]
	if i := strings.LastIndexByte(string(r), ' '); i > 0 {
		return string(r)[:i] + " …"
	}
	return string(r) + "…"
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// extension names the fetched file as its kind is, for transcribers that
// go by the name (OpenAI's endpoint does).
func extension(a Audio) string {
	switch strings.ToLower(strings.TrimSpace(strings.SplitN(a.MIME, ";", 2)[0])) {
	case "audio/ogg", "audio/opus", "audio/x-opus+ogg":
		return ".ogg"
	case "audio/mpeg", "audio/mp3":
		return ".mp3"
	case "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/aac":
		return ".m4a"
	case "audio/webm", "video/webm":
		return ".webm"
	case "audio/wav", "audio/x-wav", "audio/wave":
		return ".wav"
	case "audio/flac", "audio/x-flac":
		return ".flac"
	}
	if ext := strings.ToLower(filepath.Ext(a.FileName)); ext != "" && len(ext) <= 6 && !strings.ContainsAny(ext, `/\ `) {
		if ext == ".oga" || ext == ".opus" {
			return ".ogg"
		}
		return ext
	}
	return ".bin"
}

func size(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", (n+1023)>>10)
}

var errTooLarge = errors.New("the audio is too large")

// limitWriter fails with errTooLarge once more than left bytes come.
type limitWriter struct {
	w    io.Writer
	left int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, errTooLarge
	}
	l.left -= int64(len(p))
	return l.w.Write(p)
}

// limitBuffer keeps the first max bytes written to it, and takes the rest
// without keeping it (so a chatty transcriber never blocks on its pipe).
type limitBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// tail keeps the last bytes of a program's stderr, for the note.
type tail struct{ b []byte }

const tailMax = 512

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

// say is the last line of the tail, as ": line", or "".
func (t *tail) say() string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(t.b), ""))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	if s == "" {
		return ""
	}
	return ": " + cut(s, 200)
}

// Say is the text a session reads for an audio file: the transcript
// marked as one, or a short note saying why there is none, then the
// message's own caption on a line of its own.
//
//	[voice note 7s, transcript] seven four two nine
//	[audio file "memo.mp3" 2m3s, no transcript: the transcriber took more than 2m0s; the audio is attached]
func Say(r Result, voice bool, a Audio, caption string) string {
	var b strings.Builder
	b.WriteString("[")
	if voice {
		b.WriteString("voice note")
	} else {
		b.WriteString("audio file")
		if a.FileName != "" {
			b.WriteString(" " + strconv.Quote(a.FileName))
		}
	}
	if a.Duration > 0 {
		b.WriteString(" " + a.Duration.Round(time.Second).String())
	}
	if r.Status == StatusDone {
		b.WriteString(", transcript] " + r.Text)
	} else {
		note := r.Note
		if note == "" {
			note = "no words"
		}
		b.WriteString(", no transcript: " + note + "; the audio is attached]")
	}
	if caption = strings.TrimSpace(caption); caption != "" {
		b.WriteString("\n" + caption)
	}
	return b.String()
}
