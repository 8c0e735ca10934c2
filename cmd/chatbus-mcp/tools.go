package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// maxUploadBytes is the largest file reply sends (Telegram's bot limit).
const maxUploadBytes = 50 << 20

// The tools act in the session's own thread only: the supervisor fills in
// the chat and thread and refuses ids the thread never saw.
func (b *bridge) addTools(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("reply",
		mcp.WithDescription("Send a message to the person in this session's chat thread. The text is Markdown (bold, italics, `code`, fenced code blocks with a language, links, lists), shown formatted on every platform. Long text is split into several messages, each formatted correctly; all their ids are returned. Optionally quote an earlier message (reply_to) and attach files (absolute paths; images go as photos)."),
		mcp.WithString("text", mcp.Required(), mcp.Description("The message text, in Markdown.")),
		mcp.WithString("reply_to", mcp.Description("message_id of an earlier message to quote; omit for a normal answer.")),
		mcp.WithArray("files", mcp.WithStringItems(), mcp.Description("Absolute paths of files to attach, 50 MB each at most.")),
	), b.reply)
	s.AddTool(mcp.NewTool("react",
		mcp.WithDescription("Put an emoji reaction on a message of the thread (some platforms accept only their own set; Telegram's includes 👍 👎 ❤ 🔥 👀 🎉 🙏 👌)."),
		mcp.WithString("message_id", mcp.Required(), mcp.Description("The message's id (message_id of a <channel> tag, or one reply returned).")),
		mcp.WithString("emoji", mcp.Required(), mcp.Description("One emoji.")),
	), b.react)
	s.AddTool(mcp.NewTool("edit_message",
		mcp.WithDescription("Replace the text of a message this session sent (for progress updates). Edits do not notify the person: send a new reply when a long task ends."),
		mcp.WithString("message_id", mcp.Required(), mcp.Description("An id reply returned.")),
		mcp.WithString("text", mcp.Required(), mcp.Description("The new text, in Markdown (one message's worth).")),
	), b.editMessage)
	s.AddTool(mcp.NewTool("download_attachment",
		mcp.WithDescription("Download a file the person sent in the thread (a file id from the file_ids attribute of a <channel> tag) and return its local path."),
		mcp.WithString("file_id", mcp.Required(), mcp.Description("The file's id.")),
	), b.downloadAttachment)
}

// id accepts an id given as a string or as a number.
type id string

func (i *id) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*i = id(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("an id is a string or a number, not %s", b)
	}
	*i = id(n.String())
	return nil
}

type replyArgs struct {
	Text    string   `json:"text"`
	ReplyTo id       `json:"reply_to"`
	Files   []string `json:"files"`
}

func (b *bridge) reply(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a replyArgs
	if err := req.BindArguments(&a); err != nil {
		return mcp.NewToolResultError("reply: " + err.Error()), nil
	}
	s, err := b.current()
	if err != nil {
		return toolError("reply", err), nil
	}
	if strings.TrimSpace(a.Text) == "" && len(a.Files) == 0 {
		return mcp.NewToolResultError("reply: text is empty"), nil
	}
	for _, f := range a.Files {
		if err := b.sendable(f); err != nil {
			return mcp.NewToolResultError("reply: " + err.Error()), nil
		}
	}
	var ids []string
	done := func(err error) *mcp.CallToolResult {
		if err == nil {
			return mcp.NewToolResultStructured(map[string]any{"message_ids": ids},
				fmt.Sprintf("sent %d message(s): %s", len(ids), strings.Join(ids, ", ")))
		}
		r := toolError("reply", err)
		if len(ids) > 0 {
			r = mcp.NewToolResultError(fmt.Sprintf("%s (already sent: %s)", r.Content[0].(mcp.TextContent).Text, strings.Join(ids, ", ")))
		}
		return r
	}
	// The session answers: the typing indicator stops (the platform ends
	// it as the message arrives, and it is not renewed).
	b.presence.replied()
	if strings.TrimSpace(a.Text) != "" {
		sent, err := s.f.Send(ctx, client.Message{Text: a.Text, ReplyTo: string(a.ReplyTo)}, b.key(s.f))
		if err != nil {
			return done(err), nil
		}
		ids = append(ids, sent...)
	}
	for _, path := range a.Files {
		msgID, err := b.upload(ctx, s, path)
		if err != nil {
			return done(fmt.Errorf("%s: %w", path, err)), nil
		}
		ids = append(ids, msgID)
	}
	return done(nil), nil
}

