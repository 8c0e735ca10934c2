package supervise

import "syscall"

// childAttr: its own process group. macOS has no Pdeathsig: there the
// child watches its parent itself (the provider SDK's Exec stops serving
// when the supervisor that started it exits, provider/parent_darwin.go),
// so that an orphan never keeps polling the bot token against the
// successor's child.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
