package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/paths"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// maxFilesPerUpdate bounds the downloads one inbound message starts.
const maxFilesPerUpdate = 10

// deliver turns one update of the thread into what Claude Code sees: a
// button press or a "yes <id>" reply answers a permission prompt; anything
// else becomes a channel notification or a message in the session's inbox
// socket, by the way in (files downloaded first), and notified says so.
// It returns errStdout if the notification could not be written,
// errNoWayIn if the inbox did not take the message, and a
// *notDeliveredError if Claude Code reported that it did not deliver it
// (refused, dropped, expired: the update stays unacked and is posted
// again); everything else (a failed download, a failed typing call) is
// logged and delivered around. A message declined at the terminal is
// done with (nil error, not notified), and the thread is told.
func (b *bridge) deliver(ctx context.Context, u *chatbusv1.Update) (notified bool, err error) {
	switch {
	case u.GetKind() == chatbusv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY:
		return false, b.perms.press(ctx, u)
	case u.GetKind() == chatbusv1.UpdateKind_UPDATE_KIND_MESSAGE:
		if m := verdictReply.FindStringSubmatch(u.GetText()); m != nil {
			return false, b.perms.reply(ctx, u, strings.ToLower(m[2]), verdictOf(m[1]))
		}
	}
	content, meta := b.describe(ctx, u)
	if err := ctx.Err(); err != nil {
		// Shutting down mid-download: leave it unacked for the successor
		// rather than deliver it without its files.
		return false, err
	}
	if b.way.kind == chatbusv1.WayIn_WAY_IN_INBOX {
		r, err := b.inbox.post(ctx, b.way.socket, b.ways.token, inboxMessage(b.ways.name, content, meta),
			func(r report) { b.onHeld(u.GetSeq(), r) })
		switch {
		case err != nil && ctx.Err() != nil:
			return false, ctx.Err()
		case err != nil:
			return false, fmt.Errorf("%w: %v", errNoWayIn, err)
		case r.status == statusDropped && r.dropReason == "duplicate":
			// Claude Code took this very text from chatbus-mcp in the
			// last 30 s: a post that counted as failed had got in.
			b.log.Info().Uint64("seq", u.GetSeq()).Msg("the session had this message already (Claude Code dropped the repeat as a duplicate)")
		case r.status == statusDenied:
			// The person at the terminal declined it: their decision is
			// final, the update is done with (acked), and the thread
			// hears of it.
			b.notDelivered(u.GetSeq(), r, content)
			return false, nil
		case r.status != statusDelivered:
			return false, &notDeliveredError{seq: u.GetSeq(), r: r, text: content}
		}
	} else if err := b.out.channelMessage(content, meta); err != nil {
		return false, fmt.Errorf("%w: %v", errStdout, err)
	}
	b.log.Debug().Uint64("seq", u.GetSeq()).Str("message_id", meta["message_id"]).Str("way_in", b.way.String()).Msg("delivered")
	if u.GetKind() == chatbusv1.UpdateKind_UPDATE_KIND_MESSAGE {
		b.showTyping()
	}
	return true, nil
}

// verdictReply is a person's answer to a permission prompt in text:
// "yes abcde" / "no abcde" (or y/n), the id being Claude Code's five
// letters. Case does not matter (phones capitalise).
var verdictReply = regexp.MustCompile(`(?i)^\s*(y|yes|n|no)\s+([a-km-z]{5})\s*$`)

func verdictOf(word string) string {
	if strings.HasPrefix(strings.ToLower(word), "y") {
		return behaviorAllow
	}
	return behaviorDeny
}

// describe builds the channel notification of an update from its
// platform-neutral fields: the text, the thread, the sender, the message
// id and the files among its references (downloaded into the inbox).
func (b *bridge) describe(ctx context.Context, u *chatbusv1.Update) (string, map[string]string) {
	t := u.GetTarget()
	meta := map[string]string{
		"chat_id":   t.GetChat(),
		"thread_id": t.GetThread(),
		"user":      firstNonEmpty(u.GetSenderName(), u.GetSender()),
		"user_id":   u.GetSender(),
		"platform":  u.GetPlatform(),
	}
	if ts := u.GetReceivedAt(); ts != nil {
		meta["ts"] = ts.AsTime().UTC().Format(time.RFC3339)
	}
	var files, fileIDs, notes []string
	for _, r := range u.GetReferences() {
		switch r.GetKind() {
		case chatbusv1.ReferenceKind_REFERENCE_KIND_MESSAGE:
			if meta["message_id"] == "" {
				meta["message_id"] = r.GetId()
			}
		case chatbusv1.ReferenceKind_REFERENCE_KIND_FILE:
			fileIDs = append(fileIDs, r.GetId())
		}
	}
	for i, id := range fileIDs {
		if i == maxFilesPerUpdate {
			notes = append(notes, fmt.Sprintf("[%d more files not downloaded: use download_attachment with their ids]", len(fileIDs)-i))
			break
		}
		path, err := b.download(ctx, u.GetSeq(), i, id)
		if err != nil {
			b.log.Warn().Err(err).Str("file_id", id).Msg("downloading an attachment")
			notes = append(notes, fmt.Sprintf("[file %s could not be downloaded (%v): try download_attachment]", id, err))
			continue
		}
		files = append(files, path)
		notes = append(notes, "[attached file: "+path+"]")
	}
	if len(fileIDs) > 0 {
		meta["files"] = strings.Join(files, ",")
		meta["file_ids"] = strings.Join(fileIDs, ",")
	}
	switch u.GetKind() {
	case chatbusv1.UpdateKind_UPDATE_KIND_EDITED_MESSAGE:
		meta["kind"] = "edited"
	case chatbusv1.UpdateKind_UPDATE_KIND_REACTION:
		meta["kind"] = "reaction"
	}
	content := u.GetText()
	if content == "" {
		switch {
		case len(fileIDs) > 0:
			content = "(file)"
		case u.GetKind() == chatbusv1.UpdateKind_UPDATE_KIND_REACTION:
			content = "(reaction)"
		default:
			content = "(empty message)"
		}
	}
	if len(notes) > 0 {
		content += "\n\n" + strings.Join(notes, "\n")
	}
	return content, meta
}

