package child

import (
	"github.com/chatbus/chatbus/provider"

	"fmt"
)

// checkLimits refuses limits the supervisor could not keep.
func checkLimits(ls []provider.RateLimit) error {
	seen := map[string]bool{}
	for _, l := range ls {
		switch {
		case l.Name == "" || seen[l.Name]:
			return fmt.Errorf("limit %q: empty or declared twice: %w", l.Name, provider.ErrInvalid)
		case l.Scope < provider.ScopeBot || l.Scope > provider.ScopeThread:
			return fmt.Errorf("limit %q: scope %d: %w", l.Name, l.Scope, provider.ErrInvalid)
		case l.Count < 1 || l.Count > 10000 || l.Per <= 0:
			return fmt.Errorf("limit %q: %d per %s: %w", l.Name, l.Count, l.Per, provider.ErrInvalid)
		}
		seen[l.Name] = true
	}
	return nil
}
