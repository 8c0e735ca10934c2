package outbound

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Lane is a call's priority: a lane's calls go before any call of a lower
// lane that would take the same limit's room.
type Lane int

const (
	// LanePrompt: questions the person must answer (permission prompts)
	// and answers to their button presses.
	LanePrompt Lane = iota
	// LaneMessage: new messages.
	LaneMessage
	// LaneEdit: edits of messages.
	LaneEdit
	// LaneAmbient: typing indicators and reactions.
	LaneAmbient
	numLanes
)

var laneNames = [numLanes]string{"prompt", "message", "edit", "ambient"}

func (l Lane) String() string {
	if l >= 0 && l < numLanes {
		return laneNames[l]
	}
	return fmt.Sprintf("lane(%d)", int(l))
}

// Lanes lists the lanes, highest first.
func Lanes() []Lane { return []Lane{LanePrompt, LaneMessage, LaneEdit, LaneAmbient} }

// Thread names where a call goes: a chat and a thread of it.
type Thread struct{ Chat, Thread string }

// Errors Submit returns; each comes wrapped with what was full or late
// and carries the estimated wait (RetryAfter).
var (
	// ErrFull: the queue (of the thread, or in all) is full.
	ErrFull = errors.New("outbound queue full")
	// ErrLate: the call could not start before its deadline.
	ErrLate = errors.New("the platform's rate limits would not let the call start before its deadline")
	// ErrExpired: the job's deadline had passed when it was submitted:
	// its caller stopped waiting before any limit could hold it. It wraps
	// context.DeadlineExceeded and carries no wait.
	ErrExpired = fmt.Errorf("the call's deadline passed before it was queued: %w", context.DeadlineExceeded)
	// ErrPanicked: the job's Run panicked; whether the call reached the
	// platform is not known. The error is a *PanicError.
	ErrPanicked = errors.New("the call's run panicked")
)

// PanicError is a Run that panicked: its value and stack.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("%s: %v", ErrPanicked, e.Value) }
func (e *PanicError) Unwrap() error { return ErrPanicked }

// WaitError is a refusal with the wait it estimated.
type WaitError struct {
	Err        error // ErrFull or ErrLate
	Msg        string
	RetryAfter time.Duration
}

func (e *WaitError) Error() string {
	return fmt.Sprintf("%s: %s (retry after %s)", e.Err, e.Msg, e.RetryAfter.Round(time.Millisecond))
}
func (e *WaitError) Unwrap() error { return e.Err }

// Job is one call waiting to go. The submitter fills in the exported
// fields; the scheduler calls Run (again each time it reports the call was
// not made), or Superseded, or (for a job Withdraw takes back) nothing;
// and Abort, when set, after a Run that ends the job without its outcome
// (see Abort).
type Job struct {
	Thread Thread
	// Method names the call (a platform method or a message verb): which
	// limits count it.
	Method string
	Lane   Lane
	// Coalesce, if set, names what the call overwrites (an edit of one
	// message: "edit/<message id>"): a queued job of the same thread and
	// key is replaced by a newer one, which takes its place in the queue.
	Coalesce string
	// Lasts, if set, is how long the call's effect lasts on the platform
	// (a typing indicator): while it lasts, a repeat of the same thread
	// and method is answered at once, without a call (Submit says
	// Skipped), until a message of the thread goes out.
	Lasts time.Duration
	// Deadline, if set, is when the caller stops waiting: Submit refuses
	// a job its estimate says cannot start by then.
	Deadline time.Time
	// Run makes the call, on a goroutine of its own, when the job is due.
	Run func() Outcome
	// Superseded is called instead of Run when a newer job, by, replaced
	// it.
	Superseded func(by *Job)
	// Owner is the submitter's own, which the scheduler never reads (what
	// a job that by replaced needs of it: its caller's answer, say).
	Owner any
	// Abort, if set, ends the job after a Run with err, instead of running
	// it again: when the platform refused it as rate limited for longer
	// than its Deadline leaves (a *WaitError of ErrLate, with the wait:
	// nothing was sent), or when Run panicked (a *PanicError: the call's
	// outcome is unknown, and Run may have reported part of it already).
	// Without Abort, a rate-limited job waits its turn again whatever its
	// deadline, and a panicking Run's job just ends.
	Abort func(err error)

	seq      uint64
	enqueued time.Time
	queued   bool // in its thread's lane queue
	running  bool
}

