package tgtest

import (
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// Telegram's limits and forum topic icon colours.
const (
	maxTextLen     = 4096
	maxCaptionLen  = 1024
	maxTopicName   = 128
	maxDownload    = 20 << 20 // bots may download files of up to 20 MB
	firstMessageID = 2        // 1 is the General topic's id in real forums
)

var iconColors = []int{0x6FB9F0, 0xFFD67E, 0xCB86DB, 0x8EEE98, 0xFF93B2, 0xFB6F5F}

// chatActions are the valid sendChatAction actions.
var chatActions = map[string]bool{
	"typing": true, "upload_photo": true, "record_video": true, "upload_video": true,
	"record_voice": true, "upload_voice": true, "upload_document": true,
	"choose_sticker": true, "find_location": true, "record_video_note": true,
	"upload_video_note": true,
}

// Errors Telegram answers with. Unless marked approximate below, the
// descriptions are Telegram's own texts.
var (
	errChatNotFound   = badRequest("chat not found")
	errChatIDEmpty    = badRequest("chat_id is empty")
	errThreadNotFound = badRequest("message thread not found")
	errNotForum       = badRequest("the chat is not a forum")
	errTopicNotMod    = badRequest("TOPIC_NOT_MODIFIED")
	errTextEmpty      = badRequest("message text is empty")
	errTextTooLong    = badRequest("message is too long")
	errCaptionTooLong = badRequest("message caption is too long")
	errEditNotFound   = badRequest("message to edit not found")
	errCantEdit       = badRequest("message can't be edited")
	errNotModified    = badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	errNoTextToEdit   = badRequest("there is no text in the message to edit")
	errDeleteNotFound = badRequest("message to delete not found")
	errReplyNotFound  = badRequest("message to be replied not found")
	errWrongAction    = badRequest("wrong parameter action in request")
	errQueryInvalid   = badRequest("query is too old and response timeout expired or query ID is invalid")
	errInvalidFileID  = badRequest("invalid file_id")
	errFileTooBig     = badRequest("file is too big")
	errNoDocument     = badRequest("there is no document in the request")
	errWrongFile      = badRequest("wrong file identifier/HTTP URL specified")
	// Approximate: Telegram reports these from the underlying MTProto
	// errors; the exact wording for the Bot API was not verified.
	errMessageIDEmpty = badRequest("message identifier is not specified")
	errTopicNameEmpty = badRequest("TOPIC_TITLE_EMPTY")
	errTopicNameLong  = badRequest("TOPIC_TITLE_INVALID")
	errIconColor      = badRequest("TOPIC_ICON_COLOR_INVALID")
	// Topics a person deleted or closed. Sends into a deleted topic are
	// answered "message thread not found" (errThreadNotFound; reported
	// for the real service in public bug reports). For the topic methods
	// (edit, close, reopen, delete) bots in the wild match TOPIC_ID_INVALID;
	// which methods answer it was not verified. A send into a closed topic
	// by a bot that may not manage topics is TOPIC_CLOSED (seen in public
	// reports for user clients; for bots not verified).
	errTopicIDInvalid = badRequest("TOPIC_ID_INVALID")
	errTopicClosed    = badRequest("TOPIC_CLOSED")
	// Approximate: the bot lacks the administrator right to manage topics.
	errNoTopicRights = badRequest("not enough rights to manage topics")
	// The bot is not in the chat. "bot is not a member of the supergroup
	// chat" and "bot was kicked from the supergroup chat" are Telegram's
	// texts as bots report them.
	errNotMember = &apiError{code: http.StatusForbidden, desc: "Forbidden: bot is not a member of the supergroup chat"}
	errKicked    = &apiError{code: http.StatusForbidden, desc: "Forbidden: bot was kicked from the supergroup chat"}
)

// chat is a chat the bot is in.
type chat struct {
	info botapi.Chat
	// The bot's membership: its status (botapi.Member…) and whether, as
	// an administrator, it may manage topics.
	botStatus       string
	canManageTopics bool
	nextID          int                    // next message id; topic ids come from the same sequence
	topics          map[int]*Topic         // by message_thread_id
	order           []int                  // topic ids in creation order
	created         int                    // topics createForumTopic made, ever
	msgs            map[int]*storedMessage // by message id
}

type storedMessage struct {
	msg     botapi.Message
	byBot   bool // sent by the bot (sendMessage, sendDocument, sendPhoto)
	deleted bool
	// botReactions are the bot's own reactions (setMessageReaction).
	botReactions []botapi.ReactionType
}

// Topic is a forum topic as the server holds it.
type Topic struct {
	botapi.ForumTopic
	Closed bool
}

func (c *chat) nextMessageID() int {
	id := c.nextID
	c.nextID++
	return id
}

// setThreadLocked places m in thread: a topic of a forum or of a private
// chat with topics, or a reply thread in another chat. 0 leaves it in the
// General topic or the main chat. The caller holds s.mu.
func (s *Server) setThreadLocked(c *chat, m *botapi.Message, thread int) {
	if thread == 0 {
		return
	}
	m.MessageThreadID = thread
	m.IsTopicMessage = s.hasTopicsLocked(c)
}

func (c *chat) store(m botapi.Message, byBot bool) {
	c.msgs[m.MessageID] = &storedMessage{msg: m, byBot: byBot}
}

// chatLocked returns the chat, creating it if needed: private for a
// positive id, else a supergroup without topics. The caller holds s.mu.
func (s *Server) chatLocked(id int64) *chat {
	c := s.chats[id]
	if c == nil {
		c = &chat{
			info:      botapi.Chat{ID: id, Type: "supergroup", Title: fmt.Sprintf("Group %d", id)},
			botStatus: botapi.MemberMember,
			nextID:    firstMessageID,
			topics:    make(map[int]*Topic),
			msgs:      make(map[int]*storedMessage),
		}
		if id > 0 {
			c.info = botapi.Chat{ID: id, Type: "private", Username: "user" + strconv.FormatInt(id, 10)}
		}
		s.chats[id] = c
	}
	return c
}

// AddForum makes chatID a forum supergroup (creating it if needed) in
// which the bot may manage topics.
func (s *Server) AddForum(chatID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(chatID)
	c.info = botapi.Chat{ID: chatID, Type: "supergroup", Title: fmt.Sprintf("Forum %d", chatID), IsForum: true}
	c.botStatus, c.canManageTopics = botapi.MemberAdministrator, true
}

// AddGroup makes chatID a supergroup without topics (creating it if
// needed), in which the bot is an administrator that may manage topics
// once they are on: a chat a person forgot to turn Topics on in.
func (s *Server) AddGroup(chatID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(chatID)
	c.info = botapi.Chat{ID: chatID, Type: "supergroup", Title: fmt.Sprintf("Group %d", chatID)}
	c.botStatus, c.canManageTopics = botapi.MemberAdministrator, true
}

// SetForum turns Topics on or off in chatID, as a person does in the
// group's settings.
func (s *Server) SetForum(chatID int64, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatLocked(chatID).info.IsForum = on
}

// SetBotMember sets the bot's membership of chatID, as a person does by
// promoting, demoting or removing it: status is one of botapi.Member…;
// canManageTopics applies to an administrator.
func (s *Server) SetBotMember(chatID int64, status string, canManageTopics bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(chatID)
	c.botStatus, c.canManageTopics = status, canManageTopics
}

// DeleteTopic deletes a forum topic and its messages as a person does in
// the app (no bot call is counted). It reports whether there was one.
func (s *Server) DeleteTopic(chatID int64, threadID int) bool {
	return s.asPerson(chatID, threadID, func(c *chat, _ *Topic) { c.deleteTopic(threadID) })
}

// CloseTopic closes a forum topic as a person does in the app. It reports
// whether there was one.
func (s *Server) CloseTopic(chatID int64, threadID int) bool {
	return s.asPerson(chatID, threadID, func(_ *chat, t *Topic) { t.Closed = true })
}

// ReopenTopic reopens a closed forum topic as a person does in the app.
// It reports whether there was one.
func (s *Server) ReopenTopic(chatID int64, threadID int) bool {
	return s.asPerson(chatID, threadID, func(_ *chat, t *Topic) { t.Closed = false })
}

// CloseTopicBy closes a forum topic as the user fromUserID does in the app:
// Telegram posts the forum_topic_closed service message in it, which bots
// receive as a message update. It returns that update's id, 0 if there is
// no such topic.
func (s *Server) CloseTopicBy(chatID int64, threadID int, fromUserID int64) (updateID int64) {
	return s.serviceAsPerson(chatID, threadID, fromUserID, func(t *Topic, m *botapi.Message) {
		t.Closed = true
		m.ForumTopicClosed = &botapi.ForumTopicClosed{}
	})
}

// ReopenTopicBy reopens a forum topic as the user fromUserID does in the
// app, with the forum_topic_reopened service message (see CloseTopicBy).
func (s *Server) ReopenTopicBy(chatID int64, threadID int, fromUserID int64) (updateID int64) {
	return s.serviceAsPerson(chatID, threadID, fromUserID, func(t *Topic, m *botapi.Message) {
		t.Closed = false
		m.ForumTopicReopened = &botapi.ForumTopicReopened{}
	})
}

// serviceAsPerson changes an existing topic as a person and queues the
// service message Telegram posts about it.
func (s *Server) serviceAsPerson(chatID int64, threadID int, fromUserID int64, do func(*Topic, *botapi.Message)) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil || c.topics[threadID] == nil {
		return 0
	}
	t := c.topics[threadID]
	return s.pushMessageLocked(c, threadID, fromUserID, func(m *botapi.Message) { do(t, m) })
}

