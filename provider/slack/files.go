package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/slack-go/slack"

	"github.com/chatbus/chatbus/provider"
)

// MaxUploadBytes is the largest file Slack takes (1 GB).
const MaxUploadBytes = 1 << 30

// Upload implements provider.Platform with Slack's external upload flow:
// files.getUploadURLExternal (which needs the length, so the file is
// spooled to a temporary file first), the upload, and
// files.completeUploadExternal, which shares the file into the thread
// (channel_id and thread_ts are the target's). Until the last step
// nothing is visible, so a failure before it is safe to retry; a failure
// of the last one is ambiguous.
func (p *Platform) Upload(ctx context.Context, h provider.UploadHeader, r io.Reader) (provider.Result, error) {
	t := h.Target
	if t.Thread == "" {
		return provider.Result{}, fmt.Errorf("%w: upload: the channel itself is not a thread", provider.ErrOutOfScope)
	}
	f, err := os.CreateTemp("", "chatbus-slack-upload-*")
	if err != nil {
		return provider.Result{}, fmt.Errorf("%w: spool the upload: %v", provider.ErrUnavailable, err)
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	n, err := io.Copy(f, io.LimitReader(r, MaxUploadBytes+1))
	switch {
	case err != nil:
		return provider.Result{}, fmt.Errorf("spool the upload: %w", err)
	case n == 0:
		return provider.Result{}, fmt.Errorf("%w: the file is empty (Slack takes no empty files)", provider.ErrInvalid)
	case n > MaxUploadBytes:
		return provider.Result{}, fmt.Errorf("%w: the file is larger than Slack's %d bytes", provider.ErrInvalid, MaxUploadBytes)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return provider.Result{}, fmt.Errorf("%w: spool the upload: %v", provider.ErrUnavailable, err)
	}
	name := h.Filename
	if name == "" {
		name = "file"
	}
	u, err := p.api.GetUploadURLExternalContext(ctx, slack.GetUploadURLExternalParameters{FileName: name, FileSize: int(n)})
	if err != nil {
		p.noteBotErr(err)
		return provider.Result{}, beforeShare(mapErr(err))
	}
	if err := p.api.UploadToURL(ctx, slack.UploadToURLParameters{UploadURL: u.UploadURL, Reader: f, Filename: name}); err != nil {
		return provider.Result{}, beforeShare(fmt.Errorf("upload to Slack: %w", mapErr(err)))
	}
	c, err := p.api.CompleteUploadExternalContext(ctx, slack.CompleteUploadExternalParameters{
		Files:           []slack.FileSummary{{ID: u.FileID, Title: name}},
		Channel:         t.Chat,
		ThreadTimestamp: t.Thread,
		InitialComment:  h.Caption,
	})
	p.noteResult(t.Chat, err)
	if err != nil {
		return provider.Result{}, mapErr(err)
	}
	res, err := json.Marshal(struct {
		OK    bool                `json:"ok"`
		Files []slack.FileSummary `json:"files"`
	}{true, c.Files})
	if err != nil {
		return provider.Result{}, err
	}
	refs := make([]provider.Ref, 0, len(c.Files))
	for _, fs := range c.Files {
		refs = append(refs, provider.Ref{Kind: provider.RefFile, ID: fs.ID})
	}
	return provider.Result{JSON: res, Refs: refs}, nil
}

// beforeShare reclassifies a failure before files.completeUploadExternal:
// nothing was shared, so an ambiguous one is safe to retry.
func beforeShare(err error) error {
	if errors.Is(err, provider.ErrAmbiguous) {
		return fmt.Errorf("%w (nothing was shared yet): %w", provider.ErrUnavailable, err)
	}
	return err
}

// Download implements provider.Platform: files.info, then the file's
// private URL with the bot token. The token is sent only to Slack's own
// hosts (https) or the configured Web API's host; Slack answers a request
// it does not accept with its sign-in page (HTML, 200), which is refused
// here rather than handed on as the file.
func (p *Platform) Download(ctx context.Context, fileID string) (io.ReadCloser, int64, string, error) {
	f, _, _, err := p.api.GetFileInfoContext(ctx, fileID, 0, 0)
	if err != nil {
		p.noteBotErr(err)
		return nil, 0, "", mapErr(err)
	}
	src := f.URLPrivateDownload
	if src == "" {
		src = f.URLPrivate
	}
	if !p.mayReceiveToken(src) {
		return nil, 0, "", fmt.Errorf("%w: file %s is at %q, not a Slack host: the bot token is not sent there", provider.ErrPermissionDenied, fileID, src)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, 0, "", fmt.Errorf("%w: file %s: %v", provider.ErrInvalid, fileID, err)
	}
	req.Header.Set("Authorization", "Bearer "+p.s.BotToken)
	resp, err := p.hc.Do(req)
	if err != nil {
		return nil, 0, "", fmt.Errorf("%w: download %s: %v", provider.ErrUnavailable, fileID, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, 0, "", statusClass(resp.StatusCode, fmt.Errorf("download %s: HTTP %s", fileID, resp.Status))
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") && !strings.HasPrefix(f.Mimetype, "text/html") {
		resp.Body.Close()
		return nil, 0, "", fmt.Errorf("%w: download %s: Slack answered with a web page (its sign-in page): the bot token was not accepted (scope files:read?)", provider.ErrPermissionDenied, fileID)
	}
	return resp.Body, int64(f.Size), f.Name, nil
}

// mayReceiveToken reports whether the bot token may be sent to raw: an
// https URL on slack.com or a subdomain, or the Web API's own host.
func (p *Platform) mayReceiveToken(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if u.Scheme == "https" && (host == "slack.com" || strings.HasSuffix(host, ".slack.com")) {
		return true
	}
	base, err := url.Parse(p.s.BaseURL)
	return err == nil && u.Scheme == base.Scheme && strings.EqualFold(u.Host, base.Host)
}
