package journal

// Segment files and the goroutine that prepares the next one.
//
// A segment's space is allocated before anything is written to it, so that
// fdatasync never has to persist a size change: fallocate(2) at once, then
// zeros written over it. The zeros matter too: on ext4 a fallocated range
// is "unwritten", and a write into it makes fdatasync commit the extent
// conversion to the filesystem's journal as well. Measured on the
// development machine: 4 KiB write + fdatasync, p50, 190 µs into a
// fallocated file, 100 µs into one whose zeros were written and synced,
// 190 µs appending to a growing file; batches of 100 × 4 KiB, 110k–310k
// records/s into fallocated space, 410k–440k/s into zeros. But zeros
// written in full double what goes to the disk, which a writer that fills
// segments at the disk's bandwidth cannot afford (it halved the rate of
// batches of 2048 × 4 KiB), and written in a burst they queue in front of
// the writer's fdatasync. So the preparer goroutine hands the next segment
// over as soon as it is allocated and its name durable, and writes zeros
// over it from the start at zeroRate, until the writer takes it: a journal
// that fills a segment in longer than a second gets it zeroed all the way;
// a faster one gets what was zeroed by then, and writes the rest once,
// into fallocated space; the disk never sees more than zeroRate of zeros.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chatbus/chatbus/server/journal/vfs"
)

const segSuffix = ".seg"

// zeroRate is the pace, in bytes per second, of the zeros the preparer
// writes (see the file comment), in steps of zeroStep, each synced.
const (
	zeroRate = 64 << 20
	zeroStep = 2 << 20
)

// segment is one segment file.
type segment struct {
	base     uint64 // LSN of its first byte
	capacity int64  // LSN span: the next segment's base is base+capacity
	path     string
	f        vfs.File
	// refs counts the journal's own reference (dropped when the segment is
	// deleted or the journal closed) and each read from disk in progress;
	// the file is closed when it reaches zero.
	refs atomic.Int32

	// Guarded by Journal.mu:
	used      int64 // bytes of committed frames
	size      int64 // file size (preallocated size; used once sealed)
	live      int   // pending records whose frame is here
	liveBytes int64

	// noCompact (writer goroutine): compaction met a frame here it could
	// not read, and leaves the segment alone.
	noCompact bool
}

func segmentName(base uint64) string { return fmt.Sprintf("%016x%s", base, segSuffix) }

// parseSegmentName returns the base of a segment file name; ok is false for
// a name that is not <16 hex digits>.seg.
func parseSegmentName(name string) (uint64, bool) {
	hex, found := strings.CutSuffix(name, segSuffix)
	if !found || len(hex) != 16 || strings.ToLower(hex) != hex {
		return 0, false
	}
	v, err := strconv.ParseUint(hex, 16, 64)
	return v, err == nil
}

func newSegment(dir string, base uint64, capacity int64, f vfs.File) *segment {
	s := &segment{base: base, capacity: capacity, path: filepath.Join(dir, segmentName(base)), f: f}
	s.refs.Store(1)
	return s
}

func (s *segment) acquire() { s.refs.Add(1) }

func (s *segment) release() {
	if s.refs.Add(-1) == 0 {
		_ = s.f.Close()
	}
}

// fileSize is the size of the file. Caller holds Journal.mu.
func (s *segment) fileSize() int64 { return max(s.size, s.used) }

// end is the LSN after the segment's span.
func (s *segment) end() uint64 { return s.base + uint64(s.capacity) }

// createSegment creates the segment file for base and allocates capacity
// bytes for it (unless fs reserves nothing ahead of writes: then it grows
// as it is written, and size stays 0), writing zeros over all of it if zero
// is set; it syncs the file and the directory, so that the name and the
// size are durable before anything is written to it.
func createSegment(fs vfs.FS, dir string, base uint64, capacity int64, zero bool) (*segment, error) {
	path := filepath.Join(dir, segmentName(base))
	f, err := fs.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create segment: %w", err)
	}
	s := newSegment(dir, base, capacity, f)
	reserved, err := reserve(f, 0, capacity)
	if reserved {
		s.size = capacity
		if zero {
			err = zeroFill(f, 0, capacity)
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = fs.SyncDir(dir)
	}
	if err != nil {
		_ = f.Close()
		_ = fs.Remove(path)
		return nil, fmt.Errorf("create segment %s: %w", path, err)
	}
	return s, nil
}

// reserve allocates [from, to) of f (File.Allocate). reserved is false,
// with no error, where the file system reserves nothing ahead of writes
// (its files grow as they are written; nothing was changed).
func reserve(f vfs.File, from, to int64) (reserved bool, err error) {
	if to <= from {
		return true, nil
	}
	err = f.Allocate(from, to-from)
	if errors.Is(err, errors.ErrUnsupported) {
		return false, nil
	}
	return err == nil, err
}

