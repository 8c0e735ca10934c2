// Package e2e runs the real binaries (supervisord, busctl) as child
// processes against real sockets and state dirs.
package e2e
