package bench

import (
	"strconv"
	"strings"
	"time"
)

// Injection is what cmd/provider-bench injects: the body of its control
// API's PUT /inject, and its "inject" setting at start.
type Injection struct {
	// Rate is updates per second. 0 means as fast as the supervisor's acks
	// allow (each Deliver carries Batch updates); negative means paused.
	Rate float64 `json:"rate"`
	// Batch is how many updates one Deliver carries when Rate is 0, and
	// the most a paced Deliver carries when it has fallen behind. If
	// zero, 1.
	Batch int `json:"batch,omitempty"`
	// Threads are the thread ids updates go to, round-robin, in the
	// provider's forum chat. Empty means paused.
	Threads []int64 `json:"threads,omitempty"`
	// OpenLoop (with Rate > 0): the n-th update is due at start + n/Rate
	// whatever happened before, its text carries that scheduled time (not
	// when it was sent), and a backlog is sent as fast as Deliver takes it
	// (Batch at a time), never skipped: a stall shows in the latencies of
	// everything scheduled during it.
	OpenLoop bool `json:"open_loop,omitempty"`
}

// Paused reports whether nothing is to be injected.
func (in Injection) Paused() bool { return in.Rate < 0 || len(in.Threads) == 0 }

// ProviderStats is cmd/provider-bench's GET /stats.
type ProviderStats struct {
	// PID of the provider child.
	PID int `json:"pid"`
	// Running: an Updates stream is open and its receive loop runs.
	Running bool `json:"running"`
	// Runs counts the receive loops started (one per Updates stream).
	Runs int `json:"runs"`
	// Acked counts the updates the supervisor acknowledged (made durable)
	// since the child started.
	Acked uint64 `json:"acked"`
	// Delivering: a Deliver is in flight.
	Delivering bool `json:"delivering"`
	// Version counts the injection changes; Seen is the last version the
	// receive loop acted on. Seen == Version and !Delivering: what was
	// injected before the last change is all acknowledged.
	Version uint64 `json:"version"`
	Seen    uint64 `json:"seen"`
	// LastID is the highest update id acknowledged.
	LastID int64 `json:"last_id"`
	// Injection in force.
	Injection Injection `json:"injection"`
}

// textPrefix starts every injected update's text; the send time follows.
const textPrefix = "bench "

// UserID is the sender of every injected update.
const UserID = 4242

// TelegramUpdate returns the text and the payload of one injected update:
// a Telegram Bot API Update object (a text message in a forum topic) whose
// text carries the send time, so that a follower on the same machine can
// compute the provider→follower latency with [SentAt]. The payload is
// appended to dst[:0].
func TelegramUpdate(dst []byte, id, chat, thread int64, sent time.Time) (text string, payload []byte) {
	text = Text(sent)
	b := dst[:0]
	b = append(b, `{"update_id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"message":{"message_id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"from":{"id":`...)
	b = strconv.AppendInt(b, UserID, 10)
	b = append(b, `,"is_bot":false,"first_name":"Bench","last_name":"Marker","username":"benchmarker","language_code":"en"},"chat":{"id":`...)
	b = strconv.AppendInt(b, chat, 10)
	b = append(b, `,"title":"chatbus bench forum","is_forum":true,"type":"supergroup"},"date":`...)
	b = strconv.AppendInt(b, sent.Unix(), 10)
	b = append(b, `,"message_thread_id":`...)
	b = strconv.AppendInt(b, thread, 10)
	b = append(b, `,"is_topic_message":true,"reply_to_message":{"message_id":`...)
	b = strconv.AppendInt(b, thread, 10)
	b = append(b, `,"date":`...)
	b = strconv.AppendInt(b, sent.Unix()-3600, 10)
	b = append(b, `,"chat":{"id":`...)
	b = strconv.AppendInt(b, chat, 10)
	b = append(b, `,"type":"supergroup"},"forum_topic_created":{"name":"bench","icon_color":7322096},"is_topic_message":true},"text":`...)
	b = strconv.AppendQuote(b, text)
	b = append(b, `}}`...)
	return text, b
}

// Text is an injected update's text: it carries the send time.
func Text(sent time.Time) string {
	t := make([]byte, 0, len(textPrefix)+20)
	t = append(t, textPrefix...)
	t = strconv.AppendInt(t, sent.UnixNano(), 10)
	return string(t)
}

// SentAt returns the send time carried by an injected update's text.
func SentAt(text string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(text, textPrefix)
	if !ok {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(rest, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}
