package providers

import (
	"errors"
	"fmt"
)

// What a config reload changes in the running set of providers. The
// server decides what changed; the doctor restarts or drains the children
// (server/doctor); these methods change what the Manager runs.

// ErrNotRunning: the Manager is not running (before Run or after it
// returned), so a provider cannot be added.
var ErrNotRunning = errors.New("provider manager not running")

// Add configures a new provider and starts it at once (its calls left
// open by an earlier run are taken up first, as at a start). It fails if
// the name is configured already or Run is not running.
func (m *Manager) Add(spec Spec) error {
	p, err := m.newProvider(spec)
	if err != nil {
		return err
	}
	if err := p.calls.load(); err != nil {
		return fmt.Errorf("provider %s: calls left open by an earlier run: %w", spec.Name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.provs[spec.Name]; dup {
		return fmt.Errorf("provider %q is configured already", spec.Name)
	}
	if m.rt == nil {
		return fmt.Errorf("add provider %s: %w", spec.Name, ErrNotRunning)
	}
	m.provs[spec.Name] = p
	m.startLocked(p)
	return nil
}

// Respec makes the provider's next child start from spec (binary,
// settings, supervision bounds); the running child keeps its own until it
// is restarted (the doctor does that). The name cannot change.
func (m *Manager) Respec(spec Spec) error {
	p, err := m.get(spec.Name)
	if err != nil {
		return err
	}
	l, err := m.launch(spec)
	if err != nil {
		return err
	}
	return p.sup.Respec(l)
}

// SetDefault names the provider fresh followers bind on ("" for none).
func (m *Manager) SetDefault(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.provs[name]; !ok && name != "" {
		return fmt.Errorf("%w: %q", ErrUnknown, name)
	}
	m.def = name
	return nil
}

// Remove forgets the provider: new calls and registrations naming it are
// refused at once (ErrUnknown), its goroutines are stopped (a child still
// running gets SIGTERM: drain it first through the doctor, which leaves
// none) and Remove returns once they have. Calls it still held stay in the
// store, open: they are sent if the provider is configured again, and
// their callers are answered ErrHeld when their deadline passes. Its
// bindings are the hub's (hub.ProviderRemoved).
func (m *Manager) Remove(name string) error {
	m.mu.Lock()
	p, ok := m.provs[name]
	if !ok {
		m.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknown, name)
	}
	delete(m.provs, name)
	if m.def == name {
		m.def = ""
	}
	m.mu.Unlock()
	if p.stop != nil {
		p.stop()
		<-p.done
	}
	return nil
}
