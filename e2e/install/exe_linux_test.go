package install

import (
	"os"
	"strconv"
)

// executable is the file pid runs (/proc/<pid>/exe).
func executable(pid int) (string, error) { return os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe") }
