package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/disgoorg/disgo/rest"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

// user is the part of a Discord user object the provider reads.
type user struct {
	ID         string  `json:"id"`
	Username   string  `json:"username"`
	GlobalName *string `json:"global_name"`
	Bot        bool    `json:"bot"`
}

type member struct {
	Nick *string `json:"nick"`
	User *user   `json:"user"`
}

// displayName is the member's nickname, else the user's display name,
// else the username.
func displayName(u user, m *member) string {
	switch {
	case m != nil && m.Nick != nil && *m.Nick != "":
		return *m.Nick
	case u.GlobalName != nil && *u.GlobalName != "":
		return *u.GlobalName
	}
	return u.Username
}

// message is the part of a message object the provider reads.
type message struct {
	ID          string  `json:"id"`
	ChannelID   string  `json:"channel_id"`
	GuildID     string  `json:"guild_id"`
	Type        int     `json:"type"`
	Author      user    `json:"author"`
	Member      *member `json:"member"`
	Content     string  `json:"content"`
	WebhookID   string  `json:"webhook_id"`
	Flags       int     `json:"flags"`
	Attachments []struct {
		ID          string `json:"id"`
		Filename    string `json:"filename"`
		ContentType string `json:"content_type"`
		Size        int64  `json:"size"`
		// A voice message's attachment has its length and a waveform.
		DurationSecs float64 `json:"duration_secs"`
		Waveform     string  `json:"waveform"`
	} `json:"attachments"`
}

// flagVoiceMessage marks a voice message (IS_VOICE_MESSAGE).
const flagVoiceMessage = 1 << 13

// messageAudio is the voice message or first audio attachment of m, for
// the supervisor to transcribe; nil if it has none.
func messageAudio(channel string, m message) *providerv1.Audio {
	for _, a := range m.Attachments {
		voice := m.Flags&flagVoiceMessage != 0 || a.Waveform != ""
		if !isSnowflake(a.ID) || (!voice && !strings.HasPrefix(a.ContentType, "audio/")) {
			continue
		}
		return &providerv1.Audio{FileId: fileRef(channel, m.ID, a.ID), MimeType: a.ContentType,
			DurationSeconds: uint32(max(0, math.Round(a.DurationSecs))), Size: a.Size, FileName: a.Filename, Voice: voice}
	}
	return nil
}

// Message types routed to followers: a default message and a reply.
// System messages (a thread renamed, a member added…) are not.
func routedType(t int) bool { return t == 0 || t == 19 }

// fileRef is a file reference: the attachment's channel, message and id.
// Discord's attachment URLs expire, so Download asks for the message
// again to get a fresh one; the reference names everything it needs.
func fileRef(channel, msg, att string) string { return channel + "/" + msg + "/" + att }

// messageRefs are the ids of a message: itself and its attachments.
func messageRefs(channel string, m message) []provider.Ref {
	refs := []provider.Ref{{Kind: provider.RefMessage, ID: m.ID}}
	for _, a := range m.Attachments {
		if isSnowflake(a.ID) {
			refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: fileRef(channel, m.ID, a.ID)})
		}
	}
	return refs
}

