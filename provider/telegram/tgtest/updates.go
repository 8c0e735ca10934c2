package tgtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// queued is one pending update.
type queued struct {
	id   int64
	kind string          // the update's field name: "message", "callback_query", …
	raw  json.RawMessage // the whole update, as getUpdates returns it
}

// pollCall is a getUpdates call that may wait. It is terminated (answered
// with 409) when s.poll no longer points to it.
type pollCall struct {
	terminated chan struct{} // closed when another call takes over
}

// excludedByDefault are the update kinds Telegram does not send when
// allowed_updates was never given or was empty.
var excludedByDefault = map[string]bool{
	"chat_member":            true,
	"message_reaction":       true,
	"message_reaction_count": true,
}

// enqueueLocked queues an update of the given kind and wakes waiting
// getUpdates calls. The caller holds s.mu.
func (s *Server) enqueueLocked(kind string, payload json.RawMessage) int64 {
	id := s.nextUpdateID
	s.nextUpdateID++
	raw := fmt.Appendf(nil, `{"update_id":%d,%q:%s}`, id, kind, payload)
	s.pending = append(s.pending, queued{id: id, kind: kind, raw: raw})
	close(s.notify)
	s.notify = make(chan struct{})
	return id
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("tgtest: encoding update: %v", err)) // a bug in this package
	}
	return b
}

// userFor returns the user a test pushes updates as.
func userFor(id int64) *botapi.User {
	return &botapi.User{ID: id, FirstName: "User " + strconv.FormatInt(id, 10), Username: "user" + strconv.FormatInt(id, 10), LanguageCode: "en"}
}

// PushMessage queues a "message" update: a text message from the user
// fromUserID in chat chatID and, in a forum, topic threadID (0: the
// General topic). A chat not seen before is created: private if chatID is
// positive, else a supergroup without topics (see AddForum). It returns
// the update_id; the message id is in the update.
func (s *Server) PushMessage(chatID int64, threadID int, fromUserID int64, text string) (updateID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pushMessageLocked(s.chatLocked(chatID), threadID, fromUserID, func(m *botapi.Message) { m.Text = text })
}

// pushMessageLocked stores a message the user fromUserID sent in c's
// thread (0: none), filled in by fill, and queues its "message" update.
// The caller holds s.mu.
func (s *Server) pushMessageLocked(c *chat, thread int, fromUserID int64, fill func(*botapi.Message)) (updateID int64) {
	m := s.newMessageLocked(c, thread, userFor(fromUserID))
	fill(&m)
	c.store(m, false)
	return s.enqueueLocked(botapi.KindMessage, mustMarshal(m))
}

// PushEdit changes the text of a message a user sent (see PushMessage) and
// queues the "edited_message" update. It returns 0 and fails the test if
// there is no such message.
func (s *Server) PushEdit(chatID int64, messageID int, text string) (updateID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	var sm *storedMessage
	if c != nil {
		sm = c.msgs[messageID]
	}
	if sm == nil || sm.deleted {
		s.tb.Errorf("tgtest: PushEdit: no message %d in chat %d", messageID, chatID)
		return 0
	}
	sm.msg.Text = text
	sm.msg.EditDate = time.Now().Unix()
	return s.enqueueLocked(botapi.KindEditedMessage, mustMarshal(sm.msg))
}

// PushCallbackQuery queues a "callback_query" update: user fromUserID
// pressed a button carrying data on message messageID of chat chatID
// (normally a message the bot sent with an inline keyboard; its topic is
// taken from it). If the message is unknown, the query carries it as an
// inaccessible message (date 0). It returns the update_id and the
// callback query id to answer.
func (s *Server) PushCallbackQuery(chatID int64, messageID int, fromUserID int64, data string) (updateID int64, queryID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(chatID)
	msg := botapi.Message{MessageID: messageID, Chat: c.info}
	if sm := c.msgs[messageID]; sm != nil && !sm.deleted {
		msg = sm.msg
	}
	queryID = strconv.FormatInt(s.nextUpdateID*1000+7, 10)
	s.queries[queryID] = true
	q := botapi.CallbackQuery{
		ID:           queryID,
		From:         *userFor(fromUserID),
		Message:      &msg,
		ChatInstance: strconv.FormatInt(-chatID*31, 10),
		Data:         data,
	}
	return s.enqueueLocked(botapi.KindCallbackQuery, mustMarshal(q)), queryID
}

// PushReaction queues a "message_reaction" update: user fromUserID set
// the reaction emoji on message messageID (an empty emoji removes the
// reactions). Telegram sends these only to bots that name
// message_reaction in allowed_updates.
func (s *Server) PushReaction(chatID int64, messageID int, fromUserID int64, emoji string) (updateID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(chatID)
	r := botapi.MessageReactionUpdated{
		Chat:        c.info,
		MessageID:   messageID,
		User:        userFor(fromUserID),
		Date:        time.Now().Unix(),
		OldReaction: []botapi.ReactionType{},
		NewReaction: []botapi.ReactionType{},
	}
	if emoji != "" {
		r.NewReaction = append(r.NewReaction, botapi.ReactionType{Type: "emoji", Emoji: emoji})
	}
	return s.enqueueLocked(botapi.KindMessageReaction, mustMarshal(r))
}

