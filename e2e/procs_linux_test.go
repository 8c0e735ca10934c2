package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// processes lists the machine's processes from /proc/<pid>/stat.
func processes() []procEntry {
	ents, _ := os.ReadDir("/proc")
	var out []procEntry
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		open, closeP := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || closeP < open {
			continue
		}
		fields := strings.Fields(string(b[closeP+1:]))
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		out = append(out, procEntry{pid: pid, ppid: ppid, comm: string(b[open+1 : closeP]), zombie: fields[0] == "Z"})
	}
	return out
}
