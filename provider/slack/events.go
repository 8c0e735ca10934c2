package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

// envelope is one Socket Mode request that carries an envelope id (an
// events_api, interactive or slash_commands frame): what must be
// acknowledged to Slack, on the link it came in on if that is still up.
type envelope struct {
	ID          string
	Type        string
	Payload     json.RawMessage
	Retry       int
	RetryReason string
	link        *link
	received    time.Time // when it was read off the connection
	// acked: acknowledged when it arrived (a slash command), not again.
	acked bool
}

// The parts of an events_api payload (an event_callback) and of its inner
// event that routing needs. Everything else stays in the payload, which
// is journalled verbatim.
type callback struct {
	Type    string          `json:"type"`
	EventID string          `json:"event_id"`
	Event   json.RawMessage `json:"event"`
}

type event struct {
	Type    string `json:"type"`
	Channel string `json:"channel"`
	message
	// message_changed: the message as it is now, and as it was.
	Message         *message `json:"message"`
	PreviousMessage *message `json:"previous_message"`
	// message_deleted: the deleted message's ts.
	DeletedTS string `json:"deleted_ts"`
	// reaction_added
	Reaction string `json:"reaction"`
	Item     struct {
		Type    string `json:"type"`
		Channel string `json:"channel"`
		TS      string `json:"ts"`
	} `json:"item"`
}

type message struct {
	Subtype     string     `json:"subtype"`
	User        string     `json:"user"`
	BotID       string     `json:"bot_id"`
	Text        string     `json:"text"`
	TS          string     `json:"ts"`
	ThreadTS    string     `json:"thread_ts"`
	ReplyCount  int        `json:"reply_count"`
	Files       []fileInfo `json:"files"`
	Edited      *struct{}  `json:"edited"`
	UserProfile *struct {
		DisplayName string `json:"display_name"`
		RealName    string `json:"real_name"`
		Name        string `json:"name"`
	} `json:"user_profile"`
}

type fileInfo struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Mimetype string `json:"mimetype"`
	// Subtype is "slack_audio" for an audio clip recorded in Slack
	// ("slack_video" for a video clip).
	Subtype    string `json:"subtype"`
	Size       int64  `json:"size"`
	DurationMS int64  `json:"duration_ms"`
}

// fileAudio is the first audio file of a person's new message, for the
// supervisor to transcribe: a clip recorded in Slack, or an audio file
// uploaded; nil if it has none.
func fileAudio(files []fileInfo) *providerv1.Audio {
	for _, f := range files {
		clip := f.Subtype == "slack_audio"
		if !clip && !strings.HasPrefix(f.Mimetype, "audio/") {
			continue
		}
		return &providerv1.Audio{FileId: f.ID, MimeType: f.Mimetype, DurationSeconds: uint32(max(0, (f.DurationMS+500)/1000)),
			Size: f.Size, FileName: f.Name, Voice: clip}
	}
	return nil
}

// interaction is the part of an interactive payload routing needs.
type interaction struct {
	Type      string `json:"type"`
	TriggerID string `json:"trigger_id"`
	User      struct {
		ID       string `json:"id"`
		Username string `json:"username"`
		Name     string `json:"name"`
	} `json:"user"`
	Channel struct {
		ID string `json:"id"`
	} `json:"channel"`
	Container struct {
		MessageTS string `json:"message_ts"`
		ChannelID string `json:"channel_id"`
		ThreadTS  string `json:"thread_ts"`
	} `json:"container"`
	Message *message `json:"message"`
	Actions []struct {
		ActionID       string `json:"action_id"`
		Value          string `json:"value"`
		ActionTS       string `json:"action_ts"`
		SelectedOption *struct {
			Value string `json:"value"`
		} `json:"selected_option"`
	} `json:"actions"`
}

// routedEvents are the event types convertEvent may make an update of:
// one of them that cannot be decoded is a dead letter.
var routedEvents = map[string]bool{"message": true, "reaction_added": true, "app_mention": true}

// routedSubtypes are the message subtypes a person's message has; every
// other subtype (joins, topic changes, deletions…) is not routed.
var routedSubtypes = map[string]bool{"": true, "file_share": true, "thread_broadcast": true, "me_message": true, "bot_message": true}