// TopicsCreated returns how many topics createForumTopic made in chatID,
// deleted ones included.
func (s *Server) TopicsCreated(chatID int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.chats[chatID]; c != nil {
		return c.created
	}
	return 0
}

// asPerson applies do to an existing topic under s.mu.
func (s *Server) asPerson(chatID int64, threadID int, do func(*chat, *Topic)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil || c.topics[threadID] == nil {
		return false
	}
	do(c, c.topics[threadID])
	return true
}

// mayManageTopics says whether the bot may create, edit, close and reopen
// topics in c.
func (c *chat) mayManageTopics() bool {
	return c.botStatus == botapi.MemberCreator || (c.botStatus == botapi.MemberAdministrator && c.canManageTopics)
}

// memberErr is the refusal for a bot that is not in c, nil if it is.
func (c *chat) memberErr() *apiError {
	if c.private() {
		if c.botStatus == botBlocked {
			return errBlocked
		}
		return nil
	}
	switch c.botStatus {
	case botapi.MemberLeft:
		return errNotMember
	case botapi.MemberKicked:
		return errKicked
	}
	return nil
}

func (c *chat) deleteTopic(id int) {
	delete(c.topics, id)
	c.order = slices.DeleteFunc(c.order, func(x int) bool { return x == id })
	for _, sm := range c.msgs {
		if sm.msg.MessageThreadID == id {
			sm.deleted = true
		}
	}
}