// sendable refuses what reply must not send: relative paths, what is not
// a regular file, files over the limit, and chatbus's own state (the
// supervisor's secret lives there) except the inbox of received files.
func (b *bridge) sendable(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("%q is not an absolute path", path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(real)
	switch {
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case st.Size() > maxUploadBytes:
		return fmt.Errorf("%s is %d bytes, more than the %d a message may carry", path, st.Size(), maxUploadBytes)
	}
	state, err := filepath.EvalSymlinks(b.cfg.paths.StateDir)
	if err != nil {
		return nil // no state dir: nothing of it to leak
	}
	inbox, _ := filepath.EvalSymlinks(b.dirs.inbox())
	if within(real, state) && (inbox == "" || !within(real, inbox)) {
		return fmt.Errorf("refusing to send chatbus's own state (%s)", path)
	}
	return nil
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (b *bridge) upload(ctx context.Context, s session, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	resp, err := s.f.UploadFile(ctx, client.Upload{
		Filename: filepath.Base(path),
		Kind:     uploadKind(strings.ToLower(filepath.Ext(path))),
	}, f)
	if err != nil {
		return "", err
	}
	return firstRef(resp.GetReferences(), chatbusv1.ReferenceKind_REFERENCE_KIND_MESSAGE), nil
}

type reactArgs struct {
	MessageID id     `json:"message_id"`
	Emoji     string `json:"emoji"`
}

func (b *bridge) react(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a reactArgs
	if err := req.BindArguments(&a); err != nil || a.MessageID == "" || a.Emoji == "" {
		return mcp.NewToolResultError("react: message_id and emoji are required"), nil
	}
	s, err := b.current()
	if err != nil {
		return toolError("react", err), nil
	}
	if !s.has("react") {
		return mcp.NewToolResultError("react: this chat platform has no reactions"), nil
	}
	if err := s.f.React(ctx, string(a.MessageID), a.Emoji, b.key(s.f)); err != nil {
		return toolError("react", err), nil
	}
	return mcp.NewToolResultText("reacted " + a.Emoji + " on " + string(a.MessageID)), nil
}

type editArgs struct {
	MessageID id     `json:"message_id"`
	Text      string `json:"text"`
}

func (b *bridge) editMessage(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a editArgs
	if err := req.BindArguments(&a); err != nil || a.MessageID == "" || strings.TrimSpace(a.Text) == "" {
		return mcp.NewToolResultError("edit_message: message_id and text are required"), nil
	}
	s, err := b.current()
	if err != nil {
		return toolError("edit_message", err), nil
	}
	if err := s.f.Edit(ctx, string(a.MessageID), a.Text, nil, b.key(s.f)); err != nil {
		return toolError("edit_message", err), nil
	}
	return mcp.NewToolResultText("edited " + string(a.MessageID)), nil
}

// uploadKind is the UploadFile kind for a file with this extension:
// images are shown inline as photos, the rest are documents.
func uploadKind(ext string) string {
	switch ext {
	case ".jpg", ".jpeg", ".png", ".gif", ".webp":
		return "photo"
	}
	return "document"
}

type downloadArgs struct {
	FileID string `json:"file_id"`
}

func (b *bridge) downloadAttachment(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a downloadArgs
	if err := req.BindArguments(&a); err != nil || a.FileID == "" {
		return mcp.NewToolResultError("download_attachment: file_id is required"), nil
	}
	s, err := b.current()
	if err != nil {
		return toolError("download_attachment", err), nil
	}
	path, err := b.downloadTo(ctx, s.f, fmt.Sprintf("file-%d", b.keys.Add(1)), a.FileID)
	if err != nil {
		return toolError("download_attachment", err), nil
	}
	return mcp.NewToolResultStructured(map[string]any{"path": path}, path), nil
}

// toolError turns a supervisor error into a tool error the model can act
// on: a rate limit says how long to wait, a refusal says it is one.
func toolError(tool string, err error) *mcp.CallToolResult {
	var msg string
	d, limited := client.RetryDelay(err)
	switch {
	case limited || errors.Is(err, client.ErrRateLimited):
		msg = fmt.Sprintf("rate limited by the chat platform: retry after %s (%v)", d, err)
	case errors.Is(err, client.ErrOutcomeUnknown):
		msg = fmt.Sprintf("the outcome is unknown: it may or may not have reached the chat; check before sending again (%v)", err)
	case errors.Is(err, client.ErrPermissionDenied):
		msg = fmt.Sprintf("refused: outside this session's thread, or not allowed (%v)", err)
	case errors.Is(err, client.ErrNotFound):
		msg = fmt.Sprintf("not found (%v)", err)
	case errors.Is(err, client.ErrInvalidArgument):
		msg = fmt.Sprintf("the chat platform refused it (%v)", err)
	case errors.Is(err, client.ErrUnavailable):
		msg = fmt.Sprintf("the chat is unreachable for now; try again shortly (%v)", err)
	default:
		msg = err.Error()
	}
	var e *client.Error
	if errors.As(err, &e) && e.Reason != "" {
		msg += " [" + e.Reason + "]"
	}
	return mcp.NewToolResultError(tool + ": " + msg)
}
