package discord

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// Dead letters. A dispatch the runner could not process (its reading
// panicked) is set aside with the gateway's dispatch as its payload
// (dispatchPayload: op, t, s and d, as Discord sent it); a message whose
// decoding failed, with the message object (kind MESSAGE). ConvertUpdate
// processes either again, apart from the runner, when an operator
// retries it.

// dispatch is a gateway dispatch (op 0) as Discord sends it.
type dispatch struct {
	Op int             `json:"op"`
	T  string          `json:"t"`
	S  int             `json:"s"`
	D  json.RawMessage `json:"d"`
}

// dispatchPayload is the payload of a dead letter of ev: the dispatch as
// received.
func dispatchPayload(ev event) []byte {
	b, err := json.Marshal(dispatch{T: ev.T, S: ev.S, D: ev.D})
	if err != nil {
		return ev.D // d is not JSON: as it came
	}
	return b
}

// deadDispatchPrefix starts the dedup id of a dispatch's dead letter,
// followed by the session and the sequence number.
const deadDispatchPrefix = "dispatch:"

// ConvertUpdate implements provider.Converter: a dead letter's payload is
// a gateway dispatch (its dedup id names the session it came in), or a
// message object (kind MESSAGE) whose decoding failed. It is processed as
// the runner would, beside it: the thread it names is looked up the same
// way; no catch-up is started (the runner's session owes those). A READY,
// or a dispatch that makes no update, gives nil. Its failure comes back
// as a dead letter again (an update with conversion_error set).
func (p *Platform) ConvertUpdate(ctx context.Context, payload []byte, kind providerv1.UpdateKind, dedupID string) (*providerv1.Update, error) {
	var ev event
	var d dispatch
	if err := json.Unmarshal(payload, &d); err == nil && d.T != "" && len(d.D) > 0 {
		ev = event{T: d.T, S: d.S, D: d.D}
		if rest, ok := strings.CutPrefix(dedupID, deadDispatchPrefix); ok {
			if i := strings.LastIndexByte(rest, ':'); i >= 0 {
				ev.Session = rest[:i]
			}
		}
	} else if kind == providerv1.UpdateKind_UPDATE_KIND_MESSAGE {
		ev = event{T: "MESSAGE_CREATE", D: payload}
	} else {
		return nil, fmt.Errorf("neither a gateway dispatch nor a message: %.100q", payload)
	}
	if ev.T == "READY" {
		return nil, nil // a session long replaced: nothing for the followers
	}
	p.mu.Lock()
	bot := p.botID
	p.mu.Unlock()
	// A runner of its own: its head cursor and catch-up marks are thrown
	// away; what it learns of threads goes to the Platform, as the
	// runner's does.
	r := &runner{p: p, bot: bot, cur: cursor{V: cursorVersion, Channel: p.channel, Threads: map[string]string{}},
		caught: map[string]bool{}, settled: map[string]bool{}}
	callDispatchHook(ev.T, ev.D)
	if err := r.process(ctx, ev); err != nil {
		return nil, err
	}
	if len(r.pending) == 0 {
		return nil, nil
	}
	u := r.pending[0]
	u.UpdateId, u.Cursor = 0, nil
	return u, nil
}

// deadDispatchID is the dedup id of the dead letter of ev.
func deadDispatchID(ev event) string {
	return deadDispatchPrefix + ev.Session + ":" + strconv.Itoa(ev.S)
}
