package providers

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	"google.golang.org/grpc"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
)

// pump keeps an Updates stream open to the provider's current child:
// Start at the stored cursor, journal what arrives (in batches: whatever
// has arrived while the previous batch was being written), acknowledge
// through the last durable id. A new child gets a new stream, resuming at
// the stored cursor, so nothing acknowledged is asked for again and nothing
// unacknowledged is lost (the platform still holds it).
func (m *Manager) pump(ctx context.Context, p *provider) {
	for ctx.Err() == nil {
		c, err := p.sup.WaitRunning(ctx)
		if err != nil {
			// FATAL or stopped: wait for an operator restart.
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		cl := providerv1.NewProviderServiceClient(c.Conn)
		if err := p.describe(ctx, cl); err != nil && ctx.Err() == nil {
			// Calls need the method set: they are refused until a child
			// declares one (the previous child's stays meanwhile).
			p.log.Warn().Err(err).Msg("the provider did not describe its platform")
		}
		p.reattach(ctx, c.Conn)
		m.kickFlush(p) // a new child: send what the outbox holds
		err = m.stream(ctx, p, cl)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			msg := err.Error()
			p.lastErr.Store(&msg)
			p.log.Debug().Err(err).Msg("updates stream ended")
		}
		// Until the supervisor has a successor child, retry gently.
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (m *Manager) stream(ctx context.Context, p *provider, cl providerv1.ProviderServiceClient) error {
	cursor, err := m.cfg.Store.Cursor(p.spec.Name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := cl.Updates(ctx)
	if err != nil {
		return err
	}
	start := &providerv1.UpdatesRequest_Start{State: cursor}
	// Providers of the first contract version read only the number.
	start.Cursor, _ = strconv.ParseInt(string(cursor), 10, 64)
	if err := st.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Start_{Start: start}}); err != nil {
		return err
	}
	// The receiver feeds a channel; the writer takes everything that is
	// there at once, so a fast provider gets large journal batches and a
	// trickle gets one write per update.
	in := make(chan *providerv1.Update, m.cfg.IngestBatch)
	recvErr := make(chan error, 1)
	go func() {
		defer close(in)
		for {
			resp, err := st.Recv()
			if err != nil {
				recvErr <- err
				return
			}
			select {
			case in <- resp.GetUpdate():
			case <-ctx.Done():
				recvErr <- ctx.Err()
				return
			}
		}
	}()
	batch := make([]hub.Inbound, 0, m.cfg.IngestBatch)
	raw := make([]*providerv1.Update, 0, m.cfg.IngestBatch)
	for {
		u, ok := <-in
		if !ok {
			err := <-recvErr
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		raw = append(raw[:0], u)
	drain:
		for len(raw) < cap(raw) {
			select {
			case u, ok := <-in:
				if !ok {
					break drain
				}
				raw = append(raw, u)
			default:
				break drain
			}
		}
		batch = batch[:0]
		for _, u := range raw {
			batch = append(batch, inbound(u))
		}
		through, err := m.hub.Ingest(ctx, p.spec.Name, batch, batchCursor(raw))
		if err != nil {
			return err
		}
		for _, b := range batch {
			if !b.Allowed {
				p.notAllowed.Add(1)
			}
		}
		p.ingested.Add(uint64(len(batch)))
		if err := st.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Ack_{Ack: &providerv1.UpdatesRequest_Ack{UpdateId: through}}}); err != nil {
			return err
		}
	}
}

// reattach tells a new child which followers are bound through it.
func (p *provider) reattach(ctx context.Context, conn grpc.ClientConnInterface) {
	p.mu.Lock()
	held := make(map[string]attach, len(p.attached))
	for k, v := range p.attached {
		held[k] = v
	}
	p.mu.Unlock()
	cl := providerv1.NewProviderServiceClient(conn)
	for id, a := range held {
		if _, err := cl.Attach(ctx, attachRequest(id, a.target)); err != nil {
			p.log.Warn().Err(err).Str("instance_id", id).Msg("re-attach to the new provider child")
		}
	}
}
