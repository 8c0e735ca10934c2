package slack

import (
	"sort"
	"strings"
	"sync"

	"github.com/chatbus/chatbus/provider"
)

// The parts of the connection whose failure makes the provider
// NOT_SERVING: the bot token (Web API), Socket Mode (the app token, or
// Socket Mode turned off), and the bot's membership of its channel
// (componentChannel, channel.go).
const (
	componentBot    = "bot"
	componentSocket = "socket"
)

// healthState combines the components into one provider.Health: SERVING
// while none is broken, else NOT_SERVING with every reason.
type healthState struct {
	h   *provider.Health // nil: nobody listens
	mu  sync.Mutex       // guards bad, said and the order of Set calls
	bad map[string]string
	// said counts what was said of each component: an answer asked for
	// before a newer word (a look at the channel answered after a post
	// was refused) is older than it and must not undo it (setSince).
	said map[string]uint64
}

// set says whether component works.
func (s *healthState) set(component string, ok bool, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setLocked(component, ok, why)
}

// saidOf returns how many times component was set, the mark of
// setSince.
func (s *healthState) saidOf(component string) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.said[component]
}

// setSince is set for an answer asked for when saidOf(component) was
// mark: if the component was set since, the answer is older than what
// is known, and it is dropped.
func (s *healthState) setSince(mark uint64, component string, ok bool, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.said[component] == mark {
		s.setLocked(component, ok, why)
	}
}

func (s *healthState) setLocked(component string, ok bool, why string) {
	s.said[component]++
	if ok {
		delete(s.bad, component)
	} else {
		s.bad[component] = why
	}
	if s.h == nil {
		return
	}
	if len(s.bad) == 0 {
		s.h.Set(true, "")
		return
	}
	whys := make([]string, 0, len(s.bad))
	for _, w := range s.bad {
		whys = append(whys, w)
	}
	sort.Strings(whys)
	s.h.Set(false, strings.Join(whys, "; "))
}

// broken reports whether component is broken.
func (s *healthState) broken(component string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, bad := s.bad[component]
	return bad
}

// reason returns why component is broken, and whether it is.
func (s *healthState) reason(component string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	why, bad := s.bad[component]
	return why, bad
}
