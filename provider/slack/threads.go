package slack

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/chatbus/chatbus/internal/backoff"
	"github.com/chatbus/chatbus/provider"
)

// closedReaction marks a closed thread's root: Slack has no closed
// threads, and a reaction is idempotent to add (already_reacted) and to
// take away (no_reaction).
const closedReaction = "lock"

// Provision implements provider.Platform: it posts the thread's root
// message, named req.Name ("A · myproject", escaped so that a name is
// never read as a mention or a link), in the channel; the thread
// is the root's ts. With req.Reuse it first renames that root
// (chat.update), which also proves it still exists; a root that is gone
// or not the bot's is replaced by a new one. Posting is not idempotent:
// a failure after the request went out is ambiguous.
func (p *Platform) Provision(ctx context.Context, req provider.ProvisionRequest) (provider.Provisioned, error) {
	channel := req.Chat
	if channel == "" {
		channel = p.s.ChannelID
	}
	if !channelID.MatchString(channel) {
		return provider.Provisioned{}, fmt.Errorf("%w: chat %q is not a Slack channel id", provider.ErrInvalid, channel)
	}
	if r := req.Reuse; r != nil && r.Chat == channel && r.Thread != "" {
		ok, err := p.reuse(ctx, channel, r.Thread, req.Name)
		if err != nil {
			return provider.Provisioned{}, err
		}
		if ok {
			return provider.Provisioned{Target: provider.Target{Chat: channel, Thread: r.Thread, Name: req.Name}, Reused: true}, nil
		}
	}
	ts, err := p.postRoot(ctx, channel, req.Name)
	p.noteResult(channel, err)
	if err != nil {
		return provider.Provisioned{}, fmt.Errorf("post the thread's root: %w", mapErr(err))
	}
	p.inChannel(channel)
	p.threads.note(channel, ts, ts)
	return provider.Provisioned{Target: provider.Target{Chat: channel, Thread: ts, Name: req.Name}}, nil
}

// rootRetries bounds the attempts at posting a root Slack answered 429.
const rootRetries = 5

// postRoot posts a thread's root message, name, in channel and returns
// its ts. Provisioning is not a call the supervisor paces, yet a root is
// a chat.postMessage that counts against the channel's limit with the
// threads' messages (several sessions starting at once post several
// roots): a root Slack answered 429 (it posted nothing) is posted again
// after Retry-After, a few times, while ctx allows.
func (p *Platform) postRoot(ctx context.Context, channel, name string) (string, error) {
	for attempt := 1; ; attempt++ {
		_, ts, err := p.api.PostMessageContext(ctx, channel, slack.MsgOptionText(name, true))
		var rl *slack.RateLimitedError
		if err == nil || !errors.As(err, &rl) || attempt == rootRetries || !fits(ctx, rl.RetryAfter) {
			return ts, err
		}
		p.log.Info().Dur("retry_after", rl.RetryAfter).Str("channel", channel).Msg("rate limited posting a thread's root; waiting")
		if backoff.Sleep(ctx, rl.RetryAfter) != nil {
			return ts, err
		}
	}
}

// reuse renames the root ts to name and reopens it; false if the root is
// gone (or is not the bot's message, so it cannot be a thread the bot
// made).
func (p *Platform) reuse(ctx context.Context, channel, ts, name string) (bool, error) {
	_, _, _, err := p.api.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionText(name, true))
	switch slackCode(err) {
	case "":
		if err != nil {
			p.noteBotErr(err)
			return false, fmt.Errorf("rename the reused thread's root: %w", mapErr(err))
		}
	case "message_not_found", "cant_update_message", "thread_not_found":
		p.log.Info().Str("channel", channel).Str("thread", ts).Str("why", slackCode(err)).Msg("the thread to reuse is gone; posting a new root")
		return false, nil
	default:
		p.noteBotErr(err)
		return false, fmt.Errorf("rename the reused thread's root: %w", mapErr(err))
	}
	err = p.api.RemoveReactionContext(ctx, closedReaction, slack.NewRefToMessage(channel, ts))
	if err != nil && slackCode(err) != "no_reaction" {
		p.log.Warn().Err(err).Str("thread", ts).Msg("reopening the reused thread: its :lock: stays")
	}
	p.threads.note(channel, ts, ts)
	return true, nil
}

// CloseTarget implements provider.Platform: the root gets a :lock:
// reaction. Closing a closed thread, or one whose root is gone, succeeds.
func (p *Platform) CloseTarget(ctx context.Context, t provider.Target) error {
	if t.Thread == "" {
		return fmt.Errorf("%w: the channel itself is not a thread", provider.ErrInvalid)
	}
	err := p.api.AddReactionContext(ctx, closedReaction, slack.NewRefToMessage(t.Chat, t.Thread))
	switch slackCode(err) {
	case "already_reacted", "message_not_found":
		return nil
	}
	p.noteBotErr(err)
	return mapErr(err)
}

// threadIndexSize bounds threadIndex.
const threadIndexSize = 1 << 16

// threadIndex remembers which thread each message the provider saw (sent,
// received, posted as a root) belongs to: Slack's reaction_added names
// the message, not its thread. Bounded: the oldest entries are forgotten
// first. Safe for concurrent use.
type threadIndex struct {
	mu   sync.Mutex        // guards below
	m    map[string]string // "channel/ts" → thread ts ("" for the channel itself)
	ring []string          // keys in insertion order, for eviction
	next int
}

func newThreadIndex(n int) *threadIndex {
	return &threadIndex{m: make(map[string]string), ring: make([]string, n)}
}

// note records that message ts is in thread. A message already known to
// be in a thread is not moved to the channel: a root's own echo (a
// top-level message) must not undo the root.
func (x *threadIndex) note(channel, ts, thread string) {
	if ts == "" {
		return
	}
	k := channel + "/" + ts
	x.mu.Lock()
	defer x.mu.Unlock()
	old, ok := x.m[k]
	if ok && thread == "" && old != "" {
		return
	}
	if !ok {
		if old := x.ring[x.next]; old != "" {
			delete(x.m, old)
		}
		x.ring[x.next] = k
		x.next = (x.next + 1) % len(x.ring)
	}
	x.m[k] = thread
}

func (x *threadIndex) lookup(channel, ts string) (string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	t, ok := x.m[channel+"/"+ts]
	return t, ok
}

// threadOf returns the thread of message ts in channel: from memory, else
// from reactions.get (which returns the message with its thread_ts; a
// top-level message of the bot's is a thread's root); "" when it cannot be
// told (the update is then held unrouted).
func (p *Platform) threadOf(ctx context.Context, id identity, channel, ts string) string {
	if t, ok := p.threads.lookup(channel, ts); ok {
		return t
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	item, err := p.api.GetReactionsContext(ctx, slack.NewRefToMessage(channel, ts), slack.GetReactionsParameters{})
	if err != nil || item.Message == nil {
		p.log.Warn().Err(err).Str("channel", channel).Str("ts", ts).Msg("cannot tell the thread of a reacted message; holding the reaction unrouted")
		return ""
	}
	t := item.Message.ThreadTimestamp
	if t == "" && id.own(item.Message.User, item.Message.BotID) {
		t = ts
	}
	p.threads.note(channel, ts, t)
	return t
}
