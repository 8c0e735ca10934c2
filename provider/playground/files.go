package playground

import (
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // photo sizes
	_ "image/jpeg"
	_ "image/png"
	"io"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/chatbus/chatbus/provider"
)

var errFileTooBig = badRequest("file is too big")

// saveFile writes r (at most MaxFileBytes) into the files directory under
// a fresh file id and returns its record; the caller stores the record
// with the message in one transaction, or removes the file.
func (p *Platform) saveFile(thread int64, name, mimeType string, r io.Reader) (fileRec, error) {
	tmp, err := os.CreateTemp(p.files, ".upload-*")
	if err != nil {
		return fileRec{}, err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	n, err := io.Copy(tmp, io.LimitReader(r, p.cfg.Settings.MaxFileBytes+1))
	if err == nil && n > p.cfg.Settings.MaxFileBytes {
		err = errFileTooBig
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fileRec{}, err
	}
	var seq int64
	if err := p.st.db.Update(func(tx *bolt.Tx) (err error) { seq, err = next(tx, kNextFile, 1); return err }); err != nil {
		return fileRec{}, err
	}
	name = cleanName(name)
	if mimeType == "" {
		mimeType = mime.TypeByExtension(path.Ext(name))
	}
	if mimeType == "" {
		mimeType = "application/octet-stream"
	}
	kind := "documents"
	if strings.HasPrefix(mimeType, "image/") {
		kind = "photos"
	}
	f := fileRec{
		ID:     fmt.Sprintf("pg-%s-%d", p.st.install, seq),
		Unique: fmt.Sprintf("u%s%d", p.st.install[:4], seq),
		Thread: thread, Name: name, Mime: mimeType, Size: n,
		Path: fmt.Sprintf("%s/file_%d%s", kind, seq, path.Ext(name)),
	}
	if err := os.Rename(tmp.Name(), p.blob(f.ID)); err != nil {
		return fileRec{}, err
	}
	return f, nil
}

// cleanName keeps a file name displayable and free of paths.
func cleanName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	if name == "." || name == "/" || name == "" || !utf8.ValidString(name) {
		name = "file"
	}
	if len(name) > 128 {
		name = name[len(name)-128:]
	}
	return name
}

func (p *Platform) blob(fileID string) string { return filepath.Join(p.files, fileID) }

// attach puts f on msg, as a photo (one size) or a document.
func (p *Platform) attach(msg *tgMessage, f fileRec, asPhoto bool) {
	if asPhoto {
		w, h := 0, 0
		if fh, err := os.Open(p.blob(f.ID)); err == nil {
			if cfg, _, err := image.DecodeConfig(fh); err == nil {
				w, h = cfg.Width, cfg.Height
			}
			fh.Close()
		}
		if w > 0 {
			msg.Photo = []tgPhotoSize{{FileID: f.ID, FileUniqueID: f.Unique, Width: w, Height: h, FileSize: f.Size}}
			return
		}
	}
	msg.Document = &tgDocument{FileID: f.ID, FileUniqueID: f.Unique, FileName: f.Name, MimeType: f.Mime, FileSize: f.Size}
}

// Upload implements provider.Platform: sendDocument (sendPhoto for
// photos) into the thread.
func (p *Platform) Upload(_ context.Context, h provider.UploadHeader, r io.Reader) (provider.Result, error) {
	thread, err := threadOf(h.Target)
	if err != nil {
		return provider.Result{}, err
	}
	if utf8.RuneCountInString(h.Caption) > maxCaptionChars {
		return provider.Result{}, errCaptionTooLong
	}
	f, err := p.saveFile(thread, h.Filename, "", r)
	if err != nil {
		if errors.Is(err, provider.ErrInvalid) {
			return provider.Result{}, err
		}
		return provider.Result{}, fmt.Errorf("%w: store the file: %v", provider.ErrUnavailable, err)
	}
	var msg tgMessage
	var events []liveEvent
	err = p.st.db.Update(func(tx *bolt.Tx) error {
		if err := p.st.mustRoom(tx, thread, provider.ErrTargetGone); err != nil {
			return err
		}
		c := &call{p: p, tx: tx, thread: thread}
		var err error
		if msg, err = c.newMessage(); err != nil {
			return err
		}
		msg.Caption = h.Caption
		p.attach(&msg, f, h.Kind == "photo")
		if err := putJSON(tx.Bucket(bFiles), []byte(f.ID), f); err != nil {
			return err
		}
		err = c.store(message{Msg: msg, ByBot: true})
		events = c.events
		return err
	})
	if err != nil {
		os.Remove(p.blob(f.ID))
		return provider.Result{}, classify(err)
	}
	for _, e := range events {
		p.live.publish(e)
	}
	res := mustJSON(msg)
	return provider.Result{JSON: res, Refs: messageRefs(&msg)}, nil
}