// Topics returns the forum's topics that were not deleted, in creation
// order.
func (s *Server) Topics(chatID int64) []Topic {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil {
		return nil
	}
	out := make([]Topic, 0, len(c.order))
	for _, id := range c.order {
		out = append(out, *c.topics[id])
	}
	return out
}

// Sent returns the messages the bot sent (sendMessage, sendDocument) to
// chatID in threadID (0: the General topic or the main chat), in order,
// as they are now: edits applied, deleted ones left out.
func (s *Server) Sent(chatID int64, threadID int) []botapi.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil {
		return nil
	}
	var out []botapi.Message
	for _, id := range slices.Sorted(maps.Keys(c.msgs)) {
		sm := c.msgs[id]
		if sm.byBot && !sm.deleted && sm.msg.MessageThreadID == threadID {
			out = append(out, sm.msg)
		}
	}
	return out
}

// AddFile stores a file as if a user had sent it, for getFile and
// downloads, and returns its file_id.
func (s *Server) AddFile(name string, data []byte) (fileID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addFileLocked(upload{name: name, data: data}).doc.FileID
}

// file is a stored file.
type file struct {
	doc  botapi.Document
	path string // file_path for downloads
	data []byte
}

func (s *Server) addFileLocked(u upload) *file {
	s.nfiles++
	n := s.nfiles
	ct := mime.TypeByExtension(path.Ext(u.name))
	if ct == "" {
		ct = u.contentType
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	f := &file{
		doc: botapi.Document{
			FileID:       fmt.Sprintf("BQACAgIAAxkDAAI%06d", n),
			FileUniqueID: fmt.Sprintf("AgAD%06d", n),
			FileName:     u.name,
			MimeType:     ct,
			FileSize:     int64(len(u.data)),
		},
		path: fmt.Sprintf("documents/file_%d%s", n, path.Ext(u.name)),
		data: u.data,
	}
	s.files[f.doc.FileID] = f
	s.paths[f.path] = f
	return f
}

// at is what a call acts on, resolved from its parameters by a resolver.
type at struct {
	c      *chat
	thread int            // message_thread_id: a topic or reply thread, 0 for none
	msg    *storedMessage // the message message_id names (messageIn)
	topic  *Topic         // the topic message_thread_id names (topicLocked)
}

// A resolver finds what a call acts on, or the error Telegram answers
// when it cannot. The caller holds s.mu.
type resolver func(s *Server, p params) (at, *apiError)

// locked builds the handler of a method that acts on what resolve finds:
// do runs under s.mu, and resolve's error is the answer.
func locked(resolve resolver, do func(s *Server, a at, p params) (any, *apiError)) handler {
	return func(s *Server, _ *http.Request, p params) (any, *apiError) {
		s.mu.Lock()
		defer s.mu.Unlock()
		a, err := resolve(s, p)
		if err != nil {
			return nil, err
		}
		return do(s, a, p)
	}
}

// targetLocked resolves chat_id and message_thread_id for a call that
// posts into a chat. A thread must be an existing topic of a forum (a
// closed one only for a bot that may manage topics), or, outside forums,
// an existing message starting a reply thread.
func (s *Server) targetLocked(p params) (at, *apiError) {
	id, ok, err := p.int64("chat_id")
	if err != nil || !ok {
		if p.str("chat_id") != "" {
			return at{}, errChatNotFound // e.g. "@username": unsupported here
		}
		return at{}, errChatIDEmpty
	}
	c := s.chats[id]
	switch {
	case c == nil && id > 0:
		return at{}, errCantInitiate // the person never started the bot
	case c == nil:
		return at{}, errChatNotFound
	}
	if err := c.memberErr(); err != nil {
		return at{}, err
	}
	thread, err := p.int("message_thread_id")
	if err != nil {
		return at{}, err
	}
	if thread != 0 {
		if s.hasTopicsLocked(c) {
			switch t := c.topics[thread]; {
			case t == nil:
				return at{}, errThreadNotFound
			case t.Closed && !c.mayManageTopics():
				return at{}, errTopicClosed
			}
		} else if sm := c.msgs[thread]; sm == nil || sm.deleted {
			return at{}, errThreadNotFound
		}
	}
	return at{c: c, thread: thread}, nil
}

// chatIDLocked resolves chat_id alone, as targetLocked does.
func (s *Server) chatIDLocked(p params) (*chat, *apiError) {
	a, err := s.targetLocked(params{vals: map[string]string{"chat_id": p.str("chat_id")}})
	return a.c, err
}

// messageIn resolves chat_id and message_id; notFound is the answer for
// a message that is not there (or was deleted).
func messageIn(notFound *apiError) resolver {
	return func(s *Server, p params) (at, *apiError) {
		c, err := s.chatIDLocked(p)
		if err != nil {
			return at{}, err
		}
		mid, ok, err := p.int64("message_id")
		if err != nil {
			return at{}, err
		}
		if !ok {
			return at{}, errMessageIDEmpty
		}
		sm := c.msgs[int(mid)]
		if sm == nil || sm.deleted {
			return at{}, notFound
		}
		return at{c: c, msg: sm}, nil
	}
}

// replyMarkup returns the reply_markup parameter as JSON, or nil.
func replyMarkup(p params) json.RawMessage {
	if s := p.str("reply_markup"); s != "" && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return nil
}

// replyTo resolves reply_parameters (or the older reply_to_message_id).
func replyTo(c *chat, p params) (*botapi.Message, *apiError) {
	var id int
	if rp := p.str("reply_parameters"); rp != "" {
		var v struct {
			MessageID int `json:"message_id"`
		}
		if json.Unmarshal([]byte(rp), &v) != nil {
			return nil, badRequest("can't parse reply parameters JSON object")
		}
		id = v.MessageID
	} else {
		var err *apiError
		if id, err = p.int("reply_to_message_id"); err != nil {
			return nil, err
		}
	}
	if id == 0 {
		return nil, nil
	}
	sm := c.msgs[id]
	if sm == nil || sm.deleted {
		return nil, errReplyNotFound
	}
	m := sm.msg
	m.ReplyToMessage = nil
	return &m, nil
}

func (s *Server) getMe(*http.Request, params) (any, *apiError) { return s.bot, nil }

// getChat answers the part of ChatFullInfo chatbus reads: id, type, title,
// is_forum.
func (s *Server) getChat(_ *http.Request, p params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.chatIDLocked(p)
	if err == errCantInitiate || err == errBlocked {
		// getChat does not say why: a person who never started the bot
		// is a chat it cannot find. Approximate for a blocked bot (the
		// real service may answer the chat).
		return nil, errChatNotFound
	}
	if err != nil {
		return nil, err
	}
	return c.info, nil
}

// getChatMember answers the bot's own membership with its rights; any
// other user is a plain member. (Approximate: Telegram answers "user not
// found" for users it does not know; this server knows everyone.)
func (s *Server) getChatMember(_ *http.Request, p params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.chatIDLocked(p)
	if err != nil {
		return nil, err
	}
	uid, ok, err := p.int64("user_id")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, badRequest("user_id is empty")
	}
	if uid != s.bot.ID {
		return botapi.ChatMember{Status: botapi.MemberMember, User: *userFor(uid)}, nil
	}
	m := botapi.ChatMember{Status: c.botStatus, User: s.bot}
	if c.botStatus == botapi.MemberAdministrator {
		m.CanManageTopics = c.canManageTopics
	}
	return m, nil
}

