// Package telegram is the Telegram provider: a provider.Platform on the Bot
// API (package botapi), serving topics as threads: of a forum supergroup
// (forum_chat_id) or of the bot's private chat with a person
// (private_chat_id, the bot's threaded mode). It long-polls
// getUpdates, hands updates to the supervisor and advances the offset only
// past what the supervisor made durable; it creates, reuses, edits and
// closes forum topics, forwards the follower's allow-listed calls, and
// reports whether it can do its job (health.go): the Bot API reachable,
// the token accepted, the forum chat usable.
package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/protobuf/types/known/timestamppb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// Platform implements provider.Platform for Telegram.
type Platform struct {
	s       Settings
	client  *botapi.Client
	allowed map[int64]bool
	log     zerolog.Logger
	live    *provider.Liveness
	timeout time.Duration
	recheck time.Duration          // how soon an unusable chat is looked at again
	botID   atomic.Int64           // the bot's user id, once getMe answered
	botName atomic.Pointer[string] // the bot's username, once getMe answered
	limits  []provider.RateLimit
}

// New returns the Telegram platform for checked settings (ParseSettings).
// It does not contact Telegram. health, if set, is told whether the
// platform connection works (see health.go); nil keeps it to itself.
func New(s Settings, log zerolog.Logger, health *provider.Health) (*Platform, error) {
	timeout, grace, recheck, err := s.durations()
	if err != nil {
		return nil, err
	}
	c, err := botapi.New(botapi.Config{BaseURL: s.BaseURL, Token: s.Token, PollGrace: grace})
	if err != nil {
		return nil, err
	}
	if health == nil {
		health = provider.NewHealth()
	}
	p := &Platform{
		s:       s,
		client:  c,
		allowed: map[int64]bool{},
		log:     log,
		live:    provider.NewLiveness(health, provider.LivenessConfig{}),
		timeout: timeout,
		recheck: recheck,
	}
	if p.limits, err = s.Limits.Apply(s.defaultLimits()); err != nil {
		return nil, err
	}
	for _, id := range s.AllowedUserIDs {
		p.allowed[id] = true
	}
	if s.Private() {
		// The private chat is the person's: they may talk to their
		// sessions without being listed again.
		p.allowed[s.PrivateChatID] = true
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
	p.learnMe(me)
	return provider.Identity{OwnerID: strconv.FormatInt(me.ID, 10), Account: "@" + me.Username}, nil
}

// Run implements provider.Platform: long polling from cursor, the next
// getUpdates offset in decimal (what convert reports as each update's
// cursor). Beside it, the forum chat is checked (health.go); both feed
// the provider's health.
func (p *Platform) Run(ctx context.Context, cursor []byte, sink provider.Sink) error {
	var offset int64
	if len(cursor) > 0 {
		var err error
		if offset, err = strconv.ParseInt(string(cursor), 10, 64); err != nil {
			return fmt.Errorf("%w: stored cursor %q is not a getUpdates offset", provider.ErrInvalid, cursor)
		}
	}
	// Beside polling, not before it: an unreachable Bot API must not hold
	// the updates up.
	announced := make(chan struct{})
	go func() { defer close(announced); p.announce(ctx) }()
	defer func() { <-announced }()
	chatCtx, stopChat := context.WithCancel(ctx)
	chatDone := make(chan struct{})
	go func() { defer close(chatDone); p.watchChat(chatCtx) }()
	defer func() { stopChat(); <-chatDone }()

	poller := &botapi.Poller{
		Client:  p.client,
		Timeout: p.timeout,
		Offset:  offset,
		Handle: func(ctx context.Context, ups []botapi.Update) (int64, error) {
			batch := make([]*providerv1.Update, 0, len(ups))
			for i := range ups {
				batch = append(batch, p.convertContained(&ups[i]))
			}
			return sink.Deliver(ctx, batch)
		},
		OnState: p.pollState(),
	}
	err := poller.Run(ctx)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// learnMe keeps what getMe said of the bot: its id and username.
func (p *Platform) learnMe(me botapi.User) {
	p.botID.Store(me.ID)
	p.botName.Store(&me.Username)
}

// botCommands is the bot's command menu: chatbus's commands
// (docs/control.md), which Telegram offers when a person types "/".
var botCommands = []botapi.BotCommand{
	{Command: "sessions", Description: "Every session: its slot, topic, directory, working or idle"},
	{Command: "status", Description: "The supervisor and each provider's health and queue"},
	{Command: "new", Description: "new <template> [<project>]: start a session from a launch template"},
	{Command: "stop", Description: "stop <slot>: stop a session"},
	{Command: "restart", Description: "restart <provider>: the doctor's restart of a provider"},
	{Command: "help", Description: "The commands, as this chat spells them"},
}

// announce learns the bot's username (commands addressed to it name it:
// /status@thebot) and sets its command menu, at each start; the same
// menu again changes nothing. A failure is logged and left: the menu is
// a convenience, and the name is asked for again when a command names a
// bot.
func (p *Platform) announce(ctx context.Context) {
	actx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if p.botName.Load() == nil {
		me, err := p.client.GetMe(actx)
		if err != nil {
			p.log.Info().Err(err).Msg("getMe: the bot's name is not known yet")
			return
		}
		p.learnMe(me)
	}
	if err := p.client.SetMyCommands(actx, botCommands); err != nil {
		p.log.Info().Err(err).Msg("setMyCommands: the bot's command menu was not set")
	}
}

// convertContained converts u, or makes it a dead letter if it could not
// be decoded or its conversion panics: the updates after it flow, and
// the supervisor keeps it for an operator (provider.Convert).
func (p *Platform) convertContained(u *botapi.Update) *providerv1.Update {
	out := provider.Convert(u.Raw, func() (*providerv1.Update, error) {
		if u.DecodeErr != nil {
			return nil, u.DecodeErr
		}
		return p.convert(u), nil
	})
	if out.GetConversionError() != "" {
		out.UpdateId = u.UpdateID
		out.DedupId = strconv.FormatInt(u.UpdateID, 10)
		out.Cursor = strconv.AppendInt(nil, u.UpdateID+1, 10)
	}
	return out
}

// ConvertUpdate implements provider.Converter: a dead letter's payload is
// the update as Telegram sent it.
func (p *Platform) ConvertUpdate(_ context.Context, payload []byte, _ providerv1.UpdateKind, _ string) (*providerv1.Update, error) {
	var u botapi.Update
	if err := json.Unmarshal(payload, &u); err != nil {
		return nil, err
	}
	out := p.convert(&u)
	out.Cursor = nil // journalled beside the stream: the cursor is the stream's
	return out, nil
}

func (p *Platform) convert(u *botapi.Update) *providerv1.Update {
	out := &providerv1.Update{
		UpdateId:   u.UpdateID,
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
		if out.Thread == "" {
			if cmd, ok := p.command(out.Text); ok {
				// A command to chatbus, in the control place.
				out.Kind, out.Text = providerv1.UpdateKind_UPDATE_KIND_COMMAND, cmd
			}
		}
		out.ThreadState = topicState(u.Message)
		out.Audio = messageAudio(u.Message)
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

// command reads a bot command written in the chat's control place (the
// forum's General topic, the private chat outside any topic):
// "/name[@bot] args…". It returns the command as the supervisor reads it
// ("name args…") when it is addressed to this bot: no @bot, or this bot's
// username (in a group several bots share, "/status@otherbot" is the
// other's).
func (p *Platform) command(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, "/")
	if !ok || rest == "" {
		return "", false
	}
	name, args, _ := strings.Cut(rest, " ")
	name, bot, addressed := strings.Cut(name, "@")
	if name == "" || strings.ContainsAny(name, "\n\t/") {
		return "", false
	}
	if addressed {
		mine := p.botName.Load()
		if mine == nil || !strings.EqualFold(bot, *mine) {
			return "", false
		}
	}
	return strings.TrimSpace(name + " " + args), true
}

// topicState says what a service message tells of its topic: a person
// closed or reopened it. (Telegram sends no update when a topic is
// deleted: calls into it find out, see topics.go.)
func topicState(m *botapi.Message) providerv1.ThreadState {
	switch {
	case m.ForumTopicClosed != nil:
		return providerv1.ThreadState_THREAD_STATE_CLOSED
	case m.ForumTopicReopened != nil:
		return providerv1.ThreadState_THREAD_STATE_REOPENED
	}
	return providerv1.ThreadState_THREAD_STATE_UNSPECIFIED
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
	if m.Voice != nil {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: m.Voice.FileID})
	}
	if m.Audio != nil {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: m.Audio.FileID})
	}
	return refs
}

