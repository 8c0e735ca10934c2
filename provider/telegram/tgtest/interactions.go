package tgtest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// This file holds what a bot does to messages besides sending text:
// reactions, inline keyboards being edited away, photos, chat actions, the
// answers to callback queries, and the files people send.

// reactionEmoji are the emoji Telegram accepts in a ReactionTypeEmoji
// (the Bot API's list).
var reactionEmoji = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range []string{"👍", "👎", "❤", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩", "🤮", "💩", "🙏", "👌", "🕊", "🤡", "🥱", "🥴", "😍", "🐳", "❤‍🔥", "🌚", "🌭", "💯", "🤣", "⚡", "🍌", "🏆", "💔", "🤨", "😐", "🍓", "🍾", "💋", "🖕", "😈", "😴", "😭", "🤓", "👻", "👨‍💻", "👀", "🎃", "🙈", "😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅", "🎄", "☃", "💅", "🤪", "🗿", "🆒", "💘", "🙉", "🦄", "😘", "💊", "🙊", "😎", "👾", "🤷‍♂", "🤷", "🤷‍♀", "😡"} {
		m[e] = true
	}
	return m
}()

// Approximate: the texts Telegram answers for these were not verified
// against the real service.
var (
	errReactNotFound   = badRequest("message to react not found")
	errReactionInvalid = badRequest("REACTION_INVALID")
	errNoPhoto         = badRequest("there is no photo in the request")
)

// setMessageReaction replaces the bot's reactions on a message (an empty
// or absent reaction list removes them), as Telegram does.
func (s *Server) setMessageReaction(a at, p params) (any, *apiError) {
	var rs []botapi.ReactionType
	if raw := p.str("reaction"); raw != "" {
		if json.Unmarshal([]byte(raw), &rs) != nil {
			return nil, badRequest("can't parse reaction types JSON object")
		}
	}
	for _, r := range rs {
		if r.Type != "emoji" || !reactionEmoji[r.Emoji] {
			return nil, errReactionInvalid
		}
	}
	a.msg.botReactions = rs
	return true, nil
}

// editMessageReplyMarkup replaces (or, without reply_markup, removes) the
// inline keyboard of a message the bot sent.
func (s *Server) editMessageReplyMarkup(a at, p params) (any, *apiError) {
	sm := a.msg
	markup := replyMarkup(p)
	switch {
	case !sm.byBot:
		return nil, errCantEdit
	case string(markup) == string(sm.msg.ReplyMarkup):
		return nil, errNotModified
	}
	sm.msg.ReplyMarkup = markup
	sm.msg.EditDate = time.Now().Unix()
	return sm.msg, nil
}

// sendPhoto accepts the photo as an uploaded file part or as the file_id
// of a stored file, and answers with one photo size.
//
// Approximate: Telegram makes several sizes of a photo and re-encodes
// it; here the one size is the file as uploaded.
func (s *Server) sendPhoto(a at, p params) (any, *apiError) {
	return s.sendFile(a, p, "photo", errNoPhoto, func(m *botapi.Message, f *file) {
		m.Photo = []botapi.PhotoSize{photoSize(f)}
	})
}

func photoSize(f *file) botapi.PhotoSize {
	return botapi.PhotoSize{FileID: f.doc.FileID, FileUniqueID: f.doc.FileUniqueID, Width: 640, Height: 480, FileSize: f.doc.FileSize}
}

// BotReactions returns the reactions the bot set on a message (with
// setMessageReaction), nil if none.
func (s *Server) BotReactions(chatID int64, messageID int) []botapi.ReactionType {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.chats[chatID]; c != nil {
		if sm := c.msgs[messageID]; sm != nil {
			return append([]botapi.ReactionType(nil), sm.botReactions...)
		}
	}
	return nil
}

// ChatActions returns the actions (sendChatAction: "typing", …) the bot
// showed in chatID's thread threadID, in order.
func (s *Server) ChatActions(chatID int64, threadID int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.actions[actionKey{chatID, threadID}]...)
}

type actionKey struct {
	chat   int64
	thread int
}

// recordActionLocked remembers a chat action; the caller holds s.mu.
func (s *Server) recordActionLocked(chat int64, thread int, action string) {
	if s.actions == nil {
		s.actions = make(map[actionKey][]string)
	}
	k := actionKey{chat, thread}
	s.actions[k] = append(s.actions[k], action)
}

// CallbackAnswer says whether the callback query queryID was answered
// and with which text (answerCallbackQuery's text, "" if none).
func (s *Server) CallbackAnswer(queryID string) (text string, answered bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, answered = s.answered[queryID]
	return text, answered
}

// PushDocument stores a file and queues a "message" update: the user
// fromUserID sent it as a document (with caption) in chatID's topic
// threadID. It returns the update id and the file_id.
func (s *Server) PushDocument(chatID int64, threadID int, fromUserID int64, name string, data []byte, caption string) (updateID int64, fileID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.addFileLocked(upload{name: name, data: data})
	doc := f.doc
	return s.pushFileLocked(chatID, threadID, fromUserID, caption, func(m *botapi.Message) { m.Document = &doc }), doc.FileID
}

// PushPhoto stores a photo and queues a "message" update carrying it (one
// size), as PushDocument does for documents.
func (s *Server) PushPhoto(chatID int64, threadID int, fromUserID int64, name string, data []byte, caption string) (updateID int64, fileID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.addFileLocked(upload{name: name, data: data})
	f.path = fmt.Sprintf("photos/file_%d%s", s.nfiles, extOf(name))
	s.paths[f.path] = f
	return s.pushFileLocked(chatID, threadID, fromUserID, caption, func(m *botapi.Message) { m.Photo = []botapi.PhotoSize{photoSize(f)} }), f.doc.FileID
}

// PushVoice stores an OGG/Opus voice note and queues a "message" update
// carrying it, as a person's phone sends one (duration in seconds, as
// the app measured it). It returns the update id and the file_id.
func (s *Server) PushVoice(chatID int64, threadID int, fromUserID int64, data []byte, duration int) (updateID int64, fileID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.addFileLocked(upload{name: "voice.oga", data: data, contentType: "audio/ogg"})
	f.path = fmt.Sprintf("voice/file_%d.oga", s.nfiles)
	s.paths[f.path] = f
	v := botapi.Voice{FileID: f.doc.FileID, FileUniqueID: f.doc.FileUniqueID, Duration: duration, MimeType: "audio/ogg", FileSize: f.doc.FileSize}
	return s.pushFileLocked(chatID, threadID, fromUserID, "", func(m *botapi.Message) { m.Voice = &v }), v.FileID
}

func extOf(name string) string {
	for i := len(name) - 1; i >= 0 && name[i] != '/'; i-- {
		if name[i] == '.' {
			return name[i:]
		}
	}
	return ""
}

func (s *Server) pushFileLocked(chatID int64, threadID int, fromUserID int64, caption string, attach func(*botapi.Message)) int64 {
	return s.pushMessageLocked(s.chatLocked(chatID), threadID, fromUserID, func(m *botapi.Message) {
		m.Caption = caption
		attach(m)
	})
}
