package discord

import (
	"context"
	"encoding/json"
	"time"

	"github.com/disgoorg/disgo/rest"
)

// interactionDeadline is how long Discord waits for an interaction's
// callback before the person sees "This interaction failed".
const interactionDeadline = 3 * time.Second

// callbackDeferredUpdate acknowledges a component interaction without
// changing its message (DEFERRED_UPDATE_MESSAGE); the follower answers
// later with a follow-up.
const callbackDeferredUpdate = 6

// onDispatch is called by the gateway reader for every dispatch, as it
// arrives: a button pressed by an allowed person is acknowledged to
// Discord at once (deferred update), without waiting for the update to
// be durable or for admission — Discord's 3s deadline would not wait for
// a doctor restart. The update itself is delivered as usual; when a
// successor is given it again (the session replayed it), its
// acknowledgement is refused as already done, and that is fine.
func (p *Platform) onDispatch(t string, d json.RawMessage) {
	if t != "INTERACTION_CREATE" {
		return
	}
	var in interaction
	if json.Unmarshal(d, &in) != nil || in.Type != interactionComponent || in.GuildID != p.guild ||
		!isSnowflake(in.ID) || !tokenParam(in.Token) || !p.allowed[in.sender().ID] {
		return
	}
	if in.ApplicationID != "" {
		p.mu.Lock()
		p.appID = in.ApplicationID
		p.mu.Unlock()
	}
	p.acks.Add(1)
	go func() {
		defer p.acks.Done()
		ctx, cancel := context.WithTimeout(context.Background(), interactionDeadline)
		defer cancel()
		err := p.do(ctx, rest.CreateInteractionResponse.Compile(nil, in.ID, in.Token), map[string]int{"type": callbackDeferredUpdate}, nil)
		switch {
		case err == nil:
		case isCode(err, codeAlreadyAcked):
			p.log.Debug().Str("interaction", in.ID).Msg("interaction acknowledged before (a replay)")
		case isCode(err, codeUnknownInteraction):
			p.log.Warn().Str("interaction", in.ID).Msg("interaction expired before it could be acknowledged (Discord waits 3s)")
		default:
			p.log.Warn().Err(err).Str("interaction", in.ID).Msg("acknowledging an interaction failed")
		}
	}()
}
