package server

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/hub"
)

// StreamMessage: an answer shown while it is written. The follower calls
// it with the whole text so far each time it grows and once more with
// final; the supervisor shows it with what the thread's platform has:
//
//   - drafts (the provider declares the verb "draft" where the platform
//     shows a growing draft of an answer in the thread): each text is a
//     draft of the stream (its last window's worth), and the final text is
//     sent once as a message (the send verb, split as any long text is);
//   - otherwise one message, sent at the first text and edited as the text
//     grows; a text that outgrows streamWindow is cut at a paragraph, line
//     or word, the message before the cut keeps its part and a new one
//     carries on. The final text is written in the same way.
//
// Pacing: a non-final call returns at once; the stream's own pump makes
// the platform calls, one at a time, each with the newest text, and while
// the text grows no sooner than streamInterval after the one before (so a
// writer that streams every token makes a handful of calls, the
// scheduler's edit lane pacing them further, and a text that waited is
// replaced by a newer one). A failure reaches the stream's next caller. A
// final waits for the call under way, then is made with an idempotency
// key (the follower's, else one of the stream's id): once, even when
// repeated or after a supervisor restart.
//
// Bounds: at most maxStreams streams are remembered at once; a stream is
// forgotten streamIdle after its last call, and a finished one keeps only
// its message ids.

const (
	maxStreams = 4096
	streamIdle = 15 * time.Minute
	// streamInterval is the shortest time between the starts of two
	// calls of a stream while its text grows (not before the final): a
	// growing answer is a handful of edits, not one per token.
	streamInterval = 1500 * time.Millisecond
)

// streamKey names a stream: the binding it is in and the follower's id.
type streamKey struct{ binding, id string }

// streams are the answers being streamed. Lock order: streams.mu, then a
// stream's mu (never held across a platform call).
type streams struct {
	mu sync.Mutex
	m  map[streamKey]*stream
}

// stream is one answer. mu guards every field.
type stream struct {
	mu   sync.Mutex
	used time.Time
	busy bool          // a platform call is under way
	idle chan struct{} // closed when busy ends
	want *chatbusv1.StreamMessageRequest
	err  error     // a shown text's failure, for the next caller
	last time.Time // when the last non-final call started
	// ending is closed when the final call arrives: a wait for
	// streamInterval ends at once.
	ending    chan struct{}
	endingSet bool

	done  bool     // the final text landed
	ids   []string // the messages that show it, in order
	start int      // byte offset of the text the last message shows
	shown string   // what the last message shows ("": none yet)
}

// get returns the stream, made if new; ResourceExhausted when too many
// are remembered.
func (ss *streams) get(k streamKey, now time.Time) (*stream, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m = map[streamKey]*stream{}
	}
	if st := ss.m[k]; st != nil {
		return st, nil
	}
	if len(ss.m) >= maxStreams {
		for key, st := range ss.m {
			st.mu.Lock()
			old := !st.busy && now.Sub(st.used) > streamIdle
			st.mu.Unlock()
			if old {
				delete(ss.m, key)
			}
		}
		if len(ss.m) >= maxStreams {
			return nil, status.Errorf(codes.ResourceExhausted, "%d answers are being streamed: finish some (final) first", len(ss.m))
		}
	}
	st := &stream{used: now, ending: make(chan struct{})}
	ss.m[k] = st
	return st, nil
}

func (b *busService) StreamMessage(ctx context.Context, req *chatbusv1.StreamMessageRequest) (*chatbusv1.StreamMessageResponse, error) {
	f, err := b.follower(req.GetSession())
	if err != nil {
		return nil, err
	}
	key, provider := f.Binding()
	d, _ := b.s.provs.Description(provider)
	st, err := b.s.streams.get(streamKey{key, req.GetStreamId()}, time.Now())
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.used = time.Now()
	if st.done {
		return &chatbusv1.StreamMessageResponse{MessageIds: st.ids}, nil
	}
	if !req.GetFinal() {
		st.want = req
		if !st.busy {
			st.busy, st.idle = true, make(chan struct{})
			go b.pumpStream(st, d)
		}
		// A failure of an earlier text is this caller's to hear; the
		// next text is shown all the same.
		err, st.err = st.err, nil
		if err != nil {
			return nil, err
		}
		return &chatbusv1.StreamMessageResponse{MessageIds: st.ids}, nil
	}
	if !st.endingSet {
		st.endingSet = true
		close(st.ending)
	}
	for st.busy {
		idle := st.idle
		st.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			st.mu.Lock()
			return nil, status.FromContextError(ctx.Err()).Err()
		}
		st.mu.Lock()
	}
	if st.done { // another final landed meanwhile
		return &chatbusv1.StreamMessageResponse{MessageIds: st.ids}, nil
	}
	st.want = nil
	st.busy, st.idle = true, make(chan struct{})
	st.mu.Unlock()
	err = b.showStream(ctx, st, d, req)
	st.mu.Lock()
	st.busy = false
	close(st.idle)
	if err != nil {
		return nil, err
	}
	st.done = true
	return &chatbusv1.StreamMessageResponse{MessageIds: st.ids}, nil
}

// pumpCallTimeout bounds one platform call a stream's pump makes.
const pumpCallTimeout = 30 * time.Second

