package hub

import "time"

// Trace is told when each inbound update passes one of the supervisor's
// stages, and when, so that a benchmark can say where an update's latency
// went (busbench's per-stage breakdown: provider send → pump received →
// journal durable → stream sent → follower received, on one clock; a
// benchmark stamps its updates in their text). seq is the update's in its
// binding's journal (0 before it has one). It is called on the hot path,
// on the goroutine of the stage: an implementation must be quick and must
// not block.
type Trace interface {
	Update(stage Stage, seq uint64, text string, at time.Time)
}

// Stage is a point on an inbound update's way through the supervisor.
type Stage uint8

const (
	// StagePumped: the pump read it from its provider (Inbound.Arrived).
	StagePumped Stage = iota
	// StageDurable: the journal commit that holds it returned.
	StageDurable
	// StageSent: a follower stream's send of it returned (handed to the
	// transport).
	StageSent
)

var stageNames = [...]string{StagePumped: "pumped", StageDurable: "durable", StageSent: "sent"}

func (s Stage) String() string {
	if int(s) < len(stageNames) {
		return stageNames[s]
	}
	return "unknown"
}
