// Package dist tests `make dist`: it runs the real Makefile twice for the
// platform it runs on (linux/amd64 in CI; make check-dist does every
// platform, the second time with an empty build cache), compares the
// archives byte for byte, and runs the README's quick start from the
// archive unpacked into an empty directory with a PATH that has no Go. On a
// Mac it is the first thing to run: it builds the darwin archive and runs
// it there.
package dist

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/dist"
	"github.com/chatbus/chatbus/internal/testkit"
)

const (
	version = "v0.0.0-e2e"
	// noGoPath is the quick start's PATH: the system's tools, no Go.
	noGoPath = "/usr/bin:/bin"
)

// host is the platform the test runs on, the one it builds.
var host = dist.Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "Makefile")); err != nil {
		t.Fatalf("no Makefile at the repository root: %v", err)
	}
	return root
}

// makeDist runs make dist for platform into dir and returns its output.
func makeDist(t *testing.T, root, dir, commit string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "-C", root, "dist",
		"DIST_PLATFORMS="+host.String(), "DIST_DIR="+dir, "VERSION="+version, "COMMIT="+commit)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	}
	return string(out)
}

func TestDist(t *testing.T) {
	root := repoRoot(t)
	commit := strings.Repeat("c0ffee", 6) + "abcd"
	epoch, err := exec.Command("git", "-C", root, "log", "-1", "--format=%ct").Output()
	if err != nil {
		t.Fatalf("git log: %v", err)
	}
	wantTime, err := strconv.ParseInt(strings.TrimSpace(string(epoch)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	a, b := t.TempDir(), t.TempDir()
	makeDist(t, root, a, commit)
	makeDist(t, root, b, commit)

	name := dist.ArchiveName(version, host)
	if got := dirNames(t, a); !slices.Equal(got, []string{"SHA256SUMS", name}) {
		t.Fatalf("make dist wrote %v", got)
	}
	for _, f := range []string{name, "SHA256SUMS"} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two builds (%d and %d bytes)", f, len(x), len(y))
		}
	}
	archive, err := os.ReadFile(filepath.Join(a, name))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(archive)
	sums, _ := os.ReadFile(filepath.Join(a, "SHA256SUMS"))
	if want := hex.EncodeToString(sum[:]) + "  " + name + "\n"; string(sums) != want {
		t.Errorf("SHA256SUMS:\n%s\nwant:\n%s", sums, want)
	}

	t.Run("contents", func(t *testing.T) {
		checkContents(t, root, archive, time.Unix(wantTime, 0))
	})
	t.Run("quick start without Go", func(t *testing.T) {
		quickStart(t, root, a, name, commit)
	})
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// shipped are the ./cmd tools an archive carries: all but the benchmark
// tools and the release builder.
func shipped(t *testing.T, root string) []string {
	t.Helper()
	mains, err := filepath.Glob(filepath.Join(root, "cmd", "*", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range mains {
		if name := filepath.Base(filepath.Dir(m)); !slices.Contains([]string{"busbench", "provider-bench", "mkdist"}, name) {
			out = append(out, name)
		}
	}
	return out
}

// checkContents reads the archive: the gzip header has no time and no
// name; every entry is under one top directory, in name order, 0:0 without
// names, at the commit's time, 0755 or 0644; the binaries are static
// executables; the text files are the repository's.
func checkContents(t *testing.T, root string, archive []byte, epoch time.Time) {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" || zr.Comment != "" {
		t.Errorf("gzip header: time %v, name %q, comment %q", zr.ModTime, zr.Name, zr.Comment)
	}
	top := strings.TrimSuffix(dist.ArchiveName(version, host), ".tar.gz") + "/"
	want := []string{top, top + "INSTALL", top + "LICENSE", top + "THIRD_PARTY_LICENSES", top + "bin/"}
	for _, c := range shipped(t, root) {
		want = append(want, top+"bin/"+c)
	}
	// The files the archive carries from the repository, by their path in it.
	fromRepo := map[string]string{"config.example.yaml": "deploy/config.example.yaml", "INSTALL": "deploy/dist/INSTALL." + host.OS}
	switch host.OS {
	case "linux":
		fromRepo["systemd/supervisord@.service"] = "deploy/systemd/supervisord@.service"
		want = append(want, top+"systemd/")
	case "darwin":
		fromRepo["launchd/supervisord.plist"] = "deploy/launchd/supervisord.plist"
		want = append(want, top+"launchd/")
	}
	for f := range fromRepo {
		if f != "INSTALL" {
			want = append(want, top+f)
		}
	}
	slices.Sort(want)

	var names []string
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || !h.ModTime.Equal(epoch) || len(h.PAXRecords) != 0 {
			t.Errorf("%s: owner %d:%d (%q:%q), time %v (want %v), PAX %v", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime, epoch, h.PAXRecords)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(h.Name, top)
		switch {
		case h.Typeflag == tar.TypeDir || strings.HasPrefix(rel, "bin/"):
			if h.Mode != 0o755 {
				t.Errorf("%s: mode %o, want 755", h.Name, h.Mode)
			}
		default:
			if h.Mode != 0o644 {
				t.Errorf("%s: mode %o, want 644", h.Name, h.Mode)
			}
		}
		if strings.HasPrefix(rel, "bin/") && h.Typeflag == tar.TypeReg {
			if err := dist.CheckBinary(host, data); err != nil {
				t.Errorf("%s: %v", h.Name, err)
			}
		}
		if repo, ok := fromRepo[rel]; ok {
			if b, _ := os.ReadFile(filepath.Join(root, repo)); !bytes.Equal(b, data) {
				t.Errorf("%s is not %s", h.Name, repo)
			}
		}
		if rel == "THIRD_PARTY_LICENSES" {
			for _, mod := range []string{"Go standard library and runtime", "google.golang.org/grpc", "go.etcd.io/bbolt", "github.com/spf13/cobra"} {
				if !bytes.Contains(data, []byte("\n"+mod+" ")) {
					t.Errorf("THIRD_PARTY_LICENSES has no entry for %s", mod)
				}
			}
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("archive entries:\n  %s\nwant:\n  %s", strings.Join(names, "\n  "), strings.Join(want, "\n  "))
	}
}

// quickStart is the README's path without Go: check SHA256SUMS, unpack,
// run supervisord (the default profile: the playground), reach it with
// busctl, start a follower with busctl follow, write to its room on the
// chat page and see the message come out of the follower, and its answer
// on the page.
func quickStart(t *testing.T, root, distDir, archive, commit string) {
	for _, d := range filepath.SplitList(noGoPath) {
		if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
			t.Fatalf("%s has go: the quick start must run without it", d)
		}
	}
	home := t.TempDir()
	run, err := os.MkdirTemp("", "cb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	// A login shell's environment, nothing of this test's (no GOROOT, no
	// CHATBUS_*).
	env := []string{"PATH=" + noGoPath, "HOME=" + home, "XDG_RUNTIME_DIR=" + run, "LANG=C.UTF-8"}
	shell := func(dir, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	// The README's lines: the archive and SHA256SUMS downloaded (copied
	// into an empty directory), checked, unpacked.
	dl := t.TempDir()
	for _, f := range []string{archive, "SHA256SUMS"} {
		testkit.CopyFile(t, filepath.Join(distDir, f), filepath.Join(dl, f), 0o644)
	}
	env = append(env, "v="+version, "p="+host.OS+"-"+host.Arch)
	pick, unpack := `grep " chatbus-$v-$p.tar.gz\$" SHA256SUMS | `, `tar -xzf chatbus-$v-$p.tar.gz && cd chatbus-$v-$p`
	sum := "sha256sum -c"
	if host.OS == "darwin" {
		sum = "shasum -a 256 -c" // the README's macOS variant
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{pick + "sha256sum -c", unpack, "bin/supervisord ", "bin/busctl follow "} {
		if !bytes.Contains(readme, []byte("\n"+line)) {
			t.Errorf("the README's quick start has no line %q", line)
		}
	}
	if out := shell(dl, "/bin/sh", "-c", pick+sum); !strings.Contains(out, archive+": OK") {
		t.Fatalf("checking SHA256SUMS: %s", out)
	}
	shell(dl, "/bin/sh", "-c", unpack)
	dir := filepath.Join(dl, strings.TrimSuffix(archive, ".tar.gz"))
	bin := filepath.Join(dir, "bin")

	for _, name := range dirNames(t, bin) {
		want := fmt.Sprintf("%s %s (commit %s)\n", name, version, commit)
		if got := shell(dir, filepath.Join(bin, name), "--version"); got != want {
			t.Errorf("%s --version = %q, want %q", name, got, want)
		}
	}

	// supervisord in the foreground, the default profile.
	logs := &testkit.SyncBuffer{}
	d := exec.Command(filepath.Join(bin, "supervisord"))
	d.Dir, d.Env, d.Stderr = dir, env, logs
	sup := testkit.Start(t, d, "supervisord log", logs)
	pageURL := loggedURL(t, logs, sup, "playground chat page: open ")
	if out := shell(dir, filepath.Join(bin, "busctl"), "status"); !strings.Contains(out, "default") {
		t.Errorf("busctl status:\n%s", out)
	}

	// A follower in another shell, in a project directory.
	project := filepath.Join(home, "myproject")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	fl := exec.Command(filepath.Join(bin, "busctl"), "follow")
	fl.Dir, fl.Env = project, env
	flErr := &testkit.SyncBuffer{}
	fl.Stderr = flErr
	stdin, err := fl.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := fl.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	testkit.Start(t, fl, "busctl follow's stderr", flErr)
	lines := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	next := func(typ string) map[string]any {
		t.Helper()
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("busctl follow ended; wanted a %s line", typ)
				}
				if m["type"] == typ {
					return m
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("no %s line from busctl follow in 30s", typ)
			}
		}
	}
	reg := next("registered")
	thread, _ := reg["binding"].(map[string]any)["target"].(map[string]any)["thread"].(string)
	room, err := strconv.ParseInt(thread, 10, 64)
	if err != nil {
		t.Fatalf("registered %v: thread %q", reg, thread)
	}

	// A person on the chat page writes in the follower's room; the
	// follower answers.
	p := openPage(t, pageURL)
	p.post(t, fmt.Sprintf("/api/rooms/%d/messages", room), map[string]string{"client_id": "qs-1", "text": "hello from the page"})
	if u := next("update"); u["text"] != "hello from the page" {
		t.Fatalf("update %v", u)
	}
	if _, err := io.WriteString(stdin, "hello from the follower\n"); err != nil {
		t.Fatal(err)
	}
	next("result")
	var h struct {
		Messages []struct{ From, Text string }
	}
	p.get(t, fmt.Sprintf("/api/rooms/%d/messages", room), &h)
	if n := len(h.Messages); n != 2 || h.Messages[0].Text != "hello from the page" || h.Messages[1].From != "bot" || h.Messages[1].Text != "hello from the follower" {
		t.Errorf("the room's messages: %+v", h.Messages)
	}

	if err := d.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sup.Done():
		if err := sup.Err(); err != nil {
			t.Errorf("supervisord stopped with %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Error("supervisord still running 15s after SIGTERM")
	}
}

// loggedURL waits for the log line that says to open a URL.
func loggedURL(t *testing.T, logs *testkit.SyncBuffer, sup *testkit.Process, prefix string) string {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(prefix) + `(http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]+)`)
	var url string
	testkit.Eventually(t, "the line "+prefix+"URL in the log", func() bool {
		if m := re.FindStringSubmatch(logs.String()); m != nil {
			url = m[1]
			return true
		}
		if testkit.Closed(sup.Done()) {
			t.Fatalf("supervisord exited: %v", sup.Err())
		}
		return false
	})
	return url
}

// page is a browser on the playground's chat page: the cookie the page's
// token sets, and its origin on each POST.
type page struct {
	c      *http.Client
	origin string
}

func openPage(t *testing.T, pageURL string) *page {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	t.Cleanup(c.CloseIdleConnections)
	resp, err := c.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("opening the chat page: %s", resp.Status)
	}
	u, _ := url.Parse(pageURL)
	return &page{c: c, origin: u.Scheme + "://" + u.Host}
}

func (p *page) post(t *testing.T, path string, v any) {
	t.Helper()
	body, _ := json.Marshal(v)
	req, _ := http.NewRequest(http.MethodPost, p.origin+path, bytes.NewReader(body))
	req.Header.Set("Origin", p.origin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("POST %s: %s %s", path, resp.Status, out)
	}
}

func (p *page) get(t *testing.T, path string, v any) {
	t.Helper()
	resp, err := p.c.Get(p.origin + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}
