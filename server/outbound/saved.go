package outbound

import (
	"cmp"
	"slices"
	"time"
)

// WindowState is one limit's window in one scope key as the scheduler
// saves it across a restart: when its last calls were done, oldest
// first. A supervisor that was killed and started again takes them up
// (Restore), so it does not send as if no call had gone out lately.
type WindowState struct {
	Limit string // the limit's Name
	Key   string // the scope key (a chat, a chat and thread; "" for the bot)
	Times []time.Time
}

// Windows returns the windows that count calls now, for saving.
func (s *Scheduler) Windows() []WindowState {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []WindowState
	for k, w := range s.q.windows {
		if len(w.times) == 0 || k.limit >= len(s.q.limits) {
			continue
		}
		out = append(out, WindowState{Limit: s.q.limits[k.limit].Name, Key: k.key, Times: slices.Clone(w.times)})
	}
	slices.SortFunc(out, func(a, b WindowState) int {
		return cmp.Or(cmp.Compare(a.Limit, b.Limit), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// Restore takes up windows a previous run saved: each joins the limit of
// its name, now or, if no limit has that name yet, once SetLimits brings
// one (the provider's child declares its limits after the scheduler is
// made). A window's calls count as they did; the ones its limit no longer
// holds (a lower count) are forgotten.
func (s *Scheduler) Restore(ws []WindowState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q.saved = append(s.q.saved, ws...)
	s.q.restore()
	s.poke()
}

// restore moves the saved windows whose limit is declared into windows.
func (q *queue) restore() {
	left := q.saved[:0]
	for _, ws := range q.saved {
		i := slices.IndexFunc(q.limits, func(l Limit) bool { return l.Name == ws.Limit })
		if i < 0 {
			left = append(left, ws)
			continue
		}
		l := q.limits[i]
		w := &window{count: l.Count, per: l.Per}
		if old := q.windows[windowKey{i, ws.Key}]; old != nil {
			w = old
		}
		w.times = append(w.times, ws.Times...)
		slices.SortFunc(w.times, func(a, b time.Time) int { return a.Compare(b) })
		if len(w.times) > w.count {
			w.times = append(w.times[:0], w.times[len(w.times)-w.count:]...)
		}
		q.windows[windowKey{i, ws.Key}] = w
	}
	q.saved = left
}
