package discord

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/disgoorg/disgo/discord"
	"github.com/disgoorg/disgo/rest"

	"github.com/chatbus/chatbus/provider"
)

// MaxUpload bounds an uploaded file (Discord's limit without boosts is
// 10 MiB; larger ones are refused by Discord).
const MaxUpload = 25 << 20

// Call implements provider.Platform: one REST request in the caller's
// thread t (see scope), with the thread in the path. When Discord's
// answer says the request's bucket is empty, the result pauses the
// method in the thread until it resets.
func (p *Platform) Call(ctx context.Context, t provider.Target, method string, raw json.RawMessage, key string) (provider.Result, error) {
	m, err := provider.ParseParams(method, raw)
	if err != nil {
		return provider.Result{}, err
	}
	if err := p.scope(t, m); err != nil {
		return provider.Result{}, err
	}
	if err := checkContent(m); err != nil {
		return provider.Result{}, err
	}
	thread := t.Thread
	var (
		ep  *rest.CompiledEndpoint
		out json.RawMessage
		res = &out
	)
	switch method {
	case MethodCreateMessage:
		if key != "" {
			if _, ok := m["nonce"]; !ok {
				// Discord returns the message already made with this nonce
				// instead of making another: a repeated call is sent once.
				m.Set("nonce", nonce(key))
				m.Set("enforce_nonce", true)
			}
		}
		ep = rest.CreateMessage.Compile(nil, thread)
	case MethodEditMessage, MethodDeleteMessage, MethodAddReaction:
		id, err := snowflakeParam("message_id", m["message_id"])
		if err != nil {
			return provider.Result{}, err
		}
		delete(m, "message_id")
		switch method {
		case MethodEditMessage:
			ep = rest.UpdateMessage.Compile(nil, thread, id)
		case MethodDeleteMessage:
			ep, res, m = rest.DeleteMessage.Compile(nil, thread, id), nil, nil
		default:
			emoji := m.Text("emoji")
			b, err := p.react(ctx, thread, id, emoji)
			if err != nil {
				return provider.Result{}, err
			}
			return provider.Result{JSON: json.RawMessage(`{}`), Pause: b.pause()}, nil
		}
	case MethodTriggerTyping:
		ep, res, m = rest.SendTyping.Compile(nil, thread), nil, nil
	case MethodInteractionFollowup:
		token := m.Text("interaction_token")
		if !tokenParam(token) {
			return provider.Result{}, fmt.Errorf("%w: interaction_token must be the token of a pressed button's interaction", provider.ErrInvalid)
		}
		delete(m, "interaction_token")
		app, err := p.application(ctx)
		if err != nil {
			return provider.Result{}, err
		}
		ep = rest.CreateFollowupMessage.Compile(nil, app, token)
	default:
		return provider.Result{}, fmt.Errorf("%w: method %q is not a Discord provider method", provider.ErrInvalid, method)
	}
	var body any
	if m != nil {
		body = m
	}
	var rsBody any
	if res != nil {
		rsBody = res
	}
	b, err := p.paced(ctx, ep, body, rsBody)
	if err != nil {
		return provider.Result{}, p.mapErr(err, true, method != MethodInteractionFollowup)
	}
	var pause *provider.Pause
	if method != MethodInteractionFollowup { // its bucket is the interaction's, not the thread's
		pause = b.pause()
	}
	if res == nil {
		return provider.Result{JSON: json.RawMessage(`{}`), Pause: pause}, nil
	}
	return provider.Result{JSON: out, Refs: resultRefs(out), Pause: pause}, nil
}

// nonce derives a message nonce (at most 25 characters) from an
// idempotency key.
func nonce(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])[:25]
}

// resultRefs are the ids a call's answer makes available: the message
// made or edited, and its attachments.
func resultRefs(res json.RawMessage) []provider.Ref {
	var m message
	if json.Unmarshal(res, &m) != nil || !isSnowflake(m.ID) {
		return nil
	}
	return messageRefs(m.ChannelID, m)
}

