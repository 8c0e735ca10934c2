// Package version holds the build's version string, set with
// -ldflags "-X github.com/chatbus/chatbus/internal/version.Version=…".
package version

// Version is "dev" unless the build sets it.
var Version = "dev"
