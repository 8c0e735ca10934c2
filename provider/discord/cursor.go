package discord

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// cursorVersion is the version of the cursor's JSON form.
const cursorVersion = 1

// maxMarks bounds the threads a cursor remembers a last message for. When
// more threads have messages, the least recently active one that is not
// bound is forgotten (a later catch-up starts it after its thread id, so
// nothing is lost; older messages may be journalled again if they fall
// outside the supervisor's de-duplication window).
const maxMarks = 256

// cursor is where delivery resumes, reported with each update (opaque to
// the supervisor): the gateway session to RESUME (id, the sequence number
// of the last dispatch whose effect is in the cursor, the resume URL),
// and for each thread of the channel the id of the last message seen in
// it, for the REST catch-up after a session that cannot be resumed. Every
// dispatch up to Seq and every message up to a thread's mark was
// journalled (or needed no journalling) once the update carrying this
// cursor is durable.
type cursor struct {
	V         int    `json:"v"`
	Channel   string `json:"channel"`
	Session   string `json:"session,omitempty"`
	Seq       int    `json:"seq,omitempty"`
	ResumeURL string `json:"resume_url,omitempty"`
	// Threads maps a thread id to the id of the last message seen in it.
	Threads map[string]string `json:"threads,omitempty"`
}

// decodeCursor reads a cursor a previous incarnation reported; nil is no
// cursor. A cursor of another channel (the config changed) keeps nothing
// but the session.
func decodeCursor(b []byte, channel string) (cursor, error) {
	c := cursor{V: cursorVersion, Channel: channel, Threads: map[string]string{}}
	if len(b) == 0 {
		return c, nil
	}
	var in cursor
	if err := json.Unmarshal(b, &in); err != nil {
		return c, fmt.Errorf("stored cursor is not a Discord cursor: %w", err)
	}
	if in.V != cursorVersion {
		return c, fmt.Errorf("stored cursor has version %d, this provider reads %d", in.V, cursorVersion)
	}
	c.Session, c.Seq, c.ResumeURL = in.Session, in.Seq, in.ResumeURL
	if in.Channel == channel {
		for t, m := range in.Threads {
			if isSnowflake(t) && isSnowflake(m) {
				c.Threads[t] = m
			}
		}
	}
	return c, nil
}

// encode writes the cursor as JSON.
func (c *cursor) encode() []byte {
	b, err := json.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("discord: encode cursor: %v", err)) // a struct of strings and ints
	}
	return b
}

// mark records message id as seen in thread, if it is later than the
// thread's mark. bound says which threads may not be forgotten to keep
// the cursor bounded.
func (c *cursor) mark(thread, id string, bound func(string) bool) {
	if later(id, c.Threads[thread]) {
		c.Threads[thread] = id
	}
	if len(c.Threads) <= maxMarks {
		return
	}
	ids := make([]string, 0, len(c.Threads))
	for t := range c.Threads {
		ids = append(ids, t)
	}
	sort.Slice(ids, func(i, j int) bool { return later(c.Threads[ids[j]], c.Threads[ids[i]]) })
	for _, t := range ids {
		if len(c.Threads) <= maxMarks {
			return
		}
		if t != thread && !bound(t) {
			delete(c.Threads, t)
		}
	}
}

// later reports whether snowflake a is after b ("" is before everything).
func later(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	if errA != nil {
		return false
	}
	y, errB := strconv.ParseUint(b, 10, 64)
	return errB != nil || x > y
}

func isSnowflake(s string) bool {
	n, err := strconv.ParseUint(s, 10, 64)
	return err == nil && n > 0
}
