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
	mu  sync.Mutex       // guards bad and the order of Set calls
	bad map[string]string
}

func (s *healthState) set(component string, ok bool, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
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
