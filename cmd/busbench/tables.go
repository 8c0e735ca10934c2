//go:build linux

package main

// The scaling table (saturated forwarding vs the number of followers) and
// the disk-use table (the state on disk vs the updates held, and after
// acks): both printed after the figures and written to the JSON.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/chatbus/chatbus/bench"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// scalingRow is one line of the scaling table.
type scalingRow struct {
	Followers     int           `json:"followers"`
	ForwardedPerS float64       `json:"forwarded_per_s"`
	CPUPerUpdate  time.Duration `json:"supervisor_cpu_per_update_ns"`
	CPUPercent    float64       `json:"supervisor_cpu_percent"`
	Latency       bench.Summary `json:"latency"`
	Forwarded     uint64        `json:"forwarded"`
}

// diskRow is one line of the disk-use table.
type diskRow struct {
	What string `json:"what"`
	// Held is the updates held (not acknowledged).
	Held int `json:"held"`
	// Files is the size of the journal's segment files and the bbolt file;
	// Written is what the segments hold (their frames, live or not);
	// Live is the size of the held updates as stored.
	Files   int64 `json:"files_bytes"`
	Written int64 `json:"written_bytes"`
	Live    int64 `json:"live_bytes"`
}

// scalingPhase: saturated forwarding to 1…1000 followers of one supervisor,
// with enough provider-bench children for their threads (a forum chat has
// 702 slots), each follower its own connection, acking.
func (b *bencher) scalingPhase(ctx context.Context) error {
	o := &b.opts
	maxN := slices.Max(o.ScalingFollowers)
	np := (maxN + 599) / 600
	dir := filepath.Join(b.root, "scaling")
	var provs []provSpec
	for i := range np {
		ctl := filepath.Join(dir, fmt.Sprintf("p%d.ctl", i+1))
		provs = append(provs, provSpec{Name: fmt.Sprintf("bench-s%d", i+1), Binary: o.Provider, ForumChatID: benchChat - 200 - int64(i),
			Settings: map[string]any{"control": ctl}, Control: ctl})
	}
	// The floor first, with nothing else running: the bare server's
	// server-stream to as many connections as the last row's followers.
	bp, err := b.startBaseline(ctx, filepath.Join(b.root, "fanout.sock"))
	if err != nil {
		return err
	}
	b.logf("scaling: the raw fan-out, %d streams of a bare server, each its own connection", maxN)
	rawN, rawCount, err := b.rawFanOut(ctx, bp, maxN)
	bp.stop()
	if err != nil {
		return fmt.Errorf("raw fan-out: %w", err)
	}
	b.logf("   raw fan-out to %d streams: %.1fk/s", maxN, rawN/1e3)
	spec := b.supSpec("scaling", provs)
	b.logf("scaling: fresh supervisor with %d provider-bench child(ren); up to %d followers, saturated", np, maxN)
	sup, err := b.startSupervisor(ctx, spec)
	if err != nil {
		return err
	}
	defer sup.stop()
	ctls := make([]*control, np)
	for i, p := range provs {
		ctls[i] = newControl(p.Control)
	}
	fls, closeFollowers, err := startFollowers(ctx, sup, maxN, false, func(i int) followerOpts {
		return followerOpts{ProfileKey: fmt.Sprintf("bench:sc%d", i), InstanceID: fmt.Sprintf("sc-%d", i), Provider: provs[i%np].Name,
			Subscribe: true, Ack: true, Latency: &b.lat}
	})
	defer closeFollowers()
	if err != nil {
		return err
	}
	for _, n := range o.ScalingFollowers {
		sub := fls[:n]
		threads := make([][]int64, np)
		for i, f := range sub {
			threads[i%np] = append(threads[i%np], f.thread)
		}
		base := sumReceived(sub)
		acked0 := make([]uint64, np)
		for p, ctl := range ctls {
			st, err := ctl.stats(ctx)
			if err != nil {
				return err
			}
			acked0[p] = st.Acked
			if len(threads[p]) > 0 {
				if err := ctl.inject(ctx, bench.Injection{Rate: 0, Batch: o.SatBatch, Threads: threads[p]}); err != nil {
					return err
				}
			}
		}
		sleep(ctx, o.SatWarmup)
		name := fmt.Sprintf("scaling-%d", n)
		sup.profile(name)
		rec := &recorder{}
		b.lat.Store(rec)
		s0, err := bench.ReadProc(sup.pid())
		if err != nil {
			return err
		}
		pids := map[string]int{"followers (busbench)": os.Getpid()}
		for p, ctl := range ctls {
			if st, err := ctl.stats(ctx); err == nil {
				pids[fmt.Sprintf("provider %d", p+1)] = st.PID
			}
		}
		cpu := newCPUMeter(pids)
		r0 := sumReceived(sub)
		sleep(ctx, o.SatDuration)
		r1 := sumReceived(sub)
		others := cpu.percent()
		s1, err := bench.ReadProc(sup.pid())
		if err != nil {
			return err
		}
		b.lat.Store(nil)
		sup.profile("")
		if err := b.drainAll(ctx, ctls, sub, base, acked0); err != nil {
			return err
		}
		row := scalingRow{Followers: n, Forwarded: r1 - r0, Latency: bench.Summarize(rec.samples()),
			ForwardedPerS: float64(r1-r0) / s1.At.Sub(s0.At).Seconds(), CPUPercent: bench.CPUPercent(s0, s1)}
		if r1 > r0 {
			row.CPUPerUpdate = (s1.CPU - s0.CPU) / time.Duration(r1-r0)
		}
		b.results.Scaling = append(b.results.Scaling, row)
		b.logf("   %d followers: %.1fk/s, %s supervisor CPU per update (%.0f%%), latency p50 %s p99 %s; CPU %% of one core of the others: %s", n, row.ForwardedPerS/1e3,
			row.CPUPerUpdate, row.CPUPercent, row.Latency.P50, row.Latency.P99, cpuString(others))
	}
	last := b.results.Scaling[len(b.results.Scaling)-1]
	fanout := fmt.Sprintf("raw server-stream to %d stream%s", maxN, pick(maxN == 1, "", "s"))
	if last.Followers != maxN { // the table's counts are sorted by the user
		fanout += fmt.Sprintf(" (the table's largest count; this row has %d)", last.Followers)
	}
	b.addFigure(figure{ID: fmt.Sprintf("forward_throughput_%d", last.Followers),
		Name: fmt.Sprintf("forwarded updates/s, durable, saturated, %d follower%s", last.Followers, pick(last.Followers == 1, "", "s")), Unit: unitRate,
		Chatbus: fp(last.ForwardedPerS), Samples: int(last.Forwarded), BaselineSamples: int(rawCount),
		Floor: floor{{Name: fanout, Times: 1, Value: rawN}},
		Note:  fmt.Sprintf("the scaling table's last row (%d provider-bench children, batches of %d); floor: a bare server's server-stream to %d streams, each its own connection, as fast as they take it, measured before the supervisor started", np, o.SatBatch, maxN)},
		target{RatioMin: 0.5})
	return nil
}