// Outcome is what Run reports.
type Outcome struct {
	// Sent is how many platform messages the call made (a long text
	// split in parts); every one after the first counts against the
	// limits too. 0 counts as 1.
	Sent int
	// RetryAfter > 0: the platform refused the call as rate limited and
	// the call was certainly not made. The job is queued again at the head
	// of its thread and Scope (of its thread; ScopeChat if unset) is paused
	// for RetryAfter.
	RetryAfter time.Duration
	// Pause > 0: the call went through, but the platform said Scope has
	// no calls left for Pause (a rate-limit bucket it announced empty): it is
	// paused that long. With MethodOnly, only for calls of the same
	// method (a per-route bucket).
	Pause      time.Duration
	Scope      Scope
	MethodOnly bool
	// Again: the call was not made and goes back to the head of its
	// thread (the provider did not admit it, or it may be made again);
	// with Pause, its scope waits that long first.
	Again bool
}

// thread is one thread's jobs, one FIFO per lane, and what is under way.
type threadQ struct {
	key     Thread
	lanes   [numLanes][]*Job
	running *Job
	// typing is when each lasting call's effect ends (Job.Lasts), by method.
	lasting map[string]time.Time
	n       int // jobs queued, in all lanes
}

// pauseKey is a paused scope: its scope key, and the method if the pause
// is for one method only.
type pauseKey struct {
	scope  Scope
	key    string
	method string
}

// windowKey is one limit in one scope key.
type windowKey struct {
	limit int
	key   string
}

// queue is the scheduler's state, with no goroutine and no clock of its
// own: every method takes now. Scheduler guards it with its mutex.
type queue struct {
	limits       []Limit
	maxQueued    int
	maxPerThread int

	threads map[Thread]*threadQ
	// ring is, per lane, the threads with jobs in that lane in round-robin
	// order; turn[lane] is where the next turn starts.
	ring    [numLanes][]Thread
	turn    [numLanes]int
	windows map[windowKey]*window
	// saved are windows a previous run saved whose limit is not declared
	// yet (Scheduler.Restore).
	saved  []WindowState
	paused map[pauseKey]time.Time
	queued int
	seq    uint64
	stats  Stats
}

// Stats are the scheduler's counters and its queue now.
type Stats struct {
	Queued  int
	ByLane  [numLanes]int
	Running int
	// Oldest is when the longest-waiting queued job was submitted.
	Oldest time.Time
	// Counters since start.
	Dispatched, Coalesced, Skipped, RateLimited, Refused uint64
}

func newQueue(limits []Limit, maxQueued, maxPerThread int) *queue {
	return &queue{
		limits: limits, maxQueued: maxQueued, maxPerThread: maxPerThread,
		threads: map[Thread]*threadQ{}, windows: map[windowKey]*window{}, paused: map[pauseKey]time.Time{},
	}
}

// scopeKey is the key of thread t in scope s.
func scopeKey(s Scope, t Thread) string {
	switch s {
	case ScopeChat:
		return t.Chat
	case ScopeThread:
		return t.Chat + "\x00" + t.Thread
	}
	return ""
}

// Submit outcomes.
const (
	queuedJob = iota
	skippedJob
	coalescedJob
)

