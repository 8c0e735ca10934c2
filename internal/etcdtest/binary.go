package etcdtest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// memberPkg is the etcd-member command, relative to the e2e module.
const memberPkg = "./etcd-member"

var binary struct {
	once sync.Once
	path string
	err  error
}

// Binary returns the path of the etcd-member command, built once from
// the e2e module of the repository above the working directory (a
// package directory, when tests run). A build is kept in the user's
// cache directory under the hash of its sources (the e2e module's go.mod
// and go.sum, the command's files) and the Go version, so only a change
// builds it again.
func Binary() (string, error) {
	binary.once.Do(func() { binary.path, binary.err = build() })
	return binary.path, binary.err
}

func build() (string, error) {
	mod, err := e2eModule()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	srcs, err := filepath.Glob(filepath.Join(mod, memberPkg, "*.go"))
	if err != nil {
		return "", err
	}
	for _, f := range append([]string{filepath.Join(mod, "go.mod"), filepath.Join(mod, "go.sum")}, srcs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "chatbus", "etcd-member-"+hex.EncodeToString(h.Sum(nil))[:16])
	bin := filepath.Join(dir, "etcd-member")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", "build", "-o", filepath.Join(tmp, "etcd-member"), memberPkg)
	cmd.Dir = mod
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building etcd-member in %s: %v\n%s", mod, err, out)
	}
	// A rename is atomic: a concurrent build of another test package
	// replaces the same binary with an equal one.
	if err := os.Rename(filepath.Join(tmp, "etcd-member"), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// e2eModule is the e2e directory of the repository that holds the
// working directory.
func e2eModule() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "e2e", memberPkg, "main.go")); err == nil {
			return filepath.Join(dir, "e2e"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("etcd-member: no e2e/etcd-member/main.go above the working directory")
		}
		dir = parent
	}
}
