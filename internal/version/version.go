// Package version says which build of chatbus is running: the version and
// the commit it was built from, stamped at build time with
//
//	-ldflags "-X github.com/chatbus/chatbus/internal/version.Version=v1.2.3
//	          -X github.com/chatbus/chatbus/internal/version.Commit=<hash>"
//
// (make build, make install and make dist do), or, when a build stamped
// nothing (go build, go install pkg@version), what the Go toolchain
// recorded in the binary (runtime/debug.ReadBuildInfo): the module version
// and the VCS revision. Every binary's --version prints [String].
package version

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Version and Commit are the stamped values; "" when the build stamped
// none. Read them through [Get], which falls back to the build info.
var (
	Version string
	Commit  string
)

// Info is what a binary reports about its build.
type Info struct {
	// Version is the stamped version, else the main module's version from
	// the build info (a tag or a pseudo-version, "+dirty" when the tree was
	// modified), else "dev".
	Version string
	// Commit is the stamped commit, else the build info's vcs.revision
	// (with "-dirty" when vcs.modified), else "" (unknown: built outside a
	// repository or with -buildvcs=false).
	Commit string
}

// String is the line --version prints after the binary's name:
// "v1.2.3 (commit 0123abcd…)", or just the version when the commit is
// unknown.
func (i Info) String() string {
	if i.Commit == "" {
		return i.Version
	}
	return i.Version + " (commit " + i.Commit + ")"
}

var (
	once sync.Once
	info Info
)

// Get is this binary's build: the stamped values where set, else what
// the build info records.
func Get() Info {
	once.Do(func() {
		bi, _ := debug.ReadBuildInfo()
		info = resolve(Version, Commit, bi)
	})
	return info
}

// CobraTemplate is the version template of a cobra root command whose
// Version is [String]: "<name> <version> (commit <hash>)", the line every
// chatbus binary prints for --version.
const CobraTemplate = "{{.Name}} {{.Version}}\n"

// String is Get().String().
func String() string { return Get().String() }

// resolve prefers the stamped values and fills in what is missing from the
// build info (nil when the binary has none).
func resolve(stampedVersion, stampedCommit string, bi *debug.BuildInfo) Info {
	i := Info{Version: stampedVersion, Commit: stampedCommit}
	if bi != nil {
		if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			i.Version = bi.Main.Version
		}
		if i.Commit == "" {
			var rev string
			modified := false
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value == "true"
				}
			}
			if rev != "" && modified {
				rev += "-dirty"
			}
			i.Commit = rev
		}
	}
	if i.Version == "" {
		i.Version = "dev"
	}
	i.Version = strings.TrimSpace(i.Version)
	return i
}