// drainAll is drain over several providers: pause them all, then wait
// until the followers received exactly what they acknowledged.
func (b *bencher) drainAll(ctx context.Context, ctls []*control, fls []*follower, base uint64, acked0 []uint64) error {
	for _, ctl := range ctls {
		if err := ctl.pause(ctx); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		got := sumReceived(fls) - base
		var acked uint64
		settled := true
		for p, ctl := range ctls {
			st, err := ctl.stats(ctx)
			if err != nil {
				return err
			}
			acked += st.Acked - acked0[p]
			settled = settled && st.Seen == st.Version && !st.Delivering
		}
		if settled && got >= acked {
			b.check(got == acked, "scaling, %d followers: %d updates acknowledged to the providers, %d received", len(fls), acked, got)
			return nil
		}
		if time.Now().After(deadline) {
			b.check(false, "scaling, %d followers: %d acknowledged, %d received (not settled after 90s)", len(fls), acked, got)
			return nil
		}
		sleep(ctx, 20*time.Millisecond)
	}
}

// diskUsePhase: a supervisor whose followers receive and do not ack, so
// that the journal holds every update: the state on disk at each count,
// then after they ack everything.
func (b *bencher) diskUsePhase(ctx context.Context) error {
	o := &b.opts
	dir := filepath.Join(b.root, "diskuse")
	ctlPath := filepath.Join(dir, "bench.ctl")
	spec := b.supSpec("diskuse", []provSpec{{Name: benchProvider, Binary: o.Provider, ForumChatID: benchChat - 300,
		Settings: map[string]any{"control": ctlPath}, Control: ctlPath}})
	b.logf("disk use: fresh supervisor; 4 followers that do not ack; held updates %v, then every one acked", o.DiskUseCounts)
	sup, err := b.startSupervisor(ctx, spec)
	if err != nil {
		return err
	}
	defer sup.stop()
	ctl := newControl(ctlPath)
	fls, closeFollowers, err := startFollowers(ctx, sup, 4, false, func(i int) followerOpts {
		return followerOpts{ProfileKey: fmt.Sprintf("bench:d%d", i), InstanceID: fmt.Sprintf("d-%d", i), Subscribe: true}
	})
	defer closeFollowers()
	if err != nil {
		return err
	}
	threads := make([]int64, len(fls))
	for i, f := range fls {
		threads[i] = f.thread
	}
	st0, err := ctl.stats(ctx)
	if err != nil {
		return err
	}
	measure := func(what string, held int) (diskRow, error) {
		row := diskRow{What: what, Held: held}
		var err error
		row.Files, row.Written, err = journalFiles(spec.StateDir)
		if err != nil {
			return row, err
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		resp, err := sup.admin.Admin.ListBindings(cctx, &chatbusv1.ListBindingsRequest{})
		cancel()
		if err != nil {
			return row, err
		}
		for _, bi := range resp.GetBindings() {
			row.Live += int64(bi.GetJournal().GetBytes())
		}
		b.results.DiskUse = append(b.results.DiskUse, row)
		b.logf("   %s: %d held, files %s, written %s, live %s", what, held, format(unitBytes, float64(row.Files)),
			format(unitBytes, float64(row.Written)), format(unitBytes, float64(row.Live)))
		return row, nil
	}
	var top diskRow
	for _, c := range o.DiskUseCounts {
		if err := ctl.inject(ctx, bench.Injection{Rate: 0, Batch: o.SatBatch, Threads: threads}); err != nil {
			return err
		}
		deadline := time.Now().Add(5 * time.Minute)
		for {
			st, err := ctl.stats(ctx)
			if err != nil {
				return err
			}
			if st.Acked-st0.Acked >= uint64(c) || time.Now().After(deadline) {
				break
			}
			sleep(ctx, 10*time.Millisecond)
		}
		if err := b.drain(ctx, ctl, fls, 0, st0.Acked); err != nil {
			return err
		}
		st, _ := ctl.stats(ctx)
		if top, err = measure("held", int(st.Acked-st0.Acked)); err != nil {
			return err
		}
	}
	for _, f := range fls {
		if seq := f.latest.Load(); seq > 0 {
			if err := f.f.Ack(ctx, seq); err != nil {
				return fmt.Errorf("ack: %w", err)
			}
			if err := f.f.FlushAcks(ctx); err != nil {
				return fmt.Errorf("ack: %w", err)
			}
		}
	}
	// The acks are written within a second; segments with nothing live are
	// deleted once a later checkpoint holds their state.
	var after diskRow
	deadline := time.Now().Add(30 * time.Second)
	for {
		sleep(ctx, 2*time.Second)
		files, _, err := journalFiles(spec.StateDir)
		if err != nil {
			return err
		}
		if files <= top.Files/4 || time.Now().After(deadline) {
			break
		}
	}
	if after, err = measure("after every update was acked", 0); err != nil {
		return err
	}
	b.addFigure(figure{ID: "disk_use_ratio", Name: fmt.Sprintf("state on disk, %d updates held", top.Held), Unit: unitBytes,
		Chatbus: fp(float64(top.Files)), Baseline: fp(float64(top.Live)), BaselineName: "the held (unacked) updates as stored",
		Note: fmt.Sprintf("segment files (the active one preallocated) + the bbolt file; the frames written: %s; see the disk-use table",
			format(unitBytes, float64(top.Written)))}, target{RatioMax: 2})
	b.addFigure(figure{ID: "disk_use_after_acks", Name: "state on disk after every update was acked", Unit: unitBytes,
		Chatbus: fp(float64(after.Files)), Baseline: fp(float64(top.Files)), BaselineName: "before the acks",
		Note: "space returned: segments with nothing live deleted; what stays is the active segment (preallocated) and the bbolt file"}, target{})
	b.check(true, "a bound across bindings: journal.max_total_bytes (default 1 GiB) drops the oldest updates of all bindings beyond it")
	return nil
}

// journalFiles sums the sizes of the store's files under stateDir (the
// bbolt file and the journal's segments) and what the segments hold (their
// length without the zeros preallocated after the last frame).
func journalFiles(stateDir string) (files, written int64, err error) {
	paths, _ := filepath.Glob(filepath.Join(stateDir, "*.db"))
	segs, _ := filepath.Glob(filepath.Join(stateDir, "*.journal", "*.seg"))
	for _, p := range append(paths, segs...) {
		fi, err := os.Stat(p)
		if err != nil {
			continue // deleted meanwhile
		}
		files += fi.Size()
	}
	for _, p := range segs {
		n, err := usedLength(p)
		if err != nil {
			continue
		}
		written += n
	}
	return files, written, nil
}

// usedLength is the length of path without its trailing zeros.
func usedLength(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var used, off int64
	buf := make([]byte, 1<<20)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if t := len(bytes.TrimRight(buf[:n], "\x00")); t > 0 {
				used = off + int64(t)
			}
			off += int64(n)
		}
		if err == io.EOF {
			return used, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// printTables writes the scaling and disk-use tables.
func (b *bencher) printTables(w io.Writer) {
	if rows := b.results.Scaling; len(rows) > 0 {
		fmt.Fprintf(w, "\nscaling: saturated, %s, each follower its own connection, acking\n", pick(b.results.Meta.Durable, "durable", "NOT durable ("+b.results.Meta.StateFS+")"))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "followers\tforwarded/s\tsupervisor CPU per update\tsupervisor CPU\tlatency p50\tlatency p99")
		for _, r := range rows {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%.0f %%\t%s\t%s\n", r.Followers, format(unitRate, r.ForwardedPerS), r.CPUPerUpdate.Round(100*time.Nanosecond),
				r.CPUPercent, format(unitDuration, float64(r.Latency.P50)), format(unitDuration, float64(r.Latency.P99)))
		}
		tw.Flush()
	}
	if rows := b.results.DiskUse; len(rows) > 0 {
		fmt.Fprintln(w, "\ndisk use: the store's files (journal segments, the active one preallocated, + bbolt) vs the held updates")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\tupdates held\tfiles\tframes written\tlive (held, as stored)\tfiles ÷ live")
		for _, r := range rows {
			ratio := "—"
			if r.Live > 0 {
				ratio = fmt.Sprintf("%.2f×", float64(r.Files)/float64(r.Live))
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", r.What, r.Held, format(unitBytes, float64(r.Files)), format(unitBytes, float64(r.Written)),
				format(unitBytes, float64(r.Live)), ratio)
		}
		tw.Flush()
	}
}
