package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// noTmpfsEnv, set to 1, lets the disk-full tests be skipped where mounting
// a tmpfs is not permitted. Without it they fail: they are the only tests
// of a real full disk.
const noTmpfsEnv = "CHATBUS_TEST_NO_TMPFS"

// smallDisk mounts a tmpfs of size bytes on a new temporary directory and
// unmounts it when the test ends.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		if os.Getenv(noTmpfsEnv) == "1" {
			t.Skipf("mount tmpfs: %v (%s=1)", err, noTmpfsEnv)
		}
		t.Fatalf("mount tmpfs on %s: %v: the disk-full tests need root (or set %s=1 to skip them)", dir, err, noTmpfsEnv)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return filepath.Join(dir, "journal")
}
