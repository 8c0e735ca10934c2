package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's utime and stime:
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// ProcSample is one reading of a process.
type ProcSample struct {
	At time.Time
	// RSS is the resident set (VmRSS) in bytes.
	RSS int64
	// CPU is user plus system time consumed so far, at clock-tick (10 ms)
	// resolution.
	CPU time.Duration
	// Threads is the number of OS threads.
	Threads int
}

// ReadProc reads /proc/<pid>/status and /proc/<pid>/stat.
func ReadProc(pid int) (ProcSample, error) {
	s := ProcSample{At: time.Now()}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	for line := range bytes.Lines(status) {
		switch {
		case bytes.HasPrefix(line, []byte("VmRSS:")):
			f := bytes.Fields(line[len("VmRSS:"):])
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(string(f[0]), 10, 64)
				if err != nil {
					return s, fmt.Errorf("VmRSS %q: %w", line, err)
				}
				s.RSS = kb << 10
			}
		case bytes.HasPrefix(line, []byte("Threads:")):
			s.Threads, _ = strconv.Atoi(string(bytes.TrimSpace(line[len("Threads:"):])))
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, err
	}
	// The command name (field 2) may hold spaces; fields count from the
	// last ')'. utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return s, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 13 {
		return s, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	ut, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	st, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return s, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	s.CPU = time.Duration(ut+st) * time.Second / clockTicks
	return s, nil
}

// CPUPercent is the CPU used between two samples, in percent of one core.
func CPUPercent(a, b ProcSample) float64 {
	wall := b.At.Sub(a.At)
	if wall <= 0 {
		return 0
	}
	return 100 * float64(b.CPU-a.CPU) / float64(wall)
}

// SystemSample is one reading of /proc/stat's aggregate cpu line.
type SystemSample struct {
	At   time.Time
	Busy time.Duration // all CPUs: user, nice, system, irq, softirq, steal
	Idle time.Duration // all CPUs: idle, iowait
}

// ReadSystem reads /proc/stat.
func ReadSystem() (SystemSample, error) {
	s := SystemSample{At: time.Now()}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s, err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 9 || string(f[0]) != "cpu" {
		return s, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var v [8]int64
	for i := range v {
		if v[i], err = strconv.ParseInt(string(f[i+1]), 10, 64); err != nil {
			return s, fmt.Errorf("/proc/stat: %w", err)
		}
	}
	tick := func(n int64) time.Duration { return time.Duration(n) * time.Second / clockTicks }
	s.Busy = tick(v[0] + v[1] + v[2] + v[5] + v[6] + v[7])
	s.Idle = tick(v[3] + v[4])
	return s, nil
}

// BusyCores is how many cores were busy on average between two samples.
func BusyCores(a, b SystemSample) float64 {
	wall := b.At.Sub(a.At)
	if wall <= 0 {
		return 0
	}
	return float64(b.Busy-a.Busy) / float64(wall)
}
