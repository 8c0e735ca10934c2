package metrics

import (
	"strings"
	"time"

	"google.golang.org/grpc/codes"
)

// The recorders of outbound work and of the supervisor's RPCs: followers'
// platform calls, idempotent repeats, rate limits, doctor restarts.

// OtherMethod is the method label of a call naming a method its provider
// did not declare: followers cannot grow the label set.
const OtherMethod = "other"

// Call observes one follower's platform call (BusService.Call): method as
// its provider declared it (else OtherMethod), the gRPC code answered, and
// how long it took.
func (m *Metrics) Call(method string, code codes.Code, took time.Duration) {
	if m == nil {
		return
	}
	m.callSer.count(method, code)
	m.callSer.observe(method, took.Seconds())
}

// Repeat answers of an idempotency key (CallRepeat's answer).
const (
	RepeatRecorded = "recorded"  // the first call's recorded outcome
	RepeatInFlight = "in_flight" // it waited for the first call, still under way
)

// CallRepeat counts a repeat of an idempotency key served without calling
// the platform.
func (m *Metrics) CallRepeat(provider, answer string) {
	if m == nil {
		return
	}
	m.callRepeats.WithLabelValues(provider, answer).Inc()
}

// RateLimited counts a call the platform refused with a rate limit and
// observes the delay it asked for (zero if it named none).
func (m *Metrics) RateLimited(provider string, retryAfter time.Duration) {
	if m == nil {
		return
	}
	m.rateLimited.WithLabelValues(provider).Inc()
	if retryAfter > 0 {
		m.retryAfter.WithLabelValues(provider).Observe(retryAfter.Seconds())
	}
}

// FenceWatchFailed counts a failed watch of a provider child's doctor
// fence.
func (m *Metrics) FenceWatchFailed(provider string) {
	if m == nil {
		return
	}
	m.fenceWatch.WithLabelValues(provider).Inc()
}

// CallWaited observes how long a call waited in its provider's outbound
// queue before it was sent.
func (m *Metrics) CallWaited(provider, lane string, waited time.Duration) {
	if m == nil {
		return
	}
	m.callWait.WithLabelValues(provider, lane).Observe(waited.Seconds())
}

// DoctorOutcome counts a finished doctor restart by its outcome and
// reason ("" is counted as none).
func (m *Metrics) DoctorOutcome(provider, outcome, reason string) {
	if m == nil {
		return
	}
	if reason == "" {
		reason = "none"
	}
	m.doctor.WithLabelValues(provider, outcome, reason).Inc()
}

// RPC counts one finished RPC of the supervisor's socket (fullMethod as
// gRPC names it, "/chatbus.v1.BusService/Ack") with its code; unary RPCs
// also observe how long they took (a stream's length says nothing).
func (m *Metrics) RPC(fullMethod string, code codes.Code, took time.Duration, unary bool) {
	if m == nil {
		return
	}
	method := strings.TrimPrefix(fullMethod, "/")
	m.rpcSer.count(method, code)
	if unary {
		m.rpcSer.observe(method, took.Seconds())
	}
}
