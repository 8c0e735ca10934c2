package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/proc"
	"github.com/chatbus/chatbus/internal/testkit"
)

// writeConfig writes a config file and returns its path.
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// telegramSection is a providers.telegram section for the real
// provider-telegram, with extra lines appended.
func telegramSection(extra string) string {
	return fmt.Sprintf(`providers:
  telegram:
    binary: %s
    forum_chat_id: -1001234567890
    base_url: http://127.0.0.1:1
%s`, filepath.Join(binDir, "provider-telegram"), extra)
}

// TestConfigRefusedBeforeServing: a mistake in the config, the
// supervisor's keys or a provider's own settings, stops supervisord before
// it serves, with one line naming the file, the line, the key and what is
// wrong, and exit code 78 (EX_CONFIG); no socket, no provider child.
func TestConfigRefusedBeforeServing(t *testing.T) {
	const token = `    token: "123456:ABC-def"` + "\n"
	tests := []struct {
		name string
		body string
		want string // the line after "supervisord: config <path>: "
	}{
		{name: "typo in a provider setting", body: telegramSection(`    tokn: "123456:ABC-def"` + "\n"),
			want: "line 6: providers.telegram.tokn: unknown setting; did you mean token? (known: allowed_user_ids, base_url, chat_recheck, forum_chat_id, limits, poll_grace, poll_timeout, private_chat_id, token)"},
		{name: "a provider setting's name half remembered", body: telegramSection(token + "    allowed_users: [1]\n"),
			want: "line 7: providers.telegram.allowed_users: unknown setting"},
		{name: "wrong type", body: telegramSection(token + `    allowed_user_ids: "me"` + "\n"),
			want: "line 7: providers.telegram.allowed_user_ids: want a list of integers, got a string"},
		{name: "no token anywhere", body: telegramSection(""),
			want: "line 2: providers.telegram.token: missing: set token under providers.telegram or export CHATBUS_TELEGRAM_TOKEN"},
		{name: "base_url without a scheme", body: strings.Replace(telegramSection(token), "http://127.0.0.1:1", "api.telegram.org", 1),
			want: `line 5: providers.telegram.base_url: "api.telegram.org" is not an absolute http(s) URL`},
		{name: "max_followers 0", body: "max_followers: 0\n",
			want: "line 1: max_followers: 0 is out of range: at least 1 (leave it out for the default 16384)"},
		{name: "max_followers negative", body: "max_followers: -5\n", want: "line 1: max_followers: -5 is out of range"},
		{name: "journal bound negative", body: "journal:\n  max_count: -1\n",
			want: "line 2: journal.max_count: -1 is out of range: at least 1 (leave it out for the default 10000); there is no unbounded setting"},
		{name: "unknown key", body: "stale_aftr: 5s\n",
			want: "line 1: stale_aftr: unknown key; did you mean stale_after? (every key is in deploy/config.example.yaml)"},
		{name: "nested unknown key", body: "journal:\n  max_cnt: 5\n", want: "line 2: journal.max_cnt: unknown key; did you mean max_count?"},
		{name: "wrong type of a supervisor key", body: "max_followers: many\n", want: "line 1: max_followers: want an integer, got a string (many)"},
		{name: "a supervisor key in a provider section", body: telegramSection(token + "    start_limit: 0\n"),
			want: "line 7: providers.telegram.start_limit: 0 is out of range"},
		{name: "provider binary missing", body: "providers:\n  nosuch:\n    forum_chat_id: -1\n",
			want: "line 2: providers.nosuch: no provider-nosuch beside supervisord or on PATH"},
		{name: "transcriber: command and url", body: "transcriber:\n  command: [whisper-cli]\n  url: http://127.0.0.1:8080/inference\n",
			want: "line 3: transcriber.url: command and url are exclusive: name one"},
		{name: "transcriber: no such program", body: "transcriber:\n  command: [/nonexistent/whisper-cli, -f, \"{file}\"]\n",
			want: `line 2: transcriber.command: "/nonexistent/whisper-cli": no such program (install it, or name it by its full path)`},
		{name: "transcriber: a command as a string", body: "transcriber:\n  command: whisper-cli -f {file}\n",
			want: "line 2: transcriber.command: want a list of strings, got a string (whisper-cli -f {file})"},
		{name: "transcriber: an unknown format", body: "transcriber:\n  url: http://127.0.0.1:8080/inference\n  format: aiff\n",
			want: `line 3: transcriber.format: "aiff": want wav, mp3, flac or ogg (or leave it out: the file as it arrived)`},
		{name: "transcriber: neither", body: "transcriber:\n  timeout: 1m\n",
			want: `line 1: transcriber: name a command (argv, "{file}" is the audio) or a url (an OpenAI-compatible /v1/audio/transcriptions endpoint)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProfile(t)
			path := writeConfig(t, tt.body)
			d := p.start("--config", path)
			err := d.wait(t, 30*time.Second)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 78 {
				t.Fatalf("exit: %v\n%s", err, d.stderr.String())
			}
			want := "supervisord: config " + path + ": " + tt.want
			if !strings.Contains(d.stderr.String(), want) {
				t.Errorf("stderr does not say\n  %s\nit says:\n%s", want, d.stderr.String())
			}
			for _, bad := range []string{"main.", "fileConfig", "exited before its handshake", `"secret"`} {
				if strings.Contains(d.stderr.String(), bad) {
					t.Errorf("stderr mentions %q:\n%s", bad, d.stderr.String())
				}
			}
			if _, err := os.Stat(p.socket); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("socket after a refused start: %v", err)
			}
		})
	}
}

// supervisordRun runs supervisord to completion with args.
func supervisordRun(t *testing.T, p *profile, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "supervisord"), args...)
	cmd.Env = append(p.env(), env...)
	var out, errOut testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// TestCheckConfig: --check-config checks a file, and each provider's
// settings through the provider binary (Go and Python), starting nothing.
func TestCheckConfig(t *testing.T) {
	fake, err := filepath.Abs("../clients/testdata/provider-fake")
	if err != nil {
		t.Fatal(err)
	}
	fakeSection := func(extra string) string {
		return fmt.Sprintf("providers:\n  fake:\n    binary: %s\n    forum_chat_id: -100\n%s", fake, extra)
	}
	tests := []struct {
		name     string
		body     string
		env      []string
		wantCode int
		want     []string
	}{
		{name: "telegram ok", body: telegramSection(""), env: []string{"CHATBUS_TELEGRAM_TOKEN=123456:ABC-def"},
			wantCode: 0, want: []string{": ok (providers checked: telegram)"}},
		{name: "telegram typo", body: telegramSection(`    tokn: "x"` + "\n"), wantCode: 1,
			want: []string{"line 6: providers.telegram.tokn: unknown setting; did you mean token?"}},
		{name: "a file with several mistakes", body: "stale_aftr: 5s\nmax_followers: 0\n" + telegramSection(`    tokn: "x"`+"\n"), wantCode: 1,
			want: []string{"line 1: stale_aftr: unknown key", "line 8: providers.telegram.tokn: unknown setting"}},
		{name: "python provider ok", body: fakeSection("    control_dir: /tmp/x\n"), wantCode: 0, want: []string{"ok (providers checked: fake)"}},
		{name: "python provider typo", body: fakeSection("    control_dr: /tmp/x\n"), wantCode: 1,
			want: []string{"line 5: providers.fake.control_dr: unknown setting (known: control_dir, forum_chat_id)"}},
		{name: "python provider missing key", body: fakeSection(""), wantCode: 1,
			want: []string{"line 2: providers.fake.control_dir: required"}},
		{name: "cluster ok", body: telegramSection("") + "cluster:\n  name: home\n  node: laptop\n  etcd:\n    endpoints: [http://127.0.0.1:2379]\n  listen: 127.0.0.1:7440\n  tls: {ca: /c/ca.pem, cert: /c/laptop.pem, key: /c/laptop-key.pem}\n",
			env: []string{"CHATBUS_TELEGRAM_TOKEN=123456:ABC-def"}, wantCode: 0, want: []string{": ok (providers checked: telegram)"}},
		{name: "cluster incomplete", body: telegramSection("") + "cluster:\n  name: home\n  node: my laptop\n  lease_ttl: 1500ms\n  etcd:\n    max_request_bytes: 65536\n",
			env: []string{"CHATBUS_TELEGRAM_TOKEN=123456:ABC-def"}, wantCode: 1, want: []string{
				"cluster.etcd.max_request_bytes: 65536: lower than one update can be",
				"cluster.listen: required in a cluster", "cluster.tls.ca: required in a cluster", "cluster.tls.cert: required in a cluster",
				"cluster.tls.key: required in a cluster", "cluster.etcd.endpoints: required in a cluster",
				`cluster.node: "my laptop": no / or spaces`, "cluster.lease_ttl: 1.5s: whole seconds, at least 2s"}},
		{name: "cluster of two providers", body: fakeSection("    control_dir: /tmp/x\n") + "  other:\n    binary: " + fake + "\n    forum_chat_id: -101\n    control_dir: /tmp/y\n" +
			"cluster:\n  name: home\n  node: laptop\n  etcd:\n    endpoints: [http://127.0.0.1:2379]\n  listen: 127.0.0.1:7440\n  tls: {ca: /c/ca.pem, cert: /c/laptop.pem, key: /c/laptop-key.pem}\n",
			wantCode: 1, want: []string{"cluster: a cluster elects one leader per provider (bot) and runs one provider per profile; this config has 2"}},
		{name: "provider without a check mode", body: "providers:\n  x:\n    binary: /bin/false\n", wantCode: 1,
			want: []string{"providers.x: /bin/false --check refused the settings (exit status 1) without saying why (does it implement --check?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProfile(t)
			path := writeConfig(t, tt.body)
			env := append([]string{"CHATBUS_TELEGRAM_TOKEN="}, tt.env...) // the last one wins
			out, errOut, code := supervisordRun(t, p, env, "--check-config", "--config", path)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.want {
				contains(t, "--check-config output", out, w)
			}
			if n := strings.Count(out, "config "+path+": "); n != len(tt.want) && tt.wantCode == 1 {
				t.Errorf("%d problem lines, want %d:\n%s", n, len(tt.want), out)
			}
			if _, err := os.Stat(p.socket); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("--check-config made a socket: %v", err)
			}
			if _, err := os.Stat(p.state); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("--check-config made the state dir: %v", err)
			}
		})
	}
	// The example config, as shipped, is right.
	example, _ := filepath.Abs("../deploy/config.example.yaml")
	out, errOut, code := supervisordRun(t, newProfile(t), []string{"CHATBUS_TELEGRAM_TOKEN=123456:ABC-def"}, "--check-config", "--config", example)
	if code != 0 || !strings.Contains(out, "ok (providers checked: telegram)") {
		t.Errorf("--check-config of deploy/config.example.yaml: exit %d\n%s%s", code, out, errOut)
	}
	// No file at the profile's path: the defaults, and it says so.
	out, _, code = supervisordRun(t, newProfile(t), nil, "--check-config")
	if code != 0 || !strings.Contains(out, "not present; the defaults apply") {
		t.Errorf("--check-config without a file: exit %d\n%s", code, out)
	}
}

// TestProviderTelegramBinaryContract: provider-telegram --check answers
// with its exit code and one line; a start that fails says why in one
// JSON line at level error on stderr.
func TestProviderTelegramBinaryContract(t *testing.T) {
	bin := filepath.Join(binDir, "provider-telegram")
	run := func(args []string, env []string, stdin string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), append(env, "CHATBUS_TELEGRAM_TOKEN=", "GORACE=atexit_sleep_ms=0")...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut testkit.SyncBuffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), errOut.String(), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), errOut.String(), 0
	}
	const secret = `"secret":"0123456789abcdef0123456789abcdef"`
	out, errOut, code := run([]string{"--check"}, nil, `{`+secret+`,"name":"telegram","forum_chat_id":-100,"token":"1:a"}`)
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("--check of good settings: exit %d, %q %q", code, out, errOut)
	}
	out, _, code = run([]string{"--check"}, nil, `{`+secret+`,"name":"telegram","forum_chat_id":-100,"tokn":"1:a"}`)
	if code != 1 || !strings.HasPrefix(out, "tokn: unknown setting") || strings.Count(out, "\n") != 1 {
		t.Errorf("--check of a typo: exit %d, %q", code, out)
	}

	sock := filepath.Join(servertestDir(t), "p.sock")
	_, errOut, code = run(nil, []string{"CHATBUS_PROVIDER_SOCKET=" + sock, "CHATBUS_PROVIDER_NAME=telegram"},
		`{`+secret+`,"name":"telegram","forum_chat_id":-100,"tokn":"1:a"}`)
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	var rec map[string]any
	if code != 1 || json.Unmarshal([]byte(lines[len(lines)-1]), &rec) != nil {
		t.Fatalf("failed start: exit %d, stderr %q", code, errOut)
	}
	if rec["level"] != "error" || rec["provider"] != "telegram" || !strings.Contains(fmt.Sprint(rec["error"]), "tokn: unknown setting") {
		t.Errorf("fatal line %v: want level error, provider telegram, the reason", rec)
	}
}

// servertestDir is a short directory for a socket.
func servertestDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "cbp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestLogFileRotates: with --log-file the log goes to the file, rotated
// at its size bound with a bounded number of old files; nothing is
// written to stderr.
func TestLogFileRotates(t *testing.T) {
	p := newProfile(t)
	logFile := filepath.Join(t.TempDir(), "logs", "supervisord.log")
	d := p.start("--log-file", logFile, "--log-max-size", "1", "--log-max-backups", "2")
	p.waitServing(d)
	c, err := client.Dial(p.socket, client.WithSecretFile(filepath.Join(p.state, "secret")))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Each call is one debug line (~250 bytes): enough for 3 rotations.
	size := func() (total int64, files int) {
		matches, _ := filepath.Glob(filepath.Join(filepath.Dir(logFile), "*"))
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil {
				total += fi.Size()
				files++
			}
		}
		return total, files
	}
	ctx := t.Context()
	for i := 0; ; i++ {
		if _, err := c.Info(ctx); err != nil {
			t.Fatal(err)
		}
		if i%500 == 0 {
			if _, files := size(); files >= 3 {
				break
			}
			if i > 100000 {
				t.Fatal("the log never rotated")
			}
		}
	}
	for range 5000 { // and more, past the backups bound
		c.Info(ctx)
	}
	total, files := size()
	fi, err := os.Stat(logFile)
	if err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	if fi.Size() > mib || files > 3 || total > 3*mib {
		t.Errorf("log %d bytes, %d files, %d bytes in all; want at most 1 MiB, 3 files (1 + 2 backups)", fi.Size(), files, total)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
	if s := d.stderr.String(); s != "" {
		t.Errorf("stderr with --log-file:\n%.500s", s)
	}
}

// TestBusctlStartLogsToARotatedFile: busctl start has the supervisor write
// its log itself (--log-file), not through a shell redirect that grows
// without bound.
func TestBusctlStartLogsToARotatedFile(t *testing.T) {
	p := newProfile(t)
	t.Cleanup(func() { stopSupervisords(t, p.socket) })
	out, errOut, code := p.busctl("start", "--json")
	if code != 0 {
		t.Fatalf("busctl start: exit %d\n%s%s", code, out, errOut)
	}
	var res startResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	args, err := proc.Args(res.PID)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(p.state, "supervisord.log")
	if i := indexOf(args, "--log-file"); i < 0 || i+1 >= len(args) || args[i+1] != logPath {
		t.Errorf("supervisord started as %q, want --log-file %s", args, logPath)
	}
	b, _ := os.ReadFile(logPath)
	contains(t, "supervisord.log", string(b), `"message":"serving"`)
	if b, _ := os.ReadFile(filepath.Join(p.state, "supervisord.out")); len(b) != 0 {
		t.Errorf("supervisord.out holds %q; the log should be all", b)
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestEmptyStateFileIsLogged: a state file of 0 bytes is not initialised
// silently.
func TestEmptyStateFileIsLogged(t *testing.T) {
	p := newProfile(t)
	if err := os.MkdirAll(p.state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.state, "state.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d := p.start()
	p.waitServing(d)
	contains(t, "supervisord log", d.stderr.String(), "the state file is empty (0 bytes)")
	contains(t, "supervisord log", d.stderr.String(), filepath.Join(p.state, "state.db"))
}
