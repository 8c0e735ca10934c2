// Package outbound owns when each outbound call of one provider may go to
// its platform: within the rate limits the provider declared, fair
// between threads, by lane. A call that would exceed a limit waits in a
// queue instead of failing; the queue is bounded (per thread and in all)
// and refuses a call, with the wait it estimates, only when full or when
// the caller's deadline cannot be met.
//
//   - Limits: "at most Count calls in any window of Per", per bot, chat or
//     thread, of some methods (Limit). A call goes when every limit that
//     counts it has room.
//   - Lanes: prompts (and answers to button presses) first, then new
//     messages, then edits, then typing and reactions. A waiting call holds
//     its limits' room: no call of a lower lane takes it.
//   - Fairness: in a lane, threads take turns (round robin), so one
//     thread's backlog holds another thread's next call back by one turn
//     at most. A thread has one call under way at a time, so its calls go
//     in the order they were made (within a lane).
//   - Coalescing: a queued call is replaced by a newer one that overwrites
//     the same thing (an edit of the same message); the older caller is
//     told it was superseded. A call whose effect still lasts (a typing
//     indicator) is answered without a platform call.
//   - Feedback: a call the platform refused as rate limited goes back to
//     the head of its thread and pauses its scope for the platform's
//     retry-after; a platform that says a scope is out of room (a bucket
//     it announced empty) pauses it too.
//   - Admission: nothing runs while the provider does not admit (a doctor
//     restart); the queue waits, and is then served as above.
//
// The package knows nothing of gRPC, the store or the providers: the
// caller hands it Jobs and is called back. The queue's logic (queue.go)
// takes the time as an argument and has no goroutine; Scheduler runs it.
package outbound

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// Config configures a Scheduler.
type Config struct {
	// Limits are the provider's rate limits. Empty: nothing is paced (a
	// call goes as soon as its thread's previous call is done).
	Limits []Limit
	// MaxQueued bounds the calls queued in all. If zero, 10000.
	MaxQueued int
	// MaxPerThread bounds the calls queued for one thread. If zero, 1000.
	MaxPerThread int
	// MaxRunning bounds the calls under way at once. If zero, 64.
	MaxRunning int
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
	// OnStart, if set, is called (without the scheduler's lock) as each
	// job starts, with how long it waited.
	OnStart func(j *Job, waited time.Duration)
	// OnMade, if set, is called (without the scheduler's lock, on the
	// job's goroutine) once a job whose call was made is counted against
	// the limits: the windows (Windows) changed.
	OnMade func()
}

// Status says what Submit did with a job.
type Status int

const (
	// Queued: the job waits its turn; Run will be called.
	Queued Status = iota
	// Skipped: the job's lasting effect still shows (Job.Lasts): nothing
	// to do, and neither Run nor Superseded is called.
	Skipped
	// Coalesced: the job took the place of a queued job it supersedes
	// (whose Superseded was called); Run will be called.
	Coalesced
)

// Scheduler paces one provider's calls. Its methods are safe for
// concurrent use; Run drives it.
type Scheduler struct {
	now        func() time.Time
	onStart    func(*Job, time.Duration)
	onMade     func()
	maxRunning int

	mu        sync.Mutex // guards everything below
	q         *queue
	open      bool
	running   int
	lastSweep time.Time
	kick      chan struct{} // cap 1: something changed
}

// sweepEvery is how often idle windows and pauses are forgotten.
const sweepEvery = 30 * time.Second

// New checks cfg and makes a Scheduler. It admits nothing until SetOpen.
func New(cfg Config) (*Scheduler, error) {
	if cfg.MaxQueued <= 0 {
		cfg.MaxQueued = 10000
	}
	if cfg.MaxPerThread <= 0 {
		cfg.MaxPerThread = 1000
	}
	if cfg.MaxRunning <= 0 {
		cfg.MaxRunning = 64
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	for _, l := range cfg.Limits {
		if err := l.check(); err != nil {
			return nil, err
		}
	}
	return &Scheduler{
		now: cfg.Now, onStart: cfg.OnStart, onMade: cfg.OnMade, maxRunning: cfg.MaxRunning,
		q:    newQueue(cfg.Limits, cfg.MaxQueued, cfg.MaxPerThread),
		kick: make(chan struct{}, 1),
	}, nil
}

// SetLimits replaces the limits (a new provider child declared its own).
// What was counted so far is forgotten unless the limits are the same.
func (s *Scheduler) SetLimits(limits []Limit) error {
	for _, l := range limits {
		if err := l.check(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if fmt.Sprint(limits) != fmt.Sprint(s.q.limits) {
		s.q.limits = limits
		clear(s.q.windows)
		s.q.restore()
	}
	s.poke()
	return nil
}

// Limits returns the limits in force.
func (s *Scheduler) Limits() []Limit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Limit(nil), s.q.limits...)
}

// SetOpen says whether the provider admits calls now.
func (s *Scheduler) SetOpen(open bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open != open {
		s.open = open
		s.poke()
	}
}

// Submit queues j. A refusal is a *WaitError (ErrFull, ErrLate) with the
// wait the scheduler estimates, or ErrExpired for a job whose deadline had
// passed already.
func (s *Scheduler) Submit(j *Job) (Status, error) {
	s.mu.Lock()
	how, replaced, err := s.q.add(j, s.now())
	var due []started
	var wake time.Time
	if err == nil && how != skippedJob {
		due, wake = s.takeDue()
	}
	s.mu.Unlock()
	s.start(due, wake)
	if err != nil {
		return 0, err
	}
	switch how {
	case skippedJob:
		return Skipped, nil
	case coalescedJob:
		if replaced.Superseded != nil {
			replaced.Superseded(j)
		}
		return Coalesced, nil
	}
	return Queued, nil
}

// Withdraw takes back a job that has not started; false if it started
// (or was superseded) already.
func (s *Scheduler) Withdraw(j *Job) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.withdraw(j)
}

