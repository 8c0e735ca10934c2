package playground

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The store is one bbolt file in the state dir (playground.db). Buckets:
//
//	meta       install id, schema, counters, the port last served on
//	rooms      thread id → room
//	msgs       thread id ‖ message id → message (the room's history)
//	msgroom    message id → thread id
//	inbox      update id → pending update (what a person did that the
//	           supervisor has not acknowledged yet: the platform side of
//	           the cursor)
//	clientids  browser request id → message id (a retried send is stored once)
//	callbacks  interaction id → callback (a button press to answer)
//	idem       thread/verb/idempotency key → the verb's references (a
//	           repeated verb is made once)
//	idemage    sequence → idem key, in the order the keys were remembered
//	           (the oldest are forgotten first)
//	files      file id → file record (the bytes are in files/<file id>)
//	sessions   sha256(session id) → expiry (unix ms)
//
// Every write is one transaction, synced before it returns: what a person
// sent is durable before the page is told it was sent.
//
// The records are JSON. meta's schema says their form: 1 is this file's;
// a store without one was written before the message verbs (its records
// are Telegram-shaped) and is migrated when opened (migrate.go).
var (
	bMeta      = []byte("meta")
	bRooms     = []byte("rooms")
	bMsgs      = []byte("msgs")
	bMsgRoom   = []byte("msgroom")
	bInbox     = []byte("inbox")
	bClientIDs = []byte("clientids")
	bCallbacks = []byte("callbacks")
	bIdem      = []byte("idem")
	bIdemAge   = []byte("idemage")
	bFiles     = []byte("files")
	bSessions  = []byte("sessions")

	kInstall    = []byte("install")
	kSchema     = []byte("schema")
	kNextMsg    = []byte("next_message")
	kNextUpdate = []byte("next_update")
	kNextFile   = []byte("next_file")
	kPort       = []byte("port")
)

// schema is the form of the records this code writes.
const schema = 1

// Bounds on what the store keeps.
const (
	// maxRoomHistory is how many messages a room keeps; older ones go.
	maxRoomHistory = 2000
	// maxInbox bounds the updates held for a supervisor that does not
	// acknowledge them; beyond it, new ones are refused (nothing is
	// dropped).
	maxInbox = 100000
	// maxIdempotency bounds the remembered verb results.
	maxIdempotency = 20000
	// firstMessageID is the first id of a room or message (rooms and
	// messages share one counter, so a room's id is never a message's).
	firstMessageID = 2
)

// errInboxFull: the supervisor has not taken what is held.
var errInboxFull = errors.New("the playground holds too many updates the supervisor has not taken yet; try again later")

// room is one thread.
type room struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Closed  bool   `json:"closed,omitempty"`
	Created int64  `json:"created"` // unix ms
	Active  int64  `json:"active"`  // unix ms of the last message
	// Control: the control room (ControlRoom), of commands to chatbus.
	Control bool `json:"control,omitempty"`
}

// message is one message of a room and what happened to it.
type message struct {
	ID   int64 `json:"id"`
	Room int64 `json:"room"`
	// Rev counts the message's writes: of two states of a message, the
	// one with the higher Rev is the newer (the page's live events and
	// its requests' answers may arrive out of order).
	Rev   int64 `json:"rev,omitempty"`
	ByBot bool  `json:"by_bot,omitempty"` // the follower's, else the person's
	Date  int64 `json:"date"`             // unix seconds
	// Edited is when the follower last edited it (unix seconds), 0 never.
	Edited int64 `json:"edited,omitempty"`
	// Text is what the person typed (a file's caption), or the
	// follower's text: Markdown if Markdown (sent through the verbs),
	// shown rendered; otherwise shown as it is.
	Text     string `json:"text,omitempty"`
	Markdown bool   `json:"markdown,omitempty"`
	shown
	// Deleted: deleted by the follower. Only history written before the
	// verbs has deleted messages (there is no verb to delete).
	Deleted  bool                `json:"deleted,omitempty"`
	Reaction map[string][]string `json:"reaction,omitempty"` // "bot", "you" → emoji
}

// shown is what a message shows beside its text, stored as the page and
// the payloads show it.
type shown struct {
	// Prompt: the follower asks something the person must answer.
	Prompt bool `json:"prompt,omitempty"`
	// ReplyTo is the message it answers, ReplyText that message's text
	// when it was answered ("" if it was no longer held).
	ReplyTo   int64       `json:"reply_to,omitempty"`
	ReplyText string      `json:"reply_text,omitempty"`
	Buttons   []button    `json:"buttons,omitempty"`
	File      *attachment `json:"file,omitempty"`
	Answer    string      `json:"answer,omitempty"` // the last answer to a press of its buttons
}

