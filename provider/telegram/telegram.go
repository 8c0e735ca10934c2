// Package telegram is the Telegram provider: a provider.Platform on the Bot
// API (package botapi), serving forum topics as threads. It long-polls
// getUpdates, hands updates to the supervisor and advances the offset only
// past what the supervisor made durable; it creates, edits and closes forum
// topics and forwards the follower's allow-listed calls.
package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/protobuf/types/known/timestamppb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// Settings is the provider's config, written by the supervisor to the
// child's stdin as JSON (the providers.telegram.settings section of the
// supervisor's config file, plus name and forum_chat_id).
type Settings struct {
	Name        string `json:"name"`
	ForumChatID int64  `json:"forum_chat_id"`
	// Token is the bot token. If empty, the CHATBUS_TELEGRAM_TOKEN
	// environment variable (read by the command, not here).
	Token string `json:"token"`
	// BaseURL of the Bot API. If empty, https://api.telegram.org.
	BaseURL string `json:"base_url"`
	// AllowedUserIDs may talk to followers; everyone else is dropped and
	// counted. Empty: nobody is routed (fail closed).
	AllowedUserIDs []int64 `json:"allowed_user_ids"`
	// PollTimeout is the long-poll timeout. If empty, 30s.
	PollTimeout string `json:"poll_timeout"`
	// PollGrace is added to the HTTP timeout of a long poll. If empty, 10s.
	PollGrace string `json:"poll_grace"`
}

// ParseSettings decodes and checks the stdin config.
func ParseSettings(b []byte) (Settings, error) {
	var s Settings
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("telegram settings: %w", err)
	}
	if s.ForumChatID == 0 {
		return s, errors.New("telegram settings: forum_chat_id is required (the id of a forum-enabled supergroup, e.g. -1001234567890)")
	}
	for _, d := range []string{s.PollTimeout, s.PollGrace} {
		if d != "" {
			if _, err := time.ParseDuration(d); err != nil {
				return s, fmt.Errorf("telegram settings: %q is not a duration", d)
			}
		}
	}
	return s, nil
}

// Platform implements provider.Platform for Telegram.
type Platform struct {
	s       Settings
	client  *botapi.Client
	allowed map[int64]bool
	log     zerolog.Logger
	onState func(serving bool, why string)
	timeout time.Duration
}

// New returns the Telegram platform. onState, if set, is told when polling
// becomes healthy or not (409 Conflict: another poller owns the token).
func New(s Settings, log zerolog.Logger, onState func(serving bool, why string)) (*Platform, error) {
	grace := 10 * time.Second
	if s.PollGrace != "" {
		grace, _ = time.ParseDuration(s.PollGrace)
	}
	c, err := botapi.New(botapi.Config{BaseURL: s.BaseURL, Token: s.Token, PollGrace: grace})
	if err != nil {
		return nil, err
	}
	timeout := 30 * time.Second
	if s.PollTimeout != "" {
		timeout, _ = time.ParseDuration(s.PollTimeout)
	}
	p := &Platform{s: s, client: c, allowed: map[int64]bool{}, log: log, onState: onState, timeout: timeout}
	for _, id := range s.AllowedUserIDs {
		p.allowed[id] = true
	}
	if len(p.allowed) == 0 {
		log.Warn().Msg("allowed_user_ids is empty: every update will be dropped; add your Telegram user id")
	}
	return p, nil
}

// Identify implements provider.Platform.
func (p *Platform) Identify(ctx context.Context) (provider.Identity, error) {
	me, err := p.client.GetMe(ctx)
	if err != nil {
		return provider.Identity{}, mapErr(err)
	}
	return provider.Identity{OwnerID: strconv.FormatInt(me.ID, 10), Account: "@" + me.Username}, nil
}

