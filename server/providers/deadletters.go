package providers

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// Dead letters: a platform update its provider could not convert comes
// on the Updates stream with conversion_error set. The pump keeps it in
// the store (PutDeadLetters) before it acknowledges the batch, so the
// platform's cursor moves past it only once it is durable, and routes
// nothing of it: the updates after it flow. An operator lists, retries
// (the provider converts it again, ConvertUpdate) or drops it.

// ErrDeadLetterUnconverted: a retried dead letter still could not be
// converted (it stays, with the new error), or its provider cannot
// convert updates apart from its receive loop.
var ErrDeadLetterUnconverted = errors.New("the provider could not convert the dead letter")

// deadLetter is the store's record of u, a dead letter of provider.
func deadLetter(provider string, u *providerv1.Update) store.DeadLetter {
	d := store.DeadLetter{
		Provider: provider, ID: u.GetDedupId(), PlatformUpdateID: u.GetUpdateId(),
		Kind: updateKind(u.GetKind()), Error: u.GetConversionError(), Payload: u.GetPayload(),
	}
	if d.ID == "" {
		d.ID = strconv.FormatInt(u.GetUpdateId(), 10)
	}
	if ts := u.GetReceivedAt(); ts != nil {
		d.ReceivedAt = ts.AsTime()
	}
	return d
}

// setAside makes the batch's dead letters durable and tells of them (log,
// event, metric); through is the last one's update id.
func (m *Manager) setAside(ctx context.Context, p *provider, dead []store.DeadLetter) (through int64, err error) {
	if len(dead) == 0 {
		return 0, nil
	}
	if err := m.cfg.Store.PutDeadLetters(ctx, dead); err != nil {
		return 0, err
	}
	for _, d := range dead {
		p.deadLettered.Add(1)
		m.cfg.Metrics.UpdateDeadLettered(p.spec.Name)
		what := fmt.Sprintf("%s could not convert update %s", p.spec.Name, d.ID)
		if d.Cause == store.DeadLetterJournal {
			what = fmt.Sprintf("the journal refused update %s of %s", d.ID, p.spec.Name)
		}
		p.log.Warn().Str("dead_letter", d.ID).Int64("platform_update_id", d.PlatformUpdateID).Str("cause", d.Cause.String()).
			Str("error", firstLine(d.Error)).Msg(what + ": set aside as a dead letter (busctl updates --dead-letters)")
		m.cfg.Events.Publish(events.Event{Kind: events.UpdateDeadLettered,
			Message: what + ": set aside as a dead letter",
			Attrs:   map[string]string{"provider": p.spec.Name, "id": d.ID, "cause": d.Cause.String(), "error": firstLine(d.Error)}})
		through = max(through, d.PlatformUpdateID)
	}
	return through, nil
}

// firstLine is the first line of s (a panic's error goes on with its
// stack).
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// DeadLetters lists the provider's dead letters ("" = every provider's).
func (m *Manager) DeadLetters(provider string) ([]store.DeadLetter, error) {
	return m.cfg.Store.DeadLetters(provider)
}

// DeadLetterCounts counts the dead letters held now, by provider.
func (m *Manager) DeadLetterCounts() (map[string]int, error) {
	dls, err := m.cfg.Store.DeadLetters("")
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, d := range dls {
		out[d.Provider]++
	}
	return out, nil
}

// DropDeadLetter forgets a dead letter.
func (m *Manager) DropDeadLetter(provider, id string) error {
	if err := m.cfg.Store.DeleteDeadLetter(provider, id); err != nil {
		return err
	}
	m.resolved(provider, id, "dropped")
	return nil
}

