package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// anthropicAPI is a scripted Anthropic Messages API on loopback for the
// real Claude Code (ANTHROPIC_BASE_URL). POST /v1/messages answers as the
// API does: server-sent events when the request streams (message_start,
// content_block_start/delta/stop, message_delta, message_stop), one JSON
// message when it does not. What the "model" says is decided by script
// from the request, so that a conversation goes on from whatever Claude
// Code sends; every request is recorded.
type anthropicAPI struct {
	t      *testing.T
	url    string
	script func(apiRequest) []apiBlock

	mu   sync.Mutex
	reqs []apiRequest
	ids  int
}

// apiRequest is a recorded request to /v1/messages.
type apiRequest struct {
	Path   string
	Raw    string // the body, as sent
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// apiBlock is one content block of the model's answer: text, or a
// tool_use (Tool and Input set).
type apiBlock struct {
	Text  string
	Tool  string
	Input map[string]any
	// A streamed text goes out in Pieces deltas (default two), Gap apart:
	// a model that takes its time.
	Pieces int
	Gap    time.Duration
	// Hold, if set, stops the answer after the text's first delta until it
	// is closed or the client goes away (pi's abort closes the request);
	// the request's Gone is then closed.
	Hold <-chan struct{}
	Gone chan<- struct{}
}

func startAnthropicAPI(t *testing.T, script func(apiRequest) []apiBlock) *anthropicAPI {
	t.Helper()
	a := &anthropicAPI{t: t, script: script}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(a.serve)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	a.url = "http://" + ln.Addr().String()
	return a
}

func (a *anthropicAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		// count_tokens, model lists, anything else: the API's error shape.
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"not_found_error","message":"%s is not served here"}}`, r.URL.Path)
		return
	}
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, err.Error())
		return
	}
	req.Path, req.Raw = r.URL.Path, string(body)
	blocks := a.script(req)
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	content := make([]map[string]any, len(blocks))
	for i, bl := range blocks {
		if bl.Tool == "" {
			content[i] = map[string]any{"type": "text", "text": bl.Text}
			continue
		}
		a.ids++
		content[i] = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_e2e%04d", a.ids), "name": bl.Tool, "input": bl.Input}
	}
	a.ids++
	msgID := fmt.Sprintf("msg_e2e%04d", a.ids)
	a.mu.Unlock()
	stop := "end_turn"
	if len(blocks) > 0 && blocks[len(blocks)-1].Tool != "" {
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		w.Header().Set("content-type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	fl, _ := w.(http.Flusher)
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if fl != nil {
			fl.Flush()
		}
	}
	event("message_start", map[string]any{"message": map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	event("ping", map[string]any{})
	for i, c := range content {
		if c["type"] == "text" {
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			// Deltas as the API sends them: the text in pieces.
			bl := blocks[i]
			parts := splitHalf(c["text"].(string))
			if bl.Pieces > 0 {
				parts = splitN(c["text"].(string), bl.Pieces)
			}
			for j, part := range parts {
				if j > 0 && bl.Gap > 0 {
					select {
					case <-time.After(bl.Gap):
					case <-r.Context().Done():
						return
					}
				}
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
				if j == 0 && bl.Hold != nil {
					select {
					case <-bl.Hold:
					case <-r.Context().Done():
						if bl.Gone != nil {
							close(bl.Gone)
						}
						return
					}
				}
			}
		} else {
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(c["input"])
			for _, part := range splitHalf(string(in)) {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	event("message_stop", map[string]any{})
}

// splitHalf cuts s in two pieces (at a rune boundary), as streamed deltas.
func splitHalf(s string) []string {
	r := []rune(s)
	if len(r) < 2 {
		return []string{s}
	}
	return []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
}

// splitN cuts s into n pieces of (nearly) equal length, at rune boundaries.
func splitN(s string, n int) []string {
	r := []rune(s)
	if n > len(r) {
		n = max(len(r), 1)
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, string(r[i*len(r)/n:(i+1)*len(r)/n]))
	}
	return out
}

// requests returns what was asked so far.
func (a *anthropicAPI) requests() []apiRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]apiRequest(nil), a.reqs...)
}

// hasTool says whether the request declares the tool in full (a deferred
// tool is only named until ToolSearch loads it).
func (r apiRequest) hasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// apiBlocksOf decodes a message's content: a string or a list of blocks.
type apiContent struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

func apiBlocksOf(raw json.RawMessage) []apiContent {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []apiContent{{Type: "text", Text: s}}
	}
	var bs []apiContent
	json.Unmarshal(raw, &bs)
	return bs
}

// text is every text of the message, tool results included.
func (c apiContent) text() string {
	if c.Type != "tool_result" {
		return c.Text
	}
	var parts []string
	for _, b := range apiBlocksOf(c.Content) {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// channelTag is a <channel …>content</channel> block as Claude Code shows
// it to the model.
var channelTag = regexp.MustCompile(`(?s)<channel source="([^"]*)"([^>]*)>\n?(.*?)\n?</channel>`)

var messageIDAttr = regexp.MustCompile(`^[0-9]+$`)

// channelMsg is one <channel> block of a request.
type channelMsg struct {
	source, attrs, content string
	msg                    int // index of the message it is in
}

func (r apiRequest) channels() []channelMsg {
	var out []channelMsg
	for i, m := range r.Messages {
		if m.Role == "assistant" {
			continue
		}
		for _, b := range apiBlocksOf(m.Content) {
			for _, sm := range channelTag.FindAllStringSubmatch(b.text(), -1) {
				c := channelMsg{source: sm[1], attrs: sm[2], content: sm[3], msg: i}
				// A message's block has its id; the example in the
				// server's instructions (in a system message) has "…".
				if messageIDAttr.MatchString(c.attr("message_id")) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// attr returns the value of a channel attribute.
func (c channelMsg) attr(name string) string {
	m := regexp.MustCompile(`\b` + name + `="([^"]*)"`).FindStringSubmatch(c.attrs)
	if m == nil {
		return ""
	}
	return m[1]
}

// toolUsesSince lists the model's tool calls (name) after message i, and
// whether the last message answers the last of them.
func (r apiRequest) toolUsesSince(i int) []string {
	var out []string
	for _, m := range r.Messages[i+1:] {
		if m.Role != "assistant" {
			continue
		}
		for _, b := range apiBlocksOf(m.Content) {
			if b.Type == "tool_use" {
				out = append(out, b.Name)
			}
		}
	}
	return out
}

// summary is the request's messages, each cut short, for a failure.
func (r apiRequest) summary() string {
	var sb strings.Builder
	for i, m := range r.Messages {
		for _, b := range apiBlocksOf(m.Content) {
			t := b.text()
			if b.Type == "tool_use" {
				t = b.Name + " " + string(b.Input)
			}
			if len(t) > 300 {
				t = t[:150] + " … " + t[len(t)-150:]
			}
			fmt.Fprintf(&sb, "  [%d %s %s] %q\n", i, m.Role, b.Type, t)
		}
	}
	return sb.String()
}
