package supervise

import (
	"bufio"
	"encoding/json"
	"strings"
	"sync"

	"github.com/rs/zerolog"
)

// TailLines is how many of a child's last stderr lines are kept for
// Status.StderrTail; TailLineBytes bounds each of them.
const (
	TailLines     = 10
	TailLineBytes = 512
)

// copyLines logs each line read from br until it fails (EOF, or the drain
// deadline after exit).
//
// A line that is a JSON object (a structured logger's record, such as the
// Go SDK's) is merged into the supervisor's record: its level becomes the
// record's level (clamped to error: a child's fatal is not ours), its
// message the message, its other fields fields of the record (a field
// named like one of ours gets a "child_" prefix); its time is dropped.
// Any other stderr line is logged at warn: it is what a crashing child
// (a panic, a traceback, a usage message) writes. Lines on stdout after
// the handshake are info. The last TailLines stderr lines are kept in
// c.tail.
func (s *Supervisor) copyLines(c *child, br *bufio.Reader, stream string) {
	for {
		line, dropped, err := readLine(br)
		line = strings.TrimSuffix(line, "\r")
		if line != "" || dropped > 0 {
			s.logLine(c, stream, line, dropped)
		}
		if err != nil {
			return
		}
	}
}

func (s *Supervisor) logLine(c *child, stream, line string, dropped int) {
	if dropped == 0 {
		if rec, ok := parseRecord(line); ok {
			// The child's own name and pid, when they are ours, once.
			if rec.fields["child_provider"] == s.spec.Name {
				delete(rec.fields, "child_provider")
			}
			if pid, _ := rec.fields["child_pid"].(float64); int(pid) == c.inc.PID {
				delete(rec.fields, "child_pid")
			}
			e := s.log.WithLevel(rec.level).Str("stream", stream).Int("pid", c.inc.PID)
			if len(rec.fields) > 0 {
				e = e.Fields(rec.fields)
			}
			e.Msg(rec.message)
			if stream == "stderr" {
				c.tail.add(rec.summary())
			}
			return
		}
	}
	level := zerolog.InfoLevel
	if stream == "stderr" {
		level = zerolog.WarnLevel
	}
	e := s.log.WithLevel(level).Str("stream", stream).Int("pid", c.inc.PID)
	if dropped > 0 {
		e = e.Bool("truncated", true).Int("dropped_bytes", dropped)
		line += " …[truncated]"
	}
	e.Msg(line)
	if stream == "stderr" {
		c.tail.add(line)
	}
}

// record is a child's structured log line.
type record struct {
	level   zerolog.Level
	message string
	err     string
	fields  map[string]any
}

// ours are the fields the supervisor's record has already (or that
// zerolog writes itself).
var ours = map[string]bool{"provider": true, "stream": true, "pid": true, "level": true, "message": true, "time": true}

// parseRecord reads line as a structured log record: a JSON object with a
// string "level" zerolog knows. Anything else is not one.
func parseRecord(line string) (record, bool) {
	if !strings.HasPrefix(line, "{") {
		return record{}, false
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return record{}, false
	}
	ls, _ := m["level"].(string)
	lvl, err := zerolog.ParseLevel(ls)
	if ls == "" || err != nil || lvl == zerolog.NoLevel || lvl == zerolog.Disabled {
		return record{}, false
	}
	if lvl > zerolog.ErrorLevel {
		lvl = zerolog.ErrorLevel
	}
	r := record{level: lvl}
	r.message, _ = m["message"].(string)
	r.err, _ = m[zerolog.ErrorFieldName].(string)
	for k, v := range m {
		switch {
		case k == "level" || k == "message" || k == "time":
			continue
		case ours[k]:
			k = "child_" + k
		}
		if r.fields == nil {
			r.fields = make(map[string]any, len(m))
		}
		r.fields[k] = v
	}
	return r, true
}

// summary is the record as one tail line: "level: message: error".
func (r record) summary() string {
	s := r.level.String() + ": " + r.message
	if r.err != "" {
		s += ": " + r.err
	}
	return s
}

// tail keeps the last TailLines lines, each cut at TailLineBytes. The zero
// value is ready to use.
type tail struct {
	mu    sync.Mutex
	lines []string
	next  int
}

func (t *tail) add(line string) {
	if len(line) > TailLineBytes {
		line = clipUTF8(line, TailLineBytes) + " …"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) < TailLines {
		t.lines = append(t.lines, line)
		return
	}
	t.lines[t.next] = line
	t.next = (t.next + 1) % TailLines
}

// get returns the lines, oldest first.
func (t *tail) get() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.lines))
	out = append(out, t.lines[t.next:]...)
	return append(out, t.lines[:t.next]...)
}

// clipUTF8 cuts s to at most n bytes without splitting a rune.
func clipUTF8(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