// message makes the update of a MESSAGE_CREATE (or of a message the
// catch-up fetched, fromREST): every message of the channel and its
// threads moves its thread's mark; people's messages of routed types
// become updates (the bot's own, webhooks' and system messages do not).
// dedup_id is the message id, so a message that arrives by gateway and by
// REST is journalled once. It fails only when ctx ends during a catch-up.
func (r *runner) message(ctx context.Context, raw json.RawMessage, fromREST bool) error {
	var m message
	decodeErr := json.Unmarshal(raw, &m)
	var typeErr *json.UnmarshalTypeError
	if (decodeErr != nil && !errors.As(decodeErr, &typeErr)) || !isSnowflake(m.ID) {
		r.p.log.Warn().Err(decodeErr).Msg("malformed message; ignored")
		return nil
	}
	if m.GuildID != "" && m.GuildID != r.p.guild {
		return nil
	}
	t, ok, err := r.eventTarget(ctx, m.ChannelID, fromREST)
	if err != nil || !ok {
		return err
	}
	if t.Thread != "" {
		r.cur.mark(t.Thread, m.ID, r.p.isBound)
	}
	if fromREST {
		r.caught[m.ID] = true
	} else if r.caught[m.ID] {
		delete(r.caught, m.ID) // the catch-up had it
		return nil
	}
	r.p.mu.Lock()
	app := r.p.appID
	r.p.mu.Unlock()
	if m.Author.ID == r.bot || (m.WebhookID != "" && m.WebhookID == app) || !routedType(m.Type) {
		return nil
	}
	if decodeErr != nil {
		// A message of the provider's with a field of a type this
		// build does not expect: set aside, not routed half-read.
		dead := provider.DeadLetter(raw, fmt.Errorf("message %s: %w", m.ID, decodeErr))
		dead.Kind = providerv1.UpdateKind_UPDATE_KIND_MESSAGE
		r.addDead(dead, m.ID)
		return nil
	}
	if text, ok := mentionCommand(r.bot, m.Content); ok && t.Thread == "" {
		// Addressed to chatbus in its control place (see control.go).
		u := r.update(t, m.Author, m.Member, providerv1.UpdateKind_UPDATE_KIND_COMMAND, text, raw, m.ID)
		u.References = provider.RefsProto(messageRefs(t.Chat, m))
		r.add(u)
		return nil
	}
	u := r.update(t, m.Author, m.Member, providerv1.UpdateKind_UPDATE_KIND_MESSAGE, m.Content, raw, m.ID)
	u.References = provider.RefsProto(messageRefs(t.Thread, m))
	u.Audio = messageAudio(t.Thread, m)
	r.add(u)
	return nil
}

// eventTarget is target for an event: one the gateway dispatched (not
// fromREST) in a thread the session owes a catch-up is preceded by that
// catch-up, so that the thread's messages stay in order. It fails only
// when ctx ends during the catch-up.
func (r *runner) eventTarget(ctx context.Context, channel string, fromREST bool) (provider.Target, bool, error) {
	t, ok := r.target(ctx, channel)
	if ok && !fromREST && t.Thread != "" && r.owes(t.Thread) {
		if err := r.settle(ctx, t.Thread); err != nil {
			return t, false, err
		}
	}
	return t, ok, nil
}

// reaction makes the update of a MESSAGE_REACTION_ADD; its dedup_id names
// the dispatch (session and sequence number), as reactions have no id.
func (r *runner) reaction(ctx context.Context, ev event) error {
	var rx struct {
		UserID    string  `json:"user_id"`
		ChannelID string  `json:"channel_id"`
		MessageID string  `json:"message_id"`
		GuildID   string  `json:"guild_id"`
		Member    *member `json:"member"`
		Emoji     struct {
			ID   *string `json:"id"`
			Name string  `json:"name"`
		} `json:"emoji"`
	}
	if json.Unmarshal(ev.D, &rx) != nil || !isSnowflake(rx.MessageID) || rx.UserID == r.bot || rx.GuildID != r.p.guild {
		return nil
	}
	t, ok, err := r.eventTarget(ctx, rx.ChannelID, false)
	if err != nil || !ok {
		return err
	}
	from := user{ID: rx.UserID}
	if rx.Member != nil && rx.Member.User != nil {
		from = *rx.Member.User
	}
	text := rx.Emoji.Name
	if rx.Emoji.ID != nil {
		text = "<:" + rx.Emoji.Name + ":" + *rx.Emoji.ID + ">"
	}
	u := r.update(t, from, rx.Member, providerv1.UpdateKind_UPDATE_KIND_REACTION, text, ev.D,
		"reaction:"+ev.Session+":"+strconv.Itoa(ev.S))
	u.References = provider.RefsProto([]provider.Ref{{Kind: provider.RefMessage, ID: rx.MessageID}})
	r.add(u)
	return nil
}

// interaction is an INTERACTION_CREATE the provider routes: a pressed
// button (MESSAGE_COMPONENT) or a use of an application command.
type interaction struct {
	ID            string  `json:"id"`
	Type          int     `json:"type"`
	Token         string  `json:"token"`
	ApplicationID string  `json:"application_id"`
	ChannelID     string  `json:"channel_id"`
	GuildID       string  `json:"guild_id"`
	Member        *member `json:"member"`
	User          *user   `json:"user"`
	// Channel is the channel it was made in (a partial object): a
	// thread's names its parent.
	Channel *struct {
		ParentID *string `json:"parent_id"`
	} `json:"channel"`
	Data struct {
		CustomID string `json:"custom_id"`
		// An application command's name and the options given.
		Name    string         `json:"name"`
		Options []commandValue `json:"options"`
	} `json:"data"`
	Message *struct {
		ID string `json:"id"`
	} `json:"message"`
}