func (s *Server) sendMessage(a at, p params) (any, *apiError) {
	text, entities, err := textWithEntities(p, "text", "entities", maxTextLen, errTextTooLong)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, errTextEmpty
	}
	return s.postLocked(a, p, func(m *botapi.Message) { m.Text, m.Entities = text, entities })
}

// postLocked sends a message from the bot to a's chat and thread: the
// reply and inline keyboard p names, and what fill puts in. The caller
// holds s.mu.
func (s *Server) postLocked(a at, p params, fill func(*botapi.Message)) (any, *apiError) {
	reply, err := replyTo(a.c, p)
	if err != nil {
		return nil, err
	}
	bot := s.bot
	m := s.newMessageLocked(a.c, a.thread, &bot)
	m.ReplyToMessage, m.ReplyMarkup = reply, replyMarkup(p)
	fill(&m)
	a.c.store(m, true)
	return m, nil
}

// newMessageLocked returns the next message in c's thread (0: none) from
// the user from, dated now. The caller holds s.mu.
func (s *Server) newMessageLocked(c *chat, thread int, from *botapi.User) botapi.Message {
	m := botapi.Message{MessageID: c.nextMessageID(), From: from, Chat: c.info, Date: time.Now().Unix()}
	s.setThreadLocked(c, &m, thread)
	return m
}

