package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/chatbus/chatbus/server/transcribe"
)

// transcriberConfig is the config file's transcriber section: what turns
// voice notes into text (docs/voice.md). Off unless command or url is set.
type transcriberConfig struct {
	// Command is the program and its arguments; "{file}" is the audio.
	Command []string `yaml:"command"`
	// URL is an OpenAI-compatible /v1/audio/transcriptions endpoint.
	URL        string `yaml:"url"`
	Model      string `yaml:"model"`
	APIKeyFile string `yaml:"api_key_file"`
	Language   string `yaml:"language"`
	// Format is what the transcriber reads (wav, mp3, flac, ogg),
	// converted with ffmpeg; unset: the file as it arrived.
	Format      string   `yaml:"format"`
	FFmpeg      string   `yaml:"ffmpeg"`
	Timeout     duration `yaml:"timeout"`
	MaxBytes    int64    `yaml:"max_bytes"`
	MaxDuration duration `yaml:"max_duration"`
	MaxChars    int      `yaml:"max_chars"`
	Concurrency int      `yaml:"concurrency"`
}

// checkTranscriber checks the transcriber section, if present.
func (c *config) checkTranscriber() []problem {
	if _, present := c.lines["transcriber"]; !present {
		return nil
	}
	t := c.Transcriber
	var probs []problem
	add := func(key, why string) {
		probs = append(probs, problem{line: c.line("transcriber." + key), key: "transcriber." + key, why: why})
	}
	switch {
	case len(t.Command) > 0 && t.URL != "":
		add("url", "command and url are exclusive: name one")
	case len(t.Command) == 0 && t.URL == "":
		probs = append(probs, problem{line: c.line("transcriber"), key: "transcriber",
			why: "name a command (argv, \"{file}\" is the audio) or a url (an OpenAI-compatible /v1/audio/transcriptions endpoint)"})
	case len(t.Command) > 0:
		if _, err := exec.LookPath(t.Command[0]); err != nil {
			add("command", fmt.Sprintf("%q: no such program (install it, or name it by its full path)", t.Command[0]))
		}
	case !strings.HasPrefix(t.URL, "http://") && !strings.HasPrefix(t.URL, "https://"):
		add("url", fmt.Sprintf("%q: want an http:// or https:// URL", t.URL))
	}
	if t.Format != "" && transcribe.Formats[t.Format] == nil {
		add("format", fmt.Sprintf("%q: want wav, mp3, flac or ogg (or leave it out: the file as it arrived)", t.Format))
	}
	if t.Format != "" {
		ff := t.FFmpeg
		if ff == "" {
			ff = "ffmpeg"
		}
		if _, err := exec.LookPath(ff); err != nil {
			add("format", fmt.Sprintf("converting to %s needs ffmpeg, which is not installed (%v)", t.Format, err))
		}
	}
	if t.APIKeyFile != "" {
		if _, err := os.ReadFile(t.APIKeyFile); err != nil {
			add("api_key_file", err.Error())
		}
	}
	for key, n := range map[string]int64{"max_bytes": t.MaxBytes, "max_chars": int64(t.MaxChars), "concurrency": int64(t.Concurrency)} {
		if _, present := c.lines["transcriber."+key]; present && n < 1 {
			add(key, fmt.Sprintf("%d is out of range: at least 1", n))
		}
	}
	for key, d := range map[string]duration{"timeout": t.Timeout, "max_duration": t.MaxDuration} {
		if _, present := c.lines["transcriber."+key]; present && d <= 0 {
			add(key, fmt.Sprintf("%s is out of range: more than 0", time.Duration(d)))
		}
	}
	return probs
}

// server is the section as the server takes it; the API key is read from
// its file (trimmed).
func (t transcriberConfig) server() transcribe.Config {
	key := ""
	if t.APIKeyFile != "" {
		if b, err := os.ReadFile(t.APIKeyFile); err == nil {
			key = strings.TrimSpace(string(b))
		}
	}
	return transcribe.Config{
		Command: t.Command, URL: t.URL, Model: t.Model, APIKey: key, Language: t.Language,
		Format: t.Format, FFmpeg: t.FFmpeg, Timeout: time.Duration(t.Timeout), MaxBytes: t.MaxBytes,
		MaxDuration: time.Duration(t.MaxDuration), MaxChars: t.MaxChars, Concurrency: t.Concurrency,
	}
}
