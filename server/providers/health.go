package providers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/supervise"
)

// health is the supervisor's view of whether a provider does its job:
// the child's own health (its grpc.health status for its name, with the
// reason its Status gives), and whether the supervisor can journal what
// it delivers. It is serving only when both are fine.
type health struct {
	mu sync.Mutex // guards below
	// childKnown: the running child has reported its health. Until it
	// does (it is starting) the supervisor does not call it unhealthy:
	// calls wait for it as for any start.
	childKnown   bool
	childServing bool
	childWhy     string
	journalErr   string // while journal writes fail
	serving      bool
	why          string
	since        time.Time
	flips        uint64 // changes of serving
}

func newHealth() *health { return &health{since: time.Now(), serving: true} }

// state returns whether the provider serves, why not, and since when.
func (h *health) state() (serving bool, why string, since time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.serving, h.why, h.since
}

// update recomputes the state after a change of its inputs and reports
// whether the state (serving, or the reason) changed.
func (h *health) updateLocked() bool {
	serving, why := (h.childServing || !h.childKnown) && h.journalErr == "", ""
	switch {
	case h.journalErr != "":
		why = "state store: " + h.journalErr
	case !serving:
		why = h.childWhy
		if why == "" {
			why = "the provider reports NOT_SERVING"
		}
	}
	if serving == h.serving && why == h.why {
		return false
	}
	if serving != h.serving {
		h.since = time.Now()
		h.flips++
	}
	h.serving, h.why = serving, why
	return true
}

// flipCount returns how many times serving changed.
func (h *health) flipCount() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.flips
}

func (h *health) setChild(serving bool, why string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.childKnown, h.childServing, h.childWhy = true, serving, why
	return h.updateLocked()
}

// setChildWhy records a new reason of a child that is known and not
// serving (else it changes nothing) and reports whether the state changed.
func (h *health) setChildWhy(why string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.childKnown || h.childServing {
		return false
	}
	h.childWhy = why
	return h.updateLocked()
}

// childNotServing reports whether the child said it is not serving.
func (h *health) childNotServing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.childKnown && !h.childServing
}

// childGone forgets the child's health: the next child reports its own.
func (h *health) childGone() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.childKnown = false
	h.updateLocked()
}

func (h *health) setJournal(err error) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.journalErr = ""
	if err != nil {
		h.journalErr = storeReason(err)
	}
	return h.updateLocked()
}

// storeReason is what a journal write failure says to an operator: the
// system's reason where there is one ("no space left on device"), else
// the whole error. The whole error goes to the log and the event.
func storeReason(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// childHealth follows a health event of the child: asks it why (off the
// supervision path), records it, and publishes the change.
func (m *Manager) childHealth(p *provider, e supervise.Event, attrs map[string]string) {
	serving := e.Message == "SERVING"
	why := ""
	if c, ok := p.sup.Current(); ok && !serving {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st, err := providerv1.NewProviderServiceClient(c.Conn).Status(ctx, &providerv1.StatusRequest{})
		cancel()
		if err == nil {
			why = st.GetHealthDetail()
		}
	}
	if why != "" {
		attrs["why"] = why
		p.lastErr.Store(&why)
	}
	p.health.setChild(serving, why)
	m.publishHealth(p, attrs)
}

// whyRecheck is how often a child that is not serving is asked again
// why. Its grpc.health status says only whether it serves, so a reason
// that changes while it stays NOT_SERVING (one problem fixed, the next
// found: a bot's threaded mode switched on, the person still to start
// it) reaches no health event.
const whyRecheck = time.Second

// watchWhy asks p's child why it is not serving every whyRecheck while it
// is not, and publishes a changed reason, until ctx ends.
func (m *Manager) watchWhy(ctx context.Context, p *provider) {
	t := time.NewTicker(whyRecheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c, ok := p.sup.Current()
		if !ok || !p.health.childNotServing() {
			continue
		}
		sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		st, err := providerv1.NewProviderServiceClient(c.Conn).Status(sctx, &providerv1.StatusRequest{})
		cancel()
		why := st.GetHealthDetail()
		if err != nil || why == "" || !p.health.setChildWhy(why) {
			continue
		}
		p.lastErr.Store(&why)
		attrs := map[string]string{"provider": p.spec.Name, "why": why}
		if pid := c.Incarnation.PID; pid != 0 {
			attrs["pid"] = fmt.Sprint(pid)
		}
		m.publishHealth(p, attrs)
	}
}

// publishHealth publishes the provider's health as it is now.
func (m *Manager) publishHealth(p *provider, attrs map[string]string) {
	serving, why, _ := p.health.state()
	msg := "provider " + p.spec.Name + " health: SERVING"
	attrs[events.HealthAttr] = "SERVING"
	if !serving {
		msg = "provider " + p.spec.Name + " health: NOT_SERVING: " + why
		attrs[events.HealthAttr] = "NOT_SERVING"
		attrs["why"] = why
	}
	attrs["serving"] = fmt.Sprint(serving)
	m.cfg.Events.Publish(events.Event{Kind: events.ProviderHealth, Message: msg, Attrs: attrs})
}

// journalResult records whether the provider's last journal write
// succeeded, logging and publishing a change.
func (m *Manager) journalResult(p *provider, err error) {
	_, before, _ := p.health.state()
	if !p.health.setJournal(err) {
		return
	}
	attrs := map[string]string{"provider": p.spec.Name}
	if err != nil {
		p.log.Error().Err(err).Msg("journal writes fail: the provider's updates stay at the platform until they succeed")
		attrs["error"] = err.Error()
	} else {
		p.log.Info().Msg("journal writes succeed again")
		attrs["recovered_from"] = before
	}
	m.publishHealth(p, attrs)
}

// Serving reports whether the provider does its job now, and why not.
func (m *Manager) Serving(name string) (bool, string) {
	p, ok := m.lookup(name)
	if !ok {
		return false, "no such provider"
	}
	serving, why, _ := p.health.state()
	return serving, why
}

// notServing is the error of a provider that cannot do its job now.
func (p *provider) notServing() error {
	if serving, why, _ := p.health.state(); !serving {
		return fmt.Errorf("%w: %s: %s", hub.ErrProviderNotServing, p.spec.Name, why)
	}
	return nil
}