func (s *Server) editMessageText(a at, p params) (any, *apiError) {
	sm := a.msg
	text, entities, err := textWithEntities(p, "text", "entities", maxTextLen, errTextTooLong)
	if err != nil {
		return nil, err
	}
	markup := replyMarkup(p)
	switch {
	case !sm.byBot:
		return nil, errCantEdit
	case sm.msg.Text == "":
		return nil, errNoTextToEdit
	case strings.TrimSpace(text) == "":
		return nil, errTextEmpty
	case text == sm.msg.Text && slices.Equal(entities, sm.msg.Entities) && string(markup) == string(sm.msg.ReplyMarkup):
		return nil, errNotModified
	}
	sm.msg.Text, sm.msg.Entities = text, entities
	sm.msg.ReplyMarkup = markup // omitting reply_markup removes the keyboard, as on Telegram
	sm.msg.EditDate = time.Now().Unix()
	return sm.msg, nil
}

func (s *Server) deleteMessage(a at, _ params) (any, *apiError) {
	a.msg.deleted = true
	return true, nil
}

func (s *Server) sendChatAction(a at, p params) (any, *apiError) {
	if !chatActions[p.str("action")] {
		return nil, errWrongAction
	}
	s.recordActionLocked(a.c.info.ID, a.thread, p.str("action"))
	return true, nil
}

