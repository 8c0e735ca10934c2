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

	"github.com/chatbus/chatbus/internal/durable"
	"github.com/chatbus/chatbus/provider"
)

// errFileTooBig: a file over MaxFileBytes.
var errFileTooBig = fmt.Errorf("%w: the file is larger than max_file_bytes", provider.ErrInvalid)

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
	f := fileRec{ID: fmt.Sprintf("pg-%s-%d", p.st.install, seq), Thread: thread, Name: name, Mime: mimeType, Size: n}
	if err := durable.Rename(tmp.Name(), p.blob(f.ID)); err != nil {
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

// attachment is f as a message carries it: a photo (shown inline) if
// asked and it is an image, else a document.
func (p *Platform) attachment(f fileRec, asPhoto bool) *attachment {
	a := &attachment{ID: f.ID, Name: f.Name, Mime: f.Mime, Size: f.Size}
	if asPhoto {
		if fh, err := os.Open(p.blob(f.ID)); err == nil {
			_, _, err := image.DecodeConfig(fh)
			fh.Close()
			a.Photo = err == nil
		}
	}
	return a
}

// Upload implements provider.Platform: a message of the follower's with
// the file (a photo if h.Kind is "photo" and it is an image) and its
// caption (plain text). The result is the message, as the page shows it.
func (p *Platform) Upload(_ context.Context, h provider.UploadHeader, r io.Reader) (provider.Result, error) {
	thread, err := threadOf(h.Target)
	if err != nil {
		return provider.Result{}, err
	}
	if utf8.RuneCountInString(h.Caption) > maxTextChars {
		return provider.Result{}, invalid("the caption is longer than %d characters", maxTextChars)
	}
	f, err := p.saveFile(thread, h.Filename, "", r)
	if err != nil {
		if errors.Is(err, provider.ErrInvalid) {
			return provider.Result{}, err
		}
		return provider.Result{}, fmt.Errorf("%w: store the file: %v", provider.ErrUnavailable, err)
	}
	var msg message
	var events []liveEvent
	err = p.st.db.Update(func(tx *bolt.Tx) error {
		if err := p.st.mustRoom(tx, thread, provider.ErrTargetGone); err != nil {
			return err
		}
		c := &roomTx{p: p, tx: tx, room: thread}
		var err error
		if msg, err = c.newMessage(true); err != nil {
			return err
		}
		msg.Text, msg.File = h.Caption, p.attachment(f, h.Kind == "photo")
		if err := putJSON(tx.Bucket(bFiles), []byte(f.ID), f); err != nil {
			return err
		}
		err = c.store(&msg)
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
	return provider.Result{JSON: mustJSON(bareView(msg)), Refs: messageRefs(msg)}, nil
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

// Download implements provider.Platform; the path is the file's name.
func (p *Platform) Download(_ context.Context, fileID string) (io.ReadCloser, int64, string, error) {
	f, ok, err := p.file(fileID)
	if err != nil {
		return nil, 0, "", fmt.Errorf("%w: %v", provider.ErrUnavailable, err)
	}
	if !ok {
		return nil, 0, "", notFound("no file %q", fileID)
	}
	rc, err := os.Open(p.blob(f.ID))
	if err != nil {
		return nil, 0, "", notFound("file %s is gone: %v", fileID, err)
	}
	return rc, f.Size, f.Name, nil
}
