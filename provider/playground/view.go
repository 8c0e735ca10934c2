package playground

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/render"
)

// messageView is a message as the page shows it (history, live events)
// and as update payloads and upload results carry it.
type messageView struct {
	ID   int64  `json:"id"`
	Room int64  `json:"room"`
	Rev  int64  `json:"rev"`  // of two views of a message, the higher is the newer
	From string `json:"from"` // "bot" (the follower) or "you" (the person)
	// Text is the text as written: the follower's Markdown, or what the
	// person typed (or a file's caption).
	Text string `json:"text,omitempty"`
	// HTML is Text rendered (render.HTML: sanitized), when Text is
	// Markdown; the page shows it instead of Text. Not in payloads.
	HTML    string `json:"html,omitempty"`
	Date    int64  `json:"date"` // unix seconds
	Edited  bool   `json:"edited,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
	shown
	Reactions map[string][]string `json:"reactions,omitempty"`
}

// view is m as the page shows it.
func view(m message) *messageView {
	v := bareView(m)
	if m.Markdown && !m.Deleted {
		v.HTML = strings.TrimSpace(render.HTML(m.Text))
	}
	return v
}

// bareView is m without its rendering: what a payload carries.
func bareView(m message) *messageView {
	v := &messageView{ID: m.ID, Room: m.Room, Rev: m.Rev, From: "you", Date: m.Date, Deleted: m.Deleted}
	if m.ByBot {
		v.From = "bot"
	}
	if m.Deleted {
		return v // what was deleted is not shown again
	}
	v.Text, v.Edited, v.Reactions, v.shown = m.Text, m.Edited != 0, m.Reaction, m.shown
	return v
}

// The kinds of update the playground makes, and the update kind each is.
const (
	kindMessage  = "message"  // the person wrote (or sent a file)
	kindPress    = "press"    // the person pressed a button
	kindReaction = "reaction" // the person reacted to a message, or took it back
)

var updateKinds = map[string]providerv1.UpdateKind{
	kindMessage:  providerv1.UpdateKind_UPDATE_KIND_MESSAGE,
	kindPress:    providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY,
	kindReaction: providerv1.UpdateKind_UPDATE_KIND_REACTION,
}

// payload is an update's payload: the playground's own JSON, one object
// per update (docs/playground.md shows them).
type payload struct {
	Kind string `json:"kind"`
	Room int64  `json:"room"`
	// Message is what the person wrote (message), the message whose
	// button was pressed (press) or the one reacted to (reaction).
	Message *messageView `json:"message"`
	// press: the pressed button's data, and the interaction to answer.
	Data        string `json:"data,omitempty"`
	Interaction string `json:"interaction,omitempty"`
	// reaction: the emoji; Removed when the person took it back.
	Emoji   string `json:"emoji,omitempty"`
	Removed bool   `json:"removed,omitempty"`
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own plain structs are marshalled
	}
	return b
}

// messagePending is the update for a message the person wrote.
func messagePending(m message) pending {
	h := pending{Thread: m.Room, Kind: kindMessage, Text: m.Text, Refs: refsOf(messageRefs(m)),
		Payload: mustJSON(payload{Kind: kindMessage, Room: m.Room, Message: bareView(m)})}
	if m.File.isAudio() {
		h.Audio = m.File
	}
	return h
}

// audioOf is h's recording or audio file as the update carries it, nil
// if it has none.
func audioOf(h pending) *providerv1.Audio {
	a := h.Audio
	if a == nil {
		return nil
	}
	return &providerv1.Audio{FileId: a.ID, MimeType: a.Mime, DurationSeconds: uint32(max(0, math.Round(a.Seconds))),
		Size: a.Size, FileName: a.Name, Voice: a.Voice}
}

// pressPending is the update for a press of m's button with data;
// interaction is the id to answer it by.
func pressPending(m message, interaction, data string) pending {
	refs := append(refsOf(messageRefs(m)), ref{Kind: int(provider.RefInteraction), ID: interaction})
	return pending{Thread: m.Room, Kind: kindPress, Text: data, Refs: refs,
		Payload: mustJSON(payload{Kind: kindPress, Room: m.Room, Message: bareView(m), Data: data, Interaction: interaction})}
}

// reactionPending is the update for the person's reaction to m (removed:
// taken back).
func reactionPending(m message, emoji string, removed bool) pending {
	return pending{Thread: m.Room, Kind: kindReaction, Text: emoji, Refs: []ref{{Kind: int(provider.RefMessage), ID: strconv.FormatInt(m.ID, 10)}},
		Payload: mustJSON(payload{Kind: kindReaction, Room: m.Room, Message: bareView(m), Emoji: emoji, Removed: removed})}
}

// messageRefs are a message's id and its file's.
func messageRefs(m message) []provider.Ref {
	refs := []provider.Ref{{Kind: provider.RefMessage, ID: strconv.FormatInt(m.ID, 10)}}
	if m.File != nil {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: m.File.ID})
	}
	return refs
}

func refsOf(rs []provider.Ref) []ref {
	out := make([]ref, 0, len(rs))
	for _, r := range rs {
		out = append(out, ref{Kind: int(r.Kind), ID: r.ID})
	}
	return out
}

func refsFrom(rs []ref) []provider.Ref {
	out := make([]provider.Ref, 0, len(rs))
	for _, r := range rs {
		out = append(out, provider.Ref{Kind: provider.RefKind(r.Kind), ID: r.ID})
	}
	return out
}
