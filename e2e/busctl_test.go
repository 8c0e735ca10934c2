package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chatbus/chatbus/internal/testkit"
)

// TestBusctlFreshRun: docs/busctl.md's commands on a fresh supervisor (no
// provider configured: the playground runs) answer what is true, with its
// exit codes.
func TestBusctlFreshRun(t *testing.T) {
	p := newProfile(t)
	d := p.start()
	p.waitServing(d)
	tests := []struct {
		args     []string
		wantCode int
		want     string
	}{
		{args: []string{"updates", "manual:1234"}, wantCode: 5,
			want: "busctl: no binding for manual:1234 yet: a follower registering with that profile key makes one (busctl bindings lists them)"},
		{args: []string{"doctor", "restart", "telegram"}, wantCode: 5,
			// The playground runs by default: it is what is configured.
			want: "busctl: no provider named telegram is configured (configured: playground; providers are configured under providers: in " +
				filepath.Join(p.home, ".config", "chatbus", "default.yaml") + ", see deploy/config.example.yaml)"},
		{args: []string{"doctor", "prepare", "telegram"}, wantCode: 5, want: "no provider named telegram is configured"},
		{args: []string{"doctor", "status", "telegram"}, wantCode: 5, want: "no provider named telegram is configured"},
		{args: []string{"statuss"}, wantCode: 2, want: `unknown command "statuss"`},
		{args: []string{"doctor", "restrat", "telegram"}, wantCode: 2, want: `unknown command "restrat" for "busctl doctor"`},
		{args: []string{"status", "--bogus"}, wantCode: 2, want: "unknown flag: --bogus"},
		{args: []string{"updates"}, wantCode: 2, want: "name a binding"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := p.busctl(tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d: %s", code, tt.wantCode, errOut)
			}
			contains(t, "stderr", errOut, tt.want)
		})
	}

	// status and paths name the same config file, and say it is absent.
	cfgPath, _, _ := p.busctl("paths", "config")
	cfgPath = strings.TrimSpace(cfgPath)
	out, _, code := p.busctl("status", "--json")
	var st struct {
		Config       string `json:"config"`
		ConfigExists *bool  `json:"config_exists"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if st.Config != cfgPath || st.ConfigExists == nil || *st.ConfigExists {
		t.Errorf("status --json config %q exists %v; busctl paths says %q, which does not exist", st.Config, st.ConfigExists, cfgPath)
	}
	out, _, _ = p.busctl("status")
	contains(t, "status", out, cfgPath+"  (not present: the defaults apply)")
}

// TestBusctlAnotherUsersSupervisor: busctl run by another uid is told the
// socket is not its to use, and by whom it is owned, with exit 4 (not
// "not running", exit 3).
func TestBusctlAnotherUsersSupervisor(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatal("this test switches uid: it runs as root (as the project's CI does)")
	}
	p := newProfile(t)
	d := p.start()
	p.waitServing(d)
	// A copy of busctl that uid 65534 may run.
	dir, err := os.MkdirTemp("", "cbu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "busctl")
	testkit.CopyFile(t, filepath.Join(binDir, "busctl"), bin, 0o755)

	for _, args := range [][]string{{"status"}, {"followers"}, {"status", "--json"}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = p.env()
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		var out, errOut testkit.SyncBuffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 4 {
			t.Errorf("busctl %v as uid 65534: %v, want exit 4\n%s", args, err, errOut.String())
		}
		contains(t, "stderr", errOut.String(), "permission denied on the socket "+p.socket+" (owned by uid 0")
		if strings.Contains(errOut.String(), "not running") {
			t.Errorf("busctl %v says not running:\n%s", args, errOut.String())
		}
	}
}
