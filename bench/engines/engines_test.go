//go:build linux

package engines

// The engine comparison: appending 4 KiB records durably, in batches of 1,
// 100 and 2048, from 1 and 16 concurrent appenders, with each candidate for
// the inbound journal, on the same disk in one run, beside a raw baseline.
// docs/performance.md has the command, the table and the choice.
//
// Each op is one record: ns/op is per record, records/s the rate. An
// appender takes the next batch of records from a shared budget of b.N and
// appends it; the append returns once the batch is durable.
//
// The dependencies of the other engines are this module's only: the
// product's module and its binaries need none of them. Linux only: the raw
// baseline is fallocate(2) and fdatasync(2), what the journal does there.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftwal "github.com/hashicorp/raft-wal"
	bbolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"

	"github.com/chatbus/chatbus/server/journal"
)

const benchRecord = 4096

// engine appends batches durably; append is called from several
// goroutines at once.
type engine interface {
	append(appender int, recs [][]byte) error
	close() error
}

var engines = []struct {
	name string
	what string
	open func(b *testing.B, dir string) engine // b.N is set: the records to come
}{
	{"raw", "pwrite + fdatasync per batch, appending to a growing file (appenders take turns)", openRaw},
	{"raw-fallocated", "the same into space fallocated (not written) before the timer", openRawFallocated},
	{"raw-zeroed", "the same into 256 MiB whose zeros were written and synced before the timer, wrapping around", openRawZeroed},
	{"bbolt", "bbolt v1.5.0 as server/store uses it: one committer, one Update tx for what is queued", openBolt},
	{"pebble", "pebble v2.1.7: a Batch per append, Commit(pebble.Sync): its commit pipeline groups the syncs", openPebble},
	{"raft-wal", "raft-wal v0.4.0: StoreLogs per batch (indexes assigned under a mutex)", openRaftWAL},
	{"journal", "server/journal: Append per batch, group commit", openJournal},
}

func BenchmarkEngines(b *testing.B) {
	rec := make([]byte, benchRecord)
	for i := range rec {
		rec[i] = byte(rand.Uint32()) // incompressible, for pebble
	}
	for _, e := range engines {
		for _, batch := range []int{1, 100, 2048} {
			for _, appenders := range []int{1, 16} {
				name := fmt.Sprintf("engine=%s/batch=%d/appenders=%d", e.name, batch, appenders)
				b.Run(name, func(b *testing.B) { benchAppend(b, e.open, rec, batch, appenders) })
			}
		}
	}
}

