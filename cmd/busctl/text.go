package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// The small words tables are made of.

// target is a thread as provider:chat/thread, the ids as the platform
// writes them (provider:chat for the chat itself).
func target(t *chatbusv1.Target) string {
	if t == nil {
		return "-"
	}
	s := t.GetProvider() + ":" + t.GetChat()
	if t.GetThread() != "" {
		s += "/" + t.GetThread()
	}
	return s
}

func pidOrDash(pid int32) string {
	if pid == 0 {
		return "-"
	}
	return strconv.Itoa(int(pid))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// clip is s on one line, at most n runes.
func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func ago(t time.Time) string {
	d := time.Since(t)
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// fileExists reports whether path names something that exists.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// absentNote is what a table says beside a config file that is not there.
func absentNote(exists bool) string {
	if exists {
		return ""
	}
	return "  (not present: the defaults apply)"
}
