package e2e

import "golang.org/x/sys/unix"

// processes lists the machine's processes (the kern.proc.all sysctl).
func processes() []procEntry {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]procEntry, 0, len(kps))
	for _, kp := range kps {
		comm := make([]byte, 0, len(kp.Proc.P_comm))
		for _, c := range kp.Proc.P_comm {
			if c == 0 {
				break
			}
			comm = append(comm, byte(c))
		}
		out = append(out, procEntry{pid: int(kp.Proc.P_pid), ppid: int(kp.Eproc.Ppid), comm: string(comm), zombie: kp.Proc.P_stat == 5}) // SZOMB
	}
	return out
}
