package tgtest

import (
	"net/http"
	"strings"
	"unicode/utf8"
)

// Private chats with topics (Bot API 9.3). A bot whose threaded mode is on
// (switched on in @BotFather; getMe answers has_topics_enabled) has topics
// in its private chat with each person: it creates, renames and deletes
// them with the forum topic methods and posts into them with
// message_thread_id, as in a forum. What the stand-in refuses, as
// Telegram does:
//
//   - anything into the private chat of a person who never started the bot
//     (403 "bot can't initiate conversation with a user"; getChat answers
//     "chat not found"), or who blocked it (403 "bot was blocked by the
//     user");
//   - topics in a private chat while threaded mode is off;
//   - closing and reopening topics in a private chat (the methods are the
//     forum supergroup's);
//   - sendMessageDraft outside private chats, while threaded mode is off
//     ("supported only for bots with forum topic mode enabled"), with a
//     draft_id of 0 or a text over 4096 characters.

// Telegram's refusals in private chats. Approximate: the texts for topics
// without threaded mode, closing a topic in a private chat and drafts
// outside private chats were not verified against the real service.
var (
	errCantInitiate    = &apiError{code: http.StatusForbidden, desc: "Forbidden: bot can't initiate conversation with a user"}
	errBlocked         = &apiError{code: http.StatusForbidden, desc: "Forbidden: bot was blocked by the user"}
	errTopicsDisabled  = badRequest("topics are not enabled in private chats with the bot")
	errPrivateNoClose  = badRequest("topics can't be closed or reopened in private chats")
	errDraftNotPrivate = badRequest("message drafts can be sent only to private chats")
	errDraftIDEmpty    = badRequest("draft_id must be non-zero")
)

// SetThreadedMode switches the bot's topics in private chats on or off,
// as its owner does in @BotFather; getMe answers has_topics_enabled.
func (s *Server) SetThreadedMode(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bot.HasTopicsEnabled = on
}

// StartBot opens the private chat with userID, as the person does by
// pressing Start: before it, the bot cannot write to them.
func (s *Server) StartBot(userID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(userID)
	c.botStatus = botMember
}

// BlockBot blocks (true) or unblocks (false) the bot in userID's private
// chat, as the person does in the app.
func (s *Server) BlockBot(userID int64, blocked bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(userID)
	c.botStatus = botMember
	if blocked {
		c.botStatus = botBlocked
	}
}

// Bot statuses in a private chat (botapi's member statuses name a group's).
const (
	botMember  = "member"
	botBlocked = "kicked"
)

// hasTopicsLocked says whether c has topics: a forum supergroup, or a
// private chat of a bot whose threaded mode is on. The caller holds s.mu.
func (s *Server) hasTopicsLocked(c *chat) bool {
	return c.info.IsForum || (c.private() && s.bot.HasTopicsEnabled)
}

func (c *chat) private() bool { return c.info.Type == "private" }

// draft is one sendMessageDraft the bot made.
type draft struct {
	id   int64
	text string
}

// Draft is a message draft as a person saw it stream: the draft's id and
// each text it showed, in order.
type Draft struct {
	ID    int64
	Texts []string
}

// Drafts returns the drafts the bot streamed into chatID's thread
// threadID, in the order they began.
func (s *Server) Drafts(chatID int64, threadID int) []Draft {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Draft
	for _, d := range s.drafts[actionKey{chatID, threadID}] {
		if n := len(out); n > 0 && out[n-1].ID == d.id {
			out[n-1].Texts = append(out[n-1].Texts, d.text)
			continue
		}
		out = append(out, Draft{ID: d.id, Texts: []string{d.text}})
	}
	return out
}

// sendMessageDraft shows a growing answer in a private chat (a thread of
// it, with message_thread_id) while it is written. Nothing is stored as a
// message: the draft is a preview, and the answer is sent with
// sendMessage when it is done.
func (s *Server) sendMessageDraft(a at, p params) (any, *apiError) {
	switch {
	case !a.c.private():
		return nil, errDraftNotPrivate
	case !s.bot.HasTopicsEnabled:
		return nil, errTopicsDisabled
	}
	id, ok, err := p.int64("draft_id")
	if err != nil {
		return nil, err
	}
	if !ok || id == 0 {
		return nil, errDraftIDEmpty
	}
	text, _, err := textWithEntities(p, "text", "entities", maxTextLen, errTextTooLong)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" || utf8.RuneCountInString(text) == 0 {
		return nil, errTextEmpty
	}
	k := actionKey{a.c.info.ID, a.thread}
	s.drafts[k] = append(s.drafts[k], draft{id: id, text: text})
	return true, nil
}
