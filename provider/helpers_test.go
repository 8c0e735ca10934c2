package provider_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeClock is a settable clock.
type fakeClock = testkit.Clock

func newFakeClock(t time.Time) *fakeClock { return testkit.NewClock(t) }