// messageAudio is the voice note or audio file of a new message, for the
// supervisor to transcribe; nil if it has none. A document whose type is
// audio counts too (a file sent "as a file").
func messageAudio(m *botapi.Message) *providerv1.Audio {
	switch {
	case m == nil:
		return nil
	case m.Voice != nil:
		v := m.Voice
		return &providerv1.Audio{FileId: v.FileID, MimeType: v.MimeType, DurationSeconds: uint32(max(v.Duration, 0)), Size: v.FileSize, Voice: true}
	case m.Audio != nil:
		a := m.Audio
		return &providerv1.Audio{FileId: a.FileID, MimeType: a.MimeType, DurationSeconds: uint32(max(a.Duration, 0)), Size: a.FileSize, FileName: a.FileName}
	case m.Document != nil && strings.HasPrefix(m.Document.MimeType, "audio/"):
		d := m.Document
		return &providerv1.Audio{FileId: d.FileID, MimeType: d.MimeType, Size: d.FileSize, FileName: d.FileName}
	}
	return nil
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
// and made; the result's message and files become references of t. A
// topic a person closed is reopened and the call made once more
// (topics.go); one that was deleted is provider.ErrTargetGone.
func (p *Platform) Call(ctx context.Context, t provider.Target, method string, params json.RawMessage, _ string) (provider.Result, error) {
	scoped, err := scope(t, method, params)
	if err != nil {
		return provider.Result{}, err
	}
	res, err := p.client.Do(ctx, method, scoped)
	if isTopicClosed(err) && t.Thread != "" {
		if err = p.reopenClosed(ctx, t); err != nil {
			return provider.Result{}, err
		}
		res, err = p.client.Do(ctx, method, scoped)
	}
	if err != nil {
		return provider.Result{}, mapErr(err)
	}
	return provider.Result{JSON: res, Refs: resultRefs(res)}, nil
}

// Upload implements provider.Platform (sendDocument; sendPhoto for photos).
// The file is streamed once, so an upload into a topic a person closed
// cannot be repeated here: the topic is reopened and the upload refused as
// provider.ErrUnavailable (nothing was sent; the caller may send it again).
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
	if isTopicClosed(err) && h.Target.Thread != "" {
		if err := p.reopenClosed(ctx, h.Target); err != nil {
			return provider.Result{}, err
		}
		return provider.Result{}, fmt.Errorf("%w: topic %s was closed; it is open again, send the file again", provider.ErrUnavailable, h.Target.Thread)
	}
	if err != nil {
		return provider.Result{}, mapErr(err)
	}
	return provider.Result{JSON: res, Refs: resultRefs(res)}, nil
}

// Download implements provider.Platform.
func (p *Platform) Download(ctx context.Context, fileID string) (io.ReadCloser, int64, string, error) {
	f, err := p.client.GetFile(ctx, fileID)
	if err != nil {
		return nil, 0, "", mapFileErr(err)
	}
	rc, err := p.client.DownloadFile(ctx, f.FilePath)
	if err != nil {
		return nil, 0, "", mapErr(err)
	}
	return rc, f.FileSize, f.FilePath, nil
}