// PushRaw queues an arbitrary update. update is a JSON object with the
// update's one kind field (e.g. {"my_chat_member":{…}}); an update_id in
// it is replaced by the next id. It returns the update_id, or 0 after
// failing the test if update is not such an object.
func (s *Server) PushRaw(update json.RawMessage) (updateID int64) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(update, &m); err != nil {
		s.tb.Errorf("tgtest: PushRaw: %v", err)
		return 0
	}
	delete(m, "update_id")
	if len(m) != 1 {
		s.tb.Errorf("tgtest: PushRaw: an update has exactly one field besides update_id, got %d", len(m))
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for kind, payload := range m {
		return s.enqueueLocked(kind, mustMarshal(payload))
	}
	panic("unreachable")
}

// Pending returns how many queued updates are not yet confirmed.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// Confirmed returns the highest update id a getUpdates offset confirmed,
// or 0 if none.
func (s *Server) Confirmed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.confirmed
}

// confirmLocked applies a getUpdates offset: a positive offset forgets
// every update below it; a negative one keeps only the last -offset
// updates. The caller holds s.mu.
func (s *Server) confirmLocked(offset int64) {
	switch {
	case offset > 0:
		i := 0
		for i < len(s.pending) && s.pending[i].id < offset {
			i++
		}
		s.pending = slices.Delete(s.pending, 0, i)
		// Ids not yet issued cannot be confirmed.
		s.confirmed = max(s.confirmed, min(offset-1, s.nextUpdateID-1))
	case offset < 0:
		if drop := len(s.pending) - int(-offset); drop > 0 {
			s.confirmed = max(s.confirmed, s.pending[drop-1].id)
			s.pending = slices.Delete(s.pending, 0, drop)
		}
	}
}

// collectLocked returns up to limit pending updates with id >= offset and
// of an allowed kind. Updates of other kinds are dropped, never to be
// delivered. The caller holds s.mu.
//
// Approximate: Telegram applies allowed_updates when an update is
// created; applying it at delivery keeps tests independent of whether the
// poller's first call happened before the push.
func (s *Server) collectLocked(offset int64, limit int) []json.RawMessage {
	s.pending = slices.DeleteFunc(s.pending, func(q queued) bool { return !s.allowedLocked(q.kind) })
	var out []json.RawMessage
	for _, q := range s.pending {
		if len(out) == limit {
			break
		}
		if q.id >= offset {
			out = append(out, q.raw)
		}
	}
	return out
}

func (s *Server) allowedLocked(kind string) bool {
	if s.allowed == nil {
		return !excludedByDefault[kind]
	}
	return s.allowed[kind]
}

func (s *Server) deleteWebhook(*http.Request, params) (any, *apiError) { return true, nil }

// getUpdates implements Telegram's long poll: confirm what the offset
// confirms, answer at once if updates are pending, else wait up to timeout
// seconds for one. A call that arrives while another waits conflicts with
// it (see ConflictPolicy).
func (s *Server) getUpdates(r *http.Request, p params) (any, *apiError) {
	offset, _, err := p.int64("offset")
	if err != nil {
		return nil, err
	}
	limit, err := p.int("limit")
	if err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 100 {
		limit = 100 // Telegram clamps to 1..100, defaulting to 100
	}
	timeout, err := p.int("timeout")
	if err != nil {
		return nil, err
	}
	var allowed map[string]bool
	if a, ok := p.vals["allowed_updates"]; ok {
		var kinds []string
		if json.Unmarshal([]byte(a), &kinds) != nil {
			return nil, badRequest("can't parse allowed updates")
		}
		if len(kinds) > 0 {
			allowed = make(map[string]bool, len(kinds))
			for _, k := range kinds {
				allowed[k] = true
			}
		}
	}

	s.mu.Lock()
	if _, ok := p.vals["allowed_updates"]; ok {
		s.allowed = allowed // remembered across calls, like Telegram
	}
	me := &pollCall{terminated: make(chan struct{})}
	if s.poll != nil {
		if s.policy == RejectNewer {
			s.mu.Unlock()
			return nil, &apiError{code: http.StatusConflict, desc: descConflict}
		}
		close(s.poll.terminated)
	}
	s.poll = me
	s.confirmLocked(offset)
	timer := time.NewTimer(time.Duration(max(timeout, 0)) * time.Second)
	defer timer.Stop()
	expired := timeout <= 0
	for {
		if s.poll != me {
			s.mu.Unlock()
			return nil, &apiError{code: http.StatusConflict, desc: descConflict}
		}
		if batch := s.collectLocked(offset, limit); len(batch) > 0 || expired {
			s.poll = nil
			s.mu.Unlock()
			if batch == nil {
				batch = []json.RawMessage{}
			}
			return batch, nil
		}
		wake := s.notify
		s.mu.Unlock()
		if s.onWait != nil {
			s.onWait("getUpdates")
		}
		var gone bool
		select {
		case <-wake:
		case <-me.terminated:
		case <-timer.C:
			expired = true
		case <-r.Context().Done():
			gone = true
		case <-s.hs.Done:
			gone = true
		}
		s.mu.Lock()
		if gone {
			if s.poll == me {
				s.poll = nil
			}
			s.mu.Unlock()
			return nil, errAbort
		}
	}
}
