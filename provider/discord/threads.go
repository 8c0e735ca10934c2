package discord

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/disgoorg/disgo/rest"

	"github.com/chatbus/chatbus/provider"
)

// threadPublic is Discord's PUBLIC_THREAD channel type.
const threadPublic = 11

// autoArchive is the inactivity after which Discord archives a thread,
// in minutes (the longest: 7 days). An archived thread is unarchived by
// the next message into it.
const autoArchive = 10080

// maxThreadName is Discord's limit on a thread's name.
const maxThreadName = 100

// threadChannel is the part of a thread's channel object the provider
// reads.
type threadChannel struct {
	ID            string  `json:"id"`
	Type          int     `json:"type"`
	Name          string  `json:"name"`
	ParentID      *string `json:"parent_id"`
	OwnerID       string  `json:"owner_id"`
	LastMessageID *string `json:"last_message_id"`
}

// Provision implements provider.Platform: a public thread in the
// configured text channel, named req.Name (cut to Discord's 100
// characters). With req.Reuse naming a thread of the channel that still
// exists, that thread is renamed and unarchived instead; its earlier
// messages are not the new binding's, so a catch-up for it starts after
// its last message. A new thread's messages all come after its id (a
// snowflake: its creation time), so its id is where a catch-up starts:
// durable from the moment it exists, with nothing to store. Creating is
// not idempotent on Discord: a failure after the request may have reached
// it is ambiguous.
func (p *Platform) Provision(ctx context.Context, req provider.ProvisionRequest) (provider.Provisioned, error) {
	if req.Chat != "" && req.Chat != p.channel {
		return provider.Provisioned{}, fmt.Errorf("%w: chat %s: this provider makes threads in channel %s only", provider.ErrInvalid, req.Chat, p.channel)
	}
	name := cut(req.Name, maxThreadName)
	if name == "" {
		return provider.Provisioned{}, fmt.Errorf("%w: a thread needs a name", provider.ErrInvalid)
	}
	if r := req.Reuse; r != nil && r.Chat == p.channel && isSnowflake(r.Thread) {
		th, err := p.reuse(ctx, r.Thread, name)
		switch {
		case err == nil:
			return th, nil
		case !errors.Is(err, provider.ErrNotFound):
			return provider.Provisioned{}, err
		}
		p.log.Info().Str("thread", r.Thread).Msg("the thread to reuse is gone; creating one")
	}
	var th threadChannel
	err := p.do(ctx, rest.CreateThread.Compile(nil, p.channel),
		map[string]any{"name": name, "type": threadPublic, "auto_archive_duration": autoArchive}, &th)
	if err != nil {
		// A 4xx or 429 was not created; a 5xx or a cut connection may
		// have been (ambiguous); a failed dial was not (unavailable).
		return provider.Provisioned{}, p.mapErr(err, true, false)
	}
	p.mu.Lock()
	p.threads[th.ID] = true
	p.owned[th.ID] = true
	p.provisioned[th.ID] = "" // new: from its start
	p.noteLocked(th.ID, note{made: true})
	p.mu.Unlock()
	p.kick()
	return provider.Provisioned{Target: provider.Target{Chat: p.channel, Thread: th.ID, Name: th.Name}}, nil
}

// reuse renames and unarchives thread if it is one of the channel's;
// ErrNotFound if it is gone (or is not).
func (p *Platform) reuse(ctx context.Context, thread, name string) (provider.Provisioned, error) {
	var th threadChannel
	if err := p.get(ctx, rest.GetChannel.Compile(nil, thread), &th); err != nil {
		return provider.Provisioned{}, p.mapErr(err, false, false)
	}
	if !isThreadType(th.Type) || th.ParentID == nil || *th.ParentID != p.channel {
		return provider.Provisioned{}, fmt.Errorf("%w: channel %s is not a thread of %s", provider.ErrNotFound, thread, p.channel)
	}
	mark := thread
	if th.LastMessageID != nil && isSnowflake(*th.LastMessageID) {
		mark = *th.LastMessageID
	}
	// Recorded before the rename: the rename's own system message comes
	// after the mark and is skipped like every system message. The note
	// puts the mark in the cursor, so that it is durable with the next
	// update journalled.
	p.mu.Lock()
	p.threads[thread] = true
	p.owned[thread] = th.OwnerID != "" && th.OwnerID == p.botID
	p.provisioned[thread] = mark
	p.noteLocked(thread, note{made: true, mark: mark})
	p.mu.Unlock()
	p.kick()
	var out threadChannel
	err := p.do(ctx, rest.UpdateChannel.Compile(nil, thread), map[string]any{"name": name, "archived": false, "locked": false}, &out)
	if err != nil {
		return provider.Provisioned{}, p.mapErr(err, true, false)
	}
	return provider.Provisioned{Target: provider.Target{Chat: p.channel, Thread: thread, Name: out.Name}, Reused: true}, nil
}

// CloseTarget implements provider.Platform: the thread is archived
// (Discord unarchives it when someone writes in it again). A thread that
// is archived or gone already is closed.
func (p *Platform) CloseTarget(ctx context.Context, t provider.Target) error {
	if t.Chat != p.channel || !isSnowflake(t.Thread) {
		return fmt.Errorf("%w: %s/%s is not a thread of this provider's channel", provider.ErrInvalid, t.Chat, t.Thread)
	}
	err := p.do(ctx, rest.UpdateChannel.Compile(nil, t.Thread), map[string]any{"archived": true}, nil)
	if err == nil || isCode(err, codeUnknownChannel) || isCode(err, codeThreadArchived) {
		return nil
	}
	return p.mapErr(err, true, true)
}

// cut shortens s to at most n characters.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}