// add queues j at now: it replaces a queued job it coalesces with (which
// is returned, to be told), is skipped if its lasting effect still shows,
// or is refused when the queue is full or its deadline cannot be met.
func (q *queue) add(j *Job, now time.Time) (how int, replaced *Job, err error) {
	tq := q.threads[j.Thread]
	if j.Lasts > 0 && tq != nil && now.Before(tq.lasting[j.Method]) {
		q.stats.Skipped++
		return skippedJob, nil, nil
	}
	if j.Coalesce != "" && tq != nil {
		lane := tq.lanes[j.Lane]
		for i, old := range lane {
			if old.Coalesce == j.Coalesce {
				j.seq, j.enqueued, j.queued = old.seq, old.enqueued, true
				old.queued = false
				lane[i] = j
				q.stats.Coalesced++
				return coalescedJob, old, nil
			}
		}
	}
	switch {
	case q.queued >= q.maxQueued:
		q.stats.Refused++
		return 0, nil, &WaitError{Err: ErrFull, Msg: fmt.Sprintf("%d calls queued in all", q.queued), RetryAfter: q.estimate(j, now, 1)}
	case tq != nil && tq.n >= q.maxPerThread:
		q.stats.Refused++
		return 0, nil, &WaitError{Err: ErrFull, Msg: fmt.Sprintf("%d calls queued for the thread", tq.n), RetryAfter: q.estimate(j, now, 1)}
	}
	if !j.Deadline.IsZero() {
		if !now.Before(j.Deadline) {
			q.stats.Refused++
			return 0, nil, ErrExpired
		}
		if wait := q.estimate(j, now, 0); now.Add(wait).After(j.Deadline) {
			q.stats.Refused++
			return 0, nil, &WaitError{Err: ErrLate, Msg: fmt.Sprintf("about %s to wait, %s left", wait.Round(time.Millisecond), j.Deadline.Sub(now).Round(time.Millisecond)), RetryAfter: wait}
		}
	}
	if tq == nil {
		tq = &threadQ{key: j.Thread}
		q.threads[j.Thread] = tq
	}
	q.seq++
	j.seq, j.enqueued, j.queued = q.seq, now, true
	q.push(tq, j, false)
	return queuedJob, nil, nil
}

// push queues j in its thread's lane (at the head if again).
func (q *queue) push(tq *threadQ, j *Job, again bool) {
	lane := tq.lanes[j.Lane]
	if len(lane) == 0 {
		q.ring[j.Lane] = append(q.ring[j.Lane], tq.key)
	}
	if again {
		tq.lanes[j.Lane] = append([]*Job{j}, lane...)
	} else {
		tq.lanes[j.Lane] = append(lane, j)
	}
	j.queued = true
	tq.n++
	q.queued++
}

// remove takes j out of its thread's lane.
func (q *queue) remove(tq *threadQ, j *Job) {
	lane := tq.lanes[j.Lane]
	for i, x := range lane {
		if x == j {
			tq.lanes[j.Lane] = append(lane[:i:i], lane[i+1:]...)
			break
		}
	}
	j.queued = false
	tq.n--
	q.queued--
	if len(tq.lanes[j.Lane]) == 0 {
		q.unring(j.Lane, tq.key)
	}
	q.forget(tq)
}

func (q *queue) unring(l Lane, t Thread) {
	r := q.ring[l]
	for i, x := range r {
		if x == t {
			q.ring[l] = append(r[:i:i], r[i+1:]...)
			if q.turn[l] > i {
				q.turn[l]--
			}
			break
		}
	}
	if q.turn[l] >= len(q.ring[l]) {
		q.turn[l] = 0
	}
}

// forget drops a thread with nothing queued, running or lasting.
func (q *queue) forget(tq *threadQ) {
	if tq.n == 0 && tq.running == nil && len(tq.lasting) == 0 {
		delete(q.threads, tq.key)
	}
}

// withdraw takes a queued job back; false if it is no longer queued.
func (q *queue) withdraw(j *Job) bool {
	tq := q.threads[j.Thread]
	if !j.queued || tq == nil {
		return false
	}
	q.remove(tq, j)
	return true
}

// keys are the window keys and pause keys that apply to j.
func (q *queue) blockedUntil(j *Job, now time.Time) (until time.Time) {
	until = now
	for _, s := range []Scope{ScopeBot, ScopeChat, ScopeThread} {
		k := scopeKey(s, j.Thread)
		for _, pk := range []pauseKey{{s, k, ""}, {s, k, j.Method}} {
			if t, ok := q.paused[pk]; ok {
				if t.After(until) {
					until = t
				}
			}
		}
	}
	for i, l := range q.limits {
		if !l.counts(j.Method) {
			continue
		}
		if w := q.windows[windowKey{i, scopeKey(l.Scope, j.Thread)}]; w != nil {
			t, ok := w.freeAt(now)
			if !ok {
				return farFuture // a call under way must finish first
			}
			if t.After(until) {
				until = t
			}
		}
	}
	return until
}

