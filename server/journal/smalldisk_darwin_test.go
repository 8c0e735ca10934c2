package journal

import "testing"

// smallDisk is a tmpfs mount on Linux (smalldisk_linux_test.go); macOS has
// no tmpfs to mount from a test, so the disk-full tests run on Linux only.
func smallDisk(t *testing.T, _ int) string {
	t.Helper()
	t.Skip("the disk-full tests mount a small tmpfs: Linux only")
	return ""
}