// convert turns an envelope into the update to journal, or nil and why
// not: the bot's own messages and reactions, edits that are not a
// person's edit (link unfurls, reply counts), deletions, joins, and
// events the provider does not route. Threads are Slack threads: a
// message's thread_ts; a message outside any thread has thread "" and is
// held unrouted by the supervisor.
// convertContained is convert, with an event it cannot decode, or whose
// conversion panics, made a dead letter (provider.Convert): the supervisor
// keeps it for an operator, and the envelope is acknowledged once that is
// durable, as any other.
func (p *Platform) convertContained(ctx context.Context, id identity, env *envelope) (u *providerv1.Update, why string) {
	u = provider.Convert(env.Payload, func() (*providerv1.Update, error) {
		var err error
		u, why, err = p.convert(ctx, id, env)
		return u, err
	})
	if u.GetConversionError() != "" {
		u.DedupId = "envelope:" + env.ID
		var cb struct {
			EventID string `json:"event_id"`
		}
		if json.Unmarshal(env.Payload, &cb) == nil && cb.EventID != "" {
			u.DedupId = cb.EventID
		}
	}
	return u, why
}

// ConvertUpdate implements provider.Converter: a dead letter's payload is
// its envelope's (an event callback, an interaction or a slash command).
func (p *Platform) ConvertUpdate(ctx context.Context, payload []byte, _ providerv1.UpdateKind, _ string) (*providerv1.Update, error) {
	id, err := p.waitIdentity(ctx)
	if err != nil {
		return nil, err
	}
	var head struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if err := json.Unmarshal(payload, &head); err != nil {
		return nil, err
	}
	env := &envelope{Type: "interactive", Payload: payload, received: time.Now()}
	switch {
	case head.Type == "event_callback":
		env.Type = "events_api"
	case head.Type == "" && head.Command != "":
		env.Type = "slash_commands"
	}
	u, _, err := p.convert(ctx, id, env)
	return u, err
}

// convert turns an envelope into the update to journal, or nil and why
// not (see convertEvent); err: the envelope's event could not be decoded.
func (p *Platform) convert(ctx context.Context, id identity, env *envelope) (*providerv1.Update, string, error) {
	switch env.Type {
	case "events_api":
		var cb callback
		if err := json.Unmarshal(env.Payload, &cb); err != nil {
			return nil, "", fmt.Errorf("event callback: %w", err)
		}
		if cb.Type != "event_callback" {
			return nil, "not an event_callback", nil
		}
		var ev event
		if err := json.Unmarshal(cb.Event, &ev); err != nil {
			if !routedEvents[ev.Type] {
				// An event of a type never routed may have fields of
				// other types than a message's: nothing is lost.
				return nil, "not routed: " + ev.Type + " (not decoded)", nil
			}
			return nil, "", fmt.Errorf("event %s: %w", cb.EventID, err)
		}
		u := p.convertEvent(ctx, id, &ev)
		if u == nil {
			return nil, "not routed: " + ev.Type + " " + ev.Subtype, nil
		}
		if u.DedupId == "" { // a mention has its message's
			u.DedupId = cb.EventID
		}
		if u.DedupId == "" {
			u.DedupId = "envelope:" + env.ID
		}
		u.Payload, u.ReceivedAt = env.Payload, timestamppb.New(env.received)
		return u, "", nil
	case "slash_commands":
		u, why, err := p.convertSlash(env)
		if u != nil {
			u.Payload, u.ReceivedAt = env.Payload, timestamppb.New(env.received)
		}
		return u, why, err
	case "interactive":
		var in interaction
		if err := json.Unmarshal(env.Payload, &in); err != nil {
			if in.Type != "block_actions" {
				return nil, "not routed: interaction " + in.Type + " (not decoded)", nil
			}
			return nil, "", fmt.Errorf("interaction: %w", err)
		}
		u := p.convertAction(id, &in)
		if u == nil {
			return nil, "not routed: interaction " + in.Type, nil
		}
		// A press is one interaction, minted once with its trigger id; a
		// redelivery of the same press carries the same trigger id, a
		// second press another one. (The envelope id names a delivery
		// attempt, not the press.)
		u.DedupId = "trigger:" + in.TriggerID
		if in.TriggerID == "" {
			u.DedupId = "envelope:" + env.ID
		}
		u.Payload, u.ReceivedAt = env.Payload, timestamppb.New(env.received)
		return u, "", nil
	}
	return nil, "not routed: " + env.Type, nil
}