// Run implements provider.Platform: long polling from cursor, the next
// getUpdates offset in decimal (what convert reports as each update's
// cursor).
func (p *Platform) Run(ctx context.Context, cursor []byte, sink provider.Sink) error {
	var offset int64
	if len(cursor) > 0 {
		var err error
		if offset, err = strconv.ParseInt(string(cursor), 10, 64); err != nil {
			return fmt.Errorf("%w: stored cursor %q is not a getUpdates offset", provider.ErrInvalid, cursor)
		}
	}
	var mu sync.Mutex
	last := botapi.State(0)
	poller := &botapi.Poller{
		Client:  p.client,
		Timeout: p.timeout,
		Offset:  offset,
		Handle: func(ctx context.Context, ups []botapi.Update) (int64, error) {
			batch := make([]*providerv1.Update, 0, len(ups))
			for i := range ups {
				batch = append(batch, p.convert(&ups[i]))
			}
			return sink.Deliver(ctx, batch)
		},
		OnState: func(st botapi.State, err error) {
			mu.Lock()
			changed := st != last
			last = st
			mu.Unlock()
			if !changed {
				return
			}
			ev := p.log.Info()
			if err != nil {
				ev = p.log.Warn().Err(err)
			}
			ev.Str("state", st.String()).Msg("polling state")
			if p.onState == nil {
				return
			}
			switch st {
			case botapi.StateServing:
				p.onState(true, "")
			case botapi.StateConflict:
				p.onState(false, "409 Conflict: another process polls this bot token; stop it (only one poller per token)")
			case botapi.StateUnauthorized:
				p.onState(false, "401 Unauthorized: the bot token is wrong or revoked")
			}
		},
	}
	err := poller.Run(ctx)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (p *Platform) convert(u *botapi.Update) *providerv1.Update {
	out := &providerv1.Update{
		UpdateId:   u.UpdateID,
		ChatId:     u.ChatID(),
		ThreadId:   int64(u.ThreadID()),
		FromUserId: u.FromID(),
		Payload:    u.Raw,
		ReceivedAt: timestamppb.Now(),
		Allowed:    p.allowed[u.FromID()],
		References: provider.RefsProto(updateRefs(u)),
		Chat:       idText(u.ChatID()),
		Thread:     idText(int64(u.ThreadID())),
		Sender:     idText(u.FromID()),
		SenderName: senderName(u),
		DedupId:    strconv.FormatInt(u.UpdateID, 10),
		// Once this update is durable, polling resumes after it.
		Cursor: strconv.AppendInt(nil, u.UpdateID+1, 10),
	}
	switch u.Kind() {
	case botapi.KindMessage:
		out.Kind = providerv1.UpdateKind_UPDATE_KIND_MESSAGE
		out.Text = messageText(u.Message)
	case botapi.KindEditedMessage:
		out.Kind = providerv1.UpdateKind_UPDATE_KIND_EDITED_MESSAGE
		out.Text = messageText(u.EditedMessage)
	case botapi.KindCallbackQuery:
		out.Kind = providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY
		out.Text = u.CallbackQuery.Data
	case botapi.KindMessageReaction:
		out.Kind = providerv1.UpdateKind_UPDATE_KIND_REACTION
	}
	return out
}

// updateRefs lists the ids of u a follower may name in later calls: the
// message (edited, reacted to or carrying the pressed button), its files,
// the callback query.
func updateRefs(u *botapi.Update) []provider.Ref {
	var refs []provider.Ref
	refs = messageRefs(refs, u.Message)
	refs = messageRefs(refs, u.EditedMessage)
	if q := u.CallbackQuery; q != nil {
		refs = append(refs, provider.Ref{Kind: provider.RefInteraction, ID: q.ID})
		refs = messageRefs(refs, q.Message)
	}
	if r := u.MessageReaction; r != nil {
		refs = append(refs, provider.Ref{Kind: provider.RefMessage, ID: strconv.Itoa(r.MessageID)})
	}
	return refs
}

// messageRefs appends the ids of m: the message and its files.
func messageRefs(refs []provider.Ref, m *botapi.Message) []provider.Ref {
	if m == nil {
		return refs
	}
	refs = append(refs, provider.Ref{Kind: provider.RefMessage, ID: strconv.Itoa(m.MessageID)})
	if m.Document != nil {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: m.Document.FileID})
	}
	for _, p := range m.Photo {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: p.FileID})
	}
	return refs
}

