package server

import (
	"strings"
	"testing"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/events"
)

// TestEventKindsMatchProto: every event kind the supervisor publishes is
// the chatbus.v1.EventKind of the same number and name (eventToProto
// casts), and every EventKind has one.
func TestEventKindsMatchProto(t *testing.T) {
	for n, name := range chatbusv1.EventKind_name {
		if n == 0 {
			continue
		}
		want := strings.ToLower(strings.TrimPrefix(name, "EVENT_KIND_"))
		if got := events.Kind(n).String(); got != want {
			t.Errorf("events.Kind(%d) is %q, chatbus.v1 says %s", n, got, name)
		}
	}
	for k := events.Kind(1); k.String() != "unknown"; k++ {
		if _, ok := chatbusv1.EventKind_name[int32(k)]; !ok {
			t.Errorf("events.Kind %d (%s) has no chatbus.v1.EventKind", k, k)
		}
	}
}