// answerCallbackQuery accepts each query pushed by PushCallbackQuery once.
func (s *Server) answerCallbackQuery(_ *http.Request, p params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := p.str("callback_query_id")
	if !s.queries[id] {
		return nil, errQueryInvalid
	}
	delete(s.queries, id)
	s.answered[id] = p.str("text")
	return true, nil
}

// forumLocked resolves chat_id to a forum in which the bot may manage
// topics.
func (s *Server) forumLocked(p params) (at, *apiError) {
	c, err := s.chatIDLocked(p)
	if err != nil {
		return at{}, err
	}
	switch {
	case c.private() && !s.bot.HasTopicsEnabled:
		return at{}, errTopicsDisabled
	case c.private():
		return at{c: c}, nil // the bot manages the topics of its own private chats
	case !c.info.IsForum:
		return at{}, errNotForum
	case !c.mayManageTopics():
		return at{}, errNoTopicRights
	}
	return at{c: c}, nil
}

// topicLocked resolves chat_id and message_thread_id to a topic; one that
// does not exist (or was deleted) is TOPIC_ID_INVALID (see the errors
// above).
func (s *Server) topicLocked(p params) (at, *apiError) {
	a, err := s.forumLocked(p)
	if err != nil {
		return at{}, err
	}
	id, err := p.int("message_thread_id")
	if err != nil {
		return at{}, err
	}
	if a.topic = a.c.topics[id]; a.topic == nil {
		return at{}, errTopicIDInvalid
	}
	return a, nil
}

func checkTopicName(name string) *apiError {
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return errTopicNameEmpty
	case n > maxTopicName:
		return errTopicNameLong
	}
	return nil
}

// createForumTopic gives the topic the id of its (implicit) creation
// service message, as Telegram does, so topic ids grow with message ids.
func (s *Server) createForumTopic(a at, p params) (any, *apiError) {
	c := a.c
	name := p.str("name")
	if err := checkTopicName(name); err != nil {
		return nil, err
	}
	color, err := p.int("icon_color")
	if err != nil {
		return nil, err
	}
	if color == 0 {
		color = iconColors[0]
	} else if !slices.Contains(iconColors, color) {
		return nil, errIconColor
	}
	t := &Topic{ForumTopic: botapi.ForumTopic{MessageThreadID: c.nextMessageID(), Name: name, IconColor: color}}
	c.topics[t.MessageThreadID] = t
	c.order = append(c.order, t.MessageThreadID)
	c.created++
	return t.ForumTopic, nil
}

