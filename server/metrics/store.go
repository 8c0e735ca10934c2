package metrics

import "time"

// syncsPerCommit is how many fdatasyncs bbolt makes for one committed
// write transaction: the dirty data pages, then the meta page.
const syncsPerCommit = 2

// Commit observes one write transaction of the state file: how many
// requests it carried, how long it took, and whether it committed. It is
// the store's Options.OnCommit.
func (m *Metrics) Commit(requests int, took time.Duration, err error) {
	if m == nil {
		return
	}
	m.storeSeconds.Observe(took.Seconds())
	if err != nil {
		m.storeCommitErr.Inc()
		return
	}
	m.storeCommitOK.Inc()
	m.storeReqs.Add(float64(requests))
	m.storeFsyncs.Add(syncsPerCommit)
}
