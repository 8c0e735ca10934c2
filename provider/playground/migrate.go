package playground

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Before the message verbs the playground imitated Telegram's Bot API, and
// its store held Bot API shapes: a room's messages as Message objects, the
// inbox's payloads as Update objects, call results by Bot API method.
// migrate0 rewrites such a store into this file's records, in the
// transaction that opens it (all or nothing):
//
//   - msgs: each message in the record of store.go (its text stays plain
//     text: it was not written as Markdown; link buttons are kept);
//   - inbox: each held update with the payload, kind and references it
//     has now, so the supervisor gets what it would get from this code;
//   - idem: emptied (its keys name Bot API methods nobody calls now).
//
// Rooms, callbacks, files, sessions, client ids, the counters and the
// install id (so the supervisor's stored cursor still names this store)
// keep their form.

type v0Message struct {
	MessageID       int64  `json:"message_id"`
	MessageThreadID int64  `json:"message_thread_id"`
	Date            int64  `json:"date"`
	EditDate        int64  `json:"edit_date"`
	Text            string `json:"text"`
	Caption         string `json:"caption"`
	Document        *struct {
		FileID   string `json:"file_id"`
		FileName string `json:"file_name"`
		MimeType string `json:"mime_type"`
		FileSize int64  `json:"file_size"`
	} `json:"document"`
	Photo []struct {
		FileID   string `json:"file_id"`
		FileSize int64  `json:"file_size"`
	} `json:"photo"`
	ReplyToMessage *v0Message `json:"reply_to_message"`
	ReplyMarkup    *struct {
		InlineKeyboard [][]struct {
			Text         string `json:"text"`
			CallbackData string `json:"callback_data"`
			URL          string `json:"url"`
		} `json:"inline_keyboard"`
	} `json:"reply_markup"`
}

type v0Record struct {
	Msg      v0Message           `json:"msg"`
	ByBot    bool                `json:"by_bot"`
	Deleted  bool                `json:"deleted"`
	Reaction map[string][]string `json:"reaction"`
	Answer   string              `json:"answer"`
}

type v0Pending struct {
	Thread int64           `json:"thread"`
	Kind   string          `json:"kind"`
	Text   string          `json:"text"`
	Raw    json.RawMessage `json:"raw"`
	At     int64           `json:"at"`
}

type v0Update struct {
	Message       *v0Message `json:"message"`
	CallbackQuery *struct {
		ID      string     `json:"id"`
		Message *v0Message `json:"message"`
		Data    string     `json:"data"`
	} `json:"callback_query"`
	MessageReaction *struct {
		MessageID   int64 `json:"message_id"`
		NewReaction []struct {
			Emoji string `json:"emoji"`
		} `json:"new_reaction"`
	} `json:"message_reaction"`
}

func migrate0(tx *bolt.Tx) error {
	msgs, inbox := tx.Bucket(bMsgs), tx.Bucket(bInbox)
	// Keys are collected first: a bucket is not written while a cursor
	// walks it.
	for _, k := range keys(msgs) {
		var old v0Record
		if err := json.Unmarshal(msgs.Get(k), &old); err != nil {
			return fmt.Errorf("message %x: %w", k, err)
		}
		m := v0Convert(tx, old.Msg)
		m.ByBot, m.Deleted, m.Reaction, m.Answer = old.ByBot, old.Deleted, old.Reaction, old.Answer
		if err := putJSON(msgs, k, m); err != nil {
			return err
		}
	}
	for _, k := range keys(inbox) {
		var old v0Pending
		var u v0Update
		if err := json.Unmarshal(inbox.Get(k), &old); err != nil {
			return fmt.Errorf("held update %d: %w", readU64(k), err)
		}
		if err := json.Unmarshal(old.Raw, &u); err != nil {
			return fmt.Errorf("held update %d: %w", readU64(k), err)
		}
		var p pending
		switch {
		case u.Message != nil:
			p = messagePending(v0Stored(tx, old.Thread, *u.Message))
		case u.CallbackQuery != nil && u.CallbackQuery.Message != nil:
			q := u.CallbackQuery
			p = pressPending(v0Stored(tx, old.Thread, *q.Message), q.ID, q.Data)
		case u.MessageReaction != nil:
			r := u.MessageReaction
			p = reactionPending(v0Stored(tx, old.Thread, v0Message{MessageID: r.MessageID, MessageThreadID: old.Thread}), old.Text, len(r.NewReaction) == 0)
		default:
			return fmt.Errorf("held update %d: no message, callback query or reaction in %s", readU64(k), old.Raw)
		}
		p.At = old.At
		if err := putJSON(inbox, k, p); err != nil {
			return err
		}
	}
	for _, k := range keys(tx.Bucket(bIdem)) {
		if err := tx.Bucket(bIdem).Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// v0Stored is the message of thread the store holds (migrated already),
// else m as the update carried it.
func v0Stored(tx *bolt.Tx, thread int64, m v0Message) message {
	var got message
	if ok, err := getJSON(tx.Bucket(bMsgs), msgKey(thread, m.MessageID), &got); ok && err == nil {
		return got
	}
	return v0Convert(tx, m)
}

// v0Convert is a Bot API Message as a message record.
func v0Convert(tx *bolt.Tx, o v0Message) message {
	m := message{ID: o.MessageID, Room: o.MessageThreadID, Date: o.Date, Edited: o.EditDate, Text: o.Text}
	if m.Text == "" {
		m.Text = o.Caption
	}
	if r := o.ReplyToMessage; r != nil {
		m.ReplyTo, m.ReplyText = r.MessageID, r.Text
		if m.ReplyText == "" {
			m.ReplyText = r.Caption
		}
	}
	if o.ReplyMarkup != nil {
		for _, row := range o.ReplyMarkup.InlineKeyboard {
			for _, b := range row {
				m.Buttons = append(m.Buttons, button{Label: b.Text, Data: b.CallbackData, URL: b.URL})
			}
		}
	}
	switch {
	case o.Document != nil:
		d := o.Document
		m.File = &attachment{ID: d.FileID, Name: d.FileName, Mime: d.MimeType, Size: d.FileSize}
	case len(o.Photo) > 0:
		ph := o.Photo[len(o.Photo)-1]
		m.File = &attachment{ID: ph.FileID, Name: "photo", Mime: "image/*", Size: ph.FileSize, Photo: true}
		var f fileRec
		if ok, err := getJSON(tx.Bucket(bFiles), []byte(ph.FileID), &f); ok && err == nil {
			m.File.Name, m.File.Mime = f.Name, f.Mime
		}
	}
	return m
}

// keys lists b's keys.
func keys(b *bolt.Bucket) [][]byte {
	var out [][]byte
	b.ForEach(func(k, _ []byte) error {
		out = append(out, append([]byte(nil), k...))
		return nil
	})
	return out
}