// zeroFill writes zeros over [from, to) of f, 1 MiB at a time, syncing
// every 8 MiB (so that preparing a segment does not queue 64 MiB of
// writeback at once in front of the writer's fdatasync) and at the end. It
// stops early, without error, once one of stop is closed.
func zeroFill(f vfs.File, from, to int64, stop ...<-chan struct{}) error {
	const chunk = 1 << 20
	zeros := make([]byte, chunk)
	for off := from; off < to; {
		for _, c := range stop {
			select {
			case <-c:
				return f.SyncData()
			default:
			}
		}
		n := min(int64(chunk), to-off)
		if _, err := f.WriteAt(zeros[:n], off); err != nil {
			return err
		}
		off += n
		if (off-from)%(8<<20) == 0 {
			if err := f.SyncData(); err != nil {
				return err
			}
		}
	}
	return f.SyncData()
}

// zeroFillPaced is zeroFill over [0, to) at most rate bytes per second, in
// steps of zeroStep each synced; it stops early once stop or quit is closed.
func zeroFillPaced(f vfs.File, to, rate int64, stop, quit <-chan struct{}) error {
	const step = zeroStep
	start := time.Now()
	for off := int64(0); off < to; off += step {
		if err := zeroFill(f, off, min(off+step, to), stop, quit); err != nil {
			return err
		}
		t := time.NewTimer(time.Until(start.Add(time.Duration(float64(off+step) / float64(rate) * float64(time.Second)))))
		select {
		case <-t.C:
		case <-stop:
		case <-quit:
		}
		t.Stop()
		if isDone(stop) || isDone(quit) {
			return nil
		}
	}
	return nil
}

func isDone(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// preparer is the goroutine that creates the next segment ahead of time
// (see the file comment). The writer asks for one (start) at each roll,
// and after Open once the active segment is half full, and takes it (take)
// at the next roll; at most one is outstanding.
type preparer struct {
	fs      vfs.FS
	dir     string
	reqs    chan prepReq    // buffered(1)
	results chan prepResult // buffered(1)
	quit    chan struct{}
	done    chan struct{}

	// Owned by the writer goroutine:
	outstanding bool
}

type prepReq struct {
	base     uint64
	capacity int64
}

// prepResult is a segment allocated and durable, which the preparer goes
// on writing zeros over until stop is closed; it closes zeroed when it no
// longer touches the file.
type prepResult struct {
	seg    *segment
	err    error
	stop   chan struct{}
	zeroed chan struct{}
}

func startPreparer(fs vfs.FS, dir string) *preparer {
	p := &preparer{
		fs:      fs,
		dir:     dir,
		reqs:    make(chan prepReq, 1),
		results: make(chan prepResult, 1),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go p.run()
	return p
}

func (p *preparer) run() {
	defer close(p.done)
	for {
		select {
		case r := <-p.reqs:
			res := prepResult{stop: make(chan struct{}), zeroed: make(chan struct{})}
			res.seg, res.err = createSegment(p.fs, p.dir, r.base, r.capacity, false)
			p.results <- res                        // buffered: one outstanding
			if res.err == nil && res.seg.size > 0 { // preallocated
				// A failure here only leaves the rest of the segment
				// fallocated, which is still valid.
				_ = zeroFillPaced(res.seg.f, r.capacity, zeroRate, res.stop, p.quit)
			}
			close(res.zeroed)
		case <-p.quit:
			return
		}
	}
}

// start asks for the segment at base. Writer goroutine only.
func (p *preparer) start(base uint64, capacity int64) {
	if p.outstanding {
		return
	}
	p.outstanding = true
	p.reqs <- prepReq{base: base, capacity: capacity}
}

// take returns the segment at base with at least capacity: the prepared
// one (stopping its zeros where they are), extended if it is too small, or,
// if none was asked for or preparing it failed, one created now. Writer
// goroutine only.
func (p *preparer) take(base uint64, capacity int64) (*segment, error) {
	if p.outstanding {
		p.outstanding = false
		r := <-p.results
		close(r.stop)
		<-r.zeroed
		switch {
		case r.err != nil:
			// Try once more: the condition (a full disk) may have passed.
		case r.seg.base != base:
			p.discard(r.seg)
		case r.seg.capacity < capacity:
			if err := p.extend(r.seg, capacity); err != nil {
				p.discard(r.seg)
				return nil, err
			}
			return r.seg, nil
		default:
			return r.seg, nil
		}
	}
	return createSegment(p.fs, p.dir, base, capacity, false)
}

// extend grows the span of s, which holds nothing yet, to capacity.
func (p *preparer) extend(s *segment, capacity int64) error {
	reserved, err := reserve(s.f, s.capacity, capacity)
	if err == nil && reserved {
		err = s.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("extend segment %s: %w", s.path, err)
	}
	if reserved {
		s.size = capacity
	}
	s.capacity = capacity
	return nil
}

// discard removes a prepared segment that is not used.
func (p *preparer) discard(s *segment) {
	_ = p.fs.Remove(s.path)
	s.release()
}

// stop ends the goroutine and removes a prepared segment nobody took (it
// holds nothing: Open would remove it too). After the writer has exited.
func (p *preparer) stop() {
	close(p.quit) // also stops the zeros of a segment being prepared
	<-p.done
	select {
	case r := <-p.results:
		<-r.zeroed
		if r.err == nil {
			p.discard(r.seg)
		}
	default:
	}
}