// farFuture is "not before something finishes": no timer is set for it.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// limitKeys are the scope keys of every limit or pause that counts j:
// what a higher lane's waiting job holds back from lower lanes.
func (q *queue) limitKeys(j *Job) []windowKey {
	var out []windowKey
	for i, l := range q.limits {
		if l.counts(j.Method) {
			out = append(out, windowKey{i, scopeKey(l.Scope, j.Thread)})
		}
	}
	return out
}

// next picks the job to run at now: lanes highest first; in a lane, the
// threads in turn, each thread's oldest job, skipping threads with a job
// under way. A job that must wait for a limit holds that limit's room in
// its scope: no job of a lower lane (or later in the turn) takes it. When
// nothing may run now, wake is when something may (zero: nothing waits
// on time).
func (q *queue) next(now time.Time) (j *Job, wake time.Time) {
	held := map[windowKey]bool{}
	for l := Lane(0); l < numLanes; l++ {
		ring := q.ring[l]
		for i := range ring {
			idx := (q.turn[l] + i) % len(ring)
			tq := q.threads[ring[idx]]
			if tq.running != nil {
				continue
			}
			cand := tq.lanes[l][0]
			keys := q.limitKeys(cand)
			blocked := false
			for _, k := range keys {
				if held[k] {
					blocked = true
				}
			}
			if !blocked {
				if until := q.blockedUntil(cand, now); until.After(now) {
					blocked = true
					if until != farFuture && (wake.IsZero() || until.Before(wake)) {
						wake = until
					}
				}
			}
			if blocked {
				for _, k := range keys {
					held[k] = true
				}
				continue
			}
			q.turn[l] = (idx + 1) % len(ring)
			return cand, time.Time{}
		}
	}
	return nil, wake
}

// start marks j running at now and counts it against its limits.
func (q *queue) start(j *Job, now time.Time) {
	tq := q.threads[j.Thread]
	q.remove(tq, j)
	tq.running, j.running = j, true
	q.threads[j.Thread] = tq // remove may have forgotten it
	q.eachWindow(j, func(w *window) { w.start() })
	if j.Lasts > 0 {
		if tq.lasting == nil {
			tq.lasting = map[string]time.Time{}
		}
		tq.lasting[j.Method] = now.Add(j.Lasts)
	}
	q.stats.Dispatched++
}

// eachWindow calls fn with every window that counts j, made if need be.
func (q *queue) eachWindow(j *Job, fn func(*window)) {
	for i, l := range q.limits {
		if !l.counts(j.Method) {
			continue
		}
		k := windowKey{i, scopeKey(l.Scope, j.Thread)}
		w := q.windows[k]
		if w == nil {
			w = &window{count: l.Count, per: l.Per}
			q.windows[k] = w
		}
		fn(w)
	}
}

// finish ends j's run with its outcome at now. It reports whether j was
// queued again (rate limited), or, for a job with an Abort and a
// Deadline the platform's pause outlasts, the refusal to abort it with.
func (q *queue) finish(j *Job, o Outcome, now time.Time) (again bool, late *WaitError) {
	tq := q.threads[j.Thread]
	tq.running, j.running = nil, false
	scope := o.Scope
	if scope == 0 {
		scope = ScopeChat
	}
	pause := func(d time.Duration, methodOnly bool) {
		pk := pauseKey{scope, scopeKey(scope, j.Thread), ""}
		if methodOnly {
			pk.method = j.Method
		}
		if until := now.Add(d); until.After(q.paused[pk]) {
			q.paused[pk] = until
		}
	}
	made := 0 // calls that reached the platform and count
	if o.RetryAfter == 0 && !o.Again {
		made = max(o.Sent, 1)
	}
	q.eachWindow(j, func(w *window) { w.finish(now, made) })
	if o.RetryAfter > 0 || o.Again {
		if o.RetryAfter > 0 {
			q.stats.RateLimited++
			pause(o.RetryAfter, false)
		}
		if o.Pause > 0 {
			pause(o.Pause, o.MethodOnly)
		}
		delete(tq.lasting, j.Method)
		if o.RetryAfter > 0 && j.Abort != nil && !j.Deadline.IsZero() {
			// Back at the head of its thread after the pause: if even
			// that is past its deadline, its caller hears so now, not
			// when the deadline passes.
			if wait := q.estimateAt(j, now, 0, 1); now.Add(wait).After(j.Deadline) {
				q.stats.Refused++
				q.forget(tq)
				return false, &WaitError{Err: ErrLate, RetryAfter: wait,
					Msg: fmt.Sprintf("the platform asked to wait %s, about %s to wait, %s left", o.RetryAfter.Round(time.Millisecond), wait.Round(time.Millisecond), j.Deadline.Sub(now).Round(time.Millisecond))}
			}
		}
		q.push(tq, j, true)
		return true, nil
	}
	if o.Pause > 0 {
		pause(o.Pause, o.MethodOnly)
	}
	if j.Lane == LaneMessage || j.Lane == LanePrompt {
		// A message ends the typing indicator on the platforms that have
		// one: the next typing call is made again.
		clear(tq.lasting)
	}
	q.forget(tq)
	return false, nil
}