// idText writes a Telegram id as text; 0 (none) is "".
func idText(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// senderName is the sender's @username, else first name.
func senderName(u *botapi.Update) string {
	var from *botapi.User
	switch {
	case u.Message != nil:
		from = u.Message.From
	case u.EditedMessage != nil:
		from = u.EditedMessage.From
	case u.CallbackQuery != nil:
		from = &u.CallbackQuery.From
	case u.MessageReaction != nil:
		from = u.MessageReaction.User
	}
	switch {
	case from == nil:
		return ""
	case from.Username != "":
		return "@" + from.Username
	}
	return from.FirstName
}

func messageText(m *botapi.Message) string {
	if m == nil {
		return ""
	}
	if m.Text != "" {
		return m.Text
	}
	return m.Caption
}

// Call implements provider.Platform: the call is scoped to t (see scope)
// and made; the result's message and files become references of t.
func (p *Platform) Call(ctx context.Context, t provider.Target, method string, params json.RawMessage, _ string) (provider.Result, error) {
	scoped, err := scope(t, method, params)
	if err != nil {
		return provider.Result{}, err
	}
	res, err := p.client.Do(ctx, method, scoped)
	if err != nil {
		return provider.Result{}, mapErr(err)
	}
	return provider.Result{JSON: res, Refs: resultRefs(res)}, nil
}

// Upload implements provider.Platform (sendDocument; sendPhoto for photos).
func (p *Platform) Upload(ctx context.Context, h provider.UploadHeader, r io.Reader) (provider.Result, error) {
	chat, thread, err := numericTarget(h.Target)
	if err != nil {
		return provider.Result{}, err
	}
	method, field := "sendDocument", "document"
	if h.Kind == "photo" {
		method, field = "sendPhoto", "photo"
	}
	res, err := p.client.SendFile(ctx, method, field, chat, int(thread), h.Filename, r, h.Caption)
	if err != nil {
		return provider.Result{}, mapErr(err)
	}
	return provider.Result{JSON: res, Refs: resultRefs(res)}, nil
}

// Download implements provider.Platform.
func (p *Platform) Download(ctx context.Context, fileID string) (io.ReadCloser, int64, string, error) {
	f, err := p.client.GetFile(ctx, fileID)
	if err != nil {
		return nil, 0, "", mapErr(err)
	}
	rc, err := p.client.DownloadFile(ctx, f.FilePath)
	if err != nil {
		return nil, 0, "", mapErr(err)
	}
	return rc, f.FileSize, f.FilePath, nil
}

// Provision implements provider.Platform: createForumTopic. It is not
// idempotent: a failure after the request went out is ambiguous.
func (p *Platform) Provision(ctx context.Context, req provider.ProvisionRequest) (provider.Provisioned, error) {
	chatID := p.s.ForumChatID
	if req.Chat != "" {
		var err error
		if chatID, err = strconv.ParseInt(req.Chat, 10, 64); err != nil {
			return provider.Provisioned{}, fmt.Errorf("%w: chat %q is not a Telegram chat id", provider.ErrInvalid, req.Chat)
		}
	}
	t, err := p.client.CreateForumTopic(ctx, chatID, req.Name, 0)
	if err != nil {
		var api *botapi.APIError
		if errors.As(err, &api) {
			return provider.Provisioned{}, mapErr(err) // Telegram answered: not created
		}
		return provider.Provisioned{}, fmt.Errorf("%w: createForumTopic: %v", provider.ErrAmbiguous, err)
	}
	return provider.Provisioned{Target: provider.Target{Chat: idText(chatID), Thread: idText(int64(t.MessageThreadID)), Name: t.Name}}, nil
}

// CloseTarget implements provider.Platform.
func (p *Platform) CloseTarget(ctx context.Context, t provider.Target) error {
	chatID, threadID, err := numericTarget(t)
	if err != nil {
		return err
	}
	err = p.client.CloseForumTopic(ctx, chatID, int(threadID))
	var api *botapi.APIError
	if errors.As(err, &api) && api.Description == "Bad Request: TOPIC_NOT_MODIFIED" {
		return nil // closed already
	}
	return mapErr(err)
}

// mapErr turns Bot API errors into the SDK's classes.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if d, ok := botapi.IsRateLimited(err); ok {
		return provider.RateLimited(d, err)
	}
	var api *botapi.APIError
	if errors.As(err, &api) {
		switch {
		case api.Code == 400:
			return fmt.Errorf("%w: %v", provider.ErrInvalid, err)
		case api.Code == 403:
			return fmt.Errorf("%w: %v", provider.ErrPermissionDenied, err)
		case api.Code == 404:
			return fmt.Errorf("%w: %v", provider.ErrNotFound, err)
		case api.Code >= 500:
			return fmt.Errorf("%w: %v", provider.ErrUnavailable, err)
		}
	}
	return err
}
