package providers

import (
	"context"
	"time"
)

// BeginRestart claims the provider for the doctor restart requestID:
// the one guard of "a restart is under way" (its admission owns it). If
// another restart is under way it claims nothing and returns that one's
// request id. EndRestart ends the claim.
func (m *Manager) BeginRestart(name, requestID string) (busy string, err error) {
	p, err := m.get(name)
	if err != nil {
		return "", err
	}
	return p.adm.beginRestart(requestID), nil
}

// HoldCalls holds the provider's calls for the restart requestID under
// way: new calls are held (durably) until EndRestart, attachments are kept
// for the successor.
func (m *Manager) HoldCalls(name, requestID string) error {
	p, err := m.get(name)
	if err != nil {
		return err
	}
	return p.adm.holdCalls(requestID)
}

// EndRestart ends the restart requestID: calls go through again (what was
// held is sent, in order) and another restart may begin.
func (m *Manager) EndRestart(name, requestID string) {
	p, err := m.get(name)
	if err != nil {
		return
	}
	p.adm.endRestart(requestID)
}

// DetachAll queues a Detach of every attached follower for the running
// child (the successor of a restart is given them again when it starts).
// The followers stay attached to the provider.
func (m *Manager) DetachAll(name string) {
	p, err := m.get(name)
	if err != nil {
		return
	}
	p.mu.Lock()
	for id := range p.attached {
		p.detachQueue = append(p.detachQueue, id)
		p.detachPending[id]++
	}
	p.mu.Unlock()
	select {
	case p.detachKick <- struct{}{}:
	default:
	}
}

// pruneCalls forgets settled call records past their keep, every minute.
func (m *Manager) pruneCalls(ctx context.Context) {
	keep, per := m.cfg.CallKeep, m.cfg.CallsPerBinding
	if keep == 0 {
		keep = DefaultCallKeep
	}
	if per == 0 {
		per = DefaultCallsPerBinding
	}
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := m.cfg.Store.PruneCalls(time.Now(), keep, per); err != nil {
			m.log.Warn().Err(err).Msg("pruning call records")
		}
	}
}
