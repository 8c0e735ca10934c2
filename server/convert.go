package server

import (
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/outbound"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/supervise"
)

func followerToProto(f *registry.Follower, b *store.Binding, platform string) *chatbusv1.Follower {
	out := &chatbusv1.Follower{
		InstanceId:    f.InstanceID,
		ProfileKey:    f.ProfileKey,
		Pid:           f.PID,
		Cwd:           f.Cwd,
		ThreadName:    f.ThreadName,
		ConnectedAt:   timestamppb.New(f.ConnectedAt),
		LastHeartbeat: timestamppb.New(f.LastSeen()),
		Subscribed:    f.Subscribed(),
		Origin:        chatbusv1.Origin_ORIGIN_DETACHED,
	}
	if w := f.WayIn(); w.WayIn != registry.WayInUnknown {
		out.WayIn, out.WayInDetail = wayIns.Proto(w.WayIn), w.Detail
	}
	if b != nil {
		out.Binding = bindingToProto(*b, platform)
		out.Origin = actionOrigin[b.LastAction]
	}
	return out
}

var actionOrigin = map[string]chatbusv1.Origin{
	store.ActionFresh:          chatbusv1.Origin_ORIGIN_FRESH,
	store.ActionRegisterReuse:  chatbusv1.Origin_ORIGIN_REUSE,
	store.ActionSessionHandoff: chatbusv1.Origin_ORIGIN_HANDOFF,
}

func originToProto(o hub.Origin) chatbusv1.Origin {
	if p := origins.Proto(o); p != chatbusv1.Origin_ORIGIN_UNSPECIFIED {
		return p
	}
	return chatbusv1.Origin_ORIGIN_DETACHED
}

// targetToProto writes a thread for followers: its text ids, and the same
// as numbers where they are numbers (for followers of the first API).
func targetToProto(t store.Target) *chatbusv1.Target {
	if t.IsZero() {
		return nil
	}
	out := &chatbusv1.Target{Provider: t.Provider, Chat: t.Chat, Thread: t.Thread}
	out.ChatId, _ = strconv.ParseInt(t.Chat, 10, 64)
	out.ThreadId, _ = strconv.ParseInt(t.Thread, 10, 64)
	return out
}

// targetFromProto reads a thread a follower names: its text ids, else its
// numbers.
func targetFromProto(t *chatbusv1.Target) store.Target {
	out := store.Target{Provider: t.GetProvider(), Chat: t.GetChat(), Thread: t.GetThread()}
	if out.Chat == "" && t.GetChatId() != 0 {
		out.Chat = strconv.FormatInt(t.GetChatId(), 10)
		if t.GetThreadId() != 0 {
			out.Thread = strconv.FormatInt(t.GetThreadId(), 10)
		}
	}
	return out
}

func bindingToProto(b store.Binding, platform string) *chatbusv1.Binding {
	return &chatbusv1.Binding{
		ProfileKey: b.Key,
		Target:     targetToProto(b.Target),
		Slot:       b.Slot,
		ThreadName: b.ThreadName,
		Status:     bindingStatuses.Proto(b.Status),
		InstanceId: b.InstanceID,
		Platform:   platform,
	}
}

func refsToProto(refs []store.Ref) []*chatbusv1.Reference {
	if len(refs) == 0 {
		return nil
	}
	out := make([]*chatbusv1.Reference, len(refs))
	for i, r := range refs {
		out[i] = &chatbusv1.Reference{Kind: refKinds.Proto(r.Kind), Id: r.ID}
	}
	return out
}

func capabilitiesToProto(d hub.Description) *chatbusv1.Capabilities {
	out := &chatbusv1.Capabilities{Platform: d.Platform, MaxTextChars: uint32(max(d.MaxTextChars, 0))}
	for _, m := range d.Methods {
		if m.Verb {
			out.Verbs = append(out.Verbs, m.Name)
			continue
		}
		pm := &chatbusv1.Method{Name: m.Name, Idempotent: m.Idempotent}
		for _, p := range m.Params {
			pm.Params = append(pm.Params, &chatbusv1.MethodParam{Name: p.Name, Kind: refKinds.Proto(p.Kind), Required: p.Required})
		}
		out.Methods = append(out.Methods, pm)
	}
	return out
}

