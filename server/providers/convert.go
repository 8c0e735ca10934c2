package providers

import (
	"strconv"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// The provider contract names threads by text ids (Target) and, for
// providers of its first version, by numbers: these
// convert at the boundary, once, both ways.

func targetProto(t store.Target) *providerv1.Target {
	return &providerv1.Target{Chat: t.Chat, Thread: t.Thread}
}

// targetFrom reads a thread a provider reported: its text ids, else its
// numeric ones.
func targetFrom(provider string, t *providerv1.Target, chatID, threadID int64) store.Target {
	if t.GetChat() != "" {
		return store.Target{Provider: provider, Chat: t.GetChat(), Thread: t.GetThread()}
	}
	return store.Target{Provider: provider, Chat: idText(chatID), Thread: idText(threadID)}
}

func attachRequest(instanceID string, t store.Target) *providerv1.AttachRequest {
	req := &providerv1.AttachRequest{InstanceId: instanceID, Target: targetProto(t)}
	req.ChatId, _ = strconv.ParseInt(t.Chat, 10, 64)
	req.ThreadId, _ = strconv.ParseInt(t.Thread, 10, 64)
	return req
}

func idText(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// refsFrom reads the references a provider reported: the kinded items and
// the typed lists of the first contract version.
func refsFrom(r *providerv1.References) []store.Ref {
	if r == nil {
		return nil
	}
	out := make([]store.Ref, 0, len(r.GetItems())+len(r.GetMessageIds())+len(r.GetCallbackQueryIds())+len(r.GetFileIds()))
	for _, it := range r.GetItems() {
		if k, ok := refKinds.Domain(it.GetKind()); ok && it.GetId() != "" {
			out = append(out, store.Ref{Kind: k, ID: it.GetId()})
		}
	}
	for _, id := range r.GetMessageIds() {
		out = append(out, store.Ref{Kind: store.RefMessage, ID: strconv.FormatInt(id, 10)})
	}
	for _, id := range r.GetCallbackQueryIds() {
		out = append(out, store.Ref{Kind: store.RefInteraction, ID: id})
	}
	for _, id := range r.GetFileIds() {
		out = append(out, store.Ref{Kind: store.RefFile, ID: id})
	}
	return out
}

// inbound converts a provider's update into the journal's record, once:
// the text ids where the provider reports them, else its numbers.
func inbound(u *providerv1.Update) hub.Inbound {
	rec := store.Update{
		PlatformUpdateID: u.GetUpdateId(), DedupID: u.GetDedupId(), Kind: updateKind(u.GetKind()),
		Chat: u.GetChat(), Thread: u.GetThread(), FromUserID: u.GetFromUserId(), Sender: u.GetSender(),
		SenderName: u.GetSenderName(), Refs: refsFrom(u.GetReferences()), Text: u.GetText(), Payload: u.GetPayload(),
	}
	if rec.Chat == "" {
		rec.Chat, rec.Thread = idText(u.GetChatId()), idText(u.GetThreadId())
	}
	if rec.Sender == "" {
		rec.Sender = idText(u.GetFromUserId())
	}
	if ts := u.GetReceivedAt(); ts != nil {
		rec.ReceivedAt = ts.AsTime()
	}
	return hub.Inbound{Update: rec, Allowed: u.GetAllowed(), ThreadState: threadStates[u.GetThreadState()]}
}

// threadStates maps what a provider says happened to an update's thread.
var threadStates = map[providerv1.ThreadState]hub.ThreadState{
	providerv1.ThreadState_THREAD_STATE_REOPENED: hub.ThreadOpened,
	providerv1.ThreadState_THREAD_STATE_CLOSED:   hub.ThreadClosedByPerson,
	providerv1.ThreadState_THREAD_STATE_DELETED:  hub.ThreadDeleted,
}

// batchCursor is the cursor to store with a journalled batch: the last
// one a provider reported, else (providers of the first contract
// version, whose cursor is the next update id) the last id plus one.
func batchCursor(batch []*providerv1.Update) []byte {
	for i := len(batch) - 1; i >= 0; i-- {
		if c := batch[i].GetCursor(); len(c) > 0 {
			return c
		}
	}
	return strconv.AppendInt(nil, batch[len(batch)-1].GetUpdateId()+1, 10)
}