// button is a button under a message: a press carries Data back. URL
// (a link instead of a press) is only in history written before the verbs.
type button struct {
	Label string `json:"label"`
	Data  string `json:"data,omitempty"`
	URL   string `json:"url,omitempty"`
}

// attachment is a message's file, as the store, the page and the update
// payloads name it.
type attachment struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Mime  string `json:"mime"`
	Size  int64  `json:"size"`
	Photo bool   `json:"photo,omitempty"` // an image, shown inline
	// Voice: recorded on the page (its microphone button), Seconds long
	// as the page measured it.
	Voice   bool    `json:"voice,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
}

// isAudio reports whether a is a recording or an audio file: the
// supervisor transcribes it.
func (a *attachment) isAudio() bool {
	return a != nil && (a.Voice || strings.HasPrefix(a.Mime, "audio/"))
}

// pending is an update held in the inbox.
type pending struct {
	Thread  int64           `json:"thread"`
	Kind    string          `json:"kind"` // see updateKinds
	Text    string          `json:"text,omitempty"`
	Payload json.RawMessage `json:"payload"` // the update's payload (payload.go)
	Refs    []ref           `json:"refs,omitempty"`
	At      int64           `json:"at"` // unix ms
	// Audio is the message's recording or audio file, if it has one.
	Audio *attachment `json:"audio,omitempty"`
}

type ref struct {
	Kind int    `json:"k"`
	ID   string `json:"id"`
}

// callback is a person's press of a button, to be answered once.
type callback struct {
	Thread   int64  `json:"thread"`
	Message  int64  `json:"message"`
	Data     string `json:"data"`
	Answered bool   `json:"answered,omitempty"`
	Answer   string `json:"answer,omitempty"` // the answer's text
}

// fileRec is a file either side sent.
type fileRec struct {
	ID     string `json:"id"`
	Thread int64  `json:"thread"`
	Name   string `json:"name"`
	Mime   string `json:"mime"`
	Size   int64  `json:"size"`
}

// store is the playground's durable state.
type store struct {
	db      *bolt.DB
	install string // random, made with the file: names this store in cursors and dedup ids
}

func openStore(dir string) (*store, error) {
	path := filepath.Join(dir, "playground.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 10 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("playground store %s: %w", path, err)
	}
	s := &store{db: db}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bMeta, bRooms, bMsgs, bMsgRoom, bInbox, bClientIDs, bCallbacks, bIdem, bIdemAge, bFiles, bSessions} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bMeta)
		if v := meta.Get(kInstall); v != nil {
			s.install = string(v)
			switch got := readU64(meta.Get(kSchema)); {
			case got == 0:
				if err := migrate0(tx); err != nil {
					return fmt.Errorf("migrating from the records before the message verbs: %w", err)
				}
			case got > schema:
				return fmt.Errorf("written by a newer playground (schema %d; this one reads %d)", got, schema)
			default:
				return nil
			}
		} else {
			b := make([]byte, 6)
			rand.Read(b)
			s.install = hex.EncodeToString(b)
			if err := meta.Put(kInstall, []byte(s.install)); err != nil {
				return err
			}
		}
		return meta.Put(kSchema, u64(schema))
	})
	if err == nil {
		err = db.Update(s.ensureControlRoom)
	}
	if err == nil {
		err = db.Update(orderIdempotency)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("playground store %s: %w", path, err)
	}
	return s, nil
}

func (s *store) close() error { return s.db.Close() }

func u64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func readU64(b []byte) int64 {
	if len(b) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

func msgKey(thread, id int64) []byte { return append(u64(thread), u64(id)...) }

// next returns the next value of a counter (starting at first) and
// advances it.
func next(tx *bolt.Tx, key []byte, first int64) (int64, error) {
	meta := tx.Bucket(bMeta)
	n := readU64(meta.Get(key))
	if n < first {
		n = first
	}
	return n, meta.Put(key, u64(n+1))
}

func getJSON(b *bolt.Bucket, key []byte, v any) (bool, error) {
	raw := b.Get(key)
	if raw == nil {
		return false, nil
	}
	return true, json.Unmarshal(raw, v)
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

func (s *store) room(tx *bolt.Tx, id int64) (room, bool, error) {
	var r room
	ok, err := getJSON(tx.Bucket(bRooms), u64(id), &r)
	return r, ok, err
}

// ensureControlRoom makes the control room if the store has none (a new
// store, or one from before it existed: its id, 1, is below every other
// room's and message's).
func (s *store) ensureControlRoom(tx *bolt.Tx) error {
	if _, ok, err := s.room(tx, ControlRoom); err != nil || ok {
		return err
	}
	now := time.Now().UnixMilli()
	return s.putRoom(tx, room{ID: ControlRoom, Name: "control", Control: true, Created: now, Active: now})
}

// mustRoom returns nil if room id exists, else an error wrapping missing.
func (s *store) mustRoom(tx *bolt.Tx, id int64, missing error) error {
	_, ok, err := s.room(tx, id)
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("%w: the playground has no room %d", missing, id)
	}
	return nil
}

func (s *store) putRoom(tx *bolt.Tx, r room) error { return putJSON(tx.Bucket(bRooms), u64(r.ID), r) }

// rooms lists every room, in creation order.
func (s *store) rooms() ([]room, error) {
	var out []room
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bRooms).ForEach(func(_, v []byte) error {
			var r room
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	return out, err
}

// message returns message id of thread; ok false if it is not in thread
// (other is the thread it is in, 0 if none).
func (s *store) message(tx *bolt.Tx, thread, id int64) (m message, ok bool, other int64, err error) {
	ok, err = getJSON(tx.Bucket(bMsgs), msgKey(thread, id), &m)
	if err != nil || ok {
		return m, ok, thread, err
	}
	return m, false, readU64(tx.Bucket(bMsgRoom).Get(u64(id))), nil
}

// putMessage stores m in its room's history, dropping the oldest beyond
// maxRoomHistory, and marks the room active.
func (s *store) putMessage(tx *bolt.Tx, m message) error {
	thread, id := m.Room, m.ID
	msgs := tx.Bucket(bMsgs)
	fresh := msgs.Get(msgKey(thread, id)) == nil
	if err := putJSON(msgs, msgKey(thread, id), m); err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	if err := tx.Bucket(bMsgRoom).Put(u64(id), u64(thread)); err != nil {
		return err
	}
	if r, ok, err := s.room(tx, thread); err != nil {
		return err
	} else if ok {
		r.Active = time.Now().UnixMilli()
		if err := s.putRoom(tx, r); err != nil {
			return err
		}
	}
	// Bound the history: count this room's messages, drop the oldest.
	c := msgs.Cursor()
	prefix := u64(thread)
	n := 0
	for k, _ := c.Seek(prefix); k != nil && string(k[:8]) == string(prefix); k, _ = c.Next() {
		n++
	}
	for k, _ := c.Seek(prefix); n > maxRoomHistory && k != nil && string(k[:8]) == string(prefix); k, _ = c.Seek(prefix) {
		if err := msgs.Delete(k); err != nil {
			return err
		}
		tx.Bucket(bMsgRoom).Delete(k[8:])
		n--
	}
	return nil
}

// history returns the last limit messages of thread older than message
// before (0: the last of all), oldest first.
func (s *store) history(thread, before int64, limit int) ([]message, error) {
	var out []message
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bMsgs).Cursor()
		prefix := u64(thread)
		// Seek past the room's last key (or to message before), then
		// walk back.
		from := u64(thread + 1)
		if before > 0 {
			from = msgKey(thread, before)
		}
		k, _ := c.Seek(from)
		var v []byte
		if k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		for ; k != nil && string(k[:8]) == string(prefix) && len(out) < limit; k, v = c.Prev() {
			var m message
			if err := json.Unmarshal(v, &m); err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}

// enqueue adds an update to the inbox and returns its update id.
func (s *store) enqueue(tx *bolt.Tx, p pending) (int64, error) {
	inbox := tx.Bucket(bInbox)
	if inbox.Stats().KeyN >= maxInbox {
		return 0, errInboxFull
	}
	id, err := next(tx, kNextUpdate, 1)
	if err != nil {
		return 0, err
	}
	p.At = time.Now().UnixMilli()
	return id, putJSON(inbox, u64(id), p)
}

// held is one inbox entry.
type held struct {
	ID int64
	pending
}

// pendingFrom returns up to limit inbox entries with update id >= from.
func (s *store) pendingFrom(from int64, limit int) ([]held, error) {
	var out []held
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bInbox).Cursor()
		for k, v := c.Seek(u64(from)); k != nil && len(out) < limit; k, v = c.Next() {
			h := held{ID: readU64(k)}
			if err := json.Unmarshal(v, &h.pending); err != nil {
				return err
			}
			out = append(out, h)
		}
		return nil
	})
	return out, err
}

// confirm forgets the inbox entries up to and including through: the
// supervisor has made them durable.
func (s *store) confirm(through int64) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		inbox := tx.Bucket(bInbox)
		c := inbox.Cursor()
		for k, _ := c.First(); k != nil && readU64(k) <= through; k, _ = c.First() {
			if err := inbox.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// inboxLen is how many updates are held.
func (s *store) inboxLen() int {
	n := 0
	s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bInbox).Stats().KeyN
		return nil
	})
	return n
}

// clientMessage returns the message a browser request id already made.
func (s *store) clientMessage(tx *bolt.Tx, clientID string) (int64, bool) {
	if clientID == "" {
		return 0, false
	}
	v := tx.Bucket(bClientIDs).Get([]byte(clientID))
	return readU64(v), v != nil
}

func (s *store) rememberClient(tx *bolt.Tx, clientID string, msgID int64) error {
	if clientID == "" {
		return nil
	}
	return tx.Bucket(bClientIDs).Put([]byte(clientID), u64(msgID))
}

// idempotent returns the references key's verb made, if it was made.
func (s *store) idempotent(tx *bolt.Tx, key string) ([]ref, bool, error) {
	var refs []ref
	if key == "" {
		return nil, false, nil
	}
	ok, err := getJSON(tx.Bucket(bIdem), []byte(key), &refs)
	return refs, ok, err
}

// rememberResult records that key's verb was made, with the references
// it made. Past maxIdempotency results, the oldest half is forgotten (in
// the order they were remembered: a repeat that old has long been
// answered, while a recent key's repeat must still find its result).
func (s *store) rememberResult(tx *bolt.Tx, key string, refs []ref) error {
	if key == "" {
		return nil
	}
	b, age := tx.Bucket(bIdem), tx.Bucket(bIdemAge)
	if b.Get([]byte(key)) == nil {
		seq, err := age.NextSequence()
		if err != nil {
			return err
		}
		if err := age.Put(u64(int64(seq)), []byte(key)); err != nil {
			return err
		}
		if err := forgetOldest(b, age); err != nil {
			return err
		}
	}
	if refs == nil {
		refs = []ref{}
	}
	return putJSON(b, []byte(key), refs)
}

// forgetOldest forgets the oldest half of the remembered results once
// there are maxIdempotency of them. idemage's sequences are dense (each
// remembered key takes the next one, only the oldest are deleted), so the
// count is the last sequence less the first: no walk of the bucket.
func forgetOldest(b, age *bolt.Bucket) error {
	c := age.Cursor()
	k, _ := c.First()
	if k == nil || int64(age.Sequence())-readU64(k)+1 < maxIdempotency {
		return nil
	}
	keep := int64(age.Sequence()) - maxIdempotency/2 // the first sequence kept
	var old [][2][]byte
	for ; k != nil && readU64(k) <= keep; k, _ = c.Next() {
		old = append(old, [2][]byte{bytes.Clone(k), bytes.Clone(age.Get(k))})
	}
	for _, kv := range old {
		if err := b.Delete(kv[1]); err != nil {
			return err
		}
		if err := age.Delete(kv[0]); err != nil {
			return err
		}
	}
	return nil
}

// orderIdempotency gives the results a store remembered before their
// order was kept (no idemage entries) a place in it, in key order: they
// are forgotten first, and bounded from then on.
func orderIdempotency(tx *bolt.Tx) error {
	b, age := tx.Bucket(bIdem), tx.Bucket(bIdemAge)
	if k, _ := age.Cursor().First(); k != nil {
		return nil
	}
	var keys [][]byte
	b.ForEach(func(k, _ []byte) error { keys = append(keys, k); return nil })
	for _, k := range keys {
		seq, err := age.NextSequence()
		if err != nil {
			return err
		}
		if err := age.Put(u64(int64(seq)), k); err != nil {
			return err
		}
	}
	return forgetOldest(b, age)
}

// port returns the port last served on.
func (s *store) port() int {
	var p int64
	s.db.View(func(tx *bolt.Tx) error {
		p = readU64(tx.Bucket(bMeta).Get(kPort))
		return nil
	})
	return int(p)
}

func (s *store) setPort(p int) error {
	return s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(kPort, u64(int64(p))) })
}

// Add implements webauth.Sessions: sessions outlive restarts of the
// playground, so an open page keeps working across a doctor restart.
func (s *store) Add(hash [32]byte, expires time.Time) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSessions)
		now := time.Now().UnixMilli()
		var expired [][]byte
		b.ForEach(func(k, v []byte) error {
			if readU64(v) <= now {
				expired = append(expired, append([]byte(nil), k...))
			}
			return nil
		})
		for _, k := range expired {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return b.Put(hash[:], u64(expires.UnixMilli()))
	})
}

// Valid implements webauth.Sessions.
func (s *store) Valid(hash [32]byte, now time.Time) bool {
	ok := false
	s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bSessions).Get(hash[:])
		ok = v != nil && readU64(v) > now.UnixMilli()
		return nil
	})
	return ok
}
