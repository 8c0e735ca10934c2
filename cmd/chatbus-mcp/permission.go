package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Permission relay. Claude Code sends permission_request {request_id,
// tool_name, description, input_preview} when a tool needs approval; the
// prompt goes into the thread with Allow / Deny buttons, and the first
// answer from the thread — a press, or a "yes <id>" / "no <id>" reply —
// goes back as permission {request_id, behavior}. Each request is
// answered once: later presses and replies are told so and go nowhere.
// Only people the provider allows reach the thread at all, which is what
// declaring claude/channel/permission promises.

// maxPending bounds the requests remembered (answered ones included, so
// that a second answer is recognised).
const maxPending = 256

// previewChars bounds the tool input shown in the prompt.
const previewChars = 600

// requestIDRE is what a request id may look like to be put in a button's
// data (Telegram allows 64 bytes of it).
var requestIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// pressData is a permission button's data: "perm:allow:<id>".
var pressData = regexp.MustCompile(`^perm:(allow|deny):([A-Za-z0-9_-]{1,40})$`)

// permRequest is one request; permissions.mu guards messageID and
// answered.
type permRequest struct {
	id, tool, text string
	messageID      string // the prompt in the thread, once posted
	answered       string // the behavior, once answered
}

// permissions holds the prompts of this process. mu guards the maps; no
// call to the supervisor is made with it held.
type permissions struct {
	b     *bridge
	mu    sync.Mutex
	byID  map[string]*permRequest
	order []string // ids, oldest first, for the bound
}

func newPermissions(b *bridge) *permissions {
	return &permissions{b: b, byID: map[string]*permRequest{}}
}

// onRequest is the SDK's handler of permission_request: it records the
// request at once (an answer may come before the post returns) and posts
// the prompt in the background.
func (p *permissions) onRequest(_ context.Context, n mcp.JSONRPCNotification) {
	var req struct {
		RequestID    string `json:"request_id"`
		ToolName     string `json:"tool_name"`
		Description  string `json:"description"`
		InputPreview string `json:"input_preview"`
	}
	raw, err := json.Marshal(n.Params.AdditionalFields)
	if err == nil {
		err = json.Unmarshal(raw, &req)
	}
	if err != nil || !requestIDRE.MatchString(req.RequestID) {
		p.b.log.Warn().Err(err).Str("request_id", req.RequestID).Msg("ignoring a malformed permission request")
		return
	}
	id := strings.ToLower(req.RequestID)
	text := promptText(req.ToolName, req.Description, req.InputPreview, id)
	p.mu.Lock()
	if _, dup := p.byID[id]; dup {
		p.mu.Unlock()
		return
	}
	r := &permRequest{id: id, tool: req.ToolName, text: text}
	p.byID[id] = r
	p.order = append(p.order, id)
	if len(p.order) > maxPending {
		delete(p.byID, p.order[0])
		p.order = p.order[1:]
	}
	p.mu.Unlock()

	p.b.background(func(ctx context.Context) {
		s, err := p.b.current()
		if err != nil {
			p.b.log.Warn().Err(err).Str("request_id", id).Msg("cannot relay a permission request")
			return
		}
		ids, err := s.f.Send(ctx, client.Message{Text: text, Prompt: true, Buttons: []client.Button{
			{Label: "✅ Allow", Data: "perm:allow:" + id},
			{Label: "❌ Deny", Data: "perm:deny:" + id},
		}}, p.b.key(s.f))
		if err != nil {
			p.b.log.Warn().Err(err).Str("request_id", id).Msg("posting a permission request")
			return
		}
		p.mu.Lock()
		r.messageID = ids[len(ids)-1] // the buttons are under the last part
		p.mu.Unlock()
	})
}

// promptText is a permission prompt in Markdown: what Claude Code says
// is shown as text (escaped), the tool's input as a code block.
func promptText(tool, desc, preview, id string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "🔐 **Permission request** `%s`: **%s**", id, escapeMarkdown(tool))
	if desc != "" {
		fmt.Fprintf(&sb, "\n%s", escapeMarkdown(desc))
	}
	if preview != "" {
		if utf8.RuneCountInString(preview) > previewChars {
			preview = string([]rune(preview)[:previewChars]) + "…"
		}
		fence := codeFence(preview)
		fmt.Fprintf(&sb, "\n\n%s\n%s\n%s", fence, preview, fence)
	}
	fmt.Fprintf(&sb, "\n\nPress a button, or reply `yes %s` or `no %s`.", id, id)
	return sb.String()
}