func benchAppend(b *testing.B, open func(*testing.B, string) engine, rec []byte, batch, appenders int) {
	dir, err := os.MkdirTemp("", "chatbus-engines-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	eng := open(b, dir)
	recs := make([][]byte, batch)
	for i := range recs {
		recs[i] = rec
	}
	var budget atomic.Int64
	budget.Store(int64(b.N))
	errs := make(chan error, appenders)
	b.SetBytes(benchRecord)
	b.ResetTimer()
	var wg sync.WaitGroup
	for a := range appenders {
		wg.Go(func() {
			for {
				n := int(min(int64(batch), budget.Add(-int64(batch))+int64(batch)))
				if n <= 0 {
					return
				}
				if err := eng.append(a, recs[:n]); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	if err := eng.close(); err != nil {
		b.Fatal(err)
	}
}

// raw: one file, a mutex, pwrite of the batch then fdatasync.
type rawEngine struct {
	mu   sync.Mutex
	f    *os.File
	off  int64
	wrap int64 // raw-zeroed: the size of the zeroed region, 0 = grow
	buf  []byte
}

func openRaw(b *testing.B, dir string) engine {
	f, err := os.OpenFile(filepath.Join(dir, "raw"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	return &rawEngine{f: f}
}

func openRawFallocated(b *testing.B, dir string) engine {
	e := openRaw(b, dir).(*rawEngine)
	if err := unix.Fallocate(int(e.f.Fd()), 0, 0, int64(b.N)*benchRecord); err != nil {
		b.Fatal(err)
	}
	if err := e.f.Sync(); err != nil {
		b.Fatal(err)
	}
	return e
}

func openRawZeroed(b *testing.B, dir string) engine {
	e := openRaw(b, dir).(*rawEngine)
	e.wrap = 256 << 20
	zeros := make([]byte, 1<<20)
	for off := int64(0); off < e.wrap; off += int64(len(zeros)) {
		if _, err := e.f.WriteAt(zeros, off); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.f.Sync(); err != nil {
		b.Fatal(err)
	}
	return e
}

func (e *rawEngine) append(_ int, recs [][]byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buf = e.buf[:0]
	for _, r := range recs {
		e.buf = append(e.buf, r...)
	}
	if e.wrap > 0 && e.off+int64(len(e.buf)) > e.wrap {
		e.off = 0
	}
	if _, err := e.f.WriteAt(e.buf, e.off); err != nil {
		return err
	}
	e.off += int64(len(e.buf))
	return unix.Fdatasync(int(e.f.Fd()))
}

func (e *rawEngine) close() error { return e.f.Close() }

// bolt: the store's pattern (server/store/bolt.go): callers queue their
// write, one committer drains what is queued without waiting and runs it
// in one Update (two fdatasyncs: pages, then meta).
type boltEngine struct {
	db   *bbolt.DB
	reqs chan boltReq
	done chan struct{}
	seq  uint64 // committer only
}

type boltReq struct {
	recs [][]byte
	err  chan error
}

func openBolt(b *testing.B, dir string) engine {
	db, err := bbolt.Open(filepath.Join(dir, "state.db"), 0o600, &bbolt.Options{FreelistType: bbolt.FreelistMapType})
	if err != nil {
		b.Fatal(err)
	}
	if err := db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucket([]byte("q")); return err }); err != nil {
		b.Fatal(err)
	}
	e := &boltEngine{db: db, reqs: make(chan boltReq, 512), done: make(chan struct{})}
	go e.commitLoop()
	return e
}

func (e *boltEngine) commitLoop() {
	defer close(e.done)
	for r := range e.reqs {
		batch := []boltReq{r}
	drain:
		for len(batch) < 512 {
			select {
			case r, ok := <-e.reqs:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		err := e.db.Update(func(tx *bbolt.Tx) error {
			q := tx.Bucket([]byte("q"))
			for _, r := range batch {
				for _, rec := range r.recs {
					e.seq++
					if err := q.Put(binary.BigEndian.AppendUint64(nil, e.seq), rec); err != nil {
						return err
					}
				}
			}
			return nil
		})
		for _, r := range batch {
			r.err <- err
		}
	}
}

func (e *boltEngine) append(_ int, recs [][]byte) error {
	r := boltReq{recs: recs, err: make(chan error, 1)}
	e.reqs <- r
	return <-r.err
}

func (e *boltEngine) close() error {
	close(e.reqs)
	<-e.done
	return e.db.Close()
}

// pebble: a Batch per append, committed with Sync.
type pebbleEngine struct {
	db   *pebble.DB
	seqs []atomic.Uint64 // per appender, for distinct keys
}

type quietLogger struct{}

func (quietLogger) Infof(string, ...any)      {}
func (quietLogger) Errorf(f string, a ...any) { fmt.Fprintf(os.Stderr, "pebble: "+f+"\n", a...) }
func (quietLogger) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }

func openPebble(b *testing.B, dir string) engine {
	db, err := pebble.Open(dir, &pebble.Options{Logger: quietLogger{}})
	if err != nil {
		b.Fatal(err)
	}
	return &pebbleEngine{db: db, seqs: make([]atomic.Uint64, 16)}
}

func (e *pebbleEngine) append(a int, recs [][]byte) error {
	batch := e.db.NewBatch()
	defer batch.Close()
	for _, rec := range recs {
		key := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint16(nil, uint16(a)), e.seqs[a].Add(1))
		if err := batch.Set(key, rec, nil); err != nil {
			return err
		}
	}
	return batch.Commit(pebble.Sync)
}

func (e *pebbleEngine) close() error { return e.db.Close() }

// raft-wal: StoreLogs with consecutive indexes; the mutex makes the index
// assignment and the append one step (the WAL serialises appends anyway).
type raftWALEngine struct {
	mu   sync.Mutex
	w    *raftwal.WAL
	next uint64
	logs []*raft.Log
}

func openRaftWAL(b *testing.B, dir string) engine {
	w, err := raftwal.Open(dir, raftwal.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		b.Fatal(err)
	}
	return &raftWALEngine{w: w, next: 1}
}

func (e *raftWALEngine) append(_ int, recs [][]byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs = e.logs[:0]
	for _, rec := range recs {
		e.logs = append(e.logs, &raft.Log{Index: e.next, Term: 1, Type: raft.LogCommand, Data: rec})
		e.next++
	}
	return e.w.StoreLogs(e.logs)
}

func (e *raftWALEngine) close() error { return e.w.Close() }

// journal: Append per batch, each appender its own key.
type journalEngine struct {
	j *journal.Journal
}

func openJournal(b *testing.B, dir string) engine {
	j, err := journal.Open(dir, journal.Options{
		Limits:     journal.Limits{MaxCount: -1, MaxBytes: -1, MaxAge: -1},
		TotalBytes: -1,
	})
	if err != nil {
		b.Fatal(err)
	}
	return &journalEngine{j: j}
}

func (e *journalEngine) append(a int, recs [][]byte) error {
	entries := make([]journal.Entry, len(recs))
	key := fmt.Sprint("k", a)
	for i, rec := range recs {
		entries[i] = journal.Entry{Key: key, Data: rec}
	}
	out, err := e.j.Append(context.Background(), "bench", entries, nil)
	if err == nil && len(out) != len(recs) {
		err = errors.New("short append")
	}
	return err
}

func (e *journalEngine) close() error { return e.j.Close() }