// interactionComponent is Discord's MESSAGE_COMPONENT interaction type.
const interactionComponent = 3

func (in *interaction) sender() user {
	switch {
	case in.Member != nil && in.Member.User != nil:
		return *in.Member.User
	case in.User != nil:
		return *in.User
	}
	return user{}
}

// interaction makes the update of a pressed button. Its references are
// the interaction's id and its token (a follow-up names the token) and
// the message the button is on; dedup_id is the interaction id.
func (r *runner) interaction(ctx context.Context, ev event) error {
	var in interaction
	if json.Unmarshal(ev.D, &in) != nil || !isSnowflake(in.ID) {
		return nil
	}
	if in.Type == interactionCommand {
		if u := r.command(&in, ev.D); u != nil {
			r.add(u)
		}
		return nil
	}
	if in.Type != interactionComponent || in.GuildID != r.p.guild {
		return nil
	}
	t, ok, err := r.eventTarget(ctx, in.ChannelID, false)
	if err != nil || !ok {
		return err
	}
	u := r.update(t, in.sender(), in.Member, providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY, in.Data.CustomID, ev.D, in.ID)
	refs := []provider.Ref{{Kind: provider.RefInteraction, ID: in.ID}}
	if tokenParam(in.Token) {
		refs = append(refs, provider.Ref{Kind: provider.RefInteraction, ID: in.Token})
	}
	if in.Message != nil && isSnowflake(in.Message.ID) {
		refs = append(refs, provider.Ref{Kind: provider.RefMessage, ID: in.Message.ID})
	}
	u.References = provider.RefsProto(refs)
	r.add(u)
	return nil
}

// update fills what every update carries.
func (r *runner) update(t provider.Target, from user, m *member, kind providerv1.UpdateKind, text string, payload json.RawMessage, dedup string) *providerv1.Update {
	return &providerv1.Update{
		Kind:       kind,
		Chat:       t.Chat,
		Thread:     t.Thread,
		Sender:     from.ID,
		SenderName: displayName(from, m),
		Allowed:    r.p.allowed[from.ID],
		Text:       text,
		Payload:    payload,
		DedupId:    dedup,
	}
}

// target names the thread of a channel id: the configured channel itself
// (thread ""), or one of its threads. Other channels are not the
// provider's (false). An unknown channel is looked up once (GET
// /channels/{id}); if Discord cannot be asked, it is taken as one of the
// channel's threads rather than dropped (the supervisor holds it as
// unrouted if no follower owns it).
func (r *runner) target(ctx context.Context, channel string) (provider.Target, bool) {
	switch ours, foreign := r.p.threadKnown(channel); {
	case channel == r.p.channel:
		return provider.Target{Chat: r.p.channel}, true
	case ours:
		return provider.Target{Chat: r.p.channel, Thread: channel}, true
	case foreign || !isSnowflake(channel):
		return provider.Target{}, false
	}
	if _, ok := r.cur.Threads[channel]; ok {
		r.p.learnThread(channel, true, "")
		return provider.Target{Chat: r.p.channel, Thread: channel}, true
	}
	for attempt := 0; attempt < 5; attempt++ {
		var c threadChannel
		err := r.p.get(ctx, rest.GetChannel.Compile(nil, channel), &c)
		switch {
		case err == nil:
			ours := isThreadType(c.Type) && c.ParentID != nil && *c.ParentID == r.p.channel
			r.p.learnThread(channel, ours, c.OwnerID)
			return provider.Target{Chat: r.p.channel, Thread: channel}, ours
		case isCode(err, codeUnknownChannel), isCode(err, codeMissingAccess):
			r.p.learnThread(channel, false, "")
			return provider.Target{}, false
		}
		select {
		case <-ctx.Done():
			return provider.Target{Chat: r.p.channel, Thread: channel}, true
		case <-time.After(r.p.o.Timing.retryBackoff(attempt)):
		}
	}
	r.p.log.Warn().Str("channel", channel).Msg("cannot tell whether this channel is one of our threads; delivering its event as if it were")
	return provider.Target{Chat: r.p.channel, Thread: channel}, true
}