// file returns a file's record.
func (p *Platform) file(fileID string) (fileRec, bool, error) {
	var f fileRec
	var ok bool
	err := p.st.db.View(func(tx *bolt.Tx) (err error) {
		ok, err = getJSON(tx.Bucket(bFiles), []byte(fileID), &f)
		return err
	})
	return f, ok, err
}

// Download implements provider.Platform.
func (p *Platform) Download(_ context.Context, fileID string) (io.ReadCloser, int64, string, error) {
	f, ok, err := p.file(fileID)
	if err != nil {
		return nil, 0, "", fmt.Errorf("%w: %v", provider.ErrUnavailable, err)
	}
	if !ok {
		return nil, 0, "", badRequest("invalid file_id")
	}
	rc, err := os.Open(p.blob(f.ID))
	if err != nil {
		return nil, 0, "", fmt.Errorf("%w: Bad Request: file %s is gone: %v", provider.ErrNotFound, fileID, err)
	}
	return rc, f.Size, f.Path, nil
}

// messageView is a message as the page shows it.
type messageView struct {
	ID        int64               `json:"id"`
	Room      int64               `json:"room"`
	From      string              `json:"from"` // "bot" or "you"
	Text      string              `json:"text,omitempty"`
	Caption   string              `json:"caption,omitempty"`
	Date      int64               `json:"date"`
	Edited    bool                `json:"edited,omitempty"`
	Deleted   bool                `json:"deleted,omitempty"`
	ReplyTo   int64               `json:"reply_to,omitempty"`
	ReplyText string              `json:"reply_text,omitempty"`
	Keyboard  [][]button          `json:"keyboard,omitempty"`
	File      *fileView           `json:"file,omitempty"`
	Reactions map[string][]string `json:"reactions,omitempty"`
	Answer    string              `json:"answer,omitempty"`
}

type fileView struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Size  int64  `json:"size"`
	Mime  string `json:"mime"`
	Photo bool   `json:"photo,omitempty"`
}

func (p *Platform) view(m message) *messageView {
	v := &messageView{ID: m.Msg.MessageID, Room: m.Msg.MessageThreadID, From: "you", Date: m.Msg.Date, Deleted: m.Deleted}
	if m.ByBot {
		v.From = "bot"
	}
	if m.Deleted {
		return v // what was deleted is not shown again
	}
	v.Text, v.Caption, v.Edited, v.Reactions, v.Answer = m.Msg.Text, m.Msg.Caption, m.Msg.EditDate != 0, m.Reaction, m.Answer
	if r := m.Msg.ReplyToMessage; r != nil {
		v.ReplyTo, v.ReplyText = r.MessageID, r.Text
		if v.ReplyText == "" {
			v.ReplyText = r.Caption
		}
	}
	if kb := m.Msg.ReplyMarkup; kb != nil {
		v.Keyboard = kb.InlineKeyboard
	}
	switch {
	case m.Msg.Document != nil:
		d := m.Msg.Document
		v.File = &fileView{ID: d.FileID, Name: d.FileName, Size: d.FileSize, Mime: d.MimeType}
	case len(m.Msg.Photo) > 0:
		ph := m.Msg.Photo[len(m.Msg.Photo)-1]
		v.File = &fileView{ID: ph.FileID, Name: "photo", Size: ph.FileSize, Mime: "image/*", Photo: true}
	}
	return v
}