// Upload implements provider.Platform: the file as an attachment of a new
// message in h.Target (multipart: payload_json and files[0]), the caption
// as its content. Photos and documents are both attachments on Discord.
func (p *Platform) Upload(ctx context.Context, h provider.UploadHeader, r io.Reader) (provider.Result, error) {
	m := provider.Params{}
	if err := p.scope(h.Target, m); err != nil {
		return provider.Result{}, err
	}
	if h.Caption != "" {
		m.Set("content", h.Caption)
	}
	if err := checkContent(m); err != nil {
		return provider.Result{}, err
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxUpload+1))
	if err != nil {
		return provider.Result{}, err
	}
	if len(data) > MaxUpload {
		return provider.Result{}, fmt.Errorf("%w: the file is over %d MiB", provider.ErrInvalid, MaxUpload>>20)
	}
	name := safeFilename(h.Filename)
	body, err := discord.PayloadWithFiles(m, discord.NewFile(name, "", bytes.NewReader(data)))
	if err != nil {
		return provider.Result{}, fmt.Errorf("%w: %v", provider.ErrInvalid, err)
	}
	var out json.RawMessage
	if err := p.do(ctx, rest.CreateMessage.Compile(nil, h.Target.Thread), body, &out); err != nil {
		return provider.Result{}, p.mapErr(err, true, true)
	}
	return provider.Result{JSON: out, Refs: resultRefs(out)}, nil
}

// safeFilename keeps a file name fit for a multipart header.
func safeFilename(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == '"' || r == '\\' || r == '/' {
			return '_'
		}
		return r
	}, s)
	if s == "" || s == "." || s == ".." {
		return "file"
	}
	return s
}

// Download implements provider.Platform. fileID is a file reference
// (channel/message/attachment): the message is fetched again for a fresh
// attachment URL (Discord's CDN URLs expire), which is then downloaded
// without the bot token.
func (p *Platform) Download(ctx context.Context, fileID string) (io.ReadCloser, int64, string, error) {
	parts := strings.Split(fileID, "/")
	if len(parts) != 3 || !isSnowflake(parts[0]) || !isSnowflake(parts[1]) || !isSnowflake(parts[2]) {
		return nil, 0, "", fmt.Errorf("%w: file id %q is not a Discord file reference (channel/message/attachment)", provider.ErrInvalid, fileID)
	}
	var m struct {
		Attachments []struct {
			ID       string `json:"id"`
			Filename string `json:"filename"`
			Size     int64  `json:"size"`
			URL      string `json:"url"`
		} `json:"attachments"`
	}
	if err := p.get(ctx, rest.GetMessage.Compile(nil, parts[0], parts[1]), &m); err != nil {
		return nil, 0, "", p.mapErr(err, false, false)
	}
	for _, a := range m.Attachments {
		if a.ID != parts[2] {
			continue
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL, nil)
		if err != nil {
			return nil, 0, "", fmt.Errorf("%w: attachment URL %q: %v", provider.ErrInvalid, a.URL, err)
		}
		req.Header.Set("User-Agent", userAgent)
		resp, err := p.http.Do(req)
		if err != nil {
			return nil, 0, "", fmt.Errorf("%w: download: %v", provider.ErrUnavailable, err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			if resp.StatusCode == http.StatusNotFound {
				return nil, 0, "", fmt.Errorf("%w: attachment %s: %s", provider.ErrNotFound, a.ID, resp.Status)
			}
			return nil, 0, "", fmt.Errorf("%w: attachment %s: %s", provider.ErrUnavailable, a.ID, resp.Status)
		}
		size := a.Size
		if resp.ContentLength > 0 {
			size = resp.ContentLength
		}
		return resp.Body, size, a.Filename, nil
	}
	return nil, 0, "", fmt.Errorf("%w: message %s has no attachment %s", provider.ErrNotFound, parts[1], parts[2])
}