// Stats returns the queue and the counters now.
func (s *Scheduler) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.snapshot()
}

// Thread returns how many of t's jobs are queued or running, and until
// when the longest lasting effect of its last calls shows (a typing
// indicator; zero: none now).
func (s *Scheduler) Thread(t Thread) (queued int, lastingUntil time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tq := s.q.threads[t]
	if tq == nil {
		return 0, time.Time{}
	}
	queued = tq.n
	if tq.running != nil {
		queued++
	}
	now := s.now()
	for _, until := range tq.lasting {
		if until.After(now) && until.After(lastingUntil) {
			lastingUntil = until
		}
	}
	return queued, lastingUntil
}

// Estimate is how long a job like j would wait if it were submitted now.
func (s *Scheduler) Estimate(j *Job) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.estimate(j, s.now(), 0)
}

func (s *Scheduler) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Run starts the jobs as they come due until ctx ends. Jobs under way
// then finish on their own goroutines.
func (s *Scheduler) Run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		wake := s.dispatch()
		var tc <-chan time.Time
		if !wake.IsZero() {
			timer.Reset(max(time.Until(wake), time.Millisecond))
			tc = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		case <-tc:
		}
		if tc != nil && !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// dispatch starts every job that may start now, and returns when the next
// one may (zero: when something changes).
func (s *Scheduler) dispatch() time.Time {
	s.mu.Lock()
	due, wake := s.takeDue()
	s.mu.Unlock()
	s.start(due, time.Time{})
	return wake
}

// started is a job takeDue marked as under way, with how long it waited.
type started struct {
	j      *Job
	waited time.Duration
}

// takeDue marks as under way every job that may start now and returns
// them, with when the next one may start (zero: when something changes).
// Submit and a finished job's goroutine call it themselves, so that a call
// with room to go starts on its caller's hop, not after a wake of Run's
// goroutine; Run times the jobs that wait. Caller holds mu.
func (s *Scheduler) takeDue() (due []started, wake time.Time) {
	now := s.now()
	if now.Sub(s.lastSweep) > sweepEvery {
		s.q.sweep(now)
		s.lastSweep = now
	}
	for s.open && s.running < s.maxRunning {
		j, w := s.q.next(now)
		if j == nil {
			return due, w
		}
		s.q.start(j, now)
		s.running++
		due = append(due, started{j, now.Sub(j.enqueued)})
	}
	return due, time.Time{}
}

// start runs the jobs takeDue returned, each on a goroutine of its own,
// without mu. A wake that is not zero is one for Run's timer: it is told.
func (s *Scheduler) start(due []started, wake time.Time) {
	for _, st := range due {
		if s.onStart != nil {
			s.onStart(st.j, st.waited)
		}
		go s.run(st.j)
	}
	if !wake.IsZero() {
		s.poke()
	}
}

// run runs j, books its outcome and starts what that let go. A Run that
// panics ends its job (told through Abort) and nothing else: the
// scheduler goes on.
func (s *Scheduler) run(j *Job) {
	o, perr := runJob(j)
	s.mu.Lock()
	again, late := s.q.finish(j, o, s.now())
	s.running--
	due, wake := s.takeDue()
	s.mu.Unlock()
	if made := !again && late == nil; made && s.onMade != nil {
		s.onMade()
	}
	switch {
	case perr != nil && j.Abort != nil:
		j.Abort(perr)
	case late != nil:
		j.Abort(late)
	}
	s.start(due, wake)
}

// runJob calls j.Run, turning a panic into a *PanicError. A call that
// panicked is booked as made (its outcome is unknown: it may have reached
// the platform, and counts against the limits).
func runJob(j *Job) (o Outcome, err error) {
	defer func() {
		if v := recover(); v != nil {
			o, err = Outcome{}, &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return j.Run(), nil
}