// escapeMarkdown makes s show as the text it is: every ASCII punctuation
// character may be backslash-escaped in CommonMark, and is.
func escapeMarkdown(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r < 0x80 && unicode.IsPunct(r) || strings.ContainsRune("$+<=>^`|~", r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// codeFence is a fence longer than any run of backticks in s, so the code
// block cannot end early.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// press handles a button press: a permission button answers its request;
// every press is acknowledged to the platform so the button stops
// spinning. Nothing of it becomes a channel message.
func (p *permissions) press(ctx context.Context, u *chatbusv1.Update) error {
	s, err := p.b.current()
	if err != nil {
		return nil // no platform to answer on; nothing to deliver
	}
	interaction := firstRef(u.GetReferences(), chatbusv1.ReferenceKind_REFERENCE_KIND_INTERACTION)
	m := pressData.FindStringSubmatch(u.GetText())
	if m == nil {
		p.answerPress(ctx, s, interaction, "")
		return nil
	}
	behavior := behaviorDeny
	if m[1] == "allow" {
		behavior = behaviorAllow
	}
	r, first := p.claim(strings.ToLower(m[2]), behavior)
	switch {
	case r == nil:
		p.answerPress(ctx, s, interaction, "This request is no longer pending.")
		return nil
	case !first:
		p.answerPress(ctx, s, interaction, "Already answered: "+label(r.answered))
		return nil
	}
	// Acknowledge the press first: the person's button stops spinning.
	p.answerPress(ctx, s, interaction, label(behavior))
	if err := p.b.out.verdict(r.id, behavior); err != nil {
		return fmt.Errorf("%w: %v", errStdout, err)
	}
	msgID := p.prompt(r)
	if msgID == "" {
		msgID = firstRef(u.GetReferences(), chatbusv1.ReferenceKind_REFERENCE_KIND_MESSAGE)
	}
	p.showVerdict(ctx, s, msgID, r, behavior)
	return nil
}

// reply handles "yes <id>" / "no <id>": the first answer of a pending
// request goes to Claude Code and the reply gets a ✅ or ❌; a reply to an
// unknown or answered request is told so in the thread. Either way it is
// not forwarded as a message.
func (p *permissions) reply(ctx context.Context, u *chatbusv1.Update, id, behavior string) error {
	s, err := p.b.current()
	if err != nil {
		return nil
	}
	msgID := firstRef(u.GetReferences(), chatbusv1.ReferenceKind_REFERENCE_KIND_MESSAGE)
	r, first := p.claim(id, behavior)
	if r == nil || !first {
		note := fmt.Sprintf("No permission request %s is pending here.", id)
		if r != nil {
			note = fmt.Sprintf("Permission request %s was already answered: %s.", id, label(r.answered))
		}
		if _, err := s.f.Send(ctx, client.Message{Text: note, ReplyTo: msgID}, p.b.key(s.f)); err != nil {
			p.b.log.Warn().Err(err).Msg("answering a stale verdict")
		}
		return nil
	}
	if err := p.b.out.verdict(r.id, behavior); err != nil {
		return fmt.Errorf("%w: %v", errStdout, err)
	}
	emoji := "👍"
	if behavior == behaviorDeny {
		emoji = "👎"
	}
	if msgID != "" && s.has("react") {
		if err := s.f.React(ctx, msgID, emoji, p.b.key(s.f)); err != nil {
			p.b.log.Debug().Err(err).Msg("reacting to a verdict")
		}
	}
	p.showVerdict(ctx, s, p.prompt(r), r, behavior)
	return nil
}

// prompt is the message of r's prompt in the thread, "" until posted.
func (p *permissions) prompt(r *permRequest) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return r.messageID
}

// claim marks request id answered with behavior. It returns the request
// (nil if unknown) and whether this was its first answer.
func (p *permissions) claim(id, behavior string) (*permRequest, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.byID[id]
	if r == nil {
		return nil, false
	}
	if r.answered != "" {
		return r, false
	}
	r.answered = behavior
	return r, true
}

// showVerdict edits the prompt to say what was decided, which also
// removes its buttons.
func (p *permissions) showVerdict(ctx context.Context, s session, msgID string, r *permRequest, behavior string) {
	if msgID == "" {
		return
	}
	if err := s.f.Edit(ctx, msgID, r.text+"\n\n"+label(behavior), nil, p.b.key(s.f)); err != nil {
		p.b.log.Warn().Err(err).Str("request_id", r.id).Msg("showing a verdict")
	}
}

func (p *permissions) answerPress(ctx context.Context, s session, interaction, text string) {
	if interaction == "" || !s.has("answer") {
		return
	}
	if err := s.f.Answer(ctx, interaction, text, p.b.key(s.f)); err != nil {
		p.b.log.Debug().Err(err).Msg("answering a button press")
	}
}

func label(behavior string) string {
	if behavior == behaviorAllow {
		return "✅ Allowed"
	}
	return "❌ Denied"
}
