package reload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/supervise"
)

// applyProviders brings the running providers to next: added ones
// started, changed ones restarted with their new settings, the default
// set, removed ones drained and stopped. cur.Providers is updated with
// what took effect.
func (r *Reloader) applyProviders(ctx context.Context, cur *Settings, next []providers.Spec) []Change {
	old := map[string]providers.Spec{}
	for _, sp := range cur.Providers {
		old[sp.Name] = sp
	}
	want := map[string]providers.Spec{}
	for _, sp := range next {
		want[sp.Name] = sp
	}
	var out []Change
	running := map[string]providers.Spec{} // what runs after this reload
	for _, sp := range cur.Providers {
		running[sp.Name] = sp
	}
	for _, sp := range next {
		o, had := old[sp.Name]
		switch {
		case !had:
			c := r.startProvider(ctx, sp)
			if c.Action == Started {
				running[sp.Name] = sp
			}
			out = append(out, c)
		case launchDiff(o, sp) != "":
			c := r.restartProvider(ctx, o, sp)
			if c.Action == RestartedProvider {
				running[sp.Name] = sp
			}
			out = append(out, c)
		default:
			running[sp.Name] = sp // Default may differ: applied below
		}
	}
	// The default before any removal, so fresh followers never meet a
	// default that is going away.
	after := make([]providers.Spec, 0, len(running))
	for _, sp := range next {
		if r, ok := running[sp.Name]; ok {
			after = append(after, r)
		}
	}
	for _, sp := range cur.Providers {
		if _, ok := want[sp.Name]; !ok {
			after = append(after, sp) // still running until removed below
		}
	}
	if oldDef, newDef := providers.DefaultOf(cur.Providers), providers.DefaultOf(next); oldDef != newDef {
		c := Change{Key: "providers." + newDef + ".default", Old: oldDef, New: newDef}
		if _, ok := running[newDef]; !ok && newDef != "" {
			c.Action, c.Detail = Failed, "the new default provider is not running; fresh followers still bind on "+oldDef
		} else if err := r.cfg.Providers.SetDefault(newDef); err != nil {
			c.Action, c.Detail = Failed, err.Error()
		} else {
			c.Action, c.Detail = Applied, "fresh followers bind on "+orNone(newDef)
		}
		out = append(out, c)
	}
	var removed []string
	for _, sp := range cur.Providers {
		if _, ok := want[sp.Name]; ok {
			continue
		}
		c := r.stopProvider(ctx, sp.Name)
		if c.Action == Stopped {
			removed = append(removed, sp.Name)
		}
		out = append(out, c)
	}
	cur.Providers = after[:0:0]
	for _, sp := range after {
		if !contains(removed, sp.Name) {
			cur.Providers = append(cur.Providers, sp)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "none (followers register without a thread)"
	}
	return s
}

// launchDiff says what differs between two specs of one provider in what
// its child is started from ("" if nothing). Setting values are not shown:
// they may be secrets.
func launchDiff(a, b providers.Spec) string {
	var what []string
	if a.Binary != b.Binary {
		what = append(what, fmt.Sprintf("binary %s → %s", Show(a.Binary), Show(b.Binary)))
	}
	if a.StartLimit != b.StartLimit || a.StartTimeout != b.StartTimeout || a.BackoffMax != b.BackoffMax {
		what = append(what, "supervision bounds")
	}
	if keys := settingsDiff(a.Settings, b.Settings); len(keys) > 0 {
		what = append(what, "settings "+strings.Join(keys, ", "))
	}
	return strings.Join(what, "; ")
}

// settingsDiff returns the keys whose values differ, sorted.
func settingsDiff(a, b map[string]any) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		av, aok := a[k]
		bv, bok := b[k]
		aj, _ := json.Marshal(av)
		bj, _ := json.Marshal(bv)
		if aok != bok || !bytes.Equal(aj, bj) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// startProvider starts an added provider and waits (bounded) for its
// first child.
func (r *Reloader) startProvider(ctx context.Context, sp providers.Spec) Change {
	c := Change{Key: "providers." + sp.Name, New: "configured"}
	if err := r.cfg.Providers.Add(sp); err != nil {
		c.Action, c.Detail = Failed, err.Error()
		return c
	}
	c.Action = Started
	sup, err := r.cfg.Providers.Supervisor(sp.Name)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if child, err := sup.WaitRunning(wctx); err == nil {
		c.Detail = fmt.Sprintf("running (pid %d)", child.Incarnation.PID)
	} else {
		c.Detail = fmt.Sprintf("started, not running yet: %s %s", sup.Status().State, sup.Status().LastError)
	}
	return c
}

// restartProvider gives the provider its new spec and restarts it through
// the doctor protocol. If that fails, the old spec is put back.
func (r *Reloader) restartProvider(ctx context.Context, old, next providers.Spec) Change {
	c := Change{Key: "providers." + next.Name, Old: "running", New: "changed", Detail: launchDiff(old, next)}
	fail := func(why string) Change {
		if err := r.cfg.Providers.Respec(old); err != nil {
			why += "; restoring its old settings failed too: " + err.Error()
		}
		c.Action, c.Detail = Failed, c.Detail+": "+why+" (it keeps running with its old settings)"
		return c
	}
	if err := r.cfg.Providers.Respec(next); err != nil {
		return fail(err.Error())
	}
	sup, err := r.cfg.Providers.Supervisor(next.Name)
	if err != nil {
		return fail(err.Error())
	}
	switch sup.Status().State {
	case supervise.StateFatal, supervise.StateBackoff:
		// No child runs: the next start takes the new settings; start it now.
		if err := sup.Restart(); err != nil && !errors.Is(err, supervise.ErrState) {
			return fail(err.Error())
		}
		c.Action, c.Detail = RestartedProvider, c.Detail+": no child was running; started with the new settings"
		return c
	case supervise.StateStarting:
		wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		_, err := sup.WaitRunning(wctx)
		cancel()
		if err != nil {
			return fail("its child did not come up to be restarted: " + err.Error())
		}
	}
	out, err := r.cfg.Doctor.Restart(ctx, next.Name, providerRestart, nil)
	if err != nil {
		return fail(err.Error())
	}
	if out.Kind != doctor.Restarted {
		if out.Kind == doctor.OldOwnerExitTimeout || out.Kind == doctor.SuccessorRefused {
			// The old child was committed: what starts next is the new
			// spec, whatever happened. Say so rather than pretend to undo.
			c.Action, c.Detail = Failed, fmt.Sprintf("%s: restart %s %s: %s (the new settings apply to the next child)", c.Detail, out.Kind, out.Reason, out.Message)
			return c
		}
		return fail(fmt.Sprintf("restart %s %s: %s", out.Kind, out.Reason, out.Message))
	}
	c.Action, c.Detail = RestartedProvider, fmt.Sprintf("%s: %s", c.Detail, out.Message)
	return c
}

// stopProvider drains and stops a removed provider through the doctor
// protocol, then forgets it; its bindings go offline.
func (r *Reloader) stopProvider(ctx context.Context, name string) Change {
	c := Change{Key: "providers." + name, Old: "configured", New: "removed"}
	out, err := r.cfg.Doctor.Retire(ctx, name, providerRestart, nil)
	switch {
	case err != nil:
		c.Action, c.Detail = Failed, err.Error()+" (it keeps running)"
		return c
	case out.Kind == doctor.Retired:
		c.Detail = out.Message
	case out.Kind == doctor.OwnerUnavailable && out.Reason == doctor.NoState:
		c.Detail = "no child was running"
	default:
		c.Action, c.Detail = Failed, fmt.Sprintf("retire %s %s: %s (it keeps running)", out.Kind, out.Reason, out.Message)
		return c
	}
	if err := r.cfg.Providers.Remove(name); err != nil {
		c.Action, c.Detail = Failed, err.Error()
		return c
	}
	n, err := r.cfg.Bindings.ProviderRemoved(name)
	if err != nil {
		c.Detail += fmt.Sprintf("; marking its bindings offline failed: %v", err)
	} else {
		c.Detail += fmt.Sprintf("; %d binding(s) offline, their journals kept", n)
	}
	c.Action = Stopped
	return c
}