// download writes the file into the inbox as <seq>-<n><ext> (the
// extension from the platform's path of it) and returns its path.
func (b *bridge) download(ctx context.Context, seq uint64, n int, fileID string) (string, error) {
	b.mu.Lock()
	f := b.sess.f
	b.mu.Unlock()
	return b.downloadTo(ctx, f, fmt.Sprintf("%d-%d", seq, n), fileID)
}

func (b *bridge) downloadTo(ctx context.Context, f *client.Follower, base, fileID string) (string, error) {
	dir := b.dirs.inbox()
	if err := paths.PrivateDir(dir); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".download-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	d, err := f.DownloadFile(ctx, fileID, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, base+safeExt(d.Path))
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	if err := pruneInbox(dir, time.Now(), inboxMaxAge, inboxMaxBytes); err != nil {
		b.log.Warn().Err(err).Str("inbox", dir).Msg("pruning the inbox of downloaded files")
	}
	return path, nil
}

// The inbox of downloaded files is bounded: a file older than
// inboxMaxAge is removed, and beyond inboxMaxBytes the oldest go first
// (the newest file always stays). The session read the files it was
// told of long before either bound bites.
const (
	inboxMaxAge   = 7 * 24 * time.Hour
	inboxMaxBytes = 512 << 20
)

// pruneInbox applies the bounds to dir (the age bound to leftover
// temporary files too).
func pruneInbox(dir string, now time.Time, maxAge time.Duration, maxBytes int64) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	type file struct {
		path string
		mod  time.Time
		size int64
	}
	var files []file
	var total int64
	var errs []error
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		f := file{filepath.Join(dir, e.Name()), info.ModTime(), info.Size()}
		switch {
		case now.Sub(f.mod) > maxAge:
			errs = append(errs, os.Remove(f.path))
			continue
		case strings.HasPrefix(e.Name(), "."):
			continue // a download being written
		}
		files = append(files, f)
		total += f.size
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	for i := 0; total > maxBytes && i < len(files)-1; i++ {
		errs = append(errs, os.Remove(files[i].path))
		total -= files[i].size
	}
	return errors.Join(errs...)
}

// safeExt is the extension of a platform path if it is a plain one.
var safeExtRE = regexp.MustCompile(`^\.[A-Za-z0-9]{1,8}$`)

func safeExt(p string) string {
	if e := filepath.Ext(p); safeExtRE.MatchString(e) {
		return strings.ToLower(e)
	}
	return ""
}

// showTyping starts the typing indicator: it shows until the session
// replies (presence.go).
func (b *bridge) showTyping() { b.presence.working() }

// typingOnce is one typing call, where the platform has an indicator.
func (b *bridge) typingOnce(ctx context.Context) {
	s, err := b.current()
	if err != nil || !s.has("typing") {
		return
	}
	if err := s.f.Typing(ctx); err != nil {
		b.log.Debug().Err(err).Msg("typing indicator")
	}
}

// acknowledge marks a delivered message with --ack-reaction, in the
// background: the person sees it arrived.
func (b *bridge) acknowledge(u *chatbusv1.Update) {
	emoji := b.cfg.ackReaction
	id := firstRef(u.GetReferences(), chatbusv1.ReferenceKind_REFERENCE_KIND_MESSAGE)
	if emoji == "" || id == "" || u.GetKind() != chatbusv1.UpdateKind_UPDATE_KIND_MESSAGE {
		return
	}
	s, err := b.current()
	if err != nil || !s.has("react") {
		return
	}
	b.background(func(ctx context.Context) {
		if err := s.f.React(ctx, id, emoji, fmt.Sprintf("ack-%s-%d", id, u.GetSeq())); err != nil {
			b.log.Warn().Err(err).Str("message_id", id).Str("emoji", emoji).Msg("marking a delivered message (--ack-reaction)")
		}
	})
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
