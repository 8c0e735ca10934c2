package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/chatbus/chatbus/provider"
)

// MaxTextChars is the longest message text Slack takes: chat.postMessage
// refuses longer text (msg_too_long). Slack advises keeping messages under
// 4,000 characters for legibility; that is the follower's choice.
const MaxTextChars = 40000

// methods are the Web API methods followers may call, with the params
// that name an id of the thread (the supervisor checks those against what
// the thread has seen), and whether the method takes the thread itself
// (thread_ts, filled in by scope). Every method is pinned to the caller's
// channel (channel, filled in by scope). Lanes: edits and deletions go
// after new messages, reactions last.
var methods = provider.Methods{
	{Name: "chat.postMessage", InThread: true},
	{Name: "chat.postEphemeral", InThread: true},
	{Name: "chat.update", Params: []provider.Param{{Name: "ts", Kind: provider.RefMessage, Required: true}}, Lane: provider.LaneEdit, Overwrites: true},
	{Name: "chat.delete", Params: []provider.Param{{Name: "ts", Kind: provider.RefMessage, Required: true}}, Lane: provider.LaneEdit},
	{Name: "reactions.add", Params: []provider.Param{{Name: "timestamp", Kind: provider.RefMessage, Required: true}}, Lane: provider.LaneAmbient},
	{Name: "reactions.remove", Params: []provider.Param{{Name: "timestamp", Kind: provider.RefMessage, Required: true}}, Lane: provider.LaneAmbient},
}

// Describe implements provider.Platform.
func (p *Platform) Describe() provider.Description {
	// No thread link: a Slack permalink names the workspace's domain,
	// which the provider learns (auth.test) only after it described
	// itself, and a thread's ts without its dot.
	return provider.Description{Platform: "slack", Methods: methods, Verbs: verbs, MaxTextChars: MaxTextChars, Limits: p.limits,
		CommandPrefix: CommandName + " "}
}

// Call implements provider.Platform: the call is scoped to t (see scope)
// and sent as JSON; the message it sent or edited becomes a reference of
// t. A chat.postMessage that Slack posted outside the thread (its root
// was deleted) is taken back and reported as the thread gone (see
// checkThreaded). Slack has no idempotency keys, so the key is not used.
func (p *Platform) Call(ctx context.Context, t provider.Target, method string, params json.RawMessage, _ string) (provider.Result, error) {
	body, err := p.scope(t, method, params)
	if err != nil {
		return provider.Result{}, err
	}
	raw, err := p.web.post(ctx, method, body)
	p.noteResult(t.Chat, err)
	if err != nil {
		return provider.Result{}, mapErr(err)
	}
	if method == "chat.postMessage" {
		if err := p.checkThreaded(ctx, t, raw); err != nil {
			return provider.Result{}, err
		}
		p.inChannel(t.Chat)
	}
	refs := resultRefs(method, raw)
	for _, r := range refs {
		if r.Kind == provider.RefMessage {
			p.threads.note(t.Chat, r.ID, t.Thread)
		}
	}
	return provider.Result{JSON: raw, Refs: refs}, nil
}

// scope pins params to thread t: channel is t's channel and, for the
// methods that take one, thread_ts is t's root; params naming another
// channel or thread, a file instead of a message (reactions), or an
// ephemeral message to someone not on the allow-list are refused. The
// supervisor has already checked the method and the ids its params name.
func (p *Platform) scope(t provider.Target, method string, params json.RawMessage) ([]byte, error) {
	if t.Thread == "" {
		return nil, fmt.Errorf("%w: %s: the channel itself is not a thread", provider.ErrOutOfScope, method)
	}
	d, ok := methods.Find(method)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a method of this provider", provider.ErrInvalid, method)
	}
	m, err := provider.ParseParams(method, params)
	if err != nil {
		return nil, err
	}
	if err := m.Pin("channel", t.Chat, "channel"); err != nil {
		return nil, err
	}
	if err := m.Pin("thread_ts", t.Thread, "thread"); err != nil {
		return nil, err
	}
	// A file cannot be tied to a thread: name the message by timestamp.
	if err := m.Refuse(method, "file", "file_comment"); err != nil {
		return nil, err
	}
	if method == "chat.postEphemeral" {
		u := m.Text("user")
		if !p.allowed[u] {
			return nil, fmt.Errorf("%w: chat.postEphemeral: user %q is not on allowed_user_ids", provider.ErrOutOfScope, u)
		}
	}
	if v, ok := m["text"]; ok {
		var s string
		if json.Unmarshal(v, &s) == nil && utf8.RuneCountInString(s) > MaxTextChars {
			return nil, fmt.Errorf("%w: text of %d characters; Slack takes at most %d", provider.ErrInvalid, utf8.RuneCountInString(s), MaxTextChars)
		}
	}
	m.Set("channel", t.Chat)
	if d.InThread {
		m.Set("thread_ts", t.Thread)
	}
	return json.Marshal(m)
}

// resultRefs lists the ids a call's answer makes available: the message
// chat.postMessage sent or chat.update edited, and that message's files.
// Ephemeral messages cannot be named later (chat.update does not reach
// them), and the other methods make nothing.
func resultRefs(method string, raw json.RawMessage) []provider.Ref {
	if method != "chat.postMessage" && method != "chat.update" {
		return nil
	}
	var res struct {
		TS      string `json:"ts"`
		Message struct {
			Files []fileInfo `json:"files"`
		} `json:"message"`
	}
	if json.Unmarshal(raw, &res) != nil || res.TS == "" {
		return nil
	}
	refs := []provider.Ref{{Kind: provider.RefMessage, ID: res.TS}}
	for _, f := range res.Message.Files {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: f.ID})
	}
	return refs
}
