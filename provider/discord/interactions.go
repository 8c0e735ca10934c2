package discord

import (
	"context"
	"encoding/json"

	"fmt"
	"time"

	"github.com/disgoorg/disgo/rest"

	"github.com/chatbus/chatbus/provider"
)

// interactionDeadline is how long Discord waits for an interaction's
// callback before the person sees "This interaction failed".
const interactionDeadline = 3 * time.Second

// tokenLife is how long an interaction's token takes follow-ups.
const tokenLife = 15 * time.Minute

// maxPresses bounds the presses remembered for Answer.
const maxPresses = 1024

// Interaction callback types the provider sends.
const (
	// callbackMessage answers with a message (CHANNEL_MESSAGE_WITH_SOURCE);
	// with flagEphemeral only the person who pressed sees it.
	callbackMessage = 4
	// callbackDeferredUpdate acknowledges a component interaction without
	// changing its message (DEFERRED_UPDATE_MESSAGE); the follower answers
	// later with a follow-up.
	callbackDeferredUpdate = 6
)

// flagEphemeral is the message flag that shows a message only to the
// person who pressed.
const flagEphemeral = 1 << 6

// press is a button press (or a command) this process acknowledges: the token its
// follow-ups name, and the outcome of the acknowledgement once done is
// closed (ackErr nil: acknowledged).
type press struct {
	token  string
	at     time.Time
	done   chan struct{}
	ackErr error
	// command: a use of an application command, deferred (see
	// control.go), rather than a button press.
	command bool
}

// onDispatch is called by the gateway reader for every dispatch, as it
// arrives: a button pressed by an allowed person is acknowledged to
// Discord at once (deferred update), without waiting for the update to
// be durable or for admission — Discord's 3s deadline would not wait for
// a doctor restart; so is a use of an application command (see
// commandArrived). The update itself is delivered as usual; when a
// successor is given it again (the session replayed it), its
// acknowledgement is refused as already done, and that is fine.
func (p *Platform) onDispatch(t string, d json.RawMessage) {
	callDispatchHook(t, d)
	if t != "INTERACTION_CREATE" {
		return
	}
	var in interaction
	if json.Unmarshal(d, &in) != nil || !isSnowflake(in.ID) || !tokenParam(in.Token) {
		return
	}
	switch in.Type {
	case interactionComponent:
		if in.GuildID != p.guild || !p.allowed[in.sender().ID] {
			return
		}
		pr := &press{token: in.Token, at: time.Now(), done: make(chan struct{})}
		p.mu.Lock()
		if in.ApplicationID != "" {
			p.appID = in.ApplicationID
		}
		p.rememberLocked(in.ID, pr)
		p.mu.Unlock()
		p.acknowledge(in, map[string]any{"type": callbackDeferredUpdate}, pr)
	case interactionCommand:
		p.commandArrived(in)
	}
}

// acknowledge answers interaction in with the callback body, in its own
// goroutine (Run waits for it), and records the outcome in pr, whose
// done it closes.
func (p *Platform) acknowledge(in interaction, body map[string]any, pr *press) {
	p.acks.Add(1)
	go func() {
		defer p.acks.Done()
		defer close(pr.done)
		ctx, cancel := context.WithTimeout(context.Background(), interactionDeadline)
		defer cancel()
		err := p.do(ctx, rest.CreateInteractionResponse.Compile(nil, in.ID, in.Token), body, nil)
		switch {
		case err == nil:
		case isCode(err, codeAlreadyAcked):
			p.log.Debug().Str("interaction", in.ID).Msg("interaction acknowledged before (a replay)")
		case isCode(err, codeUnknownInteraction):
			p.log.Warn().Str("interaction", in.ID).Msg("interaction expired before it could be acknowledged (Discord waits 3s)")
			pr.ackErr = err
		default:
			p.log.Warn().Err(err).Str("interaction", in.ID).Msg("acknowledging an interaction failed")
			pr.ackErr = err
		}
	}()
}

// rememberLocked keeps pr for Answer, forgetting presses whose token
// expired (and the oldest beyond maxPresses); p.mu is held.
func (p *Platform) rememberLocked(id string, pr *press) {
	for k, old := range p.presses {
		if pr.at.Sub(old.at) > tokenLife {
			delete(p.presses, k)
		}
	}
	for len(p.presses) >= maxPresses {
		var oldest string
		for k, old := range p.presses {
			if oldest == "" || old.at.Before(p.presses[oldest].at) {
				oldest = k
			}
		}
		delete(p.presses, oldest)
	}
	p.presses[id] = pr
}

// Answer implements provider.Answerer. id is the interaction's id (the
// first interaction reference of the press's update) or its token (the
// second). The press was acknowledged when it arrived (a deferred update:
// the button stops waiting), so Answer's text, if any, is a follow-up
// message only the person who pressed sees; without text there is nothing
// left to do. If the acknowledgement had failed, Answer makes it now, with
// the text. A press this process did not see (it was made before the
// provider restarted and not replayed) can be answered by its token only.
// A press on a message of the channel's control place (a button under an
// answer to a command) is answered the same way.
func (p *Platform) Answer(ctx context.Context, t provider.Target, id, text string) error {
	if err := p.scope(t, provider.Params{}); err != nil && !p.isControl(t) {
		return err
	}
	p.mu.Lock()
	pr := p.presses[id]
	p.mu.Unlock()
	var iid, token string
	switch {
	case pr != nil:
		iid, token = id, pr.token
		select {
		case <-pr.done:
		case <-ctx.Done():
			return fmt.Errorf("%w: waiting for the press's acknowledgement: %v", provider.ErrUnavailable, ctx.Err())
		}
	case !isSnowflake(id) && tokenParam(id):
		token = id
	default:
		return fmt.Errorf("%w: interaction %s: not a press this provider saw in the last %s (it restarted since?); answer it by its token", provider.ErrNotFound, id, tokenLife)
	}
	if pr != nil && pr.ackErr != nil {
		// Not acknowledged yet: this is the interaction's response.
		body := map[string]any{"type": callbackDeferredUpdate}
		if text != "" {
			body = map[string]any{"type": callbackMessage, "data": ephemeral(text)}
		}
		_, err := p.paced(ctx, rest.CreateInteractionResponse.Compile(nil, iid, token), body, nil)
		switch {
		case err == nil:
			return nil
		case isCode(err, codeUnknownInteraction):
			return fmt.Errorf("%w: the press expired before it could be answered (Discord waits %s): %v", provider.ErrNotFound, interactionDeadline, err)
		case !isCode(err, codeAlreadyAcked):
			return p.mapErr(err, true, false)
		}
	}
	if text == "" {
		return nil
	}
	app, err := p.application(ctx)
	if err != nil {
		return err
	}
	_, err = p.paced(ctx, rest.CreateFollowupMessage.Compile(nil, app, token), ephemeral(text), nil)
	if isCode(err, codeUnknownWebhook) {
		return fmt.Errorf("%w: the press's token expired (follow-ups are taken for %s): %v", provider.ErrNotFound, tokenLife, err)
	}
	return p.mapErr(err, true, false)
}

// ephemeral is a message only the person who pressed sees, pinging nobody.
func ephemeral(text string) map[string]any {
	return map[string]any{"content": cut(text, MaxContent), "flags": flagEphemeral, "allowed_mentions": map[string]any{"parse": []string{}}}
}
