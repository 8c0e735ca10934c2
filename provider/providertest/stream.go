package providertest

import (
	"context"
	"strings"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// stream is the supervisor's side of one Updates stream: what the
// provider sends is read into got; the rule acknowledges by hand.
type stream struct {
	s      *session
	cancel context.CancelFunc
	st     providerv1.ProviderService_UpdatesClient
	got    chan *providerv1.Update
	done   chan struct{}
	err    error // why the stream ended, once done is closed
}

// open opens an Updates stream and starts it at state.
func (s *session) open(state []byte) *stream {
	s.t.Helper()
	u := s.openRaw()
	start := &providerv1.UpdatesRequest_Start{State: state}
	acceptBatches(start)
	s.ok("Updates: Start", u.st.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Start_{Start: start}}))
	return u
}

// acceptBatches says the supervisor reads UpdatesResponse.updates where
// the contract still has the negotiation (Start.accepts_batches; a later
// generation always sends batches).
func acceptBatches(start *providerv1.UpdatesRequest_Start) {
	m := start.ProtoReflect()
	if fd := m.Descriptor().Fields().ByName("accepts_batches"); fd != nil {
		m.Set(fd, protoreflect.ValueOfBool(true))
	}
}

// openRaw opens an Updates stream and sends nothing.
func (s *session) openRaw() *stream {
	s.t.Helper()
	ctx, cancel := context.WithCancel(s.ctx)
	st, err := s.c.Updates(ctx)
	if err != nil {
		cancel()
		s.t.Fatalf("Updates: %v", err)
	}
	u := &stream{s: s, cancel: cancel, st: st, got: make(chan *providerv1.Update, 1024), done: make(chan struct{})}
	go u.recv()
	s.t.Cleanup(u.close)
	return u
}

func (u *stream) recv() {
	defer close(u.done)
	for {
		resp, err := u.st.Recv()
		if err != nil {
			u.err = err
			return
		}
		for _, up := range updatesOf(resp) {
			u.got <- up
		}
	}
}

// updatesOf is the updates one message carries: the single update of the
// first contract's form, if the message has it, then the batch.
func updatesOf(resp *providerv1.UpdatesResponse) []*providerv1.Update {
	var out []*providerv1.Update
	m := resp.ProtoReflect()
	if fd := m.Descriptor().Fields().ByName("update"); fd != nil && m.Has(fd) {
		out = append(out, m.Get(fd).Message().Interface().(*providerv1.Update))
	}
	return append(out, resp.GetUpdates()...)
}

// next waits for the next update whose text contains text (those before
// it are passed over: a platform may report its own events, such as a
// thread being created).
func (u *stream) next(text string) *providerv1.Update {
	u.s.t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case up := <-u.got:
			if strings.Contains(up.GetText(), text) {
				return up
			}
		case <-u.done:
			// Updates read before the end still count.
			select {
			case up := <-u.got:
				if strings.Contains(up.GetText(), text) {
					return up
				}
				continue
			default:
			}
			u.s.t.Fatalf("waiting for the update %q: the stream ended: %v", text, u.err)
		case <-timeout:
			u.s.t.Fatalf("no update %q within %v", text, wait)
		}
	}
}

// say makes the person write text in th and waits for its update.
func (u *stream) say(th *providerv1.Target, text string) *providerv1.Update {
	u.s.t.Helper()
	u.s.in.Platform.Say(u.s.t, th, text)
	return u.next(text)
}

// ack acknowledges every update up to and including id.
func (u *stream) ack(id int64) {
	u.s.t.Helper()
	if err := u.st.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Ack_{Ack: &providerv1.UpdatesRequest_Ack{UpdateId: id}}}); err != nil {
		u.s.t.Fatalf("Ack %d: %v", id, err)
	}
}

// end waits for the provider to end the stream and returns why.
func (u *stream) end() error {
	u.s.t.Helper()
	select {
	case <-u.done:
		return u.err
	case <-time.After(wait):
		u.s.t.Fatalf("the provider did not end the Updates stream within %v", wait)
		return nil
	}
}

// close ends the stream from the supervisor's side and waits for it.
func (u *stream) close() {
	u.cancel()
	<-u.done
}
