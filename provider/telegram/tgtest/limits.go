package tgtest

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// Rate limits, as Telegram documents them for bots (core.telegram.org/
// bots/faq): about 30 messages a second in all, about one a second in one
// chat with short bursts, at most 20 a minute in one group. The stand-in
// enforces them only when asked (WithRateLimits): a call beyond one is
// answered 429 "Too Many Requests: retry after N" with parameters.
// retry_after, the whole seconds until the limit has room, and is not
// counted. Telegram's own enforcement is not documented further (how long
// a burst, which methods count against a chat); the stand-in's choices:
// every sending method counts against the bot; messages, files and edits
// against the chat (3 in any 3 s); messages and files against the group
// (20 in any 60 s) when the chat is a group (a negative id: a private
// chat has no group limit). Message drafts (sendMessageDraft) count like
// edits. Times are when a call arrives.

// RateLimits are the limits a stand-in enforces.
type RateLimits struct {
	BotCount   int
	BotPer     time.Duration
	ChatCount  int
	ChatPer    time.Duration
	GroupCount int
	GroupPer   time.Duration
}

// TelegramLimits are Telegram's documented limits, as above.
var TelegramLimits = RateLimits{BotCount: 30, BotPer: time.Second, ChatCount: 3, ChatPer: 3 * time.Second, GroupCount: 20, GroupPer: time.Minute}

// WithRateLimits makes the server answer 429 to calls beyond l.
func WithRateLimits(l RateLimits) Option {
	return func(s *Server) { s.limits = &limiter{l: l, chats: map[string]*chatLog{}} }
}

// The methods each limit counts.
var (
	botCounted   = map[string]bool{"sendmessage": true, "senddocument": true, "sendphoto": true, "editmessagetext": true, "editmessagereplymarkup": true, "deletemessage": true, "setmessagereaction": true, "sendchataction": true, "answercallbackquery": true, "createforumtopic": true, "editforumtopic": true, "closeforumtopic": true, "reopenforumtopic": true, "sendmessagedraft": true}
	chatCounted  = map[string]bool{"sendmessage": true, "senddocument": true, "sendphoto": true, "editmessagetext": true, "editmessagereplymarkup": true, "sendmessagedraft": true}
	groupCounted = map[string]bool{"sendmessage": true, "senddocument": true, "sendphoto": true}
)

type limiter struct {
	l       RateLimits
	mu      sync.Mutex
	bot     []time.Time
	chats   map[string]*chatLog
	refused int
}

type chatLog struct{ chat, group []time.Time }

// admit counts a call of method (lower case) into chat at now, or refuses
// it with the 429 Telegram answers.
func (lm *limiter) admit(method, chat string, now time.Time) *apiError {
	if !botCounted[method] {
		return nil
	}
	lm.mu.Lock()
	defer lm.mu.Unlock()
	c := lm.chats[chat]
	if c == nil {
		c = &chatLog{}
		lm.chats[chat] = c
	}
	wait := room(lm.bot, lm.l.BotCount, lm.l.BotPer, now)
	if chatCounted[method] {
		wait = max(wait, room(c.chat, lm.l.ChatCount, lm.l.ChatPer, now))
	}
	group := groupCounted[method] && strings.HasPrefix(chat, "-")
	if group {
		wait = max(wait, room(c.group, lm.l.GroupCount, lm.l.GroupPer, now))
	}
	if wait > 0 {
		lm.refused++
		secs := int(math.Ceil(wait.Seconds()))
		return &apiError{code: 429, desc: fmt.Sprintf("Too Many Requests: retry after %d", secs), retryAfter: secs}
	}
	lm.bot = keep(append(lm.bot, now), lm.l.BotCount)
	if chatCounted[method] {
		c.chat = keep(append(c.chat, now), lm.l.ChatCount)
	}
	if group {
		c.group = keep(append(c.group, now), lm.l.GroupCount)
	}
	return nil
}

// room is how long until a log of the last calls (oldest first) takes
// one more under count per per; 0 if it does now.
func room(log []time.Time, count int, per time.Duration, now time.Time) time.Duration {
	if count <= 0 || len(log) < count {
		return 0
	}
	return max(log[len(log)-count].Add(per).Sub(now), 0)
}

func keep(log []time.Time, n int) []time.Time {
	if len(log) > n {
		return append(log[:0], log[len(log)-n:]...)
	}
	return log
}

// RateLimited returns how many calls the server refused with 429 for its
// rate limits (WithRateLimits).
func (s *Server) RateLimited() int {
	if s.limits == nil {
		return 0
	}
	s.limits.mu.Lock()
	defer s.limits.mu.Unlock()
	return s.limits.refused
}