func statsToProto(s store.Stats) *chatbusv1.JournalStats {
	out := &chatbusv1.JournalStats{
		Unacked:      uint32(s.Pending),
		Bytes:        s.Bytes,
		AckedThrough: s.AckedThrough,
		LastSeq:      s.LastSeq,
		Dropped:      s.Dropped,
	}
	if !s.OldestAt.IsZero() {
		out.OldestAt = timestamppb.New(s.OldestAt)
	}
	return out
}

func updateToProto(u store.Update, platform string) *chatbusv1.Update {
	return &chatbusv1.Update{
		Seq:              u.Seq,
		Target:           targetToProto(store.Target{Provider: u.Provider, Chat: u.Chat, Thread: u.Thread}),
		Kind:             updateKinds.Proto(u.Kind),
		PlatformUpdateId: u.PlatformUpdateID,
		FromUserId:       u.FromUserID,
		Text:             u.Text,
		Payload:          u.Payload,
		ReceivedAt:       timestamppb.New(u.ReceivedAt),
		Sender:           u.Sender,
		References:       refsToProto(u.Refs),
		Platform:         platform,
		SenderName:       u.SenderName,
		Audio:            audioToProto(u.Audio),
	}
}

// audioToProto is the journalled part of an update's audio (the stream
// adds the transcript: hub.Stream).
func audioToProto(a *store.Audio) *chatbusv1.Audio {
	if a == nil {
		return nil
	}
	return &chatbusv1.Audio{FileId: a.FileID, MimeType: a.MIME, DurationSeconds: a.Duration, Size: a.Size, FileName: a.FileName, Voice: a.Voice}
}

func providerToProto(s providers.Status) *chatbusv1.ProviderInfo {
	out := &chatbusv1.ProviderInfo{
		Name:              s.Name,
		State:             providerStates.Proto(s.State),
		Pid:               int32(s.PID),
		Restarts:          uint32(s.Restarts),
		LastExit:          s.LastExit,
		LastError:         s.LastError,
		Serving:           s.Serving,
		Default:           s.Default,
		Platform:          s.Platform,
		Attached:          uint32(s.Attached),
		Ingested:          s.Ingested,
		DroppedNotAllowed: s.NotAllowed,
		WebUrl:            s.WebURL,
		StderrTail:        s.StderrTail,
	}
	if s.Status.LastError != "" && out.LastError == "" {
		out.LastError = s.Status.LastError
	}
	if !s.Since.IsZero() {
		out.Since = timestamppb.New(s.Since)
	}
	if !s.Serving {
		out.HealthDetail = s.HealthDetail
		if out.HealthDetail == "" && s.State != supervise.StateRunning {
			out.HealthDetail = "the provider is " + s.State.String()
		}
	}
	if !s.HealthSince.IsZero() {
		out.HealthSince = timestamppb.New(s.HealthSince)
	}
	out.Outbound = outboundToProto(s.Outbound, s.Limits, time.Now())
	return out
}

func outboundToProto(st outbound.Stats, limits []outbound.Limit, now time.Time) *chatbusv1.OutboundQueue {
	out := &chatbusv1.OutboundQueue{
		Queued:   uint32(st.Queued),
		Prompts:  uint32(st.ByLane[outbound.LanePrompt]),
		Messages: uint32(st.ByLane[outbound.LaneMessage]),
		Edits:    uint32(st.ByLane[outbound.LaneEdit]),
		Ambient:  uint32(st.ByLane[outbound.LaneAmbient]),
		Sent:     st.Dispatched, Coalesced: st.Coalesced, Skipped: st.Skipped, RateLimited: st.RateLimited, Refused: st.Refused,
	}
	if !st.Oldest.IsZero() {
		out.OldestWait = durationpb.New(now.Sub(st.Oldest))
	}
	for _, l := range limits {
		out.Limits = append(out.Limits, &chatbusv1.RateLimitInfo{Name: l.Name, Scope: l.Scope.String(), Count: uint32(l.Count), Per: durationpb.New(l.Per), Methods: l.Methods})
	}
	return out
}

func eventToProto(e events.Event) *chatbusv1.Event {
	return &chatbusv1.Event{
		Id:         e.ID,
		Time:       timestamppb.New(e.Time),
		Kind:       eventKinds.Proto(e.Kind),
		Message:    e.Message,
		InstanceId: e.InstanceID,
		Attrs:      e.Attrs,
	}
}