func (p *Platform) convertEvent(ctx context.Context, id identity, ev *event) *providerv1.Update {
	switch ev.Type {
	case "message":
		m, kind := &ev.message, providerv1.UpdateKind_UPDATE_KIND_MESSAGE
		switch {
		case ev.Subtype == "message_deleted":
			return p.rootDeleted(id, ev)
		case ev.Subtype == "message_changed":
			// A person's edit stamps a new "edited"; an unfurl or a
			// thread's reply count changing the message keeps the one
			// it had, if any.
			if ev.Message == nil || ev.Message.Edited == nil ||
				(ev.PreviousMessage != nil && ev.PreviousMessage.Edited != nil && *ev.PreviousMessage.Edited == *ev.Message.Edited) {
				return nil
			}
			m, kind = ev.Message, providerv1.UpdateKind_UPDATE_KIND_EDITED_MESSAGE
		case !routedSubtypes[ev.Subtype]:
			return nil
		}
		p.threads.note(ev.Channel, m.TS, m.ThreadTS)
		if id.own(m.User, m.BotID) {
			return nil
		}
		if kind == providerv1.UpdateKind_UPDATE_KIND_MESSAGE && m.BotID == "" {
			if u := p.mention(id, ev.Channel, m); u != nil {
				return u
			}
		}
		u := p.update(ev.Channel, m.ThreadTS, m.User, kind)
		u.Text = m.Text
		u.SenderName = profileName(m)
		refs := []provider.Ref{{Kind: provider.RefMessage, ID: m.TS}}
		for _, f := range m.Files {
			refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: f.ID})
		}
		u.References = provider.RefsProto(refs)
		if kind == providerv1.UpdateKind_UPDATE_KIND_MESSAGE {
			u.Audio = fileAudio(m.Files)
		}
		return u
	case "app_mention":
		if id.own(ev.User, ev.BotID) || ev.BotID != "" {
			return nil
		}
		return p.mention(id, ev.Channel, &ev.message)
	case "member_joined_channel", "member_left_channel":
		p.memberEvent(id, ev)
		return nil
	case "reaction_added":
		if id.own(ev.User, "") || ev.Item.Type != "message" {
			return nil
		}
		u := p.update(ev.Item.Channel, p.threadOf(ctx, id, ev.Item.Channel, ev.Item.TS), ev.User, providerv1.UpdateKind_UPDATE_KIND_REACTION)
		u.Text = ev.Reaction
		u.References = provider.RefsProto([]provider.Ref{{Kind: provider.RefMessage, ID: ev.Item.TS}})
		return u
	}
	return nil
}

// rootDeleted is the update that tells the supervisor a thread is gone:
// a person deleted the root of one of the bot's threads (every top-level
// message of the bot's is one) before anyone replied. Slack would post
// the thread's next reply at the channel's top level; told now, the
// supervisor gives the binding a new root before its follower writes
// again. (A root with replies is not deleted but becomes a tombstone,
// and its thread goes on.) The update is not the follower's (Allowed
// false: no person sent it); nil for any other deletion.
func (p *Platform) rootDeleted(id identity, ev *event) *providerv1.Update {
	prev := ev.PreviousMessage
	if ev.DeletedTS == "" || prev == nil || prev.ReplyCount > 0 || (prev.ThreadTS != "" && prev.ThreadTS != ev.DeletedTS) || !id.own(prev.User, prev.BotID) {
		return nil
	}
	u := p.update(ev.Channel, ev.DeletedTS, "", providerv1.UpdateKind_UPDATE_KIND_UNSPECIFIED)
	u.Allowed = false
	u.ThreadState = providerv1.ThreadState_THREAD_STATE_DELETED
	return u
}

func (p *Platform) convertAction(id identity, in *interaction) *providerv1.Update {
	if in.Type != "block_actions" || id.own(in.User.ID, "") {
		return nil
	}
	channel := in.Channel.ID
	if channel == "" {
		channel = in.Container.ChannelID
	}
	msgTS, thread := in.Container.MessageTS, in.Container.ThreadTS
	if m := in.Message; m != nil {
		msgTS = m.TS
		if m.ThreadTS != "" {
			thread = m.ThreadTS
		}
	}
	if thread == "" { // a button on a thread's root
		if t, ok := p.threads.lookup(channel, msgTS); ok && t == msgTS {
			thread = msgTS
		}
	}
	u := p.update(channel, thread, in.User.ID, providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY)
	u.SenderName = in.User.Username
	if u.SenderName == "" {
		u.SenderName = in.User.Name
	}
	if len(in.Actions) > 0 {
		a := in.Actions[0]
		switch {
		case a.Value != "":
			u.Text = a.Value
		case a.SelectedOption != nil:
			u.Text = a.SelectedOption.Value
		default:
			u.Text = a.ActionID
		}
	}
	refs := []provider.Ref{{Kind: provider.RefInteraction, ID: interactionID(in.User.ID, in.TriggerID)}}
	if msgTS != "" {
		refs = append(refs, provider.Ref{Kind: provider.RefMessage, ID: msgTS})
	}
	u.References = provider.RefsProto(refs)
	return u
}

func (p *Platform) update(channel, thread, sender string, kind providerv1.UpdateKind) *providerv1.Update {
	return &providerv1.Update{
		Kind:    kind,
		Chat:    channel,
		Thread:  thread,
		Sender:  sender,
		Allowed: p.allowed[sender],
	}
}

func profileName(m *message) string {
	if pr := m.UserProfile; pr != nil {
		for _, n := range []string{pr.DisplayName, pr.RealName, pr.Name} {
			if n != "" {
				return n
			}
		}
	}
	return ""
}
