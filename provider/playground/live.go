package playground

import (
	"encoding/json"
	"sync"
)

// liveEvent is what the page is told as it happens. Type is one of
// "message" (a message was sent, edited or reacted to: Message is its new
// state), "rooms" (the whole list of rooms), "typing" (the follower is
// typing in Room until Until, unix ms) and "answer" (press ID of Room was
// answered with Text).
type liveEvent struct {
	Type    string       `json:"type"`
	Room    int64        `json:"room,omitempty"`
	Message *messageView `json:"message,omitempty"`
	Rooms   []room       `json:"rooms,omitempty"`
	Until   int64        `json:"until,omitempty"`
	Text    string       `json:"text,omitempty"`
	ID      string       `json:"id,omitempty"`
}

// subBuffer is how many events a page may fall behind before its stream is
// ended (the page reconnects and reloads what it shows).
const subBuffer = 256

// live fans events out to the open pages. A slow page never blocks a
// publisher: its stream is closed instead.
type live struct {
	mu   sync.Mutex // guards subs
	subs map[chan []byte]struct{}
}

func newLive() *live { return &live{subs: map[chan []byte]struct{}{}} }

// subscribe returns a channel of encoded events; it is closed when the
// subscriber fell behind. Call unsubscribe when done.
func (l *live) subscribe() chan []byte {
	ch := make(chan []byte, subBuffer)
	l.mu.Lock()
	l.subs[ch] = struct{}{}
	l.mu.Unlock()
	return ch
}

func (l *live) unsubscribe(ch chan []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.subs[ch]; ok {
		delete(l.subs, ch)
		close(ch)
	}
}

func (l *live) publish(e liveEvent) {
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.subs {
		select {
		case ch <- b:
		default:
			delete(l.subs, ch)
			close(ch)
		}
	}
}