// RetryDeadLetter asks the provider's child to convert a dead letter
// again (one the journal refused is journalled again as it was
// converted, without the child). Converted, it is journalled (with no
// cursor: the stream's stays) and routed as the pump would have, and the
// dead letter is removed; the update is returned as journalled (nil if
// its provider would not route it, or it was journalled before). Not
// converted, the dead letter stays with the new error and one more retry
// counted: ErrDeadLetterUnconverted (ErrDeadLetterNotJournalled: the
// journal refused it again).
func (m *Manager) RetryDeadLetter(ctx context.Context, provider, id string) (*hub.Inbound, error) {
	p, err := m.get(provider)
	if err != nil {
		return nil, err
	}
	m.mu.RLock()
	rt := m.rt
	m.mu.RUnlock()
	if rt == nil {
		return nil, fmt.Errorf("dead letter %s/%s: the providers are not running: %w", provider, id, ErrDeadLetterUnconverted)
	}
	sink := rt.sink
	d, err := m.cfg.Store.GetDeadLetter(provider, id)
	if err != nil {
		return nil, err
	}
	if len(d.Converted) == 0 && len(d.Payload) == 0 {
		// Too large for the store, it kept neither: nothing to retry.
		return nil, fmt.Errorf("dead letter %s/%s: %w: it keeps neither its payload nor its converted update (%s)", provider, id, ErrDeadLetterUnconverted, firstLine(d.Error))
	}
	if d.Cause == store.DeadLetterJournal && len(d.Converted) > 0 {
		// (One too large for the store that kept only its payload:
		// its provider converts that again.)
		u, err := converted(d)
		if err != nil {
			return nil, err
		}
		return m.journalRetried(ctx, p, sink, d, u)
	}
	c, err := p.sup.WaitRunning(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := providerv1.NewProviderServiceClient(c.Conn).ConvertUpdate(ctx, &providerv1.ConvertUpdateRequest{
		Payload: d.Payload, Kind: updateKinds.Proto(d.Kind), DedupId: d.ID,
	})
	if status.Code(err) == codes.Unimplemented {
		return nil, fmt.Errorf("dead letter %s/%s: %w: %s", provider, id, ErrDeadLetterUnconverted, status.Convert(err).Message())
	}
	if err != nil {
		return nil, err
	}
	u := resp.GetUpdate()
	if u != nil && u.GetConversionError() != "" {
		d.Error, d.Retries = u.GetConversionError(), d.Retries+1
		if err := m.cfg.Store.PutDeadLetters(ctx, []store.DeadLetter{d}); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("dead letter %s/%s: %w: %s", provider, id, ErrDeadLetterUnconverted, firstLine(d.Error))
	}
	return m.journalRetried(ctx, p, sink, d, u)
}

// journalRetried journals u, dead letter d as converted now (nil: its
// provider would not route it), and removes d. The journal refusing it
// (refusedRecord), d stays with the new error and one more retry:
// ErrDeadLetterNotJournalled.
func (m *Manager) journalRetried(ctx context.Context, p *provider, sink Ingester, d store.DeadLetter, u *providerv1.Update) (*hub.Inbound, error) {
	provider, id := d.Provider, d.ID
	var out *hub.Inbound
	if u != nil {
		u.UpdateId, u.Cursor = d.PlatformUpdateID, nil
		if u.GetDedupId() == "" {
			u.DedupId = d.ID
		}
		in := inbound(u)
		if _, err := ingestContained(ctx, sink, provider, []hub.Inbound{in}, nil); err != nil {
			if ctx.Err() != nil || !refusedRecord(err) {
				return nil, err
			}
			nd, derr := journalDeadLetter(provider, u, err)
			if derr != nil {
				return nil, derr
			}
			d.Cause, d.Error, d.Converted, d.Retries = nd.Cause, nd.Error, nd.Converted, d.Retries+1
			if err := m.cfg.Store.PutDeadLetters(ctx, []store.DeadLetter{d}); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("dead letter %s/%s: %w: %s", provider, id, ErrDeadLetterNotJournalled, firstLine(d.Error))
		}
		p.ingested.Add(1)
		out = &in
	}
	if err := m.cfg.Store.DeleteDeadLetter(provider, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return out, err
	}
	m.resolved(provider, id, "retried")
	return out, nil
}

func (m *Manager) resolved(provider, id, action string) {
	if p, ok := m.lookup(provider); ok {
		p.log.Info().Str("dead_letter", id).Str("action", action).Msg("dead letter resolved")
	}
	m.cfg.Events.Publish(events.Event{Kind: events.DeadLetterResolved,
		Message: fmt.Sprintf("dead letter %s of %s %s", id, provider, action),
		Attrs:   map[string]string{"provider": provider, "id": id, "action": action}})
}
