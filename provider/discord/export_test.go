package discord

import "encoding/json"

// SetDispatchHook has h called with each dispatch where the gateway
// reader and where the runner take it up, until the returned restore.
func SetDispatchHook(h func(t string, d json.RawMessage)) (restore func()) {
	dispatchHook.Store(&h)
	return func() { dispatchHook.Store(nil) }
}

// CommandSettled reports whether this process registered /chatbus (or
// found it registered, or was refused).
func (p *Platform) CommandSettled() bool { return p.commandSettled.Load() }