// pumpStream shows a growing stream's newest text, one call at a time, no
// sooner than streamInterval after the previous one, until no text waits
// or the final arrives; then it ends st.busy. It runs on its own (its
// callers returned), each call bounded by pumpCallTimeout.
func (b *busService) pumpStream(st *stream, d hub.Description) {
	st.mu.Lock()
	defer st.mu.Unlock()
	defer func() {
		st.busy = false
		close(st.idle)
	}()
	for st.want != nil && !st.endingSet {
		if wait := time.Until(st.last.Add(streamInterval)); wait > 0 {
			t := time.NewTimer(wait)
			ending := st.ending
			st.mu.Unlock()
			select {
			case <-t.C:
			case <-ending:
			}
			t.Stop()
			st.mu.Lock()
			continue
		}
		r := st.want
		st.want = nil
		st.last = time.Now()
		st.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), pumpCallTimeout)
		err := b.showStream(ctx, st, d, r)
		cancel()
		st.mu.Lock()
		if err != nil {
			st.err = err
		}
	}
}

// streamWindow is how many characters of Markdown one message of a stream
// takes: three quarters of the platform's limit (rendering changes the
// length a little), 3000 if it declared none.
func streamWindow(d hub.Description) int {
	if d.MaxTextChars <= 0 {
		return 3000
	}
	return max(d.MaxTextChars*3/4, 64)
}

// showStream makes the platform show r's text for st. The caller holds
// st.busy (so st's layout fields are this goroutine's), not st.mu.
func (b *busService) showStream(ctx context.Context, st *stream, d hub.Description, r *chatbusv1.StreamMessageRequest) error {
	window := streamWindow(d)
	text := r.GetText()
	final := r.GetFinal()
	finalKey := r.GetIdempotencyKey()
	if finalKey == "" {
		finalKey = "stream/" + r.GetStreamId() + "/final"
	}
	if d.HasVerb(hub.VerbDraft) {
		if final {
			res, err := b.verb(ctx, r.GetSession(), hub.VerbSend, &providerv1.SendParams{
				Text: text, ReplyTo: r.GetReplyTo(), Buttons: buttonsToProvider(r.GetButtons()),
			}, finalKey)
			if err != nil {
				return err
			}
			b.setStreamIDs(st, messageIDs(res.Refs))
			return nil
		}
		_, err := b.verb(ctx, r.GetSession(), hub.VerbDraft, &providerv1.DraftParams{
			StreamId: r.GetStreamId(), Text: tail(text, window),
		}, "")
		return err
	}
	// One message edited as it grows; cut where it outgrows the window.
	if st.start > len(text) {
		st.start = len(text) // the text was rewritten shorter: keep what is shown
	}
	for {
		rest := text[st.start:]
		if utf8.RuneCountInString(rest) <= window {
			break
		}
		cut := cutAt(rest, window)
		if err := b.showPart(ctx, st, r, rest[:cut], nil, "", len(st.ids) == 0); err != nil {
			return err
		}
		st.start += cut
		st.shown = ""
	}
	rest := text[st.start:]
	if rest == "" || (rest == st.shown && !final) {
		return nil
	}
	key := ""
	if final {
		key = finalKey
	}
	return b.showPart(ctx, st, r, rest, r.GetButtons(), key, len(st.ids) == 0)
}

// showPart shows part in the stream's last message: sent if there is none
// (the reply on the stream's first), else edited.
func (b *busService) showPart(ctx context.Context, st *stream, r *chatbusv1.StreamMessageRequest, part string, buttons []*chatbusv1.Button, key string, first bool) error {
	if st.shown == "" {
		sp := &providerv1.SendParams{Text: part, Buttons: buttonsToProvider(buttons)}
		if first {
			sp.ReplyTo = r.GetReplyTo()
		}
		if key == "" {
			// Repeated (a timed-out call made again, a supervisor
			// restart): the same message, once.
			key = "stream/" + r.GetStreamId() + "/part/" + strconv.Itoa(len(st.ids))
		}
		res, err := b.verb(ctx, r.GetSession(), hub.VerbSend, sp, key)
		if err != nil {
			return err
		}
		ids := messageIDs(res.Refs)
		b.setStreamIDs(st, append(append([]string(nil), st.ids...), ids...))
		st.shown = part
		return nil
	}
	last := st.ids[len(st.ids)-1]
	if _, err := b.verb(ctx, r.GetSession(), hub.VerbEdit, &providerv1.EditParams{
		MessageId: last, Text: part, Buttons: buttonsToProvider(buttons),
	}, key); err != nil {
		return err
	}
	st.shown = part
	return nil
}

// setStreamIDs records the stream's messages (under st.mu: callers of
// StreamMessage read them).
func (b *busService) setStreamIDs(st *stream, ids []string) {
	st.mu.Lock()
	st.ids = ids
	st.mu.Unlock()
}

// cutAt is where to cut s so that the part before holds at most n
// characters: after the last paragraph break, else line break, else
// space in the part's second half; else at n characters.
func cutAt(s string, n int) int {
	limit := len(s)
	for i := range s {
		if n == 0 {
			limit = i
			break
		}
		n--
	}
	head := s[:limit]
	for _, sep := range []string{"\n\n", "\n", " "} {
		if i := strings.LastIndex(head, sep); i >= limit/2 {
			return i + len(sep)
		}
	}
	return limit
}

// tail is the last n characters of s, "…" first when cut.
func tail(s string, n int) string {
	count := utf8.RuneCountInString(s)
	if count <= n {
		return s
	}
	skip := count - n + 1
	for i := range s {
		if skip == 0 {
			return "…" + s[i:]
		}
		skip--
	}
	return s
}
