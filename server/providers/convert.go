package providers

import (
	"strconv"
	"strings"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// The provider contract names threads, senders and references by the
// platform's own ids, as text: these convert at the boundary, once.

func targetProto(t store.Target) *providerv1.Target {
	return &providerv1.Target{Chat: t.Chat, Thread: t.Thread}
}

// targetFrom reads a thread a provider reported.
func targetFrom(provider string, t *providerv1.Target) store.Target {
	return store.Target{Provider: provider, Chat: t.GetChat(), Thread: t.GetThread()}
}

func attachRequest(instanceID string, t store.Target) *providerv1.AttachRequest {
	return &providerv1.AttachRequest{InstanceId: instanceID, Target: targetProto(t)}
}

// refsFrom reads the references a provider reported. A kind this build
// does not know, or an empty id, names nothing a follower could use.
func refsFrom(r *providerv1.References) []store.Ref {
	items := r.GetItems()
	if len(items) == 0 {
		return nil
	}
	out := make([]store.Ref, 0, len(items))
	for _, it := range items {
		if k, ok := refKinds.Domain(it.GetKind()); ok && it.GetId() != "" {
			out = append(out, store.Ref{Kind: k, ID: it.GetId()})
		}
	}
	return out
}

// inbound converts a provider's update into the journal's record, once.
// FromUserID repeats the sender as a number where it is one, for
// followers that read it so.
func inbound(u *providerv1.Update) hub.Inbound {
	rec := store.Update{
		PlatformUpdateID: u.GetUpdateId(), DedupID: u.GetDedupId(), Kind: updateKind(u.GetKind()),
		Chat: u.GetChat(), Thread: u.GetThread(), Sender: u.GetSender(),
		SenderName: u.GetSenderName(), Refs: refsFrom(u.GetReferences()), Text: u.GetText(), Payload: u.GetPayload(),
	}
	rec.FromUserID = idNumber(rec.Sender)
	if a := u.GetAudio(); a != nil && a.GetFileId() != "" {
		rec.Audio = &store.Audio{FileID: a.GetFileId(), MIME: a.GetMimeType(), Duration: a.GetDurationSeconds(),
			Size: a.GetSize(), FileName: a.GetFileName(), Voice: a.GetVoice()}
	}
	if ts := u.GetReceivedAt(); ts != nil {
		rec.ReceivedAt = ts.AsTime()
	}
	return hub.Inbound{Update: rec, Allowed: u.GetAllowed(), ThreadState: threadStates[u.GetThreadState()]}
}

// idNumber is a platform id as a number, where it is one ("12345"), else
// 0 ("U0123ABCD"). It parses only what is all digits, so the ingest path
// makes no error for ids that are not.
func idNumber(id string) int64 {
	digits := strings.TrimPrefix(id, "-")
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return 0 // out of range
	}
	return n
}

// threadStates maps what a provider says happened to an update's thread.
var threadStates = map[providerv1.ThreadState]hub.ThreadState{
	providerv1.ThreadState_THREAD_STATE_REOPENED: hub.ThreadOpened,
	providerv1.ThreadState_THREAD_STATE_CLOSED:   hub.ThreadClosedByPerson,
	providerv1.ThreadState_THREAD_STATE_DELETED:  hub.ThreadDeleted,
}

// batchCursor is the cursor to store with a journalled batch: the last
// one a provider reported, else (a provider that reports none) the last
// update id plus one, in decimal (UpdatesRequest.Start.state).
func batchCursor(batch []*providerv1.Update) []byte {
	for i := len(batch) - 1; i >= 0; i-- {
		if c := batch[i].GetCursor(); len(c) > 0 {
			return c
		}
	}
	return strconv.AppendInt(nil, batch[len(batch)-1].GetUpdateId()+1, 10)
}