// editForumTopic renames a topic; icon_custom_emoji_id is accepted and
// ignored.
func (s *Server) editForumTopic(a at, p params) (any, *apiError) {
	t := a.topic
	name, hasName := p.vals["name"]
	_, hasIcon := p.vals["icon_custom_emoji_id"]
	if hasName {
		if err := checkTopicName(name); err != nil {
			return nil, err
		}
	}
	if (!hasName || name == t.Name) && !hasIcon {
		return nil, errTopicNotMod
	}
	if hasName {
		t.Name = name
	}
	return true, nil
}

func (s *Server) closeForumTopic(a at, _ params) (any, *apiError) {
	return setTopicClosed(a, true)
}

func (s *Server) reopenForumTopic(a at, _ params) (any, *apiError) {
	return setTopicClosed(a, false)
}

// setTopicClosed closes or reopens a topic. Doing either twice is
// TOPIC_NOT_MODIFIED, as on Telegram.
func setTopicClosed(a at, closed bool) (any, *apiError) {
	if a.c.private() {
		return nil, errPrivateNoClose
	}
	if a.topic.Closed == closed {
		return nil, errTopicNotMod
	}
	a.topic.Closed = closed
	return true, nil
}

// deleteForumTopic deletes a topic and every message in it.
func (s *Server) deleteForumTopic(a at, _ params) (any, *apiError) {
	a.c.deleteTopic(a.topic.MessageThreadID)
	return true, nil
}

// sendDocument accepts the document as an uploaded file part or as the
// file_id of a stored file. (Telegram also accepts an HTTP URL; this
// server does not fetch URLs.)
func (s *Server) sendDocument(a at, p params) (any, *apiError) {
	return s.sendFile(a, p, "document", errNoDocument, func(m *botapi.Message, f *file) {
		doc := f.doc
		m.Document = &doc
	})
}

// sendFile posts the file named by the field (an uploaded part or the
// file_id of a stored file) with its caption; attach puts it in the
// message. missing is the error for a request without it. The caller
// holds s.mu.
func (s *Server) sendFile(a at, p params, field string, missing *apiError, attach func(*botapi.Message, *file)) (any, *apiError) {
	caption := p.str("caption")
	if utf8.RuneCountInString(caption) > maxCaptionLen {
		return nil, errCaptionTooLong
	}
	var f *file
	if u, ok := p.files[field]; ok {
		f = s.addFileLocked(u)
	} else if id := p.str(field); id != "" {
		if f = s.files[id]; f == nil {
			return nil, errWrongFile
		}
	} else {
		return nil, missing
	}
	return s.postLocked(a, p, func(m *botapi.Message) {
		m.Caption = caption
		attach(m, f)
	})
}

func (s *Server) getFile(_ *http.Request, p params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[p.str("file_id")]
	if f == nil {
		return nil, errInvalidFileID
	}
	if len(f.data) > maxDownload {
		return nil, errFileTooBig
	}
	return botapi.File{FileID: f.doc.FileID, FileUniqueID: f.doc.FileUniqueID, FileSize: f.doc.FileSize, FilePath: f.path}, nil
}

// serveFile answers GET /file/bot<token>/<path>.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, token, filePath string) {
	m := strings.ToLower(DownloadMethod)
	if !s.admit(w, m, token) {
		return
	}
	if f, ok := s.takeFault(m); ok {
		s.serveFault(w, r, f)
		return
	}
	s.mu.Lock()
	f := s.paths[filePath]
	s.mu.Unlock()
	if f == nil {
		writeError(w, &apiError{code: http.StatusNotFound, desc: descNotFound})
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(f.data)))
	w.Write(f.data)
}

// DeleteMessage deletes a message as a person (or an admin) would: later
// calls naming it are answered as Telegram answers them for a deleted
// message.
func (s *Server) DeleteMessage(chatID int64, messageID int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil {
		return fmt.Errorf("tgtest: no chat %d", chatID)
	}
	sm := c.msgs[messageID]
	if sm == nil || sm.deleted {
		return fmt.Errorf("tgtest: no message %d in chat %d", messageID, chatID)
	}
	sm.deleted = true
	return nil
}