// estimate is how long j would wait at now, as the turns go: every queued
// job of a higher lane that shares a limit with it, its own thread's jobs
// of its lane ahead of it, and of each other thread's jobs of its lane as
// many as turns pass before j's (one a turn: j is its thread's k-th, so k
// turns at most), plus the calls under way and extra more (a job about to
// be queued), each as soon as the limits allow. One session's backlog
// therefore counts one turn against another session's next call, not its
// whole length.
func (q *queue) estimate(j *Job, now time.Time, extra int) time.Duration {
	turns := 1
	if own := q.threads[j.Thread]; own != nil {
		turns += len(own.lanes[j.Lane])
	}
	return q.estimateAt(j, now, extra, turns)
}

// estimateAt is estimate for j at the turns-th place of its thread's lane
// (1: the head, where a call the platform refused as rate limited goes).
func (q *queue) estimateAt(j *Job, now time.Time, extra, turns int) time.Duration {
	end := now
	for _, s := range []Scope{ScopeBot, ScopeChat, ScopeThread} {
		k := scopeKey(s, j.Thread)
		for _, pk := range []pauseKey{{s, k, ""}, {s, k, j.Method}} {
			if t := q.paused[pk]; t.After(end) {
				end = t
			}
		}
	}
	for i, l := range q.limits {
		if !l.counts(j.Method) {
			continue
		}
		key := scopeKey(l.Scope, j.Thread)
		ahead := 0
		for t, tq := range q.threads {
			if scopeKey(l.Scope, t) != key {
				continue
			}
			for lane := Lane(0); lane < j.Lane; lane++ {
				ahead += countsOf(l, tq.lanes[lane], len(tq.lanes[lane]))
			}
			if t == j.Thread {
				ahead += countsOf(l, tq.lanes[j.Lane], turns-1)
			} else {
				ahead += countsOf(l, tq.lanes[j.Lane], turns)
			}
			if tq.running != nil && l.counts(tq.running.Method) {
				ahead++
			}
		}
		w := q.windows[windowKey{i, key}]
		if w == nil {
			w = &window{count: l.Count, per: l.Per}
		}
		if t := w.freeAfter(now, ahead+extra+1); t.After(end) {
			end = t
		}
	}
	return end.Sub(now)
}

// countsOf is how many of the first n of jobs l counts.
func countsOf(l Limit, jobs []*Job, n int) int {
	c := 0
	for _, x := range jobs[:min(n, len(jobs))] {
		if l.counts(x.Method) {
			c++
		}
	}
	return c
}

// sweep forgets windows and pauses that no longer hold anything back.
func (q *queue) sweep(now time.Time) {
	for k, w := range q.windows {
		if w.idle(now) {
			delete(q.windows, k)
		}
	}
	for k, t := range q.paused {
		if !t.After(now) {
			delete(q.paused, k)
		}
	}
	for _, tq := range q.threads {
		for m, t := range tq.lasting {
			if !t.After(now) {
				delete(tq.lasting, m)
			}
		}
		q.forget(tq)
	}
}

// snapshot returns the stats now.
func (q *queue) snapshot() Stats {
	s := q.stats
	s.Queued = q.queued
	for _, tq := range q.threads {
		if tq.running != nil {
			s.Running++
		}
		for l := range numLanes {
			s.ByLane[l] += len(tq.lanes[l])
			for _, j := range tq.lanes[l] {
				if s.Oldest.IsZero() || j.enqueued.Before(s.Oldest) {
					s.Oldest = j.enqueued
				}
			}
		}
	}
	return s
}
