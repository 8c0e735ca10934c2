package reload

import (
	"context"
	"fmt"
	"time"

	"github.com/chatbus/chatbus/server/store"
)

// applySettings applies the supervisor's own settings of next that can change
// live into cur and reports the others.
func (r *Reloader) applySettings(ctx context.Context, cur *Settings, next Settings) []Change {
	var out []Change
	if cur.LogLevel != next.LogLevel {
		c := Change{Key: "log_level", Old: cur.LogLevel.String(), New: next.LogLevel.String()}
		if r.cfg.SetLogLevel != nil {
			r.cfg.SetLogLevel(next.LogLevel)
			cur.LogLevel = next.LogLevel
			c.Action, c.Detail = Applied, "logging at "+next.LogLevel.String()
		} else {
			c.Action, c.Detail = NeedsRestart, "the log level cannot change while this supervisor runs"
		}
		out = append(out, c)
	}
	if cur.ShutdownTimeout != next.ShutdownTimeout {
		r.cfg.SetShutdownTimeout(next.ShutdownTimeout)
		out = append(out, Change{Key: "shutdown_timeout", Action: Applied, Old: cur.ShutdownTimeout.String(), New: next.ShutdownTimeout.String(),
			Detail: "bounds the next graceful stop"})
		cur.ShutdownTimeout = next.ShutdownTimeout
	}
	if cur.Journal != next.Journal {
		out = append(out, r.applyJournal(ctx, cur, next.Journal)...)
	}
	for _, f := range startOnly(cur.StartOnly, next.StartOnly) {
		out = append(out, Change{Key: f.key, Action: NeedsRestart, Old: f.old, New: f.new,
			Detail: "cannot change while the supervisor runs: restart it to apply (the running value holds)"})
	}
	return out
}

// applyJournal applies new journal bounds: one change per bound.
func (r *Reloader) applyJournal(ctx context.Context, cur *Settings, next store.Limits) []Change {
	old := cur.Journal
	var out []Change
	add := func(key string, o, n any) {
		if os, ns := Show(o), Show(n); os != ns {
			out = append(out, Change{Key: key, Old: os, New: ns})
		}
	}
	add("journal.max_count", old.MaxCount, next.MaxCount)
	add("journal.max_bytes", old.MaxBytes, next.MaxBytes)
	add("journal.max_age", old.MaxAge, next.MaxAge)
	ls := r.cfg.Store
	ok := ls != nil
	var err error
	if ok {
		err = ls.SetLimits(ctx, next)
	}
	for i := range out {
		switch {
		case !ok:
			out[i].Action, out[i].Detail = NeedsRestart, "this store's bounds cannot change while it is open"
		case err != nil:
			out[i].Action, out[i].Detail = Failed, err.Error()
		default:
			out[i].Action, out[i].Detail = Applied, "every journal is held to the new bounds now"
		}
	}
	if ok && err == nil {
		cur.Journal = next
	}
	return out
}

type fixedField struct{ key, old, new string }

// startOnly lists the start-only settings that differ between cur and
// next: those of next in its order, then those only cur has. A setting
// one of them lacks is "(default)" there.
func startOnly(cur, next []Setting) []fixedField {
	old := make(map[string]any, len(cur))
	for _, st := range cur {
		old[st.Key] = st.Value
	}
	seen := make(map[string]bool, len(next))
	var out []fixedField
	add := func(key, o, n string) {
		if o != n {
			out = append(out, fixedField{key, o, n})
		}
	}
	for _, st := range next {
		seen[st.Key] = true
		o := "(default)"
		if v, ok := old[st.Key]; ok {
			o = Show(v)
		}
		add(st.Key, o, Show(st.Value))
	}
	for _, st := range cur {
		if !seen[st.Key] {
			add(st.Key, Show(st.Value), "(default)")
		}
	}
	return out
}

// Show renders a setting's value as a reload reports it; zero is
// "(default)".
func Show(v any) string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return "(default)"
		}
	case int:
		if x == 0 {
			return "(default)"
		}
	case int64:
		if x == 0 {
			return "(default)"
		}
	case time.Duration:
		if x == 0 {
			return "(default)"
		}
	}
	return fmt.Sprint(v)
}
